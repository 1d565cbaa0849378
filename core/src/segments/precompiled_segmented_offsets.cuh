// Shared by the per-type translation units of the precompiled segmented scans and reductions by
// offsets: maps the run-time operator onto the template API (scankit/device/segmented_scan.cuh,
// scankit/device/segmented_reduce.cuh).
#pragma once

#include <limits>
#include <type_traits>

#include "precompiled_segmented_scan.cuh"
#include "scankit/device/segmented_reduce.cuh"
#include "scankit/segmented_reduce.hpp"

namespace scankit::precompiled {

// What an empty segment gives without an explicit value: the operator's identity.
template <class T>
T identity_of(scan_op op) {
  constexpr bool floating = std::is_floating_point_v<T>;
  switch (op) {
    case scan_op::maximum: return floating ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    case scan_op::minimum: return floating ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
    default: return T{};
  }
}

template <class T, class O>
void by_offsets(const char* function, const T* values, const O* offsets, device_detail::item_count num_segments,
                T* out, device_detail::item_count n, bool exclusive, T init, scan_op op, cudaStream_t stream,
                workspace* ws) {
  with_operator(function, op, [&](auto functor) {
    if (exclusive) {
      device::exclusive_segmented_scan_by_offsets<device::tuned, T>(values, offsets, num_segments, out, n, init,
                                                                    functor, stream, ws);
    } else {
      device::inclusive_segmented_scan_by_offsets<device::tuned, T>(values, offsets, num_segments, out, n, functor,
                                                                    stream, ws);
    }
  });
}

template <class T, class O>
void reduce_by_offsets(const T* values, const O* offsets, device_detail::item_count num_segments, T* out,
                       device_detail::item_count n, T empty_value, scan_op op, cudaStream_t stream, workspace* ws) {
  with_operator("scankit::segmented_reduce", op, [&](auto functor) {
    device::segmented_reduce<device::tuned, T>(values, offsets, num_segments, out, n, functor, empty_value, stream, ws);
  });
}

}  // namespace scankit::precompiled

// Count is std::int64_t or device_n (for both the segments and the items).
#define SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS_COUNTED(T, O, Count)                                      \
  void inclusive_segmented_scan_by_offsets(const T* values, const O* offsets, Count num_segments, T* out,         \
                                           Count n, scan_op op, cudaStream_t stream, workspace* ws) {             \
    precompiled::by_offsets<T>("scankit::inclusive_segmented_scan_by_offsets", values, offsets,         \
                                         num_segments, out, n, false, T{}, op, stream, ws);                       \
  }                                                                                                               \
  void exclusive_segmented_scan_by_offsets(const T* values, const O* offsets, Count num_segments, T* out,         \
                                           Count n, T init, scan_op op, cudaStream_t stream,                      \
                                           workspace* ws) {                                                       \
    precompiled::by_offsets<T>("scankit::exclusive_segmented_scan_by_offsets", values, offsets,         \
                                         num_segments, out, n, true, init, op, stream, ws);                       \
  }                                                                                                               \
  void segmented_reduce(const T* values, const O* offsets, Count num_segments, T* out, Count n, scan_op op,      \
                        cudaStream_t stream, workspace* ws) {                                                     \
    precompiled::reduce_by_offsets(values, offsets, num_segments, out, n,                              \
                                             precompiled::identity_of<T>(op), op, stream, ws);          \
  }                                                                                                               \
  void segmented_reduce(const T* values, const O* offsets, Count num_segments, T* out, Count n, T empty_value,    \
                        scan_op op, cudaStream_t stream, workspace* ws) {                                         \
    precompiled::reduce_by_offsets(values, offsets, num_segments, out, n, empty_value, op, stream, ws);  \
  }

#define SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS_FOR(T, O)                                                 \
  SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS_COUNTED(T, O, std::int64_t)                                     \
  SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS_COUNTED(T, O, device_n)

#define SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS(T)                                                        \
  namespace scankit {                                                                                             \
  SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS_FOR(T, std::int32_t)                                            \
  SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS_FOR(T, std::int64_t)                                            \
  std::size_t segmented_reduce_workspace_bytes(const T*, std::int64_t n) {                                        \
    return device::segmented_by_offsets_workspace_bytes<T>(n);                                                    \
  }                                                                                                               \
  }
