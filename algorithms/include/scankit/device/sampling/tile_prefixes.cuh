// Prefixes over the tile summaries of one distribution, by one thread block: the sum prefix P[b]
// (the base each tile adds its local sums to) and M[b], the CDF value at the end of tile b
// (a running maximum of fl(P[b] + lmax[b]), see tile_cdf.cuh). Deterministic: the same bits on
// every run, so a table (or a row) built twice gives the same draws.
#pragma once

#include <cstdint>

#include "scankit/device/sampling/tile_cdf.cuh"

namespace scankit::device_detail::sampling {

struct distribution_totals {
  double total;  // M of the last tile: the CDF's last value
  bool bad;      // some weight was invalid
};

// All Threads threads of the block call this. Writes prefix[b] and end_value[b] for b < tiles.
template <int Threads>
__device__ distribution_totals scan_tile_summaries(const tile_summary* summaries, std::int64_t tiles, double* prefix,
                                                   double* end_value, typename block_double_scan<Threads>::storage& s) {
  using scan = block_double_scan<Threads>;
  const std::int64_t chunk = (tiles + Threads - 1) / Threads;
  const std::int64_t first = std::min<std::int64_t>(tiles, chunk * threadIdx.x);
  const std::int64_t last = std::min<std::int64_t>(tiles, first + chunk);
  double sum = 0.0;
  int bad = 0;
#pragma unroll 8
  for (std::int64_t b = first; b < last; ++b) {
    sum = b == first ? summaries[b].sum : sum + summaries[b].sum;
    bad |= summaries[b].bad;
  }
  double ignored = 0.0;
  double p = scan::exclusive_sum(sum, s, ignored);
  double m = 0.0;
#pragma unroll 8
  for (std::int64_t b = first; b < last; ++b) {
    const tile_summary t = summaries[b];
    prefix[b] = p;
    const double v = t.lmax < 0.0 ? 0.0 : p + t.lmax;
    m = fmax(m, v);
    end_value[b] = v;
    p = p + t.sum;
  }
  double total = 0.0;
  double run = scan::exclusive_max(m, s, total);
#pragma unroll 8
  for (std::int64_t b = first; b < last; ++b) {
    run = fmax(run, end_value[b]);
    end_value[b] = run;
  }
  const bool any_bad = __syncthreads_or(bad) != 0;
  return distribution_totals{total, any_bad};
}

}  // namespace scankit::device_detail::sampling
