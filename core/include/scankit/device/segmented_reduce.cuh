// The template segmented-reduction API for nvcc users: one result per segment of an offsets array
// (CSR row offsets), for any trivially copyable value type and associative operator (never
// assumed commutative), over arrays or iterators.
//
//   scankit::device::segmented_reduce(d_values, d_offsets, num_segments, d_out, n, op, empty_value, stream);
//
// offsets: num_segments + 1 non-decreasing positions in [0, n]; segment s is
// [offsets[s], offsets[s + 1]) and out[s] = values[offsets[s]] op ... op values[offsets[s + 1] - 1],
// or empty_value when the segment is empty. Unlike cub::DeviceSegmentedReduce, the empty value is
// not folded into the non-empty segments. Items outside [offsets[0], offsets[num_segments]) are
// ignored. One pass over the values, however long or short the segments (the segmented scan's
// look-back carries a segment across tiles), plus a binary search per tile boundary; 64-bit
// counts. Either count may be a scankit::device_n (a count in device memory with a host bound):
// `offsets` and `out` are then sized for the segments' bound, and only the first count + 1
// offsets are read and the first count results written. Pass a scankit::workspace to reuse temporary storage
// (segmented_by_offsets_workspace_bytes<T>(n), scankit/device/segmented_scan.cuh).
#pragma once

#include <cstdint>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/segmented_scan.cuh"

namespace scankit::device {

template <class Policy = tuned, class AccT = void, class ValuesIn, class OffsetsIn, class Out, class Op, class Empty>
void segmented_reduce(ValuesIn values, OffsetsIn offsets, device_detail::item_count num_segments, Out out,
                      device_detail::item_count n, Op op, Empty empty_value, cudaStream_t stream = nullptr,
                      workspace* ws = nullptr) {
  using T = scankit::device_detail::pick_t<AccT, scankit::device_detail::inclusive_accumulator_t<ValuesIn, Op>>;
  using P = resolved_offsets_policy<Policy, T>;
  constexpr const char* function = "scankit::segmented_reduce";
  const ::scankit::detail::nvtx_range nvtx(function);
  const auto in = device_detail::input_view(values);
  const auto starts = device_detail::input_view(offsets);
  const auto target = device_detail::output_view(out);
  device_detail::check_segment_offsets_arguments<P, T>(function, in, starts, num_segments, target, n, num_segments,
                                                       false);
  const device_detail::segment_offsets<std::remove_cv_t<decltype(starts)>> segments{
      starts, num_segments.bound + 1, n.bound, n.device, num_segments.device};
  device_detail::run_segmented_reduce<P, T>(in, segments, target, n, static_cast<T>(empty_value), op, stream, ws);
}

}  // namespace scankit::device
