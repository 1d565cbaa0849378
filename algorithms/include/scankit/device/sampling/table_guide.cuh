// The last launches of a sampling table's build: the guide repair (when the cells chosen before the
// total was known do not fit it, table_scale.cuh) and the wide bins (entries of bins that own more
// than a piece of the guide, recorded in the piece slots by the tile writes).
#pragma once

#include <cstdint>

#include "scankit/device/sampling/table_tile.cuh"

namespace scankit::device_detail::sampling {

constexpr int guide_repair_threads = 256;
constexpr int guide_repair_blocks = 1024;  // grid-stride: few blocks to retire when there is nothing to do

// Rewrites every code and guide entry from the CDF, at the shift the settle launch chose.
__global__ void __launch_bounds__(guide_repair_threads) guide_repair_kernel(const table_header* header, std::int64_t n,
                                                                             table_arrays a) {
  if (header->mode != static_cast<std::int32_t>(table_mode::guide_repair)) return;
  const int shift = header->shift;
  const std::int64_t last_entry = header->guide_capacity + 1;
  const std::int64_t stride = std::int64_t(gridDim.x) * guide_repair_threads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * guide_repair_threads + threadIdx.x; i < n; i += stride) {
    const std::uint64_t cur = a.cdf[i], prev = i == 0 ? 0 : a.cdf[i - 1];
    a.codes[i] = static_cast<std::uint16_t>(guide_position(cur, shift) & 0xffff);
    write_guide_entries(i, n, prev, cur, shift, last_entry, a);
  }
}

// Block x looks at pieces [256 x, 256 x + 256) and fills those a wide bin touches, one guide entry
// per thread (guide_piece == table_threads).
static_assert(guide_piece == table_threads, "one guide entry per thread in the wide-bin pass");

__global__ void __launch_bounds__(table_threads) wide_bin_kernel(const table_header* header, table_arrays a,
                                                                  std::int64_t pieces) {
  __shared__ std::int32_t list[table_threads];
  __shared__ int count;
  if (header->status != 0) return;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  const std::int64_t p = std::int64_t(blockIdx.x) * table_threads + threadIdx.x;
  if (p < pieces && (a.covers[p] >= 0 || a.starts[p] >= 0)) list[atomicAdd(&count, 1)] = static_cast<std::int32_t>(threadIdx.x);
  __syncthreads();
  const int shift = header->shift;
  const std::int64_t last_entry = header->guide_capacity + 1;
  for (int e = 0; e < count; ++e) {
    const std::int64_t piece = std::int64_t(blockIdx.x) * table_threads + list[e];
    const std::int64_t j = piece * guide_piece + threadIdx.x;
    if (j > last_entry) continue;
    const std::int32_t c = a.covers[piece], st = a.starts[piece];
    if (st >= 0) {
      const std::int64_t lo = st == 0 ? -1 : guide_cell(a.cdf[st - 1], shift);
      if (j > lo) {
        a.guide[j] = static_cast<std::uint32_t>(st);
        continue;
      }
    }
    if (c >= 0 && j <= guide_cell(a.cdf[c], shift)) a.guide[j] = static_cast<std::uint32_t>(c);
  }
}

}  // namespace scankit::device_detail::sampling
