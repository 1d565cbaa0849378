// Draws from many distributions given by offsets, each with its own number of draws: the CDFs by
// the engine's segmented scan (double accumulator, invalid weights turned into NaN so that a bad
// segment's total is NaN), then one thread per draw: its segment by binary search over the draw
// offsets, its bin by binary search over the segment's CDF.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "scankit/detail/philox.hpp"
#include "scankit/device/kernel/segment_offsets.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/sampling/draw.cuh"
#include "scankit/device/sampling/tile_cdf.cuh"

namespace scankit::device_detail::sampling {

template <class T>
struct checked_weight {
  __host__ __device__ double operator()(T w) const {
    return (w >= T(0) && !isinf(w)) ? double(w) : std::numeric_limits<double>::quiet_NaN();
  }
};

// The last position p in [0, count) with sorted[p] <= x (sorted[0] <= x is required).
__device__ __forceinline__ std::int64_t last_not_above(const std::int64_t* sorted, std::int64_t count, std::int64_t x) {
  std::int64_t lo = 0, hi = count - 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (sorted[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

template <class T>
__global__ void __launch_bounds__(draw_threads) segment_draw_kernel(const T* w, const double* cdf,
                                                                     segment_offsets<const std::int64_t*> bounds,
                                                                     const std::int64_t* draw_offsets,
                                                                     std::int64_t total_draws,
                                                                     const std::int64_t* draws_device, std::int32_t* out,
                                                                     std::uint64_t seed, std::uint64_t offset) {
  // The counts read on the device (none without device_n); positions clamp to the items' count,
  // so no draw reads the CDF past what the scan wrote.
  const segment_offsets<const std::int64_t*> segments = bounds.resolved();
  const std::int64_t draws = items_to_process(total_draws, draws_device);
  const std::int64_t stride = std::int64_t(gridDim.x) * draw_threads;
  for (std::int64_t d = std::int64_t(blockIdx.x) * draw_threads + threadIdx.x; d < draws; d += stride) {
    if (segments.num_offsets == 1) {  // draws from no segment (a host count refuses this)
      out[d] = -1;
      continue;
    }
    // The segment whose draw range holds d; empty draw ranges share their start with the next one,
    // so take the last segment starting at or before d.
    const std::int64_t seg = last_not_above(draw_offsets, segments.num_offsets - 1, d);
    const std::int64_t begin = segments.position(seg), end = segments.position(seg + 1);
    const double total = end > begin ? cdf[end - 1] : 0.0;
    if (!(total > 0.0) || isinf(total)) {  // empty, all zero, NaN (a bad weight) or overflow
      out[d] = -1;
      continue;
    }
    const double target = clamp_target(scankit::detail::philox_uniform(seed, offset + std::uint64_t(d)) * total, total);
    std::int64_t lo = begin, hi = end - 1;  // the first i with cdf[i] > target
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (cdf[mid] > target) hi = mid;
      else lo = mid + 1;
    }
    // The segmented scan adds in a tree order, so a zero weight can sit an ulp above its
    // predecessor; never return one: move to the nearest non-zero weight (forward, else back).
    std::int64_t i = lo;
    while (i + 1 < end && !(w[i] > T(0))) ++i;
    while (i > begin && !(w[i] > T(0))) --i;
    out[d] = static_cast<std::int32_t>(i - begin);
  }
}

}  // namespace scankit::device_detail::sampling
