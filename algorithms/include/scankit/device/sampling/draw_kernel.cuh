// Draws from a sampling table: one Philox uniform per draw, its guide cell, then a forward walk
// over the CDF to the first bin that ends above the target. Included by one translation unit.
#pragma once

#include <cstdint>

#include "scankit/detail/philox.hpp"
#include "scankit/device/sampling/draw.cuh"
#include "scankit/device/sampling/table_header.cuh"

namespace scankit::device_detail::sampling {

__global__ void __launch_bounds__(draw_threads) draw_kernel(const table_header* header, const double* cdf,
                                                             const std::uint32_t* guide, std::int32_t* out,
                                                             std::int64_t count, std::uint64_t seed,
                                                             std::uint64_t offset) {
  const std::int32_t status = header->status;
  const double total = header->total, scale = header->scale;
  const std::int64_t guide_size = header->guide_size;
  const std::int64_t stride = std::int64_t(gridDim.x) * draw_threads;
  for (std::int64_t base = std::int64_t(blockIdx.x) * draw_threads * draws_per_thread + threadIdx.x; base < count;
       base += stride * draws_per_thread) {
    double target[draws_per_thread];
    std::int64_t bin[draws_per_thread];
#pragma unroll
    for (int d = 0; d < draws_per_thread; ++d) {
      const std::int64_t k = base + std::int64_t(d) * draw_threads;
      target[d] = clamp_target(scankit::detail::philox_uniform(seed, offset + std::uint64_t(k)) * total, total);
      bin[d] = (k < count && status == 0) ? guide[guide_cell(target[d], scale, guide_size)] : 0;
    }
#pragma unroll
    for (int d = 0; d < draws_per_thread; ++d) {
      const std::int64_t k = base + std::int64_t(d) * draw_threads;
      if (k >= count) continue;
      if (status != 0) {
        out[k] = -1;
        continue;
      }
      std::int64_t i = bin[d];
      while (__ldg(cdf + i) <= target[d]) ++i;  // ends: cdf[bins - 1] == total > target
      out[k] = static_cast<std::int32_t>(i);
    }
  }
}

}  // namespace scankit::device_detail::sampling
