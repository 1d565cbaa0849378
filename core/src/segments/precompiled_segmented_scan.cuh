// Shared by the per-type translation units of the precompiled segmented scans: maps the run-time
// operator onto the template API (scankit/device/segmented_scan.cuh). Unsigned keys run as the
// signed keys of the same width: equality of bits is the same either way, and it halves the
// instantiations.
#pragma once

#include <string>

#include "scankit/device/segmented_scan.cuh"
#include "scankit/segmented_scan.hpp"

namespace scankit::precompiled {

// Calls fn(op) with the functor of plus, maximum or minimum.
template <class Fn>
void with_operator(const char* function, scan_op op, Fn&& fn) {
  switch (op) {
    case scan_op::plus: return fn(plus_op{});
    case scan_op::maximum: return fn(maximum_op{});
    case scan_op::minimum: return fn(minimum_op{});
    default:
      throw error(std::string(function) + ": operator " + to_string(op) +
                  " is not precompiled for segmented scans (plus, maximum, minimum are); use "
                  "scankit/device/segmented_scan.cuh");
  }
}

template <class T>
void by_flags(const char* function, const T* values, const std::uint8_t* flags, T* out, device_detail::item_count n,
              bool exclusive,
              T init, scan_op op, cudaStream_t stream, workspace* ws) {
  with_operator(function, op, [&](auto functor) {
    if (exclusive) {
      device::exclusive_segmented_scan<device::tuned, T>(values, flags, out, n, init, functor, stream, ws);
    } else {
      device::inclusive_segmented_scan<device::tuned, T>(values, flags, out, n, functor, stream, ws);
    }
  });
}

template <class T, class K>
void by_key(const char* function, const K* keys, const T* values, T* out, device_detail::item_count n, bool exclusive,
            T init, scan_op op, cudaStream_t stream, workspace* ws) {
  using signed_key = std::make_signed_t<K>;
  const auto* k = reinterpret_cast<const signed_key*>(keys);
  with_operator(function, op, [&](auto functor) {
    if (exclusive) {
      device::exclusive_scan_by_key<device::tuned, T>(k, values, out, n, init, functor, equal_to_op{}, stream, ws);
    } else {
      device::inclusive_scan_by_key<device::tuned, T>(k, values, out, n, functor, equal_to_op{}, stream, ws);
    }
  });
}

}  // namespace scankit::precompiled

#define SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN_BY_KEY(T, K)                                                 \
  void inclusive_scan_by_key(const K* keys, const T* values, T* out, std::int64_t n, scan_op op,               \
                             cudaStream_t stream, workspace* ws) {                                             \
    precompiled::by_key<T>("scankit::inclusive_scan_by_key", keys, values, out, n, false, T{}, op,             \
                                     stream, ws);                                                              \
  }                                                                                                            \
  void inclusive_scan_by_key(const K* keys, const T* values, T* out, device_n n, scan_op op,                   \
                             cudaStream_t stream, workspace* ws) {                                             \
    precompiled::by_key<T>("scankit::inclusive_scan_by_key", keys, values, out, n, false, T{}, op,             \
                                     stream, ws);                                                              \
  }                                                                                                            \
  void exclusive_scan_by_key(const K* keys, const T* values, T* out, std::int64_t n, T init, scan_op op,       \
                             cudaStream_t stream, workspace* ws) {                                             \
    precompiled::by_key<T>("scankit::exclusive_scan_by_key", keys, values, out, n, true, init, op,             \
                                     stream, ws);                                                              \
  }                                                                                                            \
  void exclusive_scan_by_key(const K* keys, const T* values, T* out, device_n n, T init, scan_op op,           \
                             cudaStream_t stream, workspace* ws) {                                             \
    precompiled::by_key<T>("scankit::exclusive_scan_by_key", keys, values, out, n, true, init, op,             \
                                     stream, ws);                                                              \
  }

#define SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN(T)                                                           \
  namespace scankit {                                                                                          \
  void inclusive_segmented_scan(const T* values, const std::uint8_t* head_flags, T* out, std::int64_t n,       \
                                scan_op op, cudaStream_t stream, workspace* ws) {                              \
    precompiled::by_flags<T>("scankit::inclusive_segmented_scan", values, head_flags, out, n, false,           \
                                       T{}, op, stream, ws);                                                   \
  }                                                                                                            \
  void inclusive_segmented_scan(const T* values, const std::uint8_t* head_flags, T* out, device_n n,           \
                                scan_op op, cudaStream_t stream, workspace* ws) {                              \
    precompiled::by_flags<T>("scankit::inclusive_segmented_scan", values, head_flags, out, n, false,           \
                                       T{}, op, stream, ws);                                                   \
  }                                                                                                            \
  void exclusive_segmented_scan(const T* values, const std::uint8_t* head_flags, T* out, std::int64_t n,       \
                                T init, scan_op op, cudaStream_t stream, workspace* ws) {                      \
    precompiled::by_flags<T>("scankit::exclusive_segmented_scan", values, head_flags, out, n, true,            \
                                       init, op, stream, ws);                                                  \
  }                                                                                                            \
  void exclusive_segmented_scan(const T* values, const std::uint8_t* head_flags, T* out, device_n n,           \
                                T init, scan_op op, cudaStream_t stream, workspace* ws) {                      \
    precompiled::by_flags<T>("scankit::exclusive_segmented_scan", values, head_flags, out, n, true,            \
                                       init, op, stream, ws);                                                  \
  }                                                                                                            \
  SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN_BY_KEY(T, std::int32_t)                                            \
  SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN_BY_KEY(T, std::uint32_t)                                           \
  SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN_BY_KEY(T, std::int64_t)                                            \
  SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN_BY_KEY(T, std::uint64_t)                                           \
  std::size_t segmented_scan_workspace_bytes(const T*, std::int64_t n) { /* the most of any form */            \
    const std::size_t by_key = device::segmented_scan_workspace_bytes<T, std::int64_t>(n);                     \
    const std::size_t by_offsets = device::segmented_by_offsets_workspace_bytes<T>(n);                         \
    return by_key > by_offsets ? by_key : by_offsets;                                                          \
  }                                                                                                            \
  }
