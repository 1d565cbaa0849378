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
// scankit::error before anything is enqueued. Conventions, and iterators (in: any input iterator;
// outputs: any output iterator), as in select.cuh; partition always runs the register kernel.
#pragma once

#include <cstdint>

#include "scankit/device/select.cuh"

namespace scankit::device {

}  // namespace scankit::device

namespace scankit::device_detail {

template <class P, class In, class Out>
void check_partition(const char* function, const In& in, const Out& out, std::int64_t n,
                     const compact_options& options) {
  device_detail::check_compact_common<P>(function, n, options);
  check_array(function, "in", in, n);
  check_array(function, "out", out, n);
  scankit::detail::check_disjoint(function, extent_of("in", in, n), extent_of("out", out, n));
}

template <class P, class In, class Selected, class Rejected>
void check_partition_copy(const char* function, const In& in, const Selected& selected, const Rejected& rejected,
                          std::int64_t n, const compact_options& options) {
  device_detail::check_compact_common<P>(function, n, options);
  check_array(function, "in", in, n);
  check_array(function, "out_selected", selected, n);
  check_array(function, "out_rejected", rejected, n);
  const scankit::detail::array_extent a = extent_of("in", in, n);
  const scankit::detail::array_extent s = extent_of("out_selected", selected, n);
  const scankit::detail::array_extent r = extent_of("out_rejected", rejected, n);
  scankit::detail::check_disjoint(function, a, s);
  scankit::detail::check_disjoint(function, a, r);
  scankit::detail::check_disjoint(function, s, r);
}

}  // namespace scankit::device_detail

namespace scankit::device {

template <class Policy = tuned, class In, class Out, class Pred>
void partition_if(In in, Out out, std::int64_t* d_count, device_detail::item_count n, Pred pred,
                  cudaStream_t stream = nullptr,
                  workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::partition_if";
  using T = device_detail::iterator_item_t<In>;
  using InView = device_detail::input_view_t<In>;
  using OutView = device_detail::output_view_t<Out>;
  using P = device_detail::partition_plan<Policy, T>;
  const InView in_view = device_detail::input_view(in);
  const OutView out_view = device_detail::output_view(out);
  device_detail::check_partition<P>(function, in_view, out_view, n, options);
  device_detail::check_count_target(function, d_count,
                                    {device_detail::extent_of("in", in_view, n),
                                     device_detail::extent_of("out", out_view, n)});
  device_detail::run_compaction<P>(function, device_detail::predicate_source_for<T, Pred, InView>{in_view, pred},
                                   device_detail::partition_sink_for<T, OutView>{out_view}, n, d_count, false, stream,
                                   ws, options);
}

template <class Policy = tuned, class In, class Selected, class Rejected, class Pred>
void partition_if(In in, Selected out_selected, Rejected out_rejected, std::int64_t* d_count,
                  device_detail::item_count n, Pred pred, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                  const compact_options& options = {}) {
  const char* function = "scankit::partition_if";
  using T = device_detail::iterator_item_t<In>;
  using InView = device_detail::input_view_t<In>;
  using SelectedView = device_detail::output_view_t<Selected>;
  using RejectedView = device_detail::output_view_t<Rejected>;
  using P = device_detail::partition_plan<Policy, T>;
  const InView in_view = device_detail::input_view(in);
  const SelectedView selected_view = device_detail::output_view(out_selected);
  const RejectedView rejected_view = device_detail::output_view(out_rejected);
  device_detail::check_partition_copy<P>(function, in_view, selected_view, rejected_view, n, options);
  device_detail::check_count_target(function, d_count,
                                    {device_detail::extent_of("in", in_view, n),
                                     device_detail::extent_of("out_selected", selected_view, n),
                                     device_detail::extent_of("out_rejected", rejected_view, n)});
  device_detail::run_compaction<P>(
      function, device_detail::predicate_source_for<T, Pred, InView>{in_view, pred},
      device_detail::partition_copy_sink_for<T, SelectedView, RejectedView>{selected_view, rejected_view}, n, d_count,
      false, stream, ws, options);
}

// The same, returning the selected count to the host. These synchronise: they wait for `stream`.
template <class Policy = tuned, class In, class Out, class Pred>
std::int64_t partition_if_count_host(In in, Out out, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                                     workspace* ws = nullptr, const compact_options& options = {}) {
  device_detail::check_partition<device_detail::partition_plan<Policy, device_detail::iterator_item_t<In>>>(
      "scankit::partition_if_count_host", device_detail::input_view(in), device_detail::output_view(out), n, options);
  return scankit::detail::count_to_host(stream, [&](std::int64_t* d_count) {
    partition_if<Policy>(in, out, d_count, n, pred, stream, ws, options);
  });
}

template <class Policy = tuned, class In, class Selected, class Rejected, class Pred>
std::int64_t partition_if_count_host(In in, Selected out_selected, Rejected out_rejected, std::int64_t n, Pred pred,
                                     cudaStream_t stream = nullptr, workspace* ws = nullptr,
                                     const compact_options& options = {}) {
  device_detail::check_partition_copy<device_detail::partition_plan<Policy, device_detail::iterator_item_t<In>>>(
      "scankit::partition_if_count_host", device_detail::input_view(in), device_detail::output_view(out_selected),
      device_detail::output_view(out_rejected), n, options);
  return scankit::detail::count_to_host(stream, [&](std::int64_t* d_count) {
    partition_if<Policy>(in, out_selected, out_rejected, d_count, n, pred, stream, ws, options);
  });
}

}  // namespace scankit::device
