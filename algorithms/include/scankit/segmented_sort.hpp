// Segmented sort of device arrays: the precompiled host API (callable from g++). Many arrays
// sorted at once, each on its own.
//
//   segmented_sort_keys(keys_in, keys_out, n, offsets, num_segments)
//   segmented_sort_keys(double_buffer<K>& keys, n, offsets, num_segments)
//   segmented_sort_pairs(keys_in, keys_out, values_in, values_out, n, offsets, num_segments),
//   and its double-buffer form
//   segmented_sort_keys_workspace_bytes(keys_in, n, num_segments, double_buffered)
//   segmented_sort_pairs_workspace_bytes(keys_in, values_in, n, num_segments, double_buffered)
//
// Segment s is [offsets[s], offsets[s + 1]) of the n items: num_segments + 1 int32 or int64 CSR
// offsets in device memory; segments may be empty and may hold more than 2^31 items (int64
// offsets). Each segment is sorted as sort_keys / sort_pairs sorts (scankit/sort.hpp): stable,
// ascending or descending, the same key orders and bit ranges (options.strategy is not used).
//
// Out of place, keys_in is only read and items outside every segment are not written. The
// double-buffer form takes no O(n) workspace: on return keys.current() (and values.current())
// holds every segment sorted, and its items outside every segment are unspecified.
//
// The call picks a path per segment from its size (one thread, one block of five shapes, or the
// device-wide sort), after reading the counts of each size class back: one synchronisation of
// `stream`. Offsets that decrease or leave [0, n], a negative count, null or overlapping arrays, or
// a bit range outside the key throw scankit::error before any output is written; CUDA failures
// throw scankit::cuda_error. With ws == nullptr temporary storage is taken and returned
// stream-ordered; the *_workspace_bytes queries give what a wrapped workspace needs at most.
//
// Counts in device memory (scankit::device_n, device_n.hpp), out of place: n and num_segments may
// each come from an earlier step on the GPU, with host bounds (the arrays hold n.bound items and
// num_segments.bound + 1 offsets). Nothing is read back, so the call never waits and can be
// captured in a CUDA graph. The offsets cannot be checked before the outputs are written: each
// counted segment is clamped into [0, count of n] (its end to at least its begin) instead, so bad
// offsets never make an access outside the arrays (overlapping segments give unspecified items).
// Segments above a block's tile are sorted together: their items gathered into one buffer, two
// stable device-wide sorts (by key, then by segment), and a scatter back. Temporary memory, taken
// stream-ordered: 16 bytes per segment of the bound, and when the bounds allow a segment above a
// block's tile, 2 x sizeof(K) + 8 bytes per item of the bound (20 for 2-byte keys); ws serves the
// device-wide sorts (the out-of-place *_workspace_bytes queries cover them: wrapped memory of that
// size serves both forms). n.bound must be below 2^32. No double-buffer form.
//
// Precompiled: keys float, double, __half, __nv_bfloat16, int32, uint32, int64; values
// int32, uint32, float, int64, uint64, double. Other key types and values of 1 to 16 bytes:
// scankit/device/segmented_sort.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/double_buffer.hpp"
#include "scankit/error.hpp"
#include "scankit/sort_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_SEGMENTED_SORT_TAIL cudaStream_t stream = nullptr, workspace *ws = nullptr, const sort_options &options = {}

#define SCANKIT_DECLARE_SEGMENTED_SORT_KEYS(K, O)                                                                 \
  void segmented_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, const O* offsets, std::int64_t num_segments, \
                           SCANKIT_SEGMENTED_SORT_TAIL);                                                          \
  void segmented_sort_keys(double_buffer<K>& keys, std::int64_t n, const O* offsets, std::int64_t num_segments,      \
                           SCANKIT_SEGMENTED_SORT_TAIL);                                                          \
  void segmented_sort_keys(const K* keys_in, K* keys_out, device_n n, const O* offsets, device_n num_segments,      \
                           SCANKIT_SEGMENTED_SORT_TAIL);

#define SCANKIT_DECLARE_SEGMENTED_SORT_PAIRS(K, V, O)                                                              \
  void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,       \
                            const O* offsets, std::int64_t num_segments, SCANKIT_SEGMENTED_SORT_TAIL);            \
  void segmented_sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, const O* offsets,     \
                            std::int64_t num_segments, SCANKIT_SEGMENTED_SORT_TAIL);                              \
  void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, device_n n,           \
                            const O* offsets, device_n num_segments, SCANKIT_SEGMENTED_SORT_TAIL);

#define SCANKIT_DECLARE_SEGMENTED_SORT_WITH_VALUE(K, V)                                                           \
  SCANKIT_DECLARE_SEGMENTED_SORT_PAIRS(K, V, std::int32_t)                                                        \
  SCANKIT_DECLARE_SEGMENTED_SORT_PAIRS(K, V, std::int64_t)                                                        \
  std::size_t segmented_sort_pairs_workspace_bytes(const K* keys_in, const V* values_in, std::int64_t n,           \
                                                   std::int64_t num_segments, bool double_buffered = false,       \
                                                   const sort_options& options = {});

#define SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY(K)                                                                  \
  SCANKIT_DECLARE_SEGMENTED_SORT_KEYS(K, std::int32_t)                                                             \
  SCANKIT_DECLARE_SEGMENTED_SORT_KEYS(K, std::int64_t)                                                             \
  std::size_t segmented_sort_keys_workspace_bytes(const K* keys_in, std::int64_t n, std::int64_t num_segments,     \
                                                  bool double_buffered = false, const sort_options& options = {}); \
  SCANKIT_DECLARE_SEGMENTED_SORT_WITH_VALUE(K, std::int32_t)                                                       \
  SCANKIT_DECLARE_SEGMENTED_SORT_WITH_VALUE(K, std::uint32_t)                                                      \
  SCANKIT_DECLARE_SEGMENTED_SORT_WITH_VALUE(K, float)                                                              \
  SCANKIT_DECLARE_SEGMENTED_SORT_WITH_VALUE(K, std::int64_t)                                                       \
  SCANKIT_DECLARE_SEGMENTED_SORT_WITH_VALUE(K, std::uint64_t)                                                      \
  SCANKIT_DECLARE_SEGMENTED_SORT_WITH_VALUE(K, double)

SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY(float)
SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY(double)
SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY(__half)
SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY(__nv_bfloat16)
SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY(std::int32_t)
SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY(std::uint32_t)
SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY(std::int64_t)

#undef SCANKIT_DECLARE_SEGMENTED_SORT_FOR_KEY
#undef SCANKIT_DECLARE_SEGMENTED_SORT_WITH_VALUE
#undef SCANKIT_DECLARE_SEGMENTED_SORT_PAIRS
#undef SCANKIT_DECLARE_SEGMENTED_SORT_KEYS
#undef SCANKIT_SEGMENTED_SORT_TAIL

}  // namespace scankit
