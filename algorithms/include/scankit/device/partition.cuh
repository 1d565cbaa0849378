// Stable partition, template API for nvcc users, in one pass over the input.
//
//   scankit::device::partition_if(d_in, d_out, d_count, n, pred, stream);
//       d_out[0 .. count)  the selected items (pred true), in input order
//       d_out[count .. n)  the rejected items, in REVERSE input order (the last rejected item
//                          first): a single pass fills them from the back of the array, since
//                          where the selected part ends is known only at the end. This is also
//                          what cub::DevicePartition::If does.
//   scankit::device::partition_if(d_in, d_selected, d_rejected, d_count, n, pred, stream);
//       d_selected[0 .. count) the selected items, d_rejected[0 .. n - count) the rejected ones,
//       both in input order (stable both ways).
//
// *d_count = the number of selected items. Outputs may not overlap the input or each other (no
// in place: the rejected items would overwrite input not yet read); bad arguments throw
// scankit::error before anything is enqueued. Conventions as in select.cuh.
#pragma once

#include <cstdint>

#include "scankit/device/select.cuh"

namespace scankit::device {

namespace compact_detail {

template <class P, class T>
void check_partition(const char* function, const T* in, const T* out, std::int64_t n, const compact_options& options) {
  device_detail::check_compact_common<P>(function, n, options);
  detail::check_pointer(function, "in", in, n);
  detail::check_pointer(function, "out", out, n);
  detail::check_disjoint(function, detail::extent("in", in, n, sizeof(T)), detail::extent("out", out, n, sizeof(T)));
}

template <class P, class T>
void check_partition_copy(const char* function, const T* in, const T* selected, const T* rejected, std::int64_t n,
                          const compact_options& options) {
  device_detail::check_compact_common<P>(function, n, options);
  detail::check_pointer(function, "in", in, n);
  detail::check_pointer(function, "out_selected", selected, n);
  detail::check_pointer(function, "out_rejected", rejected, n);
  const detail::array_extent a = detail::extent("in", in, n, sizeof(T));
  const detail::array_extent s = detail::extent("out_selected", selected, n, sizeof(T));
  const detail::array_extent r = detail::extent("out_rejected", rejected, n, sizeof(T));
  detail::check_disjoint(function, a, s);
  detail::check_disjoint(function, a, r);
  detail::check_disjoint(function, s, r);
}

}  // namespace compact_detail

template <class Policy = tuned, class T, class Pred>
void partition_if(const T* in, T* out, std::int64_t* d_count, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                  workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::partition_if";
  using P = compact_detail::partition_plan<Policy, T, Pred>;
  compact_detail::check_partition<P>(function, in, out, n, options);
  device_detail::check_count_target(function, d_count,
                                    {detail::extent("in", in, n, sizeof(T)), detail::extent("out", out, n, sizeof(T))});
  device_detail::run_compaction<P>(device_detail::predicate_source<T, Pred>{in, pred},
                                   device_detail::partition_sink<T>{out}, n, d_count, false, stream, ws, options);
}

template <class Policy = tuned, class T, class Pred>
void partition_if(const T* in, T* out_selected, T* out_rejected, std::int64_t* d_count, std::int64_t n, Pred pred,
                  cudaStream_t stream = nullptr, workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::partition_if";
  using P = compact_detail::partition_plan<Policy, T, Pred>;
  compact_detail::check_partition_copy<P>(function, in, out_selected, out_rejected, n, options);
  device_detail::check_count_target(function, d_count,
                                    {detail::extent("in", in, n, sizeof(T)),
                                     detail::extent("out_selected", out_selected, n, sizeof(T)),
                                     detail::extent("out_rejected", out_rejected, n, sizeof(T))});
  device_detail::run_compaction<P>(device_detail::predicate_source<T, Pred>{in, pred},
                                   device_detail::partition_copy_sink<T>{out_selected, out_rejected}, n, d_count, false,
                                   stream, ws, options);
}

// The same, returning the selected count to the host. These synchronise: they wait for `stream`.
template <class Policy = tuned, class T, class Pred>
std::int64_t partition_if_count_host(const T* in, T* out, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                                     workspace* ws = nullptr, const compact_options& options = {}) {
  compact_detail::check_partition<compact_detail::partition_plan<Policy, T, Pred>>("scankit::partition_if_count_host",
                                                                                   in, out, n, options);
  return detail::count_to_host(stream, [&](std::int64_t* d_count) {
    partition_if<Policy>(in, out, d_count, n, pred, stream, ws, options);
  });
}

template <class Policy = tuned, class T, class Pred>
std::int64_t partition_if_count_host(const T* in, T* out_selected, T* out_rejected, std::int64_t n, Pred pred,
                                     cudaStream_t stream = nullptr, workspace* ws = nullptr,
                                     const compact_options& options = {}) {
  compact_detail::check_partition_copy<compact_detail::partition_plan<Policy, T, Pred>>(
      "scankit::partition_if_count_host", in, out_selected, out_rejected, n, options);
  return detail::count_to_host(stream, [&](std::int64_t* d_count) {
    partition_if<Policy>(in, out_selected, out_rejected, d_count, n, pred, stream, ws, options);
  });
}

}  // namespace scankit::device
