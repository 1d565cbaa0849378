// The two passes of a table build that do not depend on the weight type (build_table.cuh has the
// whole sequence); included by one translation unit only, so they are compiled once.
#pragma once

#include <cstdint>

#include "scankit/device/sampling/table_header.cuh"
#include "scankit/device/sampling/tile_cdf.cuh"
#include "scankit/device/sampling/tile_prefixes.cuh"

namespace scankit::device_detail::sampling {

// Pass 2: one block of 1024 threads.
constexpr int prefix_threads = 1024;

__global__ void __launch_bounds__(prefix_threads) table_prefix_kernel(const tile_summary* summaries, std::int64_t tiles,
                                                                       double* prefix, double* end_value,
                                                                       table_header* header, std::int64_t bins,
                                                                       std::int64_t guide_size) {
  __shared__ typename block_double_scan<prefix_threads>::storage s;
  const distribution_totals t = scan_tile_summaries<prefix_threads>(summaries, tiles, prefix, end_value, s);
  if (threadIdx.x == 0) {
    std::int32_t status = 0;
    if (t.bad) status = 1;
    else if (!(t.total > 0.0)) status = 2;
    else if (isinf(t.total)) status = 3;
    header->total = t.total;
    header->scale = status == 0 ? double(guide_size) * 65536.0 / t.total : 0.0;
    header->bins = bins;
    header->guide_size = guide_size;
    header->status = status;
  }
}

// Pass 4: block x looks at pieces [256 x, 256 x + 256) and fills those a wide bin touches, one
// guide entry per thread (guide_piece == tile_threads).
static_assert(guide_piece == tile_threads, "one guide entry per thread in pass 4");

__global__ void __launch_bounds__(tile_threads) wide_bin_kernel(const double* cdf, const table_header* header,
                                                                 const std::int32_t* covers, const std::int32_t* starts,
                                                                 std::int64_t pieces, std::uint32_t* guide) {
  __shared__ std::int32_t list[tile_threads];
  __shared__ int count;
  if (header->status != 0) return;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  const std::int64_t p = std::int64_t(blockIdx.x) * tile_threads + threadIdx.x;
  if (p < pieces && (covers[p] >= 0 || starts[p] >= 0)) list[atomicAdd(&count, 1)] = static_cast<std::int32_t>(threadIdx.x);
  __syncthreads();
  const double scale = header->scale;
  const std::int64_t guide_size = header->guide_size;
  for (int e = 0; e < count; ++e) {
    const std::int64_t piece = std::int64_t(blockIdx.x) * tile_threads + list[e];
    const std::int64_t j = piece * guide_piece + threadIdx.x;
    if (j >= guide_size) continue;
    const std::int32_t c = covers[piece], st = starts[piece];
    if (st >= 0) {
      const std::int64_t lo = st == 0 ? -1 : guide_cell(cdf[st - 1], scale, guide_size);
      if (j > lo) {
        guide[j] = static_cast<std::uint32_t>(st);
        continue;
      }
    }
    if (c >= 0 && j <= guide_cell(cdf[c], scale, guide_size)) guide[j] = static_cast<std::uint32_t>(c);
  }
}

}  // namespace scankit::device_detail::sampling
