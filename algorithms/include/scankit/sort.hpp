// Radix sort of device arrays: the precompiled host API (callable from g++-compiled code).
//
//   sort_keys(keys_in, keys_out, n)                 out of place; keys_in is only read
//   sort_keys(double_buffer<K>& keys, n)            in the caller's two buffers; keys.current()
//                                                   holds the result; workspace O(tiles), not O(n)
//   sort_pairs(keys_in, keys_out, values_in, values_out, n), and the double-buffer form
//   argsort(keys_in, keys_out, indices_out, n)      the permutation (int32 or int64 indices) that
//                                                   sorts the keys; keys_out may be null
//   *_workspace_bytes(...)                          bytes of workspace the same call needs; its
//                                                   pointers are type tags and are not read, but
//                                                   for argsort's keys_out: null there (the sorted
//                                                   keys then live in the workspace) needs more, so
//                                                   pass it as the call will
//
// Stable least-significant-digit radix sort, 8 bits per pass: equal keys keep their input order
// (also descending). Integers sort by value; floating-point keys by float_order::total by default
// (-0.0 == +0.0, every NaN after +inf) or by raw_bits (as cub::DeviceRadixSort); see
// scankit/sort_key_order.hpp. options.begin_bit / end_bit sort by a bit range of the ordered bits
// only. Strategies: onesweep (one read of the keys for every digit's histogram, then one pass per
// digit whose tiles find their output offsets with a per-digit decoupled look-back) and
// reduce_then_scan (per digit: counts of every tile, the engine's scan, scatter). The default,
// automatic, is onesweep, except for out-of-place keys-only sorts of 2^16 or more 8- and 16-bit
// integer keys (half and bfloat16 in the raw-bit order) over every bit: those are counting sorts,
// which count every key value and write each one's run (equal keys are then the same bits).
//
// Pointers are device pointers; n is a 64-bit count, or a scankit::device_n (a count in device
// memory with a host bound, read when the sort runs; it takes the radix sort's onesweep passes,
// never the counting sort or reduce_then_scan; device_n.hpp); work is enqueued on `stream` without
// synchronising. A negative n, a null array with n > 0, arrays that overlap, or a bit range
// outside the key throws scankit::error before anything is enqueued; CUDA failures throw
// scankit::cuda_error. With ws == nullptr temporary storage is taken and returned stream-ordered.
//
// Precompiled: keys int8..int64, uint8..uint64, float, double, __half, __nv_bfloat16; values
// int32, uint32, float, int64, uint64, double; argsort indices int32 (n < 2^31) and int64. Other
// key types (with a bit-key functor) and values of 1 to 16 bytes: scankit/device/sort.cuh.
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

#define SCANKIT_SORT_TAIL cudaStream_t stream = nullptr, workspace *ws = nullptr, const sort_options &options = {}

#define SCANKIT_DECLARE_SORT_KEYS(K)                                                                             \
  void sort_keys(const K* keys_in, K* keys_out, std::int64_t n, SCANKIT_SORT_TAIL);                              \
  void sort_keys(const K* keys_in, K* keys_out, device_n n, SCANKIT_SORT_TAIL);                                  \
  void sort_keys(double_buffer<K>& keys, std::int64_t n, SCANKIT_SORT_TAIL);                                     \
  void sort_keys(double_buffer<K>& keys, device_n n, SCANKIT_SORT_TAIL);                                         \
  std::size_t sort_keys_workspace_bytes(const K* keys_in, std::int64_t n, const sort_options& options = {});     \
  std::size_t sort_keys_workspace_bytes(const double_buffer<K>& keys, std::int64_t n, const sort_options& options = {});

#define SCANKIT_DECLARE_SORT_PAIRS(K, V)                                                                         \
  void sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,              \
                  SCANKIT_SORT_TAIL);                                                                            \
  void sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, device_n n,                  \
                  SCANKIT_SORT_TAIL);                                                                            \
  void sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, SCANKIT_SORT_TAIL);          \
  void sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, device_n n, SCANKIT_SORT_TAIL);              \
  std::size_t sort_pairs_workspace_bytes(const K* keys_in, const V* values_in, std::int64_t n,                   \
                                         const sort_options& options = {});                                      \
  std::size_t sort_pairs_workspace_bytes(const double_buffer<K>& keys, const double_buffer<V>& values,           \
                                         std::int64_t n, const sort_options& options = {});

#define SCANKIT_DECLARE_ARGSORT(K, I)                                                                            \
  void argsort(const K* keys_in, K* keys_out, I* indices_out, std::int64_t n, SCANKIT_SORT_TAIL);                \
  void argsort(const K* keys_in, K* keys_out, I* indices_out, device_n n, SCANKIT_SORT_TAIL);                    \
  std::size_t argsort_workspace_bytes(const K* keys_in, const K* keys_out, const I* indices_out, std::int64_t n, \
                                      const sort_options& options = {});

#define SCANKIT_DECLARE_SORT_FOR_KEY(K)                                                                          \
  SCANKIT_DECLARE_SORT_KEYS(K)                                                                                   \
  SCANKIT_DECLARE_SORT_PAIRS(K, std::int32_t)                                                                    \
  SCANKIT_DECLARE_SORT_PAIRS(K, std::uint32_t)                                                                   \
  SCANKIT_DECLARE_SORT_PAIRS(K, float)                                                                           \
  SCANKIT_DECLARE_SORT_PAIRS(K, std::int64_t)                                                                    \
  SCANKIT_DECLARE_SORT_PAIRS(K, std::uint64_t)                                                                   \
  SCANKIT_DECLARE_SORT_PAIRS(K, double)                                                                          \
  SCANKIT_DECLARE_ARGSORT(K, std::int32_t)                                                                       \
  SCANKIT_DECLARE_ARGSORT(K, std::int64_t)

SCANKIT_DECLARE_SORT_FOR_KEY(std::int8_t)
SCANKIT_DECLARE_SORT_FOR_KEY(std::uint8_t)
SCANKIT_DECLARE_SORT_FOR_KEY(std::int16_t)
SCANKIT_DECLARE_SORT_FOR_KEY(std::uint16_t)
SCANKIT_DECLARE_SORT_FOR_KEY(std::int32_t)
SCANKIT_DECLARE_SORT_FOR_KEY(std::uint32_t)
SCANKIT_DECLARE_SORT_FOR_KEY(std::int64_t)
SCANKIT_DECLARE_SORT_FOR_KEY(std::uint64_t)
SCANKIT_DECLARE_SORT_FOR_KEY(float)
SCANKIT_DECLARE_SORT_FOR_KEY(double)
SCANKIT_DECLARE_SORT_FOR_KEY(__half)
SCANKIT_DECLARE_SORT_FOR_KEY(__nv_bfloat16)

#undef SCANKIT_DECLARE_SORT_FOR_KEY
#undef SCANKIT_DECLARE_ARGSORT
#undef SCANKIT_DECLARE_SORT_PAIRS
#undef SCANKIT_DECLARE_SORT_KEYS
#undef SCANKIT_SORT_TAIL

}  // namespace scankit
