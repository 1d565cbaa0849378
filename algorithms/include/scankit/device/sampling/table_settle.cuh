// The decisions between a sampling table's build launches (table_scale.cuh has the sequence), made
// by one thread of a one-block launch from the header and the launches' partial results. Included
// by one translation unit (the kernel is not a template).
#pragma once

#include <cmath>
#include <cstdint>

#include "scankit/detail/table_fixed_point.hpp"
#include "scankit/device/sampling/table_scale.cuh"

namespace scankit::device_detail::sampling {

// The CDF is final: the total as a double, and whether the guide's cells fit (true: the guide must
// be rewritten at the shift now in h).
__device__ inline bool settle_guide(table_header& h) {
  h.total = ldexp(static_cast<double>(h.total_units), h.unit_exponent);
  if (isinf(h.total)) {
    h.status = static_cast<std::int32_t>(sampling_status::sum_overflow);
    h.mode = static_cast<std::int32_t>(table_mode::done);
    return false;
  }
  const std::int64_t top = guide_cell(h.total_units, h.shift);  // the sentinel's cell, past every target's
  const std::int64_t room = std::int64_t(1) << floor_log2(static_cast<std::uint64_t>(h.guide_capacity));
  if (top <= h.guide_capacity && (h.shift == 16 || top + 1 >= room / 16)) {  // 16: the finest cells
    h.mode = static_cast<std::int32_t>(table_mode::done);
    return false;
  }
  h.shift = guide_shift_for(floor_log2(h.total_units) + 1, h.guide_capacity);
  h.mode = static_cast<std::int32_t>(table_mode::guide_repair);
  return true;
}

__device__ inline void settle_status(table_header& h, sampling_status status) {
  h.status = static_cast<std::int32_t>(status);
  h.mode = static_cast<std::int32_t>(table_mode::done);
}

// Thread 0's part; returns whether the wide-bin slots must be cleared for a rewrite.
__device__ inline bool settle(table_header& h, settle_stage stage, const double* sums, std::uint64_t* chunk_units,
                              int chunks) {
  const auto mode = static_cast<table_mode>(h.mode);
  switch (stage) {
    case settle_stage::after_fast:
      if (mode != table_mode::fast) return false;
      if (h.flags & flag_bad_weight) {
        settle_status(h, sampling_status::invalid_weight);
        return false;
      }
      if ((h.flags & flag_beyond) || h.total_units == scankit::detail::table_units_max ||
          h.total_units < (std::uint64_t(1) << fewest_units_bits)) {
        h.mode = static_cast<std::int32_t>(table_mode::full);
        return false;
      }
      return settle_guide(h);
    case settle_stage::exact_unit: {
      if (mode != table_mode::full) return false;
      double total = sums[0];
      for (int b = 1; b < exact_sum_blocks; ++b) total += sums[b];  // a fixed order: deterministic
      if (h.flags & flag_bad_weight) settle_status(h, sampling_status::invalid_weight);
      else if (!(total > 0.0)) settle_status(h, sampling_status::all_zero);
      else if (isinf(total)) settle_status(h, sampling_status::sum_overflow);
      else {
        // The rounded sum is within n 2^-53 of the weights' sum, so their units stay below 2^62
        // plus half a unit (or one) per bin: no overflow.
        h.unit_exponent = ilogb(total) - (exact_units_bits - 1);
        h.shift = guide_shift_for(exact_units_bits + 1, h.guide_capacity);
        h.flags = 0;
        return true;
      }
      return false;
    }
    case settle_stage::exact_prefixes: {
      if (mode != table_mode::full) return false;
      std::uint64_t run = 0;
      for (int b = 0; b < chunks; ++b) {
        const std::uint64_t units = chunk_units[b];
        chunk_units[b] = run;
        run += units;
      }
      h.total_units = run;
      return false;
    }
    case settle_stage::after_exact:
      if (mode != table_mode::full) return false;
      return settle_guide(h);
  }
  return false;
}

// One block: thread 0 decides, then all clear the wide-bin slots if the guide will be rewritten.
__global__ void __launch_bounds__(settle_threads) table_settle_kernel(table_header* header, settle_stage stage,
                                                                       const double* sums, std::uint64_t* chunk_units,
                                                                       int chunks, std::int32_t* slots,
                                                                       std::int64_t slot_count) {
  __shared__ int clear;
  if (threadIdx.x == 0) {
    table_header h = *header;
    clear = settle(h, stage, sums, chunk_units, chunks);
    *header = h;
  }
  __syncthreads();
  if (clear) {
    for (std::int64_t i = threadIdx.x; i < slot_count; i += settle_threads) slots[i] = -1;
  }
}

}  // namespace scankit::device_detail::sampling
