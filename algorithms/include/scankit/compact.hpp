// Stream compaction on device arrays: the precompiled host API (callable from g++-compiled code).
//
//   select_flagged     keep in[i] where flags[i] != 0
//   select_if          keep the items a built-in predicate accepts (keep_in_range, keep_not_nan)
//   select_by_stencil  keep in[i] where the predicate accepts stencil[i] (e.g. the rows of a table
//                      whose value column is in range)
//   partition_if       selected items first, then the rejected ones (one array: rejected in
//                      REVERSE input order; two arrays: both in input order)
//   unique             drop consecutive duplicates (operator==); unique_by_key keeps the values
//                      of the kept keys
//
// All are stable (kept items keep their input order) and run in a single pass over the input with
// the scan engine's decoupled look-back; options.strategy = three_step runs the textbook flags /
// exclusive scan / scatter version instead. Pointers are device pointers; `n` is a 64-bit count
// (beyond 2^32 too), or a scankit::device_n (a count in device memory, such as an earlier call's
// d_count, with a host bound; single pass only; device_n.hpp); work is enqueued on `stream` without
// synchronising. The number of selected items is written to device memory at `d_count` (never null;
// 0 for n == 0). Each function has a `*_count_host` variant that returns the count instead: it
// SYNCHRONISES, waiting for `stream` to finish. out == in (in place) is allowed for select and
// unique; partition outputs may not overlap the input or each other; any partial overlap, a
// negative n, a null pointer with n > 0 or a null d_count throws scankit::error before anything is
// enqueued; CUDA failures throw scankit::cuda_error. With `ws == nullptr` temporary storage is
// taken and returned stream-ordered (default_resource()); pass a scankit::workspace to reuse it
// across calls.
//
// Precompiled: select_flagged for 1-, 2-, 4-, 8- and 16-byte items (every integer type, float,
// double, item16) with uint8_t or bool flags; select_if with keep_in_range for int32, uint32,
// int64, uint64, float, double and keep_not_nan for float, double; select_by_stencil for 4- and
// 8-byte items with a float or double stencil and keep_in_range; partition_if with keep_in_range
// for uint32 and float; unique for int32, uint32, int64, uint64, float, double; unique_by_key for
// 32-bit integer keys with 4-byte values and 64-bit integer keys with 8-byte values. Other types,
// predicates and equalities: scankit/device/select.cuh, partition.cuh, unique.cuh (nvcc).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/compact_options.hpp"
#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_COMPACT_TAIL cudaStream_t stream = nullptr, workspace *ws = nullptr, const compact_options &options = {}

// ---- select_flagged -------------------------------------------------------------------------
#define SCANKIT_DECLARE_SELECT_FLAGGED(T, F)                                                                   \
  void select_flagged(const T* in, const F* flags, T* out, std::int64_t* d_count, std::int64_t n,              \
                      SCANKIT_COMPACT_TAIL);                                                                   \
  void select_flagged(const T* in, const F* flags, T* out, std::int64_t* d_count, device_n n,                  \
                      SCANKIT_COMPACT_TAIL);                                                                   \
  std::int64_t select_flagged_count_host(const T* in, const F* flags, T* out, std::int64_t n, SCANKIT_COMPACT_TAIL);
#define SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(T)                                                                 \
  SCANKIT_DECLARE_SELECT_FLAGGED(T, std::uint8_t) SCANKIT_DECLARE_SELECT_FLAGGED(T, bool)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(std::int8_t)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(std::uint8_t)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(std::int16_t)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(std::uint16_t)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(std::int32_t)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(std::uint32_t)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(std::int64_t)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(std::uint64_t)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(float)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(double)
SCANKIT_DECLARE_SELECT_FLAGGED_BOTH(item16)
#undef SCANKIT_DECLARE_SELECT_FLAGGED_BOTH
#undef SCANKIT_DECLARE_SELECT_FLAGGED

// ---- select_if ------------------------------------------------------------------------------
#define SCANKIT_DECLARE_SELECT_IF(T, P)                                                                        \
  void select_if(const T* in, T* out, std::int64_t* d_count, std::int64_t n, P<T> pred, SCANKIT_COMPACT_TAIL); \
  void select_if(const T* in, T* out, std::int64_t* d_count, device_n n, P<T> pred, SCANKIT_COMPACT_TAIL);     \
  std::int64_t select_if_count_host(const T* in, T* out, std::int64_t n, P<T> pred, SCANKIT_COMPACT_TAIL);
SCANKIT_DECLARE_SELECT_IF(std::int32_t, keep_in_range)
SCANKIT_DECLARE_SELECT_IF(std::uint32_t, keep_in_range)
SCANKIT_DECLARE_SELECT_IF(std::int64_t, keep_in_range)
SCANKIT_DECLARE_SELECT_IF(std::uint64_t, keep_in_range)
SCANKIT_DECLARE_SELECT_IF(float, keep_in_range)
SCANKIT_DECLARE_SELECT_IF(double, keep_in_range)
SCANKIT_DECLARE_SELECT_IF(float, keep_not_nan)
SCANKIT_DECLARE_SELECT_IF(double, keep_not_nan)
#undef SCANKIT_DECLARE_SELECT_IF

// ---- select_by_stencil ----------------------------------------------------------------------
#define SCANKIT_DECLARE_SELECT_BY_STENCIL(T, S)                                                                \
  void select_by_stencil(const T* in, const S* stencil, T* out, std::int64_t* d_count, std::int64_t n,         \
                         keep_in_range<S> pred, SCANKIT_COMPACT_TAIL);                                         \
  void select_by_stencil(const T* in, const S* stencil, T* out, std::int64_t* d_count, device_n n,             \
                         keep_in_range<S> pred, SCANKIT_COMPACT_TAIL);                                         \
  std::int64_t select_by_stencil_count_host(const T* in, const S* stencil, T* out, std::int64_t n,             \
                                            keep_in_range<S> pred, SCANKIT_COMPACT_TAIL);
#define SCANKIT_DECLARE_SELECT_BY_STENCIL_BOTH(T)                                                              \
  SCANKIT_DECLARE_SELECT_BY_STENCIL(T, float) SCANKIT_DECLARE_SELECT_BY_STENCIL(T, double)
SCANKIT_DECLARE_SELECT_BY_STENCIL_BOTH(std::int32_t)
SCANKIT_DECLARE_SELECT_BY_STENCIL_BOTH(std::uint32_t)
SCANKIT_DECLARE_SELECT_BY_STENCIL_BOTH(float)
SCANKIT_DECLARE_SELECT_BY_STENCIL_BOTH(std::int64_t)
SCANKIT_DECLARE_SELECT_BY_STENCIL_BOTH(std::uint64_t)
SCANKIT_DECLARE_SELECT_BY_STENCIL_BOTH(double)
#undef SCANKIT_DECLARE_SELECT_BY_STENCIL_BOTH
#undef SCANKIT_DECLARE_SELECT_BY_STENCIL

// ---- partition_if ---------------------------------------------------------------------------
#define SCANKIT_DECLARE_PARTITION_IF(T)                                                                        \
  void partition_if(const T* in, T* out, std::int64_t* d_count, std::int64_t n, keep_in_range<T> pred,         \
                    SCANKIT_COMPACT_TAIL);                                                                     \
  void partition_if(const T* in, T* out, std::int64_t* d_count, device_n n, keep_in_range<T> pred,             \
                    SCANKIT_COMPACT_TAIL);                                                                     \
  void partition_if(const T* in, T* out_selected, T* out_rejected, std::int64_t* d_count, std::int64_t n,      \
                    keep_in_range<T> pred, SCANKIT_COMPACT_TAIL);                                              \
  void partition_if(const T* in, T* out_selected, T* out_rejected, std::int64_t* d_count, device_n n,          \
                    keep_in_range<T> pred, SCANKIT_COMPACT_TAIL);                                              \
  std::int64_t partition_if_count_host(const T* in, T* out, std::int64_t n, keep_in_range<T> pred,             \
                                       SCANKIT_COMPACT_TAIL);                                                  \
  std::int64_t partition_if_count_host(const T* in, T* out_selected, T* out_rejected, std::int64_t n,          \
                                       keep_in_range<T> pred, SCANKIT_COMPACT_TAIL);
SCANKIT_DECLARE_PARTITION_IF(std::uint32_t)
SCANKIT_DECLARE_PARTITION_IF(float)
#undef SCANKIT_DECLARE_PARTITION_IF

// ---- unique, unique_by_key ------------------------------------------------------------------
#define SCANKIT_DECLARE_UNIQUE(T)                                                                              \
  void unique(const T* in, T* out, std::int64_t* d_count, std::int64_t n, SCANKIT_COMPACT_TAIL);               \
  void unique(const T* in, T* out, std::int64_t* d_count, device_n n, SCANKIT_COMPACT_TAIL);                   \
  std::int64_t unique_count_host(const T* in, T* out, std::int64_t n, SCANKIT_COMPACT_TAIL);
SCANKIT_DECLARE_UNIQUE(std::int32_t)
SCANKIT_DECLARE_UNIQUE(std::uint32_t)
SCANKIT_DECLARE_UNIQUE(std::int64_t)
SCANKIT_DECLARE_UNIQUE(std::uint64_t)
SCANKIT_DECLARE_UNIQUE(float)
SCANKIT_DECLARE_UNIQUE(double)
#undef SCANKIT_DECLARE_UNIQUE

#define SCANKIT_DECLARE_UNIQUE_BY_KEY(K, V)                                                                    \
  void unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t* d_count,  \
                     std::int64_t n, SCANKIT_COMPACT_TAIL);                                                    \
  void unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t* d_count,  \
                     device_n n, SCANKIT_COMPACT_TAIL);                                                        \
  std::int64_t unique_by_key_count_host(const K* keys_in, const V* values_in, K* keys_out, V* values_out,      \
                                        std::int64_t n, SCANKIT_COMPACT_TAIL);
#define SCANKIT_DECLARE_UNIQUE_BY_KEY_32(K)                                                                    \
  SCANKIT_DECLARE_UNIQUE_BY_KEY(K, std::int32_t) SCANKIT_DECLARE_UNIQUE_BY_KEY(K, std::uint32_t) SCANKIT_DECLARE_UNIQUE_BY_KEY(K, float)
#define SCANKIT_DECLARE_UNIQUE_BY_KEY_64(K)                                                                    \
  SCANKIT_DECLARE_UNIQUE_BY_KEY(K, std::int64_t) SCANKIT_DECLARE_UNIQUE_BY_KEY(K, std::uint64_t) SCANKIT_DECLARE_UNIQUE_BY_KEY(K, double)
SCANKIT_DECLARE_UNIQUE_BY_KEY_32(std::int32_t)
SCANKIT_DECLARE_UNIQUE_BY_KEY_32(std::uint32_t)
SCANKIT_DECLARE_UNIQUE_BY_KEY_64(std::int64_t)
SCANKIT_DECLARE_UNIQUE_BY_KEY_64(std::uint64_t)
#undef SCANKIT_DECLARE_UNIQUE_BY_KEY_32
#undef SCANKIT_DECLARE_UNIQUE_BY_KEY_64
#undef SCANKIT_DECLARE_UNIQUE_BY_KEY

#undef SCANKIT_COMPACT_TAIL

// Bytes of workspace any of the calls above needs for n items of `item_bytes` (with a stencil,
// flag or value array of `extra_bytes` per item, 0 if none), in place included; 0 if none. For
// callers who allocate the workspace themselves: scankit::workspace(ptr, bytes).
std::size_t compact_workspace_bytes(std::int64_t n, std::size_t item_bytes, std::size_t extra_bytes = 0,
                                    const compact_options& options = {});

}  // namespace scankit
