// The precompiled segmented sort overloads (scankit/segmented_sort.hpp) on top of the template
// API. One translation unit per key type (segmented_sort_<type>.cu); values move as raw words of
// their size, so value types of one size share kernels. Segments above a block's tile go to the
// precompiled device-wide sort (scankit/sort.hpp), whose kernels the sort's own units hold: these
// units compile only the segment kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "precompiled_sort.cuh"
#include "scankit/device/segmented_sort.cuh"
#include "scankit/segmented_sort.hpp"

namespace scankit::precompiled {

template <class V>
struct segment_values {
  using type = raw_t<V>;
};
template <>
struct segment_values<void> {
  using type = device_detail::radix_no_values;
};
template <class V>
using segment_values_t = typename segment_values<V>::type;

// One large segment, sorted by the precompiled sort with the call's options.
template <class K, class V>
struct precompiled_segment_sort {
  cudaStream_t stream;
  workspace* ws;
  sort_options options;
  template <class BitKey>
  void operator()(const device_detail::segmented_sort_arrays<K, segment_values_t<V>>& a, long long n, const BitKey&,
                  const device_detail::radix_passes&, bool) const {
    if constexpr (std::is_void_v<V>) {
      if (a.double_buffered) {
        double_buffer<K> keys(const_cast<K*>(a.keys_in), a.keys_out);
        scankit::sort_keys(keys, n, stream, ws, options);
      } else {
        scankit::sort_keys(a.keys_in, a.keys_out, n, stream, ws, options);
      }
    } else {
      if (a.double_buffered) {
        double_buffer<K> keys(const_cast<K*>(a.keys_in), a.keys_out);
        double_buffer<raw_t<V>> values(const_cast<raw_t<V>*>(a.values_in), a.values_out);
        scankit::sort_pairs(keys, values, n, stream, ws, options);
      } else {
        scankit::sort_pairs(a.keys_in, a.keys_out, a.values_in, a.values_out, n, stream, ws, options);
      }
    }
  }
};

// The call's arrays: set, and not overlapping, for n items (named as the call names them).
template <class K, class V>
void check_segment_arrays(const char* function,
                          const device_detail::segmented_sort_arrays<K, segment_values_t<V>>& arrays, std::int64_t n) {
  const char* names[4] = {"keys_in", "keys_out", "values_in", "values_out"};
  if (arrays.double_buffered) {
    names[0] = "keys.current()", names[1] = "keys.alternate()", names[2] = "values.current()";
    names[3] = "values.alternate()";
  }
  if constexpr (std::is_void_v<V>) {
    detail::check_sort_arrays(function, n, {device_detail::sort_array(names[0], arrays.keys_in, n, sizeof(K)),
                                            device_detail::sort_array(names[1], arrays.keys_out, n, sizeof(K))});
  } else {
    detail::check_sort_arrays(function, n, {device_detail::sort_array(names[0], arrays.keys_in, n, sizeof(K)),
                                            device_detail::sort_array(names[1], arrays.keys_out, n, sizeof(K)),
                                            device_detail::sort_array(names[2], arrays.values_in, n, sizeof(V)),
                                            device_detail::sort_array(names[3], arrays.values_out, n, sizeof(V))});
  }
}

// V = void: keys only. Returns whether the result is in the alternate buffers.
template <class K, class V, class O>
bool segmented_sort(const char* function, const device_detail::segmented_sort_arrays<K, segment_values_t<V>>& arrays,
                    std::int64_t n, const O* offsets, std::int64_t num_segments, cudaStream_t stream, workspace* ws,
                    const sort_options& options) {
  detail::check_sort_count(function, n);
  device_detail::check_segments(function, n, offsets, num_segments);
  check_segment_arrays<K, V>(function, arrays, n);
  sort_options large = options;
  large.strategy = sort_strategy::onesweep;
  return device_detail::run_segmented_sort_call<policy_for<K, V>>(function, arrays, n, offsets, num_segments, stream, ws,
                                                                  options, default_bit_key<K>{},
                                                                  precompiled_segment_sort<K, V>{stream, ws, large});
}

// The large segments of a call with counts in device memory: two counted precompiled sorts of
// (key, position) and (segment rank, position) pairs (segmented_sort_large.cuh).
template <class K>
struct precompiled_counted_large_sort {
  cudaStream_t stream;
  workspace* ws;
  sort_options options;  // the call's order, bit range and float order; onesweep
  void by_key(const K* keys, K* sorted_keys, const std::uint32_t* positions, std::uint32_t* sorted_positions,
              device_n count) const {
    scankit::sort_pairs(keys, sorted_keys, positions, sorted_positions, count, stream, ws, options);
  }
  void by_rank(const std::uint32_t* ranks, std::uint32_t* sorted_ranks, const std::uint32_t* positions,
               std::uint32_t* sorted_positions, device_n count, int rank_bits) const {
    sort_options by_rank;
    by_rank.end_bit = rank_bits;
    by_rank.strategy = sort_strategy::onesweep;
    scankit::sort_pairs(ranks, sorted_ranks, positions, sorted_positions, count, stream, ws, by_rank);
  }
};

// What the counted form's two device-wide sorts take of a wrapped workspace for `items` gathered
// items, at most: (key, position) with the call's options, and (rank, position) over every bit.
template <class K>
std::size_t counted_large_sort_bytes(std::int64_t items, const sort_options& options) {
  sort_options by_key = options;
  by_key.strategy = sort_strategy::onesweep;
  sort_options by_rank;
  by_rank.strategy = sort_strategy::onesweep;
  const K* keys = nullptr;
  const std::uint32_t* positions = nullptr;
  return std::max(scankit::sort_pairs_workspace_bytes(keys, positions, items, by_key),
                  scankit::sort_pairs_workspace_bytes(positions, positions, items, by_rank));
}

// V = void: keys only. The counts in device memory; out of place.
template <class K, class V, class O>
void segmented_sort_counted(const char* function, const device_detail::segmented_sort_arrays<K, segment_values_t<V>>& arrays,
                            device_n n, const O* offsets, device_n num_segments, cudaStream_t stream, workspace* ws,
                            const sort_options& options) {
  detail::check_device_n(function, n);
  detail::check_device_n(function, num_segments);
  detail::check_sort_count(function, n.bound);
  device_detail::check_segments(function, n.bound, offsets, num_segments.bound);
  if (n.bound > static_cast<std::int64_t>(UINT32_MAX)) {
    throw error(std::string(function) + ": n's bound (" + std::to_string(n.bound) +
                ") must be below 2^32 with counts in device memory");
  }
  const std::int64_t bound = n.bound;
  check_segment_arrays<K, V>(function, arrays, bound);
  sort_options large = options;
  large.strategy = sort_strategy::onesweep;
  device_detail::run_segmented_sort_counted_call(function, arrays, bound, n.count, offsets, num_segments.bound,
                                                 num_segments.count, stream, options, default_bit_key<K>{},
                                                 precompiled_counted_large_sort<K>{stream, ws, large});
}

}  // namespace scankit::precompiled

#define SCANKIT_DEFINE_SEGMENTED_SORT_KEYS(K, O)                                                                    \
  void segmented_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, const O* offsets,                        \
                           std::int64_t num_segments, cudaStream_t stream, workspace* ws, const sort_options& options) { \
    using namespace precompiled;                                                                                   \
    segmented_sort<K, void>("scankit::segmented_sort_keys", {keys_in, keys_out, nullptr, nullptr}, n, offsets,     \
                            num_segments, stream, ws, options);                                                    \
  }                                                                                                                \
  void segmented_sort_keys(double_buffer<K>& keys, std::int64_t n, const O* offsets, std::int64_t num_segments,    \
                           cudaStream_t stream, workspace* ws, const sort_options& options) {                      \
    using namespace precompiled;                                                                                   \
    if (segmented_sort<K, void>("scankit::segmented_sort_keys (double buffer)",                                    \
                                {keys.current(), keys.alternate(), nullptr, nullptr, true}, n, offsets,            \
                                num_segments, stream, ws, options)) {                                              \
      keys.flip();                                                                                                 \
    }                                                                                                              \
  }                                                                                                                   \
  void segmented_sort_keys(const K* keys_in, K* keys_out, device_n n, const O* offsets, device_n num_segments,      \
                           cudaStream_t stream, workspace* ws, const sort_options& options) {                      \
    using namespace precompiled;                                                                                   \
    segmented_sort_counted<K, void>("scankit::segmented_sort_keys", {keys_in, keys_out, nullptr, nullptr}, n,      \
                                    offsets, num_segments, stream, ws, options);                                   \
  }

#define SCANKIT_DEFINE_SEGMENTED_SORT_PAIRS(K, V, O)                                                               \
  void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,       \
                            const O* offsets, std::int64_t num_segments, cudaStream_t stream, workspace* ws,        \
                            const sort_options& options) {                                                        \
    using namespace precompiled;                                                                                   \
    segmented_sort<K, V>("scankit::segmented_sort_pairs", {keys_in, keys_out, raw(values_in), raw(values_out)}, n, \
                         offsets, num_segments, stream, ws, options);                                             \
  }                                                                                                                \
  void segmented_sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, const O* offsets,     \
                            std::int64_t num_segments, cudaStream_t stream, workspace* ws,                        \
                            const sort_options& options) {                                                        \
    using namespace precompiled;                                                                                   \
    if (segmented_sort<K, V>("scankit::segmented_sort_pairs (double buffer)",                                      \
                             {keys.current(), keys.alternate(), raw(values.current()), raw(values.alternate()),    \
                              true},                                                                               \
                             n, offsets, num_segments, stream, ws, options)) {                                     \
      keys.flip();                                                                                                 \
      values.flip();                                                                                               \
    }                                                                                                              \
  }                                                                                                                   \
  void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, device_n n,            \
                            const O* offsets, device_n num_segments, cudaStream_t stream, workspace* ws,            \
                            const sort_options& options) {                                                        \
    using namespace precompiled;                                                                                   \
    segmented_sort_counted<K, V>("scankit::segmented_sort_pairs", {keys_in, keys_out, raw(values_in),              \
                                 raw(values_out)}, n, offsets, num_segments, stream, ws, options);                 \
  }

#define SCANKIT_DEFINE_SEGMENTED_SORT_WITH_VALUE(K, V)                                                             \
  SCANKIT_DEFINE_SEGMENTED_SORT_PAIRS(K, V, std::int32_t)                                                          \
  SCANKIT_DEFINE_SEGMENTED_SORT_PAIRS(K, V, std::int64_t)                                                          \
  std::size_t segmented_sort_pairs_workspace_bytes(const K* keys_in, const V* values_in, std::int64_t n,            \
                                                   std::int64_t num_segments, bool double_buffered,               \
                                                   const sort_options& options) {                                 \
    return device_detail::segmented_sort_bytes(n, num_segments, [&](std::int64_t items) {                          \
      return double_buffered ? sort_pairs_workspace_bytes(double_buffer<K>(), double_buffer<V>(), items, options)   \
                             : std::max(sort_pairs_workspace_bytes(keys_in, values_in, items, options),            \
                                        precompiled::counted_large_sort_bytes<K>(items, options));                 \
    });                                                                                                            \
  }

#define SCANKIT_DEFINE_SEGMENTED_SORT_FOR_KEY(K)                                                                    \
  SCANKIT_DEFINE_SEGMENTED_SORT_KEYS(K, std::int32_t)                                                               \
  SCANKIT_DEFINE_SEGMENTED_SORT_KEYS(K, std::int64_t)                                                               \
  std::size_t segmented_sort_keys_workspace_bytes(const K* keys_in, std::int64_t n, std::int64_t num_segments,      \
                                                  bool double_buffered, const sort_options& options) {             \
    return device_detail::segmented_sort_bytes(n, num_segments, [&](std::int64_t items) {                           \
      return double_buffered ? sort_keys_workspace_bytes(double_buffer<K>(), items, options)                        \
                             : std::max(sort_keys_workspace_bytes(keys_in, items, options),                         \
                                        precompiled::counted_large_sort_bytes<K>(items, options));                  \
    });                                                                                                             \
  }                                                                                                                 \
  SCANKIT_DEFINE_SEGMENTED_SORT_WITH_VALUE(K, std::int32_t)                                                         \
  SCANKIT_DEFINE_SEGMENTED_SORT_WITH_VALUE(K, std::uint32_t)                                                        \
  SCANKIT_DEFINE_SEGMENTED_SORT_WITH_VALUE(K, float)                                                                \
  SCANKIT_DEFINE_SEGMENTED_SORT_WITH_VALUE(K, std::int64_t)                                                         \
  SCANKIT_DEFINE_SEGMENTED_SORT_WITH_VALUE(K, std::uint64_t)                                                        \
  SCANKIT_DEFINE_SEGMENTED_SORT_WITH_VALUE(K, double)
