// Weighted sampling without replacement (Efraimidis and Spirakis): item i gets the exponential
// key E_i = -log(u_i) / w_i with u_i = Philox(seed, offset + i) in (0, 1); the k items with the
// smallest keys are a weighted sample of k distinct items (the first is drawn with probability
// w_i / sum w, the next from the rest in proportion to their weights, and so on). The keys are
// sorted with the toolkit's radix sort (argsort, double keys). A zero weight gives +inf (never
// taken while a positive weight remains: such slots get -1); a bad weight gives NaN, which sorts
// last and marks the whole call bad (every slot -1).
#pragma once

#include <cmath>
#include <cstdint>

#include "scankit/detail/philox.hpp"
#include "scankit/device/sampling/tile_cdf.cuh"

namespace scankit::device_detail::sampling {

// u in (0, 1): the 53-bit uniform shifted by half a step, so log(u) is finite.
__host__ __device__ __forceinline__ double exponential_key(double w, std::uint64_t seed, std::uint64_t index) {
  const double u = scankit::detail::philox_uniform(seed, index) + 0x1.0p-54;
  return -log(u) / w;  // w == 0: +inf
}

template <class T>
__global__ void exponential_key_kernel(const T* w, std::int64_t n, std::uint64_t seed, std::uint64_t offset,
                                       double* keys) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T x = w[i];
    keys[i] = bad_weight(x) ? NAN : exponential_key(double(x), seed, offset + std::uint64_t(i));
  }
}

// out[r] = order[r] for the first k sorted keys; -1 where the key is +inf (no positive weight
// left) or everywhere when the largest key is NaN (a bad weight).
__global__ void take_smallest_kernel(const double* sorted_keys, const std::int32_t* order, std::int64_t n,
                                     std::int64_t k, std::int32_t* out) {
  const bool bad = isnan(sorted_keys[n - 1]);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < k; r += stride)
    out[r] = (!bad && sorted_keys[r] < INFINITY) ? order[r] : -1;
}

}  // namespace scankit::device_detail::sampling
