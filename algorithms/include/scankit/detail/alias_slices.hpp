// The alias table's sliced draws (device/sampling/alias_draw.cuh): how many slices a call takes,
// and the draws with a given number of slices (for tests and tuning; scankit::sample picks it).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "scankit/sampling.hpp"

namespace scankit::device_detail::sampling {

// Tables up to this size are drawn in one pass. Larger ones want slices of this share of L2; if
// that is at most alias_max_wanted_slices, they take that many up to alias_max_slices (each slice
// computes every draw's Philox block again), and one pass beyond (docs/tuning.md).
constexpr long long alias_unsliced_bytes = 16ll << 20;
constexpr double alias_slice_l2_share = 0.9;
constexpr int alias_max_slices = 3;
constexpr int alias_max_wanted_slices = 5;

// How many slices the draws from a table of `bins` buckets take (asks the device for its L2).
int alias_slices(std::int64_t bins, std::int64_t count);

// `count` draws in `slices` launches (1: one); the same bits for any number of slices (>= 1).
void draw_alias(const alias_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed,
                std::uint64_t offset, int slices, cudaStream_t stream);

}  // namespace scankit::device_detail::sampling
