// Top-k and top-p (nucleus) filtering of rows of logits or probabilities, before one draw per row.
//
// Every token gets a distance d = (shift - value) / temperature in nats below the row's most
// probable token (value the logit, or log p for probabilities), its weight exp(-d), and a 24-bit
// code c = floor(d * 2^19), capped at 2^24 - 1 (32 nats and beyond). Codes order tokens from the
// most probable down, so both filters are a threshold on c found by a radix select over three
// 8-bit digits, one block per row:
//   top-k: the smallest code limit with at least k tokens at or below it;
//   top-p: the smallest code limit whose tokens (within the top-k set) hold at least top_p of that
//          set's mass.
// Tokens whose codes tie with the limit are all kept: the set can exceed k (or the nucleus) only by
// tokens within 2^-19 nats of the last one. Masses in the select are fixed point (2^32 for the
// row's largest weight), added with integer atomics: exact and order-independent, so the same row
// always selects the same set. The draw then treats exp(-d) of kept tokens (0 for the others) as
// the row's weights (rows.cuh, through top_source).
#pragma once

#include <cmath>
#include <cstdint>

#include "scankit/device/sampling/tile_cdf.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail::sampling {

struct top_params {
  bool logits;
  float inv_temperature;
  std::int64_t top_k;  // 0 or >= cols: no top-k
  double top_p;        // >= 1: no top-p
};

struct top_row_state {
  float shift;              // max logit, or log of the max probability
  std::uint32_t code_limit;  // keep tokens with code <= code_limit
  std::int32_t status;       // 0 ok, 1 the row is bad (NaN, +inf, negative probability, nothing positive)
  std::int32_t pad;
};

constexpr std::uint32_t top_code_max = (1u << 24) - 1;

__device__ __forceinline__ float top_distance(float value, float shift, float inv_temperature, bool logits) {
  const float v = logits ? value : logf(value);
  return (shift - v) * inv_temperature;
}

__device__ __forceinline__ std::uint32_t top_code(float d) {
  return d >= 32.0f ? top_code_max : min(top_code_max, static_cast<std::uint32_t>(d * 524288.0f));
}

__device__ __forceinline__ unsigned long long top_mass(float d) {
  return static_cast<unsigned long long>(expf(-d) * 4294967296.0f);
}

constexpr int top_threads = 1024;

// Calls f(j, row[j]) for this thread's columns j = threadIdx.x + m * top_threads, loading four of
// them before using any: a pass over a row is a memory pass, and one load at a time per thread
// leaves too little in flight to cover the latency.
template <class F>
__device__ __forceinline__ void for_each_in_row(const float* row, std::int64_t cols, F f) {
  constexpr int group = 4;
  std::int64_t j = threadIdx.x;
  for (; j + (group - 1) * top_threads < cols; j += group * top_threads) {
    float v[group];
#pragma unroll
    for (int g = 0; g < group; ++g) v[g] = __ldg(row + j + g * top_threads);
#pragma unroll
    for (int g = 0; g < group; ++g) f(j + g * top_threads, v[g]);
  }
  for (; j < cols; j += top_threads) f(j, __ldg(row + j));
}

struct top_select_storage {
  unsigned int count[256];
  unsigned long long mass[256];
  float max_part[top_threads / 32];
  int bad_part[top_threads / 32];
  std::uint32_t prefix;
};

// The code limit for one criterion: count (top-k, need = k) or mass (top-p, need = ceil(top_p x
// the mass of the tokens at or below `filter`)).
template <bool ByMass>
__device__ std::uint32_t top_radix_select(const float* row, std::int64_t cols, float shift, const top_params& p,
                                          std::uint32_t filter, unsigned long long need, top_select_storage& s) {
  unsigned long long above = 0;  // count or mass of the tokens with smaller codes than the current bucket
  std::uint32_t prefix = 0;
  for (int round = 0; round < 3; ++round) {
    const int shift_bits = 16 - 8 * round;
    for (int i = threadIdx.x; i < 256; i += top_threads) s.count[i] = 0, s.mass[i] = 0;
    __syncthreads();
    for_each_in_row(row, cols, [&](std::int64_t, float value) {
      const float d = top_distance(value, shift, p.inv_temperature, p.logits);
      const std::uint32_t c = top_code(d);
      if (c > filter) return;
      if (round > 0 && (c >> (shift_bits + 8)) != (prefix >> (shift_bits + 8))) return;
      const unsigned digit = (c >> shift_bits) & 255u;
      if (ByMass) atomicAdd(&s.mass[digit], top_mass(d));
      else atomicAdd(&s.count[digit], 1u);
    });
    __syncthreads();
    if (threadIdx.x == 0) {  // `need` and `above` live in thread 0's registers; only the prefix is shared
      if (ByMass && round == 0) {  // need is a fraction of the filtered mass, known only now
        unsigned long long total = 0;
        for (int i = 0; i < 256; ++i) total += s.mass[i];
        need = static_cast<unsigned long long>(ceil(p.top_p * double(total)));
        if (need == 0) need = 1;
        if (need > total) need = total;
      }
      unsigned digit = 255;
      for (unsigned i = 0; i < 256; ++i) {
        const unsigned long long h = ByMass ? s.mass[i] : s.count[i];
        if (above + h >= need) {
          digit = i;
          break;
        }
        above += h;
      }
      s.prefix = prefix | (digit << shift_bits);
    }
    __syncthreads();
    prefix = s.prefix;
    __syncthreads();  // everyone has read the prefix before the next round clears the histogram
  }
  return prefix;
}

// rows_device: the rows' count in device memory (rows_bound its bound), or null; the blocks of rows
// past it leave before any barrier, so they neither read their row nor write its state.
__global__ void __launch_bounds__(top_threads) top_select_kernel(const float* x, std::int64_t cols, top_params p,
                                                                  top_row_state* states, std::int64_t rows_bound,
                                                                  const std::int64_t* rows_device) {
  __shared__ top_select_storage s;
  const std::int64_t row_index = blockIdx.x;
  if (rows_device != nullptr && row_index >= items_to_process(rows_bound, rows_device)) return;
  const float* row = x + row_index * cols;
  // Pass 1: the largest value and whether any value is bad.
  float m = -INFINITY;
  int bad = 0;
  for_each_in_row(row, cols, [&](std::int64_t, float v) {
    bad |= p.logits ? (isnan(v) || v == INFINITY) : (!(v >= 0.0f) || isinf(v));
    m = fmaxf(m, v);
  });
  for (int d = 16; d > 0; d >>= 1) {
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    bad |= __shfl_xor_sync(0xffffffffu, bad, d);
  }
  if ((threadIdx.x & 31) == 0) s.max_part[threadIdx.x >> 5] = m, s.bad_part[threadIdx.x >> 5] = bad;
  __syncthreads();
  m = -INFINITY;
  bad = 0;
  for (int w = 0; w < top_threads / 32; ++w) m = fmaxf(m, s.max_part[w]), bad |= s.bad_part[w];
  const bool empty = p.logits ? !(m > -INFINITY) : !(m > 0.0f);
  if (bad || empty) {
    if (threadIdx.x == 0) states[row_index] = top_row_state{0.0f, 0u, 1, 0};
    return;
  }
  const float shift = p.logits ? m : logf(m);
  std::uint32_t limit = top_code_max;
  if (p.top_k > 0 && p.top_k < cols)
    limit = top_radix_select<false>(row, cols, shift, p, top_code_max, static_cast<unsigned long long>(p.top_k), s);
  if (p.top_p < 1.0) limit = top_radix_select<true>(row, cols, shift, p, limit, 0, s);
  if (threadIdx.x == 0) states[row_index] = top_row_state{shift, limit, 0, 0};
}

// The weights of the draw: exp(-d) of kept tokens, 0 for the others; NaN for every token of a bad
// row, which makes the draw report the row as bad (-1).
struct top_source {
  using value_type = float;
  const float* x;
  std::int64_t cols;
  const top_row_state* states;
  bool logits;
  float inv_temperature;

  __device__ __forceinline__ void load(std::int64_t first, std::int64_t end, float (&v)[items_per_thread]) const {
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) v[k] = 0.0f;
    if (first >= end) return;
    const top_row_state st = states[first / cols];
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) {
      if (first + k >= end) continue;
      if (st.status != 0) {
        v[k] = NAN;
        continue;
      }
      const float d = top_distance(x[first + k], st.shift, inv_temperature, logits);
      v[k] = top_code(d) <= st.code_limit ? expf(-d) : 0.0f;
    }
  }
};

}  // namespace scankit::device_detail::sampling
