// Segmented sort, the template API (nvcc): many arrays sorted at once, each on its own.
//
//   segmented_sort_keys(keys_in, keys_out, n, offsets, num_segments)
//   segmented_sort_pairs(keys_in, keys_out, values_in, values_out, n, offsets, num_segments)
//
// Segment s is [offsets[s], offsets[s + 1]) of the n items (CSR row offsets: num_segments + 1
// int32 or int64 offsets in device memory); segments may be empty, and items outside every
// segment are not written. Each segment is sorted as sort_keys / sort_pairs would sort it
// (scankit/device/sort.cuh): stable, ascending or descending, the same key order and bit ranges
// (sort_options; its strategy is not used).
//
// The call chooses a path per segment from its size: one thread for up to 16 items, one block for
// up to a block's tile (three block shapes), the device-wide radix sort above that. It reads the
// segments' size classes back before writing anything (one synchronisation of `stream`): offsets
// that decrease or leave [0, n] throw scankit::error naming the segment, the outputs untouched.
// Arrays must not overlap (in place: not yet).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "scankit/detail/sort_arguments.hpp"
#include "scankit/device/sort.cuh"
#include "scankit/device/sort/segmented_sort_dispatch.cuh"
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

template <class Policy, class Key, class Value, class Offset, class BitKey>
void run_segmented_sort_call(const char* function, const segmented_sort_call<Key, Value, BitKey>& call,
                             std::int64_t n, const Offset* offsets, std::int64_t num_segments, cudaStream_t stream,
                             workspace* ws, const sort_options& options, const BitKey& bit_key) {
  check_types<Key, Value, BitKey>();
  int begin_bit = 0, end_bit = 0;
  detail::resolve_bit_range(function, options, key_bits<Key, BitKey>, begin_bit, end_bit);
  const bool descending = options.order == sort_order::descending;
  if constexpr (std::is_same_v<BitKey, default_bit_key<Key>> && scankit::detail::is_sort_float_v<Key>) {
    // As the sort: each float order gets kernels without a per-key test of it.
    const auto sort_by = [&](auto fixed_order) {
      using fixed = decltype(fixed_order);
      const segmented_sort_call<Key, Value, fixed> fixed_call{call.keys_in, call.keys_out, call.values_in,
                                                              call.values_out};
      run_segmented_sort<Policy>(function, fixed_call, n, offsets, num_segments, begin_bit, end_bit, descending,
                                 fixed_order, stream, ws);
    };
    if (options.floats == float_order::raw_bits) {
      sort_by(float_bit_key<Key, float_order::raw_bits>{});
    } else {
      sort_by(float_bit_key<Key, float_order::total>{});
    }
  } else {
    run_segmented_sort<Policy>(function, call, n, offsets, num_segments, begin_bit, end_bit, descending, bit_key,
                               stream, ws);
  }
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
  detail::check_sort_count(function, n);
  device_detail::check_segments(function, n, offsets, num_segments);
  detail::check_sort_arrays(function, n, {device_detail::sort_array("keys_in", keys_in, n, sizeof(Key)),
                                          device_detail::sort_array("keys_out", keys_out, n, sizeof(Key))});
  const device_detail::segmented_sort_call<Key, device_detail::radix_no_values, BitKey> call{keys_in, keys_out,
                                                                                             nullptr, nullptr};
  device_detail::run_segmented_sort_call<P>(function, call, n, offsets, num_segments, stream, ws, options, bit_key);
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
  const device_detail::segmented_sort_call<Key, Value, BitKey> call{keys_in, keys_out, values_in, values_out};
  device_detail::run_segmented_sort_call<P>(function, call, n, offsets, num_segments, stream, ws, options, bit_key);
}

}  // namespace scankit::device
