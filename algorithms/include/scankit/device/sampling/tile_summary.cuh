// The tile summaries of sample_rows' first pass (rows.cuh): per tile of 4096 weights, its sum, the
// largest local CDF value of a non-zero weight, and whether any weight is invalid (tile_cdf.cuh
// has the arithmetic). The one read of the weights that every row pays in full.
#pragma once

#include <cstdint>

#include "scankit/device/sampling/tile_cdf.cuh"
#include "scankit/device/sampling/tile_prefixes.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail::sampling {

// Pass 1 over `segments` equal rows of `cols` weights (one distribution: one row of n): block x
// summarises tile x % tiles_per_row of row x / tiles_per_row.
// rows_device: the rows' count in device memory (rows_bound its bound), or null; the blocks of
// rows past it leave before any barrier.
template <class Source>
__global__ void __launch_bounds__(tile_threads) tile_summary_kernel(Source w, std::int64_t cols,
                                                                     std::int64_t tiles_per_row,
                                                                     tile_summary* summaries, std::int64_t rows_bound,
                                                                     const std::int64_t* rows_device) {
  using scan = block_double_scan<tile_threads>;
  __shared__ typename scan::storage s;
  const std::int64_t id = blockIdx.x;
  const std::int64_t row = id / tiles_per_row, tile = id - row * tiles_per_row;
  if (rows_device != nullptr && row >= items_to_process(rows_bound, rows_device)) return;
  const std::int64_t row_begin = row * cols;
  const std::int64_t begin = row_begin + tile * tile_items;
  const std::int64_t end = min(begin + tile_items, row_begin + cols);
  using T = typename Source::value_type;
  tile_walker<Source> walker;
  bool bad = false;
  double lmax = -1.0;
#pragma unroll
  for (int sub = 0; sub < subtiles; ++sub) {
    T v[items_per_thread];
    double L[items_per_thread];
    walker.step(w, begin, end, sub, s, v, L, bad);
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k)
      if (v[k] > T(0)) lmax = fmax(lmax, L[k]);
  }
  double block_max = 0.0;
  (void)scan::exclusive_max(fmax(lmax, 0.0), s, block_max);  // non-zero items have L > 0
  const int any_nonzero = __syncthreads_or(lmax >= 0.0);
  const int any_bad = __syncthreads_or(bad);
  if (threadIdx.x == 0) summaries[id] = tile_summary{walker.carry, any_nonzero ? block_max : -1.0, any_bad};
}

}  // namespace scankit::device_detail::sampling
