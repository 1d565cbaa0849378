// The exact path of a sampling table's build (table_scale.cuh says when it runs): the weights'
// sum in double, in a fixed order, fixes the unit; then the tiles are rebuilt in 1024 chunks
// (reduce, then scan: the chunks' units, their prefixes, and each chunk's tiles in order). It
// needs no single-pass protocol, so its launches cost next to nothing when the one-pass build
// succeeded (every block returns at once).
#pragma once

#include <cstdint>

#include "scankit/device/sampling/table_scale.cuh"
#include "scankit/device/sampling/table_tile.cuh"

namespace scankit::device_detail::sampling {

constexpr int exact_sum_threads = 256;

// Block b sums chunk b of the weights, thread-strided, then in the block's fixed order.
template <class T>
__global__ void __launch_bounds__(exact_sum_threads) table_sum_kernel(const T* w, std::int64_t n,
                                                                       table_header* header, double* sums) {
  using scan = block_double_scan<exact_sum_threads>;
  __shared__ typename scan::storage s;
  if (header->mode != static_cast<std::int32_t>(table_mode::full)) return;
  const std::int64_t chunk = (n + exact_sum_blocks - 1) / exact_sum_blocks;
  const std::int64_t begin = std::min<std::int64_t>(n, blockIdx.x * chunk), end = std::min<std::int64_t>(n, begin + chunk);
  double sum = 0.0;
  bool bad = false;
  for (std::int64_t i = begin + threadIdx.x; i < end; i += exact_sum_threads) {
    const T x = w[i];
    bad = bad || !(x >= T(0)) || isinf(x);
    if (x > T(0) && !isinf(x)) sum += static_cast<double>(x);
  }
  double all = 0.0;
  (void)scan::exclusive_sum(sum, s, all);
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(&header->flags, flag_bad_weight);
  if (threadIdx.x == 0) sums[blockIdx.x] = all;
}

// The tiles of chunk b: tiles_per_chunk consecutive tiles from tile b * tiles_per_chunk.
__device__ __forceinline__ std::int64_t chunk_first_tile(std::int64_t tiles_per_chunk) {
  return static_cast<std::int64_t>(blockIdx.x) * tiles_per_chunk;
}

template <class T>
__global__ void __launch_bounds__(table_threads) table_chunk_units_kernel(const T* w, std::int64_t n,
                                                                           std::int64_t tiles_per_chunk,
                                                                           const table_header* header,
                                                                           std::uint64_t* chunk_units) {
  __shared__ table_tile_storage s;
  if (header->mode != static_cast<std::int32_t>(table_mode::full)) return;
  const int unit_exponent = header->unit_exponent;
  std::uint64_t units = 0;
  for (std::int64_t t = chunk_first_tile(tiles_per_chunk), last = t + tiles_per_chunk; t < last; ++t) {
    const std::int64_t begin = t * table_tile_items;
    if (begin >= n) break;
    table_tile<T> tile;
    tile.load(w, begin, n, unit_exponent, s);
    units += tile.total;
  }
  if (threadIdx.x == 0) chunk_units[blockIdx.x] = units;
}

// After table_settle_kernel has turned chunk_units into prefixes.
template <class T>
__global__ void __launch_bounds__(table_threads) table_chunk_write_kernel(const T* w, std::int64_t n,
                                                                           std::int64_t tiles_per_chunk,
                                                                           table_header* header,
                                                                           const std::uint64_t* chunk_prefix,
                                                                           table_arrays a) {
  __shared__ table_tile_storage s;
  __shared__ table_stage_storage stage;
  if (header->mode != static_cast<std::int32_t>(table_mode::full)) return;
  const int unit_exponent = header->unit_exponent, shift = header->shift;
  const std::int64_t last_entry = header->guide_capacity + 1;
  std::uint64_t prefix = chunk_prefix[blockIdx.x];
  for (std::int64_t t = chunk_first_tile(tiles_per_chunk), last = t + tiles_per_chunk; t < last; ++t) {
    const std::int64_t begin = t * table_tile_items;
    if (begin >= n) break;
    table_tile<T> tile;
    tile.load(w, begin, n, unit_exponent, s, &stage);
    tile.write(begin, n, prefix, shift, last_entry, a, header, stage);
    prefix += tile.total;
    __syncthreads();  // the next tile's load writes the stage that this tile's stores still read
  }
}

}  // namespace scankit::device_detail::sampling
