// Draws from a sampling table: one Philox block per draw gives the target t, an integer in
// [0, total) units (scankit/detail/table_fixed_point.hpp), then the first bin whose CDF exceeds t.
// With p = guide_position(t), cell j = p >> 16 and code c = p & 0xffff:
//   the bins ending in cell j are lo = guide[j] .. hi - 1 (hi = guide[j + 1]); every bin before lo
//   ends at or below t, bin hi ends above it (a later cell);
//   among lo .. hi - 1 (non-decreasing codes) a code below c ends below t and one above c ends
//   above t (positions are monotone, table_header.cuh); only a code equal to c needs the CDF,
//   about once in 2^16 / bins_per_cell draws.
// So a draw reads two guide entries and a few 16-bit codes (L2-resident up to about 2^24 bins),
// not the 8-byte CDF.
//
// The reads stay inside the table whatever its memory holds: the bin count and the guide's length
// come from the host object (what its memory was sized for), the cell is clamped to the guide and
// a cell's range to the bins. A header that disagrees with the host's bin count, or a status other
// than ok, gives -1 for every draw; a guide entry beyond the bins gives -1 for the draws that meet
// it. Included by one translation unit.
#pragma once

#include <cstdint>

#include "scankit/detail/table_fixed_point.hpp"
#include "scankit/device/sampling/draw.cuh"
#include "scankit/device/sampling/table_header.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail::sampling {

// The first bin in lo .. end - 1 whose CDF exceeds the target (end if none: bin end does).
__device__ __forceinline__ std::int64_t draw_in_cell(std::uint64_t target, unsigned code, std::int64_t lo,
                                                     std::int64_t end, const std::uint64_t* cdf,
                                                     const std::uint16_t* codes) {
  std::int64_t hi = end;
  while (hi - lo > 8) {  // the first code >= code: binary search in long cells (skewed weights)
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (__ldg(codes + mid) < code) lo = mid + 1;
    else hi = mid;
  }
  std::int64_t i = lo;
  while (i < end && __ldg(codes + i) < code) ++i;
  while (i < end && __ldg(codes + i) == code && __ldg(cdf + i) <= target) ++i;
  return i;
}

// bins: the table's bins (> 0); guide_entries: the guide's length (>= 2), both from the host object.
// count_device: the draws' count in device memory (count_bound is then its bound), or null.
__global__ void __launch_bounds__(draw_threads) draw_kernel(const table_header* header, const std::uint64_t* cdf,
                                                             const std::uint16_t* codes, const std::uint32_t* guide,
                                                             std::int64_t bins, std::int64_t guide_entries,
                                                             std::int32_t* out, std::int64_t count_bound,
                                                             const std::int64_t* count_device, std::uint64_t seed,
                                                             std::uint64_t offset) {
  const std::int64_t count = items_to_process(count_bound, count_device);  // device_count.cuh
  const bool ok = header->status == 0 && header->bins == bins;
  const std::uint64_t total = header->total_units;
  const int shift = header->shift;
  const std::int64_t stride = std::int64_t(gridDim.x) * draw_threads;
  for (std::int64_t base = std::int64_t(blockIdx.x) * draw_threads * draws_per_thread + threadIdx.x; base < count;
       base += stride * draws_per_thread) {
    // The guide entries of all of this thread's draws first, so that their loads are in flight together.
    std::uint64_t target[draws_per_thread];
    unsigned code[draws_per_thread];
    std::int64_t lo[draws_per_thread], end[draws_per_thread];
#pragma unroll
    for (int d = 0; d < draws_per_thread; ++d) {
      const std::int64_t k = base + std::int64_t(d) * draw_threads;
      target[d] = scankit::detail::table_target(seed, offset + std::uint64_t(k), total);
      const std::uint64_t position = guide_position(target[d], shift);
      code[d] = static_cast<unsigned>(position & 0xffff);
      const bool live = k < count && ok;
      const std::uint64_t cell = min(position >> 16, static_cast<std::uint64_t>(guide_entries - 2));
      end[d] = live ? min(static_cast<std::int64_t>(__ldg(guide + cell + 1)), bins) : 0;
      lo[d] = live ? min(static_cast<std::int64_t>(__ldg(guide + cell)), end[d]) : 0;
    }
#pragma unroll
    for (int d = 0; d < draws_per_thread; ++d) {
      const std::int64_t k = base + std::int64_t(d) * draw_threads;
      if (k >= count) break;
      const std::int64_t bin = ok ? draw_in_cell(target[d], code[d], lo[d], end[d], cdf, codes) : -1;
      __stcs(out + k, bin < bins ? static_cast<std::int32_t>(bin) : -1);  // streamed past L2, which keeps the table
    }
  }
}

}  // namespace scankit::device_detail::sampling
