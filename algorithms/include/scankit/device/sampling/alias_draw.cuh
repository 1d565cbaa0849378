// Draws from an alias table: per draw one Philox block (the bucket from its first 64 bits, the
// comparison word from its third word, detail/alias_fixed_point.hpp) and ONE 8-byte read, the
// bucket's {threshold, alias}. Several draws per thread are in flight before their stores, since
// at 2^24 bins and beyond the table (128 MiB) lives in DRAM and each read is a random access.
// Included by one translation unit.
#pragma once

#include <cstdint>

#include "scankit/detail/alias_fixed_point.hpp"
#include "scankit/device/sampling/alias_header.cuh"
#include "scankit/device/sampling/draw.cuh"
#include "scankit/sampling.hpp"

namespace scankit::device_detail::sampling {

__global__ void __launch_bounds__(draw_threads) alias_draw_kernel(const alias_header* header,
                                                                   const alias_entry* entries, std::int32_t* out,
                                                                   std::int64_t count, std::uint64_t seed,
                                                                   std::uint64_t offset) {
  const bool ok = header->status == 0;
  const std::int64_t n = header->bins;
  const auto* packed = reinterpret_cast<const uint2*>(entries);  // {threshold, alias}: one 8-byte load
  const std::int64_t stride = std::int64_t(gridDim.x) * draw_threads;
  for (std::int64_t base = std::int64_t(blockIdx.x) * draw_threads * draws_per_thread + threadIdx.x; base < count;
       base += stride * draws_per_thread) {
    scankit::detail::alias_choice choice[draws_per_thread];
    uint2 entry[draws_per_thread];
#pragma unroll
    for (int d = 0; d < draws_per_thread; ++d) {
      const std::int64_t k = base + std::int64_t(d) * draw_threads;
      choice[d] = scankit::detail::alias_choice_for(seed, offset + std::uint64_t(k), n);
      entry[d] = k < count && ok ? __ldg(packed + choice[d].bucket) : make_uint2(0, 0);
    }
#pragma unroll
    for (int d = 0; d < draws_per_thread; ++d) {
      const std::int64_t k = base + std::int64_t(d) * draw_threads;
      if (k >= count) break;
      const std::int32_t bin =
          ok ? scankit::detail::alias_pick(choice[d], entry[d].x, static_cast<std::int32_t>(entry[d].y)) : -1;
      __stcs(out + k, bin);  // streamed past L2, which keeps what it can of the table
    }
  }
}

}  // namespace scankit::device_detail::sampling
