// Draws from an alias table: per draw one Philox block (the bucket from its first 64 bits, the
// comparison word from its third word, detail/alias_fixed_point.hpp) and ONE 8-byte read, the
// bucket's {threshold, alias}.
//
// The reads stay inside the table whatever its memory holds: the bucket count comes from the host
// object (the bins its memory was sized for), never from the device header, so a header that is
// not (yet) what the build wrote cannot steer a read. A header that disagrees with the host's
// count, or a status other than ok, gives -1 for every draw; an entry whose alias is not a bin
// gives -1 for the draws that land on it.
//
// A table larger than L2 makes almost every read a random DRAM access. So a large table is read in
// slices that fit L2, one launch per slice: every launch computes every draw's Philox block and
// finishes the draws whose bucket lies in its slice, which it then reads from L2 after the first
// touch. Philox is computed once per slice, so a few slices pay and many do not (docs/tuning.md).
// The results are the same bits whatever the slices: the draw's counter decides them. Included by
// one translation unit.
#pragma once

#include <cstdint>

#include "scankit/detail/alias_fixed_point.hpp"
#include "scankit/detail/alias_slices.hpp"
#include "scankit/device/sampling/alias_header.cuh"
#include "scankit/device/sampling/draw.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/sampling.hpp"

namespace scankit::device_detail::sampling {

// Draws per thread whose table reads are in flight before their stores (tuning_sampling.cuh).
constexpr int alias_draws_per_thread = tuning::sampling_tuning_table::alias_draws::draws_per_thread;

// The draws whose bucket lies in [lo, hi) of the n buckets; the others are left as they are.
__global__ void __launch_bounds__(draw_threads) alias_draw_kernel(const alias_header* header,
                                                                   const alias_entry* entries, std::int64_t n,
                                                                   std::int32_t* out, std::int64_t count_bound,
                                                                   const std::int64_t* count_device,
                                                                   std::uint64_t seed, std::uint64_t offset,
                                                                   std::int64_t lo, std::int64_t hi) {
  const std::int64_t count = items_to_process(count_bound, count_device);  // device_count.cuh
  const bool ok = header->status == 0 && header->bins == n && n > 0;
  const auto* packed = reinterpret_cast<const uint2*>(entries);  // {threshold, alias}: one 8-byte load
  const std::int64_t stride = std::int64_t(gridDim.x) * draw_threads;
  for (std::int64_t base = std::int64_t(blockIdx.x) * draw_threads * alias_draws_per_thread + threadIdx.x;
       base < count; base += stride * alias_draws_per_thread) {
    scankit::detail::alias_choice choice[alias_draws_per_thread];
    uint2 entry[alias_draws_per_thread];
#pragma unroll
    for (int d = 0; d < alias_draws_per_thread; ++d) {
      const std::int64_t k = base + std::int64_t(d) * draw_threads;
      choice[d] = scankit::detail::alias_choice_for(seed, offset + std::uint64_t(k), n);
      const bool mine = k < count && ok && choice[d].bucket >= lo && choice[d].bucket < hi;
      entry[d] = mine ? __ldg(packed + choice[d].bucket) : make_uint2(0, 0);
    }
#pragma unroll
    for (int d = 0; d < alias_draws_per_thread; ++d) {
      const std::int64_t k = base + std::int64_t(d) * draw_threads;
      if (k >= count) break;
      // A table that failed gives -1, written by the first slice's launch.
      if (!ok) {
        if (lo == 0) __stcs(out + k, -1);
      } else if (choice[d].bucket >= lo && choice[d].bucket < hi) {
        const std::int32_t pick =
            scankit::detail::alias_pick(choice[d], entry[d].x, static_cast<std::int32_t>(entry[d].y));
        __stcs(out + k, pick >= 0 && pick < n ? pick : -1);
      }
    }
  }
}

}  // namespace scankit::device_detail::sampling
