// Segmented scans over device arrays: the precompiled host API (callable from g++-compiled code).
// A segmented scan restarts at the start of every segment.
//
//   By head flags: item i starts a segment when head_flags[i] != 0 (item 0 always does).
//     inclusive_segmented_scan: out[i] = values[h] op ... op values[i], h the head of i's segment
//     exclusive_segmented_scan: out[h] = init; out[i] = init op values[h] op ... op values[i - 1]
//   By key (as thrust::inclusive_scan_by_key): segments are the runs of equal keys.
//     inclusive_scan_by_key / exclusive_scan_by_key, with the same results per run.
//   By offsets (CSR row offsets, 32- or 64-bit): num_segments + 1 non-decreasing positions in
//   [0, n]; segment s is [offsets[s], offsets[s + 1]), and an item starts a segment when its index
//   is an offset (item 0 always does).
//     inclusive_segmented_scan_by_offsets / exclusive_segmented_scan_by_offsets
//   The offsets are not checked on the device: out-of-order offsets give wrong segments (never an
//   access out of bounds). Per-segment totals: scankit/segmented_reduce.hpp.
//
// Values: int32, int64, float, double; operators: scan_op::plus, maximum, minimum (the others, user
// types, operators, key comparisons and iterators: scankit/device/segmented_scan.cuh, nvcc).
// Keys: 32- and 64-bit integers, compared for equality of their bits.
// NaN: maximum and minimum compare with < (a < b ? b : a, as thrust::maximum and CUB's Max), which
// is not associative once a NaN takes part; a segment holding a NaN gives a NaN or one of its other
// values, and which one may change with the size, the GPU and from run to run. Filter NaN out first
// where it matters (or take scankit::arg_max / arg_min, where a NaN beats every number).
// Pointers are device pointers; `n` is a 64-bit count or a scankit::device_n (a count in device
// memory with a host bound; device_n.hpp; by offsets, num_segments and n are then both device
// counts, and offsets holds the segments' bound + 1 positions); work is enqueued on `stream` and the call
// returns without synchronising. `out == values` (in place) is allowed; any other overlap, with
// the values, the flags or the keys, is rejected. Bad arguments throw scankit::error before
// anything is enqueued; CUDA failures throw scankit::cuda_error. With `ws == nullptr` temporary
// storage is taken and returned stream-ordered; a scankit::workspace reuses it across calls.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_DECLARE_SEGMENTED_SCAN_BY_KEY(T, K)                                                               \
  void inclusive_scan_by_key(const K* keys, const T* values, T* out, std::int64_t n, scan_op op = scan_op::plus,  \
                             cudaStream_t stream = nullptr, workspace* ws = nullptr);                             \
  void inclusive_scan_by_key(const K* keys, const T* values, T* out, device_n n, scan_op op = scan_op::plus,      \
                             cudaStream_t stream = nullptr, workspace* ws = nullptr);                             \
  void exclusive_scan_by_key(const K* keys, const T* values, T* out, std::int64_t n, T init,                      \
                             scan_op op = scan_op::plus, cudaStream_t stream = nullptr, workspace* ws = nullptr); \
  void exclusive_scan_by_key(const K* keys, const T* values, T* out, device_n n, T init,                          \
                             scan_op op = scan_op::plus, cudaStream_t stream = nullptr, workspace* ws = nullptr);

#define SCANKIT_DECLARE_SEGMENTED_SCAN_BY_OFFSETS(T, O)                                                           \
  void inclusive_segmented_scan_by_offsets(const T* values, const O* offsets, std::int64_t num_segments, T* out,  \
                                           std::int64_t n, scan_op op = scan_op::plus, cudaStream_t stream = nullptr, \
                                           workspace* ws = nullptr);                                              \
  void exclusive_segmented_scan_by_offsets(const T* values, const O* offsets, std::int64_t num_segments, T* out,  \
                                           std::int64_t n, T init, scan_op op = scan_op::plus,                    \
                                           cudaStream_t stream = nullptr, workspace* ws = nullptr);               \
  void inclusive_segmented_scan_by_offsets(const T* values, const O* offsets, device_n num_segments, T* out,      \
                                           device_n n, scan_op op = scan_op::plus, cudaStream_t stream = nullptr, \
                                           workspace* ws = nullptr);                                              \
  void exclusive_segmented_scan_by_offsets(const T* values, const O* offsets, device_n num_segments, T* out,      \
                                           device_n n, T init, scan_op op = scan_op::plus,                        \
                                           cudaStream_t stream = nullptr, workspace* ws = nullptr);

#define SCANKIT_DECLARE_SEGMENTED_SCAN(T)                                                                         \
  void inclusive_segmented_scan(const T* values, const std::uint8_t* head_flags, T* out, std::int64_t n,          \
                                scan_op op = scan_op::plus, cudaStream_t stream = nullptr, workspace* ws = nullptr); \
  void inclusive_segmented_scan(const T* values, const std::uint8_t* head_flags, T* out, device_n n,              \
                                scan_op op = scan_op::plus, cudaStream_t stream = nullptr, workspace* ws = nullptr); \
  void exclusive_segmented_scan(const T* values, const std::uint8_t* head_flags, T* out, std::int64_t n, T init,  \
                                scan_op op = scan_op::plus, cudaStream_t stream = nullptr, workspace* ws = nullptr); \
  void exclusive_segmented_scan(const T* values, const std::uint8_t* head_flags, T* out, device_n n, T init,      \
                                scan_op op = scan_op::plus, cudaStream_t stream = nullptr, workspace* ws = nullptr); \
  SCANKIT_DECLARE_SEGMENTED_SCAN_BY_KEY(T, std::int32_t)                                                          \
  SCANKIT_DECLARE_SEGMENTED_SCAN_BY_KEY(T, std::uint32_t)                                                         \
  SCANKIT_DECLARE_SEGMENTED_SCAN_BY_KEY(T, std::int64_t)                                                          \
  SCANKIT_DECLARE_SEGMENTED_SCAN_BY_KEY(T, std::uint64_t)                                                         \
  SCANKIT_DECLARE_SEGMENTED_SCAN_BY_OFFSETS(T, std::int32_t)                                                      \
  SCANKIT_DECLARE_SEGMENTED_SCAN_BY_OFFSETS(T, std::int64_t)                                                      \
  /* Bytes of workspace any segmented scan of n values of T needs (0 when it needs none). */                      \
  std::size_t segmented_scan_workspace_bytes(const T* /*type tag*/, std::int64_t n);

SCANKIT_DECLARE_SEGMENTED_SCAN(std::int32_t)
SCANKIT_DECLARE_SEGMENTED_SCAN(std::int64_t)
SCANKIT_DECLARE_SEGMENTED_SCAN(float)
SCANKIT_DECLARE_SEGMENTED_SCAN(double)

#undef SCANKIT_DECLARE_SEGMENTED_SCAN
#undef SCANKIT_DECLARE_SEGMENTED_SCAN_BY_KEY
#undef SCANKIT_DECLARE_SEGMENTED_SCAN_BY_OFFSETS

}  // namespace scankit
