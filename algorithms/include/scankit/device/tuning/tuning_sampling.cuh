// Sampling's tuned shapes: the sampling table's one-pass build and the alias table's draws. One
// entry per GPU generation (scankit/device/tuning/gpu_arch.hpp), numbers only: the kernels that
// take them are in device/sampling/. Each entry names the measurement it rests on;
// docs/tuning.md ("Sampling table") tells the measurements.
#pragma once

#include "scankit/device/tuning/gpu_arch.hpp"

namespace scankit::device_detail::tuning {

template <gpu_arch Arch>
struct sampling_entry;

template <>
struct sampling_entry<gpu_arch::sm90> {
  static constexpr const char* measured_in = "bench/results/h200-2026-12-02-c8ec0bc+variants-table_prefetch.txt";

  // The table's one pass: 5 blocks per SM (enough tiles in flight to cover the memory latency),
  // each asking L2 for the weights of the tile drawn 2 MiB later.
  struct table_pass {
    static constexpr int min_blocks_per_sm = 5;
    static constexpr long long prefetch_bytes_ahead = 2 << 20;
  };

  // Alias draws (bench/results/h200-2026-12-02-a813ddd+probe-alias_slices.txt): tables up to 16
  // MiB in one pass; larger ones with at least as many draws as buckets in slices of 0.9 of L2,
  // at most 3, and one pass when they would want more than 5; 8 draws per thread in flight.
  struct alias_draws {
    static constexpr long long unsliced_bytes = 16ll << 20;
    static constexpr double slice_l2_share = 0.9;
    static constexpr int max_slices = 3;
    static constexpr int max_wanted_slices = 5;
    static constexpr int draws_per_thread = 8;
  };
};

// The other generations, not measured yet: sm_90's entry.
template <gpu_arch Arch>
struct sampling_entry : sampling_entry<gpu_arch::sm90> {};

using sampling_tuning_table = sampling_entry<tuned_arch>;

}  // namespace scankit::device_detail::tuning
