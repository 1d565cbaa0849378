// Weighted sampling without replacement (Efraimidis and Spirakis): item i gets the exponential
// key E_i = -log(u_i) / w_i (scankit/detail/exponential_key.hpp: a 64-bit integer that orders
// the items as E does, for every weight from the smallest denormal to the largest double); the k
// items with the smallest keys are a weighted sample of k distinct items (the first is drawn with
// probability w_i / sum w, the next from the rest in proportion to their weights, and so on). The
// k smallest keys are taken with top-k (scankit/top_k.hpp: one read of the keys, in key order). A
// zero weight ranks after every positive one (never taken while a positive weight remains: such
// slots get -1); a bad weight marks the whole call bad (every slot -1).
#pragma once

#include <cmath>
#include <cstdint>

#include "scankit/detail/exponential_key.hpp"
#include "scankit/device/sampling/tile_cdf.cuh"

namespace scankit::device_detail::sampling {

// any_bad must be zero before the launch; it becomes nonzero when a weight is bad.
template <class T>
__global__ void exponential_key_kernel(const T* w, std::int64_t n, std::uint64_t seed, std::uint64_t offset,
                                       std::uint64_t* keys, unsigned int* any_bad) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  bool bad = false;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T x = w[i];
    bad |= bad_weight(x);
    keys[i] = bad_weight(x) ? scankit::detail::exponential_key_bad
                            : scankit::detail::exponential_key(double(x), seed, offset + std::uint64_t(i));
  }
  if (bad) atomicOr(any_bad, 1u);
}

// out[r] = taken[r] for the k smallest keys in order; -1 where the key is a zero weight's (no
// positive weight left) or everywhere when a weight was bad.
__global__ void take_smallest_kernel(const std::uint64_t* smallest_keys, const std::int32_t* taken, std::int64_t k,
                                     const unsigned int* any_bad, std::int32_t* out) {
  const bool bad = *any_bad != 0;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < k; r += stride)
    out[r] = (!bad && smallest_keys[r] < scankit::detail::exponential_key_weightless) ? taken[r] : -1;
}

}  // namespace scankit::device_detail::sampling
