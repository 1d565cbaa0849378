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
// overlaps are rejected. Conventions as in select.cuh.
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/device/select.cuh"

namespace scankit::device {

namespace compact_detail {

template <class P, class K, class V>
void check_unique_by_key(const char* function, const K* keys, const V* values, const K* keys_out, const V* values_out,
                         std::int64_t n, const compact_options& options) {
  device_detail::check_compact_common<P>(function, n, options);
  detail::check_pointer(function, "keys_in", keys, n);
  detail::check_pointer(function, "values_in", values, n);
  detail::check_pointer(function, "keys_out", keys_out, n);
  detail::check_pointer(function, "values_out", values_out, n);
  const detail::array_extent ki = detail::extent("keys_in", keys, n, sizeof(K));
  const detail::array_extent vi = detail::extent("values_in", values, n, sizeof(V));
  const detail::array_extent ko = detail::extent("keys_out", keys_out, n, sizeof(K));
  const detail::array_extent vo = detail::extent("values_out", values_out, n, sizeof(V));
  detail::check_in_place_or_disjoint(function, ki, ko);
  detail::check_in_place_or_disjoint(function, vi, vo);
  detail::check_disjoint(function, ko, vi);
  detail::check_disjoint(function, ko, vo);
  detail::check_disjoint(function, vo, ki);
}

template <class Eq>
using not_a_stream = std::enable_if_t<!std::is_convertible_v<Eq, cudaStream_t>, int>;

template <class Policy, class K, class V>
using unique_by_key_plan =
    device_detail::resolved_compact_policy<Policy, (sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V)), 2>;

}  // namespace compact_detail

// (An equality is never something that converts to a stream: `unique(in, out, d_count, n, stream)`
// takes the overload below.)
template <class Policy = tuned, class T, class Eq, compact_detail::not_a_stream<Eq> = 0>
void unique(const T* in, T* out, std::int64_t* d_count, std::int64_t n, Eq eq, cudaStream_t stream = nullptr,
            workspace* ws = nullptr, const compact_options& options = {}) {
  const char* function = "scankit::unique";
  using P = compact_detail::select_if_plan<Policy, T, Eq>;
  compact_detail::check_select_if<P>(function, in, out, n, options);
  device_detail::check_count_target(function, d_count,
                                    {detail::extent("in", in, n, sizeof(T)), detail::extent("out", out, n, sizeof(T))});
  device_detail::run_compaction<P>(device_detail::unique_source<T, Eq>{in, nullptr, eq},
                                   device_detail::select_sink<T>{out, nullptr}, n, d_count, in == out, stream, ws,
                                   options);
}

template <class Policy = tuned, class T>
void unique(const T* in, T* out, std::int64_t* d_count, std::int64_t n, cudaStream_t stream = nullptr,
            workspace* ws = nullptr, const compact_options& options = {}) {
  unique<Policy>(in, out, d_count, n, equal_to{}, stream, ws, options);
}

template <class Policy = tuned, class K, class V, class Eq, compact_detail::not_a_stream<Eq> = 0>
void unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t* d_count,
                   std::int64_t n, Eq eq, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                   const compact_options& options = {}) {
  const char* function = "scankit::unique_by_key";
  using P = compact_detail::unique_by_key_plan<Policy, K, V>;
  compact_detail::check_unique_by_key<P>(function, keys_in, values_in, keys_out, values_out, n, options);
  device_detail::check_count_target(
      function, d_count,
      {detail::extent("keys_in", keys_in, n, sizeof(K)), detail::extent("values_in", values_in, n, sizeof(V)),
       detail::extent("keys_out", keys_out, n, sizeof(K)), detail::extent("values_out", values_out, n, sizeof(V))});
  device_detail::run_compaction<P>(device_detail::unique_source<K, Eq, V>{keys_in, values_in, eq},
                                   device_detail::select_sink<K, V>{keys_out, values_out}, n, d_count,
                                   keys_in == keys_out || values_in == values_out, stream, ws, options);
}

template <class Policy = tuned, class K, class V>
void unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t* d_count,
                   std::int64_t n, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                   const compact_options& options = {}) {
  unique_by_key<Policy>(keys_in, values_in, keys_out, values_out, d_count, n, equal_to{}, stream, ws, options);
}

// The same, returning the count to the host. These synchronise: they wait for `stream`.
template <class Policy = tuned, class T, class Eq, compact_detail::not_a_stream<Eq> = 0>
std::int64_t unique_count_host(const T* in, T* out, std::int64_t n, Eq eq, cudaStream_t stream = nullptr,
                               workspace* ws = nullptr, const compact_options& options = {}) {
  compact_detail::check_select_if<compact_detail::select_if_plan<Policy, T, Eq>>("scankit::unique_count_host", in, out,
                                                                                 n, options);
  return detail::count_to_host(stream, [&](std::int64_t* d_count) {
    unique<Policy>(in, out, d_count, n, eq, stream, ws, options);
  });
}

template <class Policy = tuned, class T>
std::int64_t unique_count_host(const T* in, T* out, std::int64_t n, cudaStream_t stream = nullptr,
                               workspace* ws = nullptr, const compact_options& options = {}) {
  return unique_count_host<Policy>(in, out, n, equal_to{}, stream, ws, options);
}

template <class Policy = tuned, class K, class V, class Eq, compact_detail::not_a_stream<Eq> = 0>
std::int64_t unique_by_key_count_host(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t n,
                                      Eq eq, cudaStream_t stream = nullptr, workspace* ws = nullptr,
                                      const compact_options& options = {}) {
  compact_detail::check_unique_by_key<compact_detail::unique_by_key_plan<Policy, K, V>>(
      "scankit::unique_by_key_count_host", keys_in, values_in, keys_out, values_out, n, options);
  return detail::count_to_host(stream, [&](std::int64_t* d_count) {
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
