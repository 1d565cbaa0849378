// The template reduce-by-key API for nvcc users: each run of equal consecutive keys becomes one
// key (the run's first) and one aggregate (its values combined in order), as
// thrust::reduce_by_key and cub::DeviceReduce::ReduceByKey.
//
//   scankit::device::reduce_by_key(d_keys, d_values, d_unique_keys, d_aggregates, d_runs, n,
//                                  scankit::plus_op{}, scankit::equal_to_op{}, stream, &ws);
//
// d_runs points to one std::int64_t in device memory: the number of runs r; unique_keys[0..r) and
// aggregates[0..r) are written, nothing after them. Any associative operator (never assumed
// commutative), any key equality; arrays or iterators. One pass with the decoupled look-back over
// (aggregate, run count) pairs; n < 2^32. The outputs must not overlap the inputs.
#pragma once

#include <cstdint>

#include "scankit/device/segments/reduce_by_key_dispatch.cuh"
#include "scankit/device/iterators.cuh"
#include "scankit/device/scan.cuh"
#include "scankit/device/segmented_scan.cuh"
#include "scankit/operators.hpp"
#include "scankit/segmented_operators.hpp"

namespace scankit::device {

template <class Policy = tuned, class AccT = void, class KeysIn, class ValuesIn, class KeysOut, class ValuesOut,
          class Op = plus_op, class KeyEqual = equal_to_op>
void reduce_by_key(KeysIn keys, ValuesIn values, KeysOut unique_keys, ValuesOut aggregates, std::int64_t* runs,
                   device_detail::item_count n, Op op = {}, KeyEqual key_equal = {}, cudaStream_t stream = nullptr,
                   workspace* ws = nullptr) {
  using T = scankit::device_detail::pick_t<AccT, scankit::device_detail::inclusive_accumulator_t<ValuesIn, Op>>;
  const auto k = device_detail::input_view(keys);
  using key_t = std::remove_cv_t<device_detail::iterator_item_t<std::remove_cv_t<decltype(k)>>>;
  using P = resolved_segmented_policy<Policy, T, key_t>;
  device_detail::run_reduce_by_key<P, T>("scankit::reduce_by_key", k, device_detail::input_view(values),
                                         device_detail::output_view(unique_keys), device_detail::output_view(aggregates),
                                         runs, n, key_equal, op, stream, ws);
}

// Bytes of workspace a reduce-by-key of n values of type T with keys of type Key needs (0 for one
// tile).
template <class T, class Key, class Policy = tuned>
std::size_t reduce_by_key_workspace_bytes(std::int64_t n) {
  scankit::detail::check_count("scankit::reduce_by_key_workspace_bytes", n);
  return device_detail::reduce_by_key_workspace_bytes<resolved_segmented_policy<Policy, T, Key>, T>(n);
}

}  // namespace scankit::device
