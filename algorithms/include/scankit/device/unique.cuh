// Dropping consecutive duplicates, template API for nvcc users, in one pass over the input.
//
//   scankit::device::unique(d_in, d_out, d_count, n, stream);            // operator==
//   scankit::device::unique(d_in, d_out, d_count, n, eq, stream);        // a user equality
//   scankit::device::unique_by_key(d_keys, d_values, d_keys_out, d_values_out, d_count, n, eq, stream);
//
// Keeps the first item of every run of consecutive equal items (like std::unique and
// thrust::unique): item i is kept when i == 0 or !eq(in[i-1], in[i]). unique_by_key decides on
// the keys and keeps the value of each kept key. *d_count = the number kept. `eq` is a functor
// `bool operator()(const T&, const T&) const` callable on the device; it is applied to neighbours
// in input order (left, right). In place (out == in; values_out == values_in) is allowed; other
// overlaps are rejected. Conventions as in select.cuh. unique takes iterators as select_if does
// (the staged kernel for arrays of T, the register kernel otherwise); unique_by_key takes arrays.
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/device/select.cuh"

namespace scankit::device {

}  // namespace scankit::device

namespace scankit::device_detail {

template <class P, class K, class V>
void check_unique_by_key(const char* function, const K* keys, const V* values, const K* keys_out, const V* values_out,
                         std::int64_t n, const compact_options& options) {
  device_detail::check_compact_common<P>(function, n, options);
  scankit::detail::check_pointer(function, "keys_in", keys, n);
  scankit::detail::check_pointer(function, "values_in", values, n);
  scankit::detail::check_pointer(function, "keys_out", keys_out, n);
  scankit::detail::check_pointer(function, "values_out", values_out, n);
  const scankit::detail::array_extent ki = scankit::detail::extent("keys_in", keys, n, sizeof(K));
  const scankit::detail::array_extent vi = scankit::detail::extent("values_in", values, n, sizeof(V));
  const scankit::detail::array_extent ko = scankit::detail::extent("keys_out", keys_out, n, sizeof(K));
  const scankit::detail::array_extent vo = scankit::detail::extent("values_out", values_out, n, sizeof(V));
  scankit::detail::check_in_place_or_disjoint(function, ki, ko);
  scankit::detail::check_in_place_or_disjoint(function, vi, vo);
  scankit::detail::check_disjoint(function, ko, vi);
  scankit::detail::check_disjoint(function, ko, vo);
  scankit::detail::check_disjoint(function, vo, ki);
}

template <class Eq>
using not_a_stream = std::enable_if_t<!std::is_convertible_v<Eq, cudaStream_t>, int>;

template <class Policy, class K, class V>
using unique_by_key_plan = typename register_plan_of<Policy, (sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V)), 2>::type;

}  // namespace scankit::device_detail

namespace scankit::device {

// (An equality is never something that converts to a stream: `unique(in, out, d_count, n, stream)`
// takes the overload below.)
template <class Policy = tuned, class In, class Out, class Eq, device_detail::not_a_stream<Eq> = 0>
void unique(In in, Out out, std::int64_t* d_count, device_detail::item_count n, Eq eq, cudaStream_t stream = nullptr,
            workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::unique";
  using T = device_detail::iterator_item_t<In>;
  using InView = device_detail::input_view_t<In>;
  using OutView = device_detail::output_view_t<Out>;
  using P = device_detail::select_if_plan<Policy, T, InView, OutView>;
  const InView in_view = device_detail::input_view(in);
  const OutView out_view = device_detail::output_view(out);
  device_detail::check_select_if<P>(function, in_view, out_view, n, options);
  device_detail::check_count_target(function, d_count,
                                    {device_detail::extent_of("in", in_view, n),
                                     device_detail::extent_of("out", out_view, n)});
  device_detail::run_compaction<P>(function, device_detail::unique_source_for<T, Eq, InView>{in_view, nullptr, eq},
                                   device_detail::select_sink_for<T, OutView>{out_view, nullptr}, n, d_count,
                                   device_detail::is_in_place(in_view, out_view), stream, ws, options);
}

template <class Policy = tuned, class In, class Out>
void unique(In in, Out out, std::int64_t* d_count, device_detail::item_count n, cudaStream_t stream = nullptr,
            workspace* ws = nullptr, const compact_options& options = {}) {
  unique<Policy>(in, out, d_count, n, equal_to{}, stream, ws, options);
}

template <class Policy = tuned, class K, class V, class Eq, device_detail::not_a_stream<Eq> = 0>
void unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t* d_count,
                   device_detail::item_count n, Eq eq, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                   const compact_options& options = {}) {
  const char* function = "scankit::unique_by_key";
  using P = device_detail::unique_by_key_plan<Policy, K, V>;
  device_detail::check_unique_by_key<P>(function, keys_in, values_in, keys_out, values_out, n, options);
  device_detail::check_count_target(
      function, d_count,
      {device_detail::extent_of("keys_in", keys_in, n), device_detail::extent_of("values_in", values_in, n),
       device_detail::extent_of("keys_out", keys_out, n), device_detail::extent_of("values_out", values_out, n)});
  device_detail::run_compaction<P>(function, device_detail::unique_source<K, Eq, V>{keys_in, values_in, eq},
                                   device_detail::select_sink<K, V>{keys_out, values_out}, n, d_count,
                                   keys_in == keys_out || values_in == values_out, stream, ws, options);
}

template <class Policy = tuned, class K, class V>
void unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t* d_count,
                   device_detail::item_count n, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                   const compact_options& options = {}) {
  unique_by_key<Policy>(keys_in, values_in, keys_out, values_out, d_count, n, equal_to{}, stream, ws, options);
}

// The same, returning the count to the host. These synchronise: they wait for `stream`.
template <class Policy = tuned, class In, class Out, class Eq, device_detail::not_a_stream<Eq> = 0>
std::int64_t unique_count_host(In in, Out out, std::int64_t n, Eq eq, cudaStream_t stream = nullptr,
                               workspace* ws = nullptr, const compact_options& options = {}) {
  using InView = device_detail::input_view_t<In>;
  using OutView = device_detail::output_view_t<Out>;
  device_detail::check_select_if<
      device_detail::select_if_plan<Policy, device_detail::iterator_item_t<In>, InView, OutView>>(
      "scankit::unique_count_host", device_detail::input_view(in), device_detail::output_view(out), n, options);
  return scankit::detail::count_to_host(stream, [&](std::int64_t* d_count) {
    unique<Policy>(in, out, d_count, n, eq, stream, ws, options);
  });
}

template <class Policy = tuned, class In, class Out>
std::int64_t unique_count_host(In in, Out out, std::int64_t n, cudaStream_t stream = nullptr,
                               workspace* ws = nullptr, const compact_options& options = {}) {
  return unique_count_host<Policy>(in, out, n, equal_to{}, stream, ws, options);
}

template <class Policy = tuned, class K, class V, class Eq, device_detail::not_a_stream<Eq> = 0>
std::int64_t unique_by_key_count_host(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t n,
                                      Eq eq, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                                      const compact_options& options = {}) {
  device_detail::check_unique_by_key<device_detail::unique_by_key_plan<Policy, K, V>>(
      "scankit::unique_by_key_count_host", keys_in, values_in, keys_out, values_out, n, options);
  return scankit::detail::count_to_host(stream, [&](std::int64_t* d_count) {
    unique_by_key<Policy>(keys_in, values_in, keys_out, values_out, d_count, n, eq, stream, ws, options);
  });
}

template <class Policy = tuned, class K, class V>
std::int64_t unique_by_key_count_host(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t n,
                                      cudaStream_t stream = nullptr, workspace* ws = nullptr,
                                      const compact_options& options = {}) {
  return unique_by_key_count_host<Policy>(keys_in, values_in, keys_out, values_out, n, equal_to{}, stream, ws, options);
}

}  // namespace scankit::device
