// Building a sampling table: the double CDF of the weights and its guide table, in four launches.
//
//   1. tile summaries   one block per tile of 4096 weights: the tile's sum, the largest local
//                       CDF value of a non-zero weight, invalid weights (reads the weights)
//   2. tile prefixes    one block: sum prefixes and end values of all tiles, the total, the
//                       status and the guide scale (reads 16 bytes per tile)
//   3. cdf and guide    one block per tile: re-reads the weights, writes the CDF, each bin's code
//                       (the low 16 bits of guide_position(cdf[i])) and the guide entries j with
//                       cell(cdf[i - 1]) < j <= cell(cdf[i]) (a bin owning more than guide_piece
//                       entries only records itself in the piece slots); the last bin writes the
//                       sentinel guide[guide_size] = bins
//   4. wide bins        one thread per guide piece finds the pieces that wide bins touch; each
//                       block then fills its pieces with one entry per thread
// Passes 2 and 4 do not depend on the weight type: they live in table_passes.cuh, compiled once.
//
// guide[j] is the first bin whose cell reaches j, so the bins ending in cell j are guide[j] ..
// guide[j + 1] - 1, and for a target t in cell j the first bin with cdf > t is among them or is
// guide[j + 1] (draw_kernel.cuh). Weights are read twice (pass 1 and 3): the total must be known
// before any guide entry can be placed.
#pragma once

#include <cstdint>

#include "scankit/device/sampling/table_header.cuh"
#include "scankit/device/sampling/tile_cdf.cuh"
#include "scankit/device/sampling/tile_prefixes.cuh"

namespace scankit::device_detail::sampling {

// Pass 1 over `segments` equal rows of `cols` weights (one distribution: one row of n): block x
// summarises tile x % tiles_per_row of row x / tiles_per_row.
template <class Source>
__global__ void __launch_bounds__(tile_threads) tile_summary_kernel(Source w, std::int64_t cols,
                                                                     std::int64_t tiles_per_row,
                                                                     tile_summary* summaries) {
  using scan = block_double_scan<tile_threads>;
  __shared__ typename scan::storage s;
  const std::int64_t id = blockIdx.x;
  const std::int64_t row = id / tiles_per_row, tile = id - row * tiles_per_row;
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

// Records a wide bin (owning guide entries first .. last, more than one piece) in the piece slots:
// covers[p] for each piece whose first entry it owns, starts[p] for the piece where it begins
// when that is not at a piece boundary. Wide bins own disjoint ranges longer than a piece, so a
// piece meets at most two of them: the one covering its start and one starting inside it.
__device__ __forceinline__ void record_wide_bin(std::int64_t first, std::int64_t last, std::int32_t bin,
                                                std::int32_t* covers, std::int32_t* starts) {
  if (first % guide_piece != 0) starts[first / guide_piece] = bin;
  for (std::int64_t p = (first + guide_piece - 1) / guide_piece; p * guide_piece <= last; ++p) covers[p] = bin;
}

// Pass 3.
template <class T>
__global__ void __launch_bounds__(tile_threads) cdf_guide_kernel(const T* w, std::int64_t n, const double* prefix,
                                                                  const double* end_value, const table_header* header,
                                                                  double* cdf, std::uint16_t* codes,
                                                                  std::uint32_t* guide, std::int32_t* covers,
                                                                  std::int32_t* starts) {
  using scan = block_double_scan<tile_threads>;
  __shared__ typename scan::storage s;
  if (header->status != 0) return;
  const double scale = header->scale;
  const std::int64_t guide_size = header->guide_size;
  const std::int64_t tile = blockIdx.x;
  const std::int64_t begin = tile * tile_items;
  const std::int64_t end = min(begin + tile_items, n);
  const double base = prefix[tile];
  double carry = tile == 0 ? 0.0 : end_value[tile - 1];
  tile_walker<array_source<T>> walker;
  const array_source<T> src{w};
#pragma unroll
  for (int sub = 0; sub < subtiles; ++sub) {
    T v[items_per_thread];
    double value[items_per_thread];
    const double before = cdf_step(walker, src, begin, end, sub, base, carry, s, v, value);
    const std::int64_t first = begin + std::int64_t(sub) * subtile_items + threadIdx.x * items_per_thread;
    if (first + items_per_thread <= end) {  // cdf is 32-byte aligned and first a multiple of 4
      reinterpret_cast<double2*>(cdf + first)[0] = make_double2(value[0], value[1]);
      reinterpret_cast<double2*>(cdf + first)[1] = make_double2(value[2], value[3]);
    } else {
#pragma unroll
      for (int k = 0; k < items_per_thread; ++k)
        if (first + k < end) cdf[first + k] = value[k];
    }
    std::int64_t position[items_per_thread];
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) position[k] = guide_position(value[k], scale, guide_size);
    if (first + items_per_thread <= end) {  // codes: 8 bytes per thread, first a multiple of 4
      const unsigned lo_pair = unsigned(position[0] & 0xffff) | (unsigned(position[1] & 0xffff) << 16);
      const unsigned hi_pair = unsigned(position[2] & 0xffff) | (unsigned(position[3] & 0xffff) << 16);
      *reinterpret_cast<uint2*>(codes + first) = make_uint2(lo_pair, hi_pair);
    } else {
#pragma unroll
      for (int k = 0; k < items_per_thread; ++k)
        if (first + k < end) codes[first + k] = static_cast<std::uint16_t>(position[k] & 0xffff);
    }
    std::int64_t previous = guide_position(before, scale, guide_size) >> 16;
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) {
      const std::int64_t i = first + k;
      if (i < end) {
        const std::int64_t lo = i == 0 ? -1 : previous;
        const std::int64_t hi = position[k] >> 16;
        if (i == n - 1) guide[guide_size] = static_cast<std::uint32_t>(n);  // the sentinel
        if (hi - lo > guide_piece) {
          record_wide_bin(lo + 1, hi, static_cast<std::int32_t>(i), covers, starts);
        } else {
          for (std::int64_t j = lo + 1; j <= hi; ++j) guide[j] = static_cast<std::uint32_t>(i);
        }
      }
      previous = position[k] >> 16;
    }
  }
}

}  // namespace scankit::device_detail::sampling
