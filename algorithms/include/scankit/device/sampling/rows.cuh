// One draw from each row of a row-major matrix of weights, without writing any CDF.
//
//   1. tile summaries of every row (tile_summary_kernel over rows x tiles_per_row blocks): the one
//      full read of the weights
//   2. one block per row: the row's tile prefixes (tile_prefixes.cuh), its draw's target, the tile
//      whose end value first exceeds it, and then that tile alone re-read and rescanned with the
//      same arithmetic as the first pass (tile_cdf.cuh), so the tile's end values agree bit for bit.
#pragma once

#include <cstdint>

#include "scankit/detail/philox.hpp"
#include "scankit/device/sampling/tile_summary.cuh"
#include "scankit/device/sampling/draw.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail::sampling {

// rows_device: the rows' count in device memory (rows_bound its bound), or null.
template <class Source>
__global__ void __launch_bounds__(tile_threads) row_draw_kernel(Source w, std::int64_t cols,
                                                                 std::int64_t tiles_per_row,
                                                                 const tile_summary* summaries, double* prefix,
                                                                 double* end_value, std::int32_t* out,
                                                                 std::uint64_t seed, std::uint64_t offset,
                                                                 std::int64_t rows_bound,
                                                                 const std::int64_t* rows_device) {
  using scan = block_double_scan<tile_threads>;
  __shared__ typename scan::storage s;
  __shared__ unsigned long long found;
  const std::int64_t row = blockIdx.x;
  if (rows_device != nullptr && row >= items_to_process(rows_bound, rows_device)) return;  // before any barrier
  const std::int64_t t0 = row * tiles_per_row;
  const distribution_totals t =
      scan_tile_summaries<tile_threads>(summaries + t0, tiles_per_row, prefix + t0, end_value + t0, s);
  if (t.bad || !(t.total > 0.0) || isinf(t.total)) {
    if (threadIdx.x == 0) out[row] = -1;
    return;
  }
  const double target = clamp_target(scankit::detail::philox_uniform(seed, offset + std::uint64_t(row)) * t.total, t.total);
  // The first tile whose end value exceeds the target (end values are non-decreasing; the last
  // one is the total, above the target).
  if (threadIdx.x == 0) found = ~0ull;
  __syncthreads();
  for (std::int64_t b = threadIdx.x; b < tiles_per_row; b += tile_threads) {
    const bool above = end_value[t0 + b] > target;
    const bool before_not = b == 0 || !(end_value[t0 + b - 1] > target);
    if (above && before_not) found = static_cast<unsigned long long>(b);  // exactly one b qualifies
  }
  __syncthreads();
  const std::int64_t tile = static_cast<std::int64_t>(found);
  __syncthreads();
  if (threadIdx.x == 0) found = ~0ull;
  const std::int64_t row_begin = row * cols;
  const std::int64_t begin = row_begin + tile * tile_items;
  const std::int64_t end = min(begin + tile_items, row_begin + cols);
  const double base = prefix[t0 + tile];
  double carry = tile == 0 ? 0.0 : end_value[t0 + tile - 1];
  using T = typename Source::value_type;
  tile_walker<Source> walker;
#pragma unroll
  for (int sub = 0; sub < subtiles; ++sub) {
    T v[items_per_thread];
    double value[items_per_thread];
    (void)cdf_step(walker, w, begin, end, sub, base, carry, s, v, value);
    const std::int64_t first = std::int64_t(sub) * subtile_items + threadIdx.x * items_per_thread;
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) {
      if (value[k] > target) {
        atomicMin(&found, static_cast<unsigned long long>(first + k));
        break;
      }
    }
    __syncthreads();
    if (found != ~0ull) break;  // uniform: every thread reads the same value after the barrier
  }
  if (threadIdx.x == 0) out[row] = static_cast<std::int32_t>(tile * tile_items + static_cast<std::int64_t>(found));
}

// Rows without columns: -1 for each of the first count rows (rows_device as above).
template <class Index>
__global__ void empty_rows_kernel(Index* out, std::int64_t rows_bound, const std::int64_t* rows_device) {
  const std::int64_t rows = items_to_process(rows_bound, rows_device);
  for (std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += std::int64_t(gridDim.x) * blockDim.x) {
    out[r] = -1;
  }
}

}  // namespace scankit::device_detail::sampling
