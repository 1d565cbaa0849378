// The token sampler's arithmetic on one value (scankit/token_sampler.hpp): its order key, its
// histogram bin, its score and its fixed-point weight. Every decision that picks a token is made
// from these, each a fixed function of the value and the row's parameters, so the same value gives
// the same numbers in every pass, launch shape and batch.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace scankit::device_detail::sampling {

__device__ __forceinline__ float token_to_float(float v) { return v; }
__device__ __forceinline__ float token_to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float token_to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

// The value's order as an unsigned key (larger value, larger key; -0.0 just below +0.0), and back.
__device__ __forceinline__ std::uint32_t token_key(float v) {
  const std::uint32_t bits = __float_as_uint(v);
  return bits ^ ((bits >> 31) != 0 ? 0xffffffffu : 0x80000000u);
}
__device__ __forceinline__ float token_value(std::uint32_t key) {
  return __uint_as_float(key ^ ((key >> 31) != 0 ? 0x80000000u : 0xffffffffu));
}

// Level-0 bins: the key's top 11 bits (sign, exponent, 2 mantissa bits); refinements take 11 and
// then 10 more bits.
constexpr int token_bins = 2048;
constexpr int token_bin_shift = 21;
__device__ __forceinline__ int token_bin(std::uint32_t key) { return static_cast<int>(key >> token_bin_shift); }
// The largest value of a bin (may be NaN for the bins of NaN keys; those hold no weight).
__device__ __forceinline__ float token_bin_top(int bin) {
  return token_value((static_cast<std::uint32_t>(bin) << token_bin_shift) | ((1u << token_bin_shift) - 1u));
}

// One row's parameters, as the kernel uses them.
struct token_row_rule {
  bool logits;
  float temperature;  // > 0 (greedy rows never score)
  // Logits are ordered by u = v / T - shift, shift the largest score of a fixed sample of the row:
  // histogram bins of u then hold a bounded range of weights near the top of the row, however
  // large the logits or small T. Probabilities are ordered by their value.
  float shift;
  int mass_bits;    // log2 of mass_unit
  float mass_unit;  // 2^31 / (vocab rounded up to a power of 2): a bin's integer mass fits 32 bits
};

__device__ __forceinline__ token_row_rule token_make_rule(bool logits, float temperature, float shift,
                                                          std::int64_t vocab) {
  const int bits = 31 - (vocab > 1 ? 64 - __clzll(vocab - 1) : 0);
  return token_row_rule{logits, temperature, shift, bits, ldexpf(1.0f, bits)};
}

// The kind of a row's values, as template arguments, so the hot loops are compiled once per kind
// without per-token tests of it: logits, probabilities at T = 1 ("raw": a token's weight is its
// value), or any row (the tests made at run time).
struct token_any_kind {};
struct token_logits_kind {};
struct token_raw_kind {};

// The value a token is ordered by (its key is token_key of this).
__device__ __forceinline__ float token_order_value(float v, const token_row_rule& rule) {
  if (!rule.logits) return v;
  return (rule.temperature == 1.0f ? v : v / rule.temperature) - rule.shift;
}
__device__ __forceinline__ float token_order_value(float v, const token_row_rule& rule, token_any_kind) {
  return token_order_value(v, rule);
}
__device__ __forceinline__ float token_order_value(float v, const token_row_rule& rule, token_logits_kind) {
  return (rule.temperature == 1.0f ? v : v / rule.temperature) - rule.shift;
}
__device__ __forceinline__ float token_order_value(float v, const token_row_rule&, token_raw_kind) { return v; }

// A value that makes its row bad: NaN or +infinity; for probabilities also negative or infinite.
__device__ __forceinline__ bool token_value_bad(float v, bool logits) {
  return logits ? !(v < INFINITY) : !(v >= 0.0f && v < INFINITY);
}

// A logit's score v / T (v itself at T = 1: no division).
__device__ __forceinline__ float token_logit_score(float v, float temperature) {
  return temperature == 1.0f ? v : v / temperature;
}

// s = v / T (logits) or logf(v) / T (probabilities); -infinity for a token of no weight.
__device__ __forceinline__ float token_score(float v, const token_row_rule& rule) {
  return token_logit_score(rule.logits ? v : logf(v), rule.temperature);
}

// The min-p test, against a bound computed once per row (token_min_p_bound): for probabilities at
// T = 1, v >= min_p * v_max (v_max the row's largest value); otherwise s - s_max >= logf(min_p).
// Both are expf(s - s_max) >= min_p up to the rounding of one operation, without a logarithm or
// an exponential per token.
struct token_min_p_bound {
  bool raw;
  float bound;  // min_p * v_max, or logf(min_p)
  float s_max;
};
__device__ __forceinline__ bool token_min_p_keeps(float v, float s, const token_min_p_bound& b) {
  return b.raw ? v >= b.bound : s - b.s_max >= b.bound;
}

// Probabilities at T = 1 weigh a token by its value relative to 2^(e - 126), e its biased exponent
// (at least 1): the power of two just above its bin. The scaling is exact and costs two bit
// operations, no division.
__device__ __forceinline__ float token_raw_ratio(float v) {
  const std::uint32_t bits = __float_as_uint(v);
  return (bits >> 23) != 0 ? __uint_as_float((bits & 0x007fffffu) | 0x3f000000u) : v * 0x1p125f;
}
// 2^n for -1022 <= n <= 1023, built from its exponent field (ldexp is a call, a division slower).
__device__ __forceinline__ double token_pow2(int n) { return __hiloint2double((n + 1023) << 20, 0); }
__device__ __forceinline__ double token_raw_scale(int bin) {
  const int e = (bin - (token_bins / 2)) >> 2;  // the biased exponent of the bin's positive values
  return token_pow2((e > 1 ? e : 1) - 126);
}

// The weight of a token of order value u relative to its bin's scale (the top of its bin, or for
// probabilities at T = 1 the power of two above it), in units of 1 / mass_unit (at most
// mass_unit): the filters' masses are sums of these, exact and order-independent.
// For probabilities at T = 1 that is floor(token_raw_ratio(u) * mass_unit), computed on the bits:
// the ratio is u's significand (with its leading bit when u is normal) times 2^-24, and mass_unit
// a power of two, so a shift of the significand gives it exactly. The sign is dropped: -0.0 weighs
// 0, and a negative value makes its row bad before any mass counts.
__device__ __forceinline__ std::uint32_t token_bin_mass(float u, float, const token_row_rule& rule, token_raw_kind) {
  const std::uint32_t bits = __float_as_uint(u) & 0x7fffffffu;
  const std::uint32_t significand = min(bits, (bits & 0x007fffffu) | 0x00800000u);
  // significand < 2^24 and 0 <= mass_bits <= 31: one shift up, one down, whichever side 24 lies.
  return (significand << 7) >> (31 - rule.mass_bits);
}
// A logit's weight relative to its bin's top, exp(u - top) at most 1. A select, not a branch:
// -infinity weighs 0 (and its bin's top is -infinity too).
__device__ __forceinline__ float token_logit_ratio(float u, float bin_top) {
  return u > -INFINITY ? fminf(expf(u - bin_top), 1.0f) : 0.0f;
}
__device__ __forceinline__ std::uint32_t token_bin_mass(float u, float bin_top, const token_row_rule& rule,
                                                      token_logits_kind) {
  return static_cast<std::uint32_t>(token_logit_ratio(u, bin_top) * rule.mass_unit);
}
__device__ __forceinline__ std::uint32_t token_bin_mass(float u, float bin_top, const token_row_rule& rule) {
  if (rule.logits) return token_bin_mass(u, bin_top, rule, token_logits_kind{});
  if (rule.temperature == 1.0f) return token_bin_mass(u, bin_top, rule, token_raw_kind{});
  if (!(u > 0.0f)) return 0;
  const float r = fminf(expf(logf(u / bin_top) / rule.temperature), 1.0f);
  return r > 0.0f ? static_cast<std::uint32_t>(r * rule.mass_unit) : 0u;
}
__device__ __forceinline__ std::uint32_t token_bin_mass(float u, float bin_top, const token_row_rule& rule,
                                                      token_any_kind) {
  return token_bin_mass(u, bin_top, rule);
}

// Bin mass (units of 1 / mass_unit of the bin's scale) to weight relative to the row's largest
// token, of order value u_max.
__device__ __forceinline__ double token_bin_weight(std::uint64_t mass, int bin, float u_max, const token_row_rule& rule) {
  if (mass == 0) return 0.0;
  const double top = static_cast<double>(token_bin_top(bin));
  const double v_max = static_cast<double>(u_max);
  double scale;
  if (rule.logits) {
    scale = exp(top - v_max);
  } else if (rule.temperature == 1.0f) {
    // 2^n * (1 / v_max) is 2^n / v_max rounded once (a power of two scales exactly), and the
    // reciprocal is the same for every bin, so the loops over bins divide once.
    scale = token_raw_scale(bin) * (1.0 / v_max);
  } else {
    scale = pow(top / v_max, 1.0 / static_cast<double>(rule.temperature));
  }
  // mass_unit is 2^mass_bits: the product is the quotient, exactly.
  return static_cast<double>(mass) * token_pow2(-rule.mass_bits) * scale;
}

}  // namespace scankit::device_detail::sampling
