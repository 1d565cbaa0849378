// Choosing a sampling table's unit and cell size, and checking the choice.
//
// The one-pass build must fix the unit exponent e and the cell shift before it has seen the
// weights' total. So a first launch estimates the total from 16384 weights, 128 runs of 128 spread
// evenly over the distribution (runs, not single weights: far fewer pages to translate), and picks e and the shift that put the estimate at 2^55 .. 2^56 units and a
// quarter to all of the guide (table_estimate_kernel). The estimate counts a sampled weight above
// 64 times the sample's mean once instead of n / 16384 times, so that one heavy bin (the head of a
// Zipf law) does not dominate it.
//
// After the pass, table_settle_kernel looks at the exact total in units:
//   2^50 .. 2^64 units, cells fit          done (the common case: one read of the weights)
//   2^50 .. 2^64 units, cells too small or too sparse for the guide
//                                          guide repair: the CDF is kept, the codes and the guide
//                                          are rewritten at the right cell size (reads the CDF)
//   fewer than 2^50 units, an overflow, or a weight of 2^59 units or more
//                                          the exact path (table_exact.cuh): a deterministic double
//                                          sum of the weights fixes e with the total at 2^61 ..
//                                          2^62 units, then the tiles are rebuilt (two more reads)
// Every launch reads the mode from the header and does nothing unless it is its own, so the whole
// sequence is enqueued without a host round trip (and can be captured in a CUDA graph). The
// settle launch's decisions: table_settle.cuh.
#pragma once

#include <cstdint>

#include "scankit/detail/table_fixed_point.hpp"
#include "scankit/device/sampling/table_header.cuh"
#include "scankit/device/sampling/tile_cdf.cuh"  // block_double_scan
#include "scankit/sampling.hpp"

namespace scankit::device_detail::sampling {

constexpr int estimate_threads = 1024;
constexpr int estimate_per_thread = 16;
constexpr std::int64_t estimate_samples = estimate_threads * estimate_per_thread;
constexpr std::int64_t estimate_run = 128;  // consecutive weights per sampled run
constexpr int estimate_units_bits = 56;  // the estimate at 2^55 .. 2^56 units
constexpr int fewest_units_bits = 50;    // the one-pass result is kept from 2^50 units
constexpr int exact_units_bits = 62;     // the exact path's total at 2^61 .. 2^62 units
constexpr double spike_over_mean = 64.0;

// Sample j of `samples`: all weights when there are no more, else item j % 128 of run j / 128.
template <class T>
__device__ __forceinline__ double sampled_weight(const T* w, std::int64_t j, std::int64_t n, std::int64_t samples) {
  const std::int64_t runs = estimate_samples / estimate_run;
  const T x = w[samples == n ? j : j / estimate_run * (n / runs) + j % estimate_run];
  return x > T(0) && !isinf(x) ? static_cast<double>(x) : 0.0;  // bad weights are the pass's to report
}

// One block. Writes the whole header (a rebuild starts afresh).
template <class T>
__global__ void __launch_bounds__(estimate_threads) table_estimate_kernel(const T* w, std::int64_t n,
                                                                           std::int64_t capacity, table_header* header) {
  using scan = block_double_scan<estimate_threads>;
  __shared__ typename scan::storage s;
  const std::int64_t samples = n < estimate_samples ? n : estimate_samples;
  double x[estimate_per_thread];
  double sum = 0.0;
#pragma unroll
  for (int k = 0; k < estimate_per_thread; ++k) {
    const std::int64_t j = std::int64_t(threadIdx.x) * estimate_per_thread + k;  // 16 consecutive
    x[k] = j < samples ? sampled_weight(w, j, n, samples) : 0.0;
  }
#pragma unroll
  for (int k = 0; k < estimate_per_thread; ++k) sum += x[k];
  double all = 0.0;
  (void)scan::exclusive_sum(sum, s, all);
  const double spike = spike_over_mean * all / static_cast<double>(samples > 0 ? samples : 1);
  double body = 0.0, spikes = 0.0;
#pragma unroll
  for (int k = 0; k < estimate_per_thread; ++k) (x[k] > spike ? spikes : body) += x[k];
  double body_all = 0.0, spikes_all = 0.0;
  (void)scan::exclusive_sum(body, s, body_all);
  (void)scan::exclusive_sum(spikes, s, spikes_all);
  if (threadIdx.x == 0) {
    table_header h{};
    h.bins = n;
    h.guide_capacity = capacity;
    const double estimate = body_all * (static_cast<double>(n) / static_cast<double>(samples > 0 ? samples : 1)) + spikes_all;
    if (n == 0) {
      h.status = static_cast<std::int32_t>(sampling_status::all_zero);
      h.mode = static_cast<std::int32_t>(table_mode::done);
    } else if (estimate > 0.0 && !isinf(estimate)) {
      h.unit_exponent = ilogb(estimate) - (estimate_units_bits - 1);
      h.shift = guide_shift_for(estimate_units_bits, capacity);
      h.mode = static_cast<std::int32_t>(table_mode::fast);
    } else {
      h.mode = static_cast<std::int32_t>(table_mode::full);  // nothing sampled: the exact path
    }
    *header = h;
  }
}

// Stages of table_settle_kernel, in launch order.
enum class settle_stage : std::int32_t {
  after_fast = 0,     // keep the one-pass table, repair its guide, or go the exact path
  exact_unit = 1,     // exact path: the unit from the summed weights
  exact_prefixes = 2, // exact path: the chunks' prefixes in units
  after_exact = 3,    // exact path: the total in units, and the guide's check
};

constexpr int settle_threads = 1024;
constexpr int exact_sum_blocks = 512;      // partial sums of the exact path (fixed: deterministic)
constexpr int exact_chunk_blocks = 1024;   // chunks of tiles of the exact path's rebuild

}  // namespace scankit::device_detail::sampling
