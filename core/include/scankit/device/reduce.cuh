// The template reduction API for nvcc users: the whole array to one value, and arg-min / arg-max.
//
//   scankit::device::reduce(d_in, d_out, n, init, op, stream, &ws);   // *d_out = init op in[0] op ... op in[n-1]
//   scankit::device::sum(d_in, d_out, n, stream);                     // init T{}, plus
//   scankit::device::arg_min(d_in, d_out, n, stream);                 // *d_out = {index, value} of the first minimum
//   scankit::device::arg_max(d_in, d_out, n, stream);
//
// Any associative operator (never assumed commutative) and trivially copyable accumulator; inputs
// are arrays or iterators; `out` points to one item in device memory (or is an output iterator).
// One launch. The association depends only on n and the GPU, so floating-point results have the
// same bits on every run on one GPU. Arg-min / arg-max: NaN beats every number, ties go to the
// first index (scankit/reduce_operators.hpp); an empty input gives {-1, T{}}.
#pragma once

#include <cstdint>
#include <iterator>
#include <type_traits>

#include "scankit/device/dispatch/reduce_dispatch.cuh"
#include "scankit/device/iterators.cuh"
#include "scankit/operators.hpp"
#include "scankit/reduce_operators.hpp"

namespace scankit::device_detail {

// The identity map of a plain reduction, converting to the accumulator.
template <class T>
struct to_accumulator {
  template <class Item>
  __device__ __forceinline__ T operator()(const Item& item, long long) const { return static_cast<T>(item); }
};

// (index, value) for arg-min / arg-max.
template <class T>
struct with_index {
  template <class Item>
  __device__ __forceinline__ indexed_value<T> operator()(const Item& item, long long index) const {
    return {index, static_cast<T>(item)};
  }
};

template <class In>
using reduce_item_t = std::remove_cv_t<typename std::iterator_traits<In>::value_type>;

}  // namespace scankit::device_detail

namespace scankit::device {

template <class AccT = void, class In, class Out, class Init, class Op>
void reduce(In in, Out out, device_detail::item_count n, Init init, Op op, cudaStream_t stream = nullptr,
            workspace* ws = nullptr) {
  using item_t = device_detail::reduce_item_t<decltype(device_detail::input_view(in))>;
  using T = std::conditional_t<std::is_void_v<AccT>, device_detail::accumulator_t<Op, Init, item_t>, AccT>;
  device_detail::run_reduce<device_detail::reduce_tuning<item_t>, T, item_t>(
      "scankit::reduce", device_detail::input_view(in), device_detail::output_view(out), n, true,
      static_cast<T>(init), device_detail::to_accumulator<T>{}, op, stream, ws);
}

template <class In, class Out>
void sum(In in, Out out, device_detail::item_count n, cudaStream_t stream = nullptr, workspace* ws = nullptr) {
  using item_t = device_detail::reduce_item_t<decltype(device_detail::input_view(in))>;
  reduce(in, out, n, item_t{}, plus_op{}, stream, ws);
}

template <class In, class Out>
void arg_min(In in, Out out, device_detail::item_count n, cudaStream_t stream = nullptr, workspace* ws = nullptr) {
  using item_t = device_detail::reduce_item_t<decltype(device_detail::input_view(in))>;
  device_detail::run_reduce<device_detail::reduce_tuning<item_t>, indexed_value<item_t>, item_t>(
      "scankit::arg_min", device_detail::input_view(in), device_detail::output_view(out), n, false,
      indexed_value<item_t>{-1, item_t{}}, device_detail::with_index<item_t>{}, arg_min_op{}, stream, ws);
}

template <class In, class Out>
void arg_max(In in, Out out, device_detail::item_count n, cudaStream_t stream = nullptr, workspace* ws = nullptr) {
  using item_t = device_detail::reduce_item_t<decltype(device_detail::input_view(in))>;
  device_detail::run_reduce<device_detail::reduce_tuning<item_t>, indexed_value<item_t>, item_t>(
      "scankit::arg_max", device_detail::input_view(in), device_detail::output_view(out), n, false,
      indexed_value<item_t>{-1, item_t{}}, device_detail::with_index<item_t>{}, arg_max_op{}, stream, ws);
}

// Bytes of workspace a reduction of n items of type Item into an accumulator T needs on any GPU
// (0 when one block does it).
template <class Item, class T = Item>
std::size_t reduce_workspace_bytes(std::int64_t n) {
  scankit::detail::check_count("scankit::reduce_workspace_bytes", n);
  return device_detail::reduce_workspace_bytes<device_detail::reduce_tuning<Item>, T>(n);
}

}  // namespace scankit::device
