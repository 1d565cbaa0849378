// The template segmented-scan API for nvcc users: a scan that restarts at the start of every
// segment, for any trivially copyable value type and associative operator (never assumed
// commutative), over arrays or iterators.
//
//   Segments by head flags: item i starts a segment when head_flags[i] != 0 (item 0 always does).
//     scankit::device::inclusive_segmented_scan(d_values, d_flags, d_out, n, scankit::plus_op{}, stream);
//     scankit::device::exclusive_segmented_scan(d_values, d_flags, d_out, n, init, op, stream);
//   Segments by runs of equal keys (scan-by-key, as thrust::inclusive_scan_by_key):
//     scankit::device::inclusive_scan_by_key(d_keys, d_values, d_out, n, op, scankit::equal_to_op{}, stream);
//     scankit::device::exclusive_scan_by_key(d_keys, d_values, d_out, n, init, op, key_equal, stream);
//   Segments by offsets (CSR row offsets: num_segments + 1 non-decreasing positions in [0, n];
//   segment s is [offsets[s], offsets[s + 1]); an item starts a segment when its index is an offset;
//   num_segments and n may each be a count in device memory, scankit::device_n):
//     scankit::device::inclusive_segmented_scan_by_offsets(d_values, d_offsets, num_segments, d_out, n, op, stream);
//     scankit::device::exclusive_segmented_scan_by_offsets(d_values, d_offsets, num_segments, d_out, n, init, op, stream);
//
// inclusive: out[i] = values[h] op ... op values[i], h the head of i's segment.
// exclusive: out[i] = init op values[h] op ... op values[i - 1]; out[h] = init (each segment
//            starts from init, as in thrust::exclusive_scan_by_key).
// One pass over the input with the decoupled look-back on (value, head) pairs; 64-bit counts;
// `out` may be `values` (in place). Pass a scankit::workspace to reuse temporary storage.
#pragma once

#include <cstdint>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/kernel/segment_heads.cuh"
#include "scankit/device/dispatch/segmented_scan_dispatch.cuh"
#include "scankit/device/iterators.cuh"
#include "scankit/device/scan.cuh"
#include "scankit/segmented_operators.hpp"

namespace scankit::device {

// The register shape of a segmented scan of T with head items (flags or keys) of HeadItem: the
// tuned one, or a scankit::device::policy<...>.
template <class Policy, class T, class HeadItem>
using resolved_segmented_policy =
    std::conditional_t<std::is_same_v<Policy, tuned>, typename device_detail::segmented_scan_tuning<T, HeadItem>::policy,
                       Policy>;

// The register shape of a segmented scan or reduction of T by offsets: the tuned one, or a
// scankit::device::policy<...>.
template <class Policy, class T>
using resolved_offsets_policy =
    std::conditional_t<std::is_same_v<Policy, tuned>, typename device_detail::segmented_offsets_tuning<T>::policy, Policy>;

}  // namespace scankit::device

namespace scankit::device_detail {

template <class Policy, class T, class ValuesIn, class HeadsSourceOf, class HeadsIn, class Out, class Op>
void segmented_scan_call(const char* function, ValuesIn values, HeadsIn heads_in, Out out, item_count n, bool exclusive,
                    const T& init, Op op, cudaStream_t stream, workspace* ws, const char* heads_name,
                    HeadsSourceOf make_heads) {
  const ::scankit::detail::nvtx_range nvtx(function);
  using P = device::resolved_segmented_policy<Policy, T, std::remove_cv_t<device_detail::iterator_item_t<HeadsIn>>>;
  const auto in = device_detail::input_view(values);
  const auto heads = device_detail::input_view(heads_in);
  const auto target = device_detail::output_view(out);
  device_detail::check_segmented_scan_arguments<P, T>(function, in, heads, target, n, heads_name);
  device_detail::run_segmented_scan<P, T>(in, make_heads.template operator()<P>(heads, n), target, n, exclusive, init,
                                          op, stream, ws);
}

struct head_flags_maker {
  template <class P, class FlagsIn>
  auto operator()(FlagsIn flags, long long n) const {
    return device_detail::head_flags_source<FlagsIn, P::items_per_thread, P::block_threads>{flags, n};
  }
};

template <class KeyEqual>
struct key_change_maker {
  KeyEqual equal;
  template <class P, class KeysIn>
  auto operator()(KeysIn keys, long long n) const {
    return device_detail::key_change_source<KeysIn, KeyEqual, P::items_per_thread, P::block_threads>{keys, n, equal};
  }
};

template <class Policy, class T, class ValuesIn, class OffsetsIn, class Out, class Op>
void segmented_scan_by_offsets_call(const char* function, ValuesIn values, OffsetsIn offsets, item_count num_segments,
                                    Out out, item_count n, bool exclusive, const T& init, Op op, cudaStream_t stream,
                                    workspace* ws) {
  const ::scankit::detail::nvtx_range nvtx(function);
  using P = device::resolved_offsets_policy<Policy, T>;
  const auto in = device_detail::input_view(values);
  const auto starts = device_detail::input_view(offsets);
  const auto target = device_detail::output_view(out);
  device_detail::check_segment_offsets_arguments<P, T>(function, in, starts, num_segments, target, n, n, true);
  using heads_t = device_detail::offsets_head_source<std::remove_cv_t<decltype(starts)>, P::items_per_thread, P::block_threads>;
  const heads_t heads{{starts, num_segments.bound + 1, n.bound, n.device, num_segments.device}, nullptr};
  device_detail::run_segmented_scan<P, T>(in, heads, target, n, exclusive, init, op, stream, ws);
}

}  // namespace scankit::device_detail

namespace scankit::device {

template <class Policy = tuned, class AccT = void, class ValuesIn, class FlagsIn, class Out, class Op = plus_op>
void inclusive_segmented_scan(ValuesIn values, FlagsIn head_flags, Out out, device_detail::item_count n, Op op = {},
                              cudaStream_t stream = nullptr, workspace* ws = nullptr) {
  using T = device_detail::pick_t<AccT, device_detail::inclusive_accumulator_t<ValuesIn, Op>>;
  device_detail::segmented_scan_call<Policy, T>("scankit::inclusive_segmented_scan", values, head_flags, out, n, false, T{}, op,
                                    stream, ws, "head_flags", device_detail::head_flags_maker{});
}

template <class Policy = tuned, class AccT = void, class ValuesIn, class FlagsIn, class Out, class Init, class Op = plus_op>
void exclusive_segmented_scan(ValuesIn values, FlagsIn head_flags, Out out, device_detail::item_count n, Init init,
                              Op op = {},
                              cudaStream_t stream = nullptr, workspace* ws = nullptr) {
  using T = device_detail::pick_t<AccT, device_detail::exclusive_accumulator_t<ValuesIn, Init, Op>>;
  device_detail::segmented_scan_call<Policy, T>("scankit::exclusive_segmented_scan", values, head_flags, out, n, true,
                                    static_cast<T>(init), op, stream, ws, "head_flags", device_detail::head_flags_maker{});
}

template <class Policy = tuned, class AccT = void, class KeysIn, class ValuesIn, class Out, class Op = plus_op,
          class KeyEqual = equal_to_op>
void inclusive_scan_by_key(KeysIn keys, ValuesIn values, Out out, device_detail::item_count n, Op op = {},
                           KeyEqual key_equal = {},
                           cudaStream_t stream = nullptr, workspace* ws = nullptr) {
  using T = device_detail::pick_t<AccT, device_detail::inclusive_accumulator_t<ValuesIn, Op>>;
  device_detail::segmented_scan_call<Policy, T>("scankit::inclusive_scan_by_key", values, keys, out, n, false, T{}, op, stream, ws,
                                    "keys", device_detail::key_change_maker<KeyEqual>{key_equal});
}

template <class Policy = tuned, class AccT = void, class KeysIn, class ValuesIn, class Out, class Init, class Op = plus_op,
          class KeyEqual = equal_to_op>
void exclusive_scan_by_key(KeysIn keys, ValuesIn values, Out out, device_detail::item_count n, Init init, Op op = {},
                           KeyEqual key_equal = {}, cudaStream_t stream = nullptr, workspace* ws = nullptr) {
  using T = device_detail::pick_t<AccT, device_detail::exclusive_accumulator_t<ValuesIn, Init, Op>>;
  device_detail::segmented_scan_call<Policy, T>("scankit::exclusive_scan_by_key", values, keys, out, n, true, static_cast<T>(init),
                                    op, stream, ws, "keys", device_detail::key_change_maker<KeyEqual>{key_equal});
}

template <class Policy = tuned, class AccT = void, class ValuesIn, class OffsetsIn, class Out, class Op = plus_op>
void inclusive_segmented_scan_by_offsets(ValuesIn values, OffsetsIn offsets, device_detail::item_count num_segments,
                                         Out out, device_detail::item_count n, Op op = {}, cudaStream_t stream = nullptr,
                                         workspace* ws = nullptr) {
  using T = device_detail::pick_t<AccT, device_detail::inclusive_accumulator_t<ValuesIn, Op>>;
  device_detail::segmented_scan_by_offsets_call<Policy, T>("scankit::inclusive_segmented_scan_by_offsets", values, offsets,
                                               num_segments, out, n, false, T{}, op, stream, ws);
}

template <class Policy = tuned, class AccT = void, class ValuesIn, class OffsetsIn, class Out, class Init,
          class Op = plus_op>
void exclusive_segmented_scan_by_offsets(ValuesIn values, OffsetsIn offsets, device_detail::item_count num_segments,
                                         Out out, device_detail::item_count n, Init init, Op op = {}, cudaStream_t stream = nullptr,
                                         workspace* ws = nullptr) {
  using T = device_detail::pick_t<AccT, device_detail::exclusive_accumulator_t<ValuesIn, Init, Op>>;
  device_detail::segmented_scan_by_offsets_call<Policy, T>("scankit::exclusive_segmented_scan_by_offsets", values, offsets,
                                               num_segments, out, n, true, static_cast<T>(init), op, stream, ws);
}

// Bytes of workspace a segmented scan of n values of type T needs (0 for one tile), with head
// items (flags or keys) of type HeadItem.
template <class T, class HeadItem = std::uint8_t, class Policy = tuned>
std::size_t segmented_scan_workspace_bytes(std::int64_t n) {
  scankit::detail::check_count("scankit::segmented_scan_workspace_bytes", n);
  return device_detail::segmented_scan_workspace_bytes<resolved_segmented_policy<Policy, T, HeadItem>, T>(n);
}

// Bytes of workspace a segmented scan or reduction by offsets of n values of type T needs (0 for
// one tile).
template <class T, class Policy = tuned>
std::size_t segmented_by_offsets_workspace_bytes(std::int64_t n) {
  scankit::detail::check_count("scankit::segmented_by_offsets_workspace_bytes", n);
  return device_detail::segmented_scan_workspace_bytes<resolved_offsets_policy<Policy, T>, T>(n, true);
}

}  // namespace scankit::device
