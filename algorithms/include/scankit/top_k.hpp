// Top-k of rows or segments: the precompiled host API (callable from g++-compiled code).
//
//   top_k(keys, rows, cols, k, values_out, indices_out)      a row-major rows x cols matrix
//   top_k_segments(keys, n, offsets, num_segments, k, ...)   segments by CSR offsets (int32, int64)
//   select_k(...), select_k_segments(...)                    the same sets, in no particular order
//   top_k_workspace_bytes(...), top_k_segments_workspace_bytes(...)
//
// Row r's result fills slots [r * k, (r + 1) * k) of values_out (may be null) and indices_out
// (positions in the row; may be null): its k largest keys (options.largest = false: smallest),
// in order, equal keys by index, smaller first: the same result on every run and GPU. Keys rank
// as the radix sort orders them (floats by options.floats: NaN above +inf by default). Slots past
// a row's items get index -1 and a zero key. Per-row k: options.k_per_row.
//
// rows / num_segments may be a scankit::device_n (a count in device memory with a host bound;
// device_n.hpp) when k <= 2048: rows past the count are neither read nor written.
//
// Pointers are device pointers; work is enqueued on `stream` without synchronising. Bad counts,
// null or overlapping arrays, and rows too long for the index type throw scankit::error before
// anything is enqueued; offsets are device data and not checked (non-decreasing within [0, n]).
// Rows are read once for k <= 2048; larger k sorts all keys twice. See docs/sort.md.
//
// Precompiled: keys float, double, __half, __nv_bfloat16, int32, uint32, int64, uint64; indices
// int32 and int64. Other key types: scankit/device/top_k.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/top_k_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_TOP_K_TAIL cudaStream_t stream = nullptr, workspace *ws = nullptr, const top_k_options &options = {}

#define SCANKIT_DECLARE_TOP_K(K, I)                                                                                \
  void top_k(const K* keys, std::int64_t rows, std::int64_t cols, std::int64_t k, K* values_out, I* indices_out,   \
             SCANKIT_TOP_K_TAIL);                                                                                  \
  void top_k_segments(const K* keys, std::int64_t n, const std::int32_t* offsets, std::int64_t num_segments,       \
                      std::int64_t k, K* values_out, I* indices_out, SCANKIT_TOP_K_TAIL);                          \
  void top_k_segments(const K* keys, std::int64_t n, const std::int64_t* offsets, std::int64_t num_segments,       \
                      std::int64_t k, K* values_out, I* indices_out, SCANKIT_TOP_K_TAIL);                          \
  void top_k(const K* keys, device_n rows, std::int64_t cols, std::int64_t k, K* values_out, I* indices_out,       \
             SCANKIT_TOP_K_TAIL);                                                                                  \
  void top_k_segments(const K* keys, std::int64_t n, const std::int32_t* offsets, device_n num_segments,           \
                      std::int64_t k, K* values_out, I* indices_out, SCANKIT_TOP_K_TAIL);                          \
  void top_k_segments(const K* keys, std::int64_t n, const std::int64_t* offsets, device_n num_segments,           \
                      std::int64_t k, K* values_out, I* indices_out, SCANKIT_TOP_K_TAIL);

#define SCANKIT_DECLARE_TOP_K_FOR_KEY(K)                                                                         \
  SCANKIT_DECLARE_TOP_K(K, std::int32_t)                                                                         \
  SCANKIT_DECLARE_TOP_K(K, std::int64_t)                                                                         \
  std::size_t top_k_workspace_bytes(const K* keys, std::int64_t rows, std::int64_t cols, std::int64_t k);        \
  std::size_t top_k_segments_workspace_bytes(const K* keys, std::int64_t n, std::int64_t num_segments,           \
                                             std::int64_t k);

SCANKIT_DECLARE_TOP_K_FOR_KEY(float)
SCANKIT_DECLARE_TOP_K_FOR_KEY(double)
SCANKIT_DECLARE_TOP_K_FOR_KEY(__half)
SCANKIT_DECLARE_TOP_K_FOR_KEY(__nv_bfloat16)
SCANKIT_DECLARE_TOP_K_FOR_KEY(std::int32_t)
SCANKIT_DECLARE_TOP_K_FOR_KEY(std::uint32_t)
SCANKIT_DECLARE_TOP_K_FOR_KEY(std::int64_t)
SCANKIT_DECLARE_TOP_K_FOR_KEY(std::uint64_t)

#undef SCANKIT_DECLARE_TOP_K_FOR_KEY
#undef SCANKIT_DECLARE_TOP_K
#undef SCANKIT_TOP_K_TAIL

// The same sets as top_k / top_k_segments, in an unspecified order (may differ between runs).
template <class K, class I>
void select_k(const K* keys, std::int64_t rows, std::int64_t cols, std::int64_t k, K* values_out, I* indices_out,
              cudaStream_t stream = nullptr, workspace* ws = nullptr, top_k_options options = {}) {
  options.sorted = false;
  top_k(keys, rows, cols, k, values_out, indices_out, stream, ws, options);
}

template <class K, class O, class I>
void select_k_segments(const K* keys, std::int64_t n, const O* offsets, std::int64_t num_segments, std::int64_t k,
                       K* values_out, I* indices_out, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                       top_k_options options = {}) {
  options.sorted = false;
  top_k_segments(keys, n, offsets, num_segments, k, values_out, indices_out, stream, ws, options);
}

}  // namespace scankit
