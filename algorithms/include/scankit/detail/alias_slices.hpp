// The alias table's sliced draws (device/sampling/alias_draw.cuh): how many slices a call takes,
// and the draws with a given number of slices (for tests and tuning; scankit::sample picks it).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "scankit/device/tuning/tuning_sampling.cuh"
#include "scankit/sampling.hpp"

namespace scankit::device_detail::sampling {

// Tables up to alias_unsliced_bytes are drawn in one pass. Larger ones want slices of
// alias_slice_l2_share of L2; if that is at most alias_max_wanted_slices, they take that many up to
// alias_max_slices (each slice computes every draw's Philox block again), and one pass beyond
// (tuning_sampling.cuh).
constexpr long long alias_unsliced_bytes = tuning::sampling_tuning_table::alias_draws::unsliced_bytes;
constexpr double alias_slice_l2_share = tuning::sampling_tuning_table::alias_draws::slice_l2_share;
constexpr int alias_max_slices = tuning::sampling_tuning_table::alias_draws::max_slices;
constexpr int alias_max_wanted_slices = tuning::sampling_tuning_table::alias_draws::max_wanted_slices;

// How many slices the draws from a table of `bins` buckets take (asks the device for its L2).
int alias_slices(std::int64_t bins, std::int64_t count);

// `count` draws in `slices` launches (1: one); the same bits for any number of slices (>= 1).
// With count_device (the draws' count in device memory), count is its bound.
void draw_alias(const alias_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed,
                std::uint64_t offset, int slices, cudaStream_t stream, const std::int64_t* count_device = nullptr);

}  // namespace scankit::device_detail::sampling
