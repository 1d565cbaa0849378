// The fixed point of the alias method, shared by the device build, the device draws and the host
// reference, so that the reference reproduces the device's table and draws bit for bit.
//
// A bucket holds 2^32 units. Weight w becomes q = round(w n 2^32 / total), its mass in units of
// 2^-32 of the average weight: a bin with q <= 2^32 is light, one with q > 2^32 heavy. The build
// then works on these integers only (prefix sums of 2^32 - q and q - 2^32 are exact and
// associative, so any parallel order gives the same, sorted prefixes), and a bucket's threshold is
// an integer out of 2^32. The price: weights are rounded to 2^-33 of the average weight.
#pragma once

#include <math.h>  // frexp, ldexp, nearbyint in the global namespace (host and device)

#include <cstdint>

#include "scankit/detail/philox.hpp"
#include "scankit/operators.hpp"  // SCANKIT_HOST_DEVICE

namespace scankit::detail {

constexpr std::uint64_t alias_unit = std::uint64_t(1) << 32;  // the units of one bucket
constexpr std::uint32_t alias_full = 0xffffffffu;             // a full bucket: alias == itself

struct alias_scale {
  int shift;     // total * 2^shift is in [0.5, 1)
  double scale;  // n 2^32 / (total * 2^shift)
};

// Scaling the total into [0.5, 1) first (exactly, by a power of two) keeps q finite for any total a
// double holds, from subnormal sums to sums near the largest double.
SCANKIT_HOST_DEVICE alias_scale alias_scale_for(double total, std::int64_t n) {
  int e = 0;
  const double m = frexp(total, &e);
  return alias_scale{-e, ldexp(static_cast<double>(n), 32) / m};
}

// q for weight w: one exact power-of-two scaling, one rounded product, round to nearest even.
// NaN or negative (bad input only; the table is then never read) give 0; q <= n 2^32 (1 + 2^-52)
// otherwise, so it fits with room in 64 bits.
SCANKIT_HOST_DEVICE std::uint64_t alias_fixed_weight(double w, alias_scale s) {
  const double x = ldexp(w, s.shift) * s.scale;
  if (!(x > 0.0)) return 0;
  if (x >= 0x1p63) return std::uint64_t(1) << 63;  // bad input only (a weight above the total)
#ifdef __CUDA_ARCH__
  return __double2ull_rn(x);
#else
  return static_cast<std::uint64_t>(nearbyint(x));  // the default rounding mode: nearest even
#endif
}

// What draw k needs from Philox4x32-10 at counter `counter` (= offset + k, the counter of
// philox_uniform): the bucket floor(u n / 2^64) of the 64-bit fraction u = x0:x1 (every bucket gets
// floor or ceil of 2^64 / n values: a relative bias below n / 2^64), and the word x2, compared with
// the bucket's threshold.
struct alias_choice {
  std::int64_t bucket;
  std::uint32_t word;
};

SCANKIT_HOST_DEVICE alias_choice alias_choice_for(std::uint64_t seed, std::uint64_t counter, std::int64_t n) {
  const philox_words r = philox4x32_10(counter, 0, seed);
  const std::uint64_t u = (static_cast<std::uint64_t>(r.x[0]) << 32) | r.x[1];
#ifdef __CUDA_ARCH__
  const std::uint64_t bucket = __umul64hi(u, static_cast<std::uint64_t>(n));
#else
  const std::uint64_t bucket =
      static_cast<std::uint64_t>((static_cast<unsigned __int128>(u) * static_cast<std::uint64_t>(n)) >> 64);
#endif
  return alias_choice{static_cast<std::int64_t>(bucket), r.x[2]};
}

SCANKIT_HOST_DEVICE std::int32_t alias_pick(alias_choice c, std::uint32_t threshold, std::int32_t alias) {
  return c.word < threshold ? static_cast<std::int32_t>(c.bucket) : alias;
}

}  // namespace scankit::detail
