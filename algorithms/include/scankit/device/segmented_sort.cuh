// Segmented sort, the template API (nvcc): many arrays sorted at once, each on its own. The
// precompiled overloads for the standard types are in scankit/segmented_sort.hpp (callable from g++).
//
//   segmented_sort_keys(keys_in, keys_out, n, offsets, num_segments)
//   segmented_sort_keys(double_buffer<Key>& keys, n, offsets, num_segments)
//   segmented_sort_pairs(keys_in, keys_out, values_in, values_out, n, offsets, num_segments),
//   and its double-buffer form
//   segmented_sort_workspace_bytes<Key, Value>(n, num_segments, double_buffered)
//
// Segment s is [offsets[s], offsets[s + 1]) of the n items (CSR row offsets: num_segments + 1
// int32 or int64 offsets in device memory); segments may be empty. Each segment is sorted as
// sort_keys / sort_pairs would sort it (scankit/device/sort.cuh): stable, ascending or descending,
// the same key order and bit ranges (sort_options; its strategy is not used).
//
// Out of place, keys_in is only read and items outside every segment are not written. The
// double-buffer form needs no O(n) workspace: on return keys.current() (and values.current())
// holds every segment sorted; its items outside every segment are unspecified.
//
// The call chooses a path per segment from its size: one thread for up to 16 items, one block for
// up to a block's tile (five block shapes), the device-wide radix sort above that. It reads the
// segments' size classes back before writing anything (one synchronisation of `stream`): offsets
// that decrease or leave [0, n] throw scankit::error naming the segment, the outputs untouched.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/detail/sort_arguments.hpp"
#include "scankit/device/sort.cuh"
#include "scankit/device/sort/segmented_sort_counted.cuh"
#include "scankit/device/sort/segmented_sort_dispatch.cuh"
#include "scankit/double_buffer.hpp"
#include "scankit/error.hpp"
#include "scankit/sort_key_order.hpp"
#include "scankit/sort_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

template <class Offset>
void check_segments(const char* function, std::int64_t n, const Offset* offsets, std::int64_t num_segments) {
  static_assert(std::is_same_v<Offset, std::int32_t> || std::is_same_v<Offset, std::int64_t>,
                "segment offsets are int32 or int64");
  if (num_segments < 0) {
    throw error(std::string(function) + ": num_segments = " + std::to_string(num_segments) + " is negative");
  }
  if (num_segments > 0 && offsets == nullptr) {
    throw error(std::string(function) + ": offsets is null with num_segments = " + std::to_string(num_segments));
  }
  if constexpr (std::is_same_v<Offset, std::int32_t>) {
    if (n > INT32_MAX) {
      throw error(std::string(function) + ": n = " + std::to_string(n) + " needs int64 offsets");
    }
  }
}

// The arrays of one call. Out of place: in -> out. Double-buffered: in is the current buffer, out
// the alternate one.
template <class Key, class Value>
struct segmented_sort_arrays {
  const Key* keys_in;
  Key* keys_out;
  const Value* values_in;  // null: keys only
  Value* values_out;
  bool double_buffered = false;
};

// The digit passes of the device-wide sort (Policy's digits) over the call's bit range.
template <class Policy, class Key, class BitKey>
int device_wide_passes(const char* function, const sort_options& options) {
  int begin_bit = 0, end_bit = 0;
  detail::resolve_bit_range(function, options, key_bits<Key, BitKey>, begin_bit, end_bit);
  return radix_passes{begin_bit, end_bit, Policy::radix_bits}.count();
}

// Calls run(key) with the bit key the kernels take: for the default order of a float key, that of
// the call's float order (as the sort: each order gets kernels without a per-key test of it); else
// bit_key itself.
template <class Key, class BitKey, class Run>
void with_fixed_bit_key(const sort_options& options, const BitKey& bit_key, Run&& run) {
  if constexpr (std::is_same_v<BitKey, default_bit_key<Key>> && scankit::detail::is_sort_float_v<Key>) {
    if (options.floats == float_order::raw_bits) {
      run(float_bit_key<Key, float_order::raw_bits>{});
    } else {
      run(float_bit_key<Key, float_order::total>{});
    }
  } else {
    run(bit_key);
  }
}

// Runs the call; returns whether the sorted segments are in the alternate buffers (a
// double-buffered caller flips its selectors). A double-buffered call sorts into the buffers where
// the device-wide sorts of large segments end (Policy: their pass shape; an even pass count ends
// in the current buffers, and then every segment is sorted in place). sort_large: as
// run_segmented_sort's, given the segment's arrays.
template <class Policy, class Key, class Value, class Offset, class BitKey, class SortLarge>
bool run_segmented_sort_call(const char* function, const segmented_sort_arrays<Key, Value>& arrays, std::int64_t n,
                             const Offset* offsets, std::int64_t num_segments, cudaStream_t stream, workspace* ws,
                             const sort_options& options, const BitKey& bit_key, SortLarge&& sort_large) {
  const ::scankit::detail::nvtx_range nvtx(function);
  check_types<Key, Value, BitKey>();
  int begin_bit = 0, end_bit = 0;
  detail::resolve_bit_range(function, options, key_bits<Key, BitKey>, begin_bit, end_bit);
  const bool descending = options.order == sort_order::descending;
  const bool to_alternate =
      !arrays.double_buffered || device_wide_passes<Policy, Key, BitKey>(function, options) % 2 == 1;
  Key* keys_to = to_alternate ? arrays.keys_out : const_cast<Key*>(arrays.keys_in);
  Value* values_to = to_alternate ? arrays.values_out : const_cast<Value*>(arrays.values_in);
  const auto run = [&](const auto& fixed_key) {
    using fixed = std::decay_t<decltype(fixed_key)>;
    const segmented_sort_call<Key, Value, fixed> call{arrays.keys_in, keys_to, arrays.values_in, values_to};
    run_segmented_sort(function, call, n, offsets, num_segments, begin_bit, end_bit, descending, fixed_key, stream, ws,
                       [&](const segment_range& r, const fixed& key, const radix_passes& passes, bool down) {
                         segmented_sort_arrays<Key, Value> sub = arrays;
                         sub.keys_in += r.begin;
                         sub.keys_out += r.begin;
                         if (sub.values_out != nullptr) {
                           sub.values_in += r.begin;
                           sub.values_out += r.begin;
                         }
                         sort_large(sub, r.end - r.begin, key, passes, down);
                       });
  };
  with_fixed_bit_key<Key>(options, bit_key, run);
  return arrays.double_buffered && to_alternate;
}

// The same with the items' and segments' counts in device memory (n and num_segments their bounds;
// out of place only): run_segmented_sort_counted with the call's bit range, order and float order.
// sort_large: as run_segmented_sort_counted's.
template <class Key, class Value, class Offset, class BitKey, class SortLarge>
void run_segmented_sort_counted_call(const char* function, const segmented_sort_arrays<Key, Value>& arrays,
                                     std::int64_t n, const std::int64_t* n_device, const Offset* offsets,
                                     std::int64_t num_segments, const std::int64_t* segments_device,
                                     cudaStream_t stream, const sort_options& options, const BitKey& bit_key,
                                     SortLarge&& sort_large) {
  const ::scankit::detail::nvtx_range nvtx(function);
  check_types<Key, Value, BitKey>();
  int begin_bit = 0, end_bit = 0;
  detail::resolve_bit_range(function, options, key_bits<Key, BitKey>, begin_bit, end_bit);
  const bool descending = options.order == sort_order::descending;
  const auto run = [&](const auto& fixed_key) {
    using fixed = std::decay_t<decltype(fixed_key)>;
    const segmented_sort_call<Key, Value, fixed> call{arrays.keys_in, arrays.keys_out, arrays.values_in,
                                                      arrays.values_out};
    run_segmented_sort_counted(call, n, n_device, offsets, num_segments, segments_device, begin_bit, end_bit,
                               descending, fixed_key, stream, sort_large);
  };
  with_fixed_bit_key<Key>(options, bit_key, run);
}

// The template API's sort of one large segment: the device-wide radix sort with Policy.
template <class Policy, class Key, class Value>
struct device_wide_segment_sort {
  cudaStream_t stream;
  workspace* ws;
  template <class BitKey>
  void operator()(const segmented_sort_arrays<Key, Value>& a, long long n, const BitKey& bit_key,
                  const radix_passes& passes, bool descending) const {
    radix_sort_call<Policy, Key, Value, BitKey> call{a.keys_in, a.keys_out, a.values_in, a.values_out};
    if (a.double_buffered) {
      call.keys_alternate = a.keys_out;
      call.values_alternate = a.values_out;
      call.double_buffered = true;
    }
    run_radix_sort(call, n, passes.begin_bit, passes.end_bit, descending, false, bit_key, stream, ws);
  }
};

// The workspace a call needs at most: its own, or a device-wide sort's of n items (double_buffered:
// O(tiles)), whichever is larger; large_sort_bytes(n) gives the latter.
template <class LargeSortBytes>
std::size_t segmented_sort_bytes(std::int64_t n, std::int64_t num_segments, LargeSortBytes&& large_sort_bytes) {
  if (num_segments <= 0 || n <= 0) return 0;
  return std::max(segmented_sort_own_bytes(num_segments), large_sort_bytes(n));
}

}  // namespace scankit::device_detail

namespace scankit::device {

// Policy: the digit-pass shape of the device-wide sorts of segments above a block's tile.
template <class Policy = void, class Key, class Offset, class BitKey = default_bit_key<Key>>
void segmented_sort_keys(const Key* keys_in, Key* keys_out, std::int64_t n, const Offset* offsets,
                         std::int64_t num_segments, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                         const sort_options& options = {}, BitKey bit_key = {}) {
  constexpr const char* function = "scankit::segmented_sort_keys";
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key>, Policy>;
  using V = device_detail::radix_no_values;
  detail::check_sort_count(function, n);
  device_detail::check_segments(function, n, offsets, num_segments);
  detail::check_sort_arrays(function, n, {device_detail::sort_array("keys_in", keys_in, n, sizeof(Key)),
                                          device_detail::sort_array("keys_out", keys_out, n, sizeof(Key))});
  device_detail::run_segmented_sort_call<P>(function, device_detail::segmented_sort_arrays<Key, V>{keys_in, keys_out, nullptr, nullptr},
                                            n, offsets, num_segments, stream, ws, options, bit_key,
                                            device_detail::device_wide_segment_sort<P, Key, V>{stream, ws});
}

// On return keys.current() holds the sorted segments.
template <class Policy = void, class Key, class Offset, class BitKey = default_bit_key<Key>>
void segmented_sort_keys(double_buffer<Key>& keys, std::int64_t n, const Offset* offsets, std::int64_t num_segments,
                         cudaStream_t stream = nullptr, workspace* ws = nullptr, const sort_options& options = {},
                         BitKey bit_key = {}) {
  constexpr const char* function = "scankit::segmented_sort_keys (double buffer)";
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key>, Policy>;
  using V = device_detail::radix_no_values;
  detail::check_sort_count(function, n);
  device_detail::check_segments(function, n, offsets, num_segments);
  detail::check_sort_arrays(function, n, {device_detail::sort_array("keys.current()", keys.current(), n, sizeof(Key)),
                                          device_detail::sort_array("keys.alternate()", keys.alternate(), n, sizeof(Key))});
  const device_detail::segmented_sort_arrays<Key, V> arrays{keys.current(), keys.alternate(), nullptr, nullptr, true};
  if (device_detail::run_segmented_sort_call<P>(function, arrays, n, offsets, num_segments, stream, ws, options, bit_key,
                                                device_detail::device_wide_segment_sort<P, Key, V>{stream, ws})) {
    keys.flip();
  }
}

template <class Policy = void, class Key, class Value, class Offset, class BitKey = default_bit_key<Key>>
void segmented_sort_pairs(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::int64_t n,
                          const Offset* offsets, std::int64_t num_segments, cudaStream_t stream = nullptr,
                          workspace* ws = nullptr, const sort_options& options = {}, BitKey bit_key = {}) {
  constexpr const char* function = "scankit::segmented_sort_pairs";
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key, Value>, Policy>;
  detail::check_sort_count(function, n);
  device_detail::check_segments(function, n, offsets, num_segments);
  detail::check_sort_arrays(function, n, {device_detail::sort_array("keys_in", keys_in, n, sizeof(Key)),
                                          device_detail::sort_array("keys_out", keys_out, n, sizeof(Key)),
                                          device_detail::sort_array("values_in", values_in, n, sizeof(Value)),
                                          device_detail::sort_array("values_out", values_out, n, sizeof(Value))});
  device_detail::run_segmented_sort_call<P>(function, device_detail::segmented_sort_arrays<Key, Value>{keys_in, keys_out, values_in, values_out},
                                            n, offsets, num_segments, stream, ws, options, bit_key,
                                            device_detail::device_wide_segment_sort<P, Key, Value>{stream, ws});
}

// On return keys.current() and values.current() hold the sorted segments.
template <class Policy = void, class Key, class Value, class Offset, class BitKey = default_bit_key<Key>>
void segmented_sort_pairs(double_buffer<Key>& keys, double_buffer<Value>& values, std::int64_t n, const Offset* offsets,
                          std::int64_t num_segments, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                          const sort_options& options = {}, BitKey bit_key = {}) {
  constexpr const char* function = "scankit::segmented_sort_pairs (double buffer)";
  using P = std::conditional_t<std::is_void_v<Policy>, tuned_sort_policy<Key, Value>, Policy>;
  detail::check_sort_count(function, n);
  device_detail::check_segments(function, n, offsets, num_segments);
  detail::check_sort_arrays(function, n,
                            {device_detail::sort_array("keys.current()", keys.current(), n, sizeof(Key)),
                             device_detail::sort_array("keys.alternate()", keys.alternate(), n, sizeof(Key)),
                             device_detail::sort_array("values.current()", values.current(), n, sizeof(Value)),
                             device_detail::sort_array("values.alternate()", values.alternate(), n, sizeof(Value))});
  const device_detail::segmented_sort_arrays<Key, Value> arrays{keys.current(), keys.alternate(), values.current(),
                                                                values.alternate(), true};
  if (device_detail::run_segmented_sort_call<P>(function, arrays, n, offsets, num_segments, stream, ws, options, bit_key,
                                                device_detail::device_wide_segment_sort<P, Key, Value>{stream, ws})) {
    keys.flip();
    values.flip();
  }
}

// Bytes of workspace a call needs at most (Value = void: keys only); a workspace wrapping this
// much serves any call with these counts and options.
template <class Key, class Value = void, class Policy = void, class BitKey = default_bit_key<Key>>
std::size_t segmented_sort_workspace_bytes(std::int64_t n, std::int64_t num_segments, bool double_buffered,
                                           const sort_options& options = {}) {
  return device_detail::segmented_sort_bytes(n, num_segments, [&](std::int64_t items) {
    return sort_workspace_bytes<Key, Value, Policy, BitKey>(items, double_buffered, options);
  });
}

}  // namespace scankit::device
