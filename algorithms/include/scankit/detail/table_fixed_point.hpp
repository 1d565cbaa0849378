// The fixed point of sampling_table, shared by the device build, the device draws and the host
// reference, so that the reference reproduces the device's draws bit for bit.
//
// The table counts weight in integer units of 2^e (e = the table's unit exponent): a weight w
// becomes
//     q(w) = 0 for w == 0,   max(1, round(w 2^-e)) otherwise   (round to nearest even),
// and cdf[i] = q(w_0) + ... + q(w_i) in 64 bits. Integer sums are exact and associative, so any
// summation order (a decoupled look-back included) gives the same bits, the CDF never decreases,
// and a non-zero weight always owns at least one unit: no bin can be lost to rounding. The build
// picks e so that the total is 2^50 to 2^64 units (device/sampling/table_scale.cuh says how); a
// weight is then off by less than one unit (half a unit unless it is below one), at most 2^-50 of
// the total.
//
// A draw takes the 64-bit fraction u of Philox4x32-10 at its counter (the words x0:x1, as the
// alias draws) and the target t = floor(u total / 2^64), an integer in [0, total); it returns the
// first bin with cdf > t. Every unit gets floor or ceil of 2^64 / total of the 2^64 values of u,
// so a bin's probability is exact up to 2^-64 (absolute).
#pragma once

#include <math.h>  // ldexp, nearbyint, isinf in the global namespace (host and device)

#include <cstdint>

#include "scankit/detail/philox.hpp"
#include "scankit/operators.hpp"  // SCANKIT_HOST_DEVICE

namespace scankit::detail {

constexpr std::uint64_t table_units_max = ~std::uint64_t(0);

// a + b, or table_units_max when the sum does not fit: monotone and associative on unsigned
// values, so a sum that overflows anywhere ends as table_units_max, which the build detects.
struct saturating_plus {
  SCANKIT_HOST_DEVICE std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const {
    const std::uint64_t c = a + b;
    return c < a ? table_units_max : c;
  }
};

struct table_units {
  std::uint64_t q;
  bool bad;     // negative, NaN or infinite
  bool beyond;  // 2^63 units or more: the unit exponent is too small for this weight
};

// w 2^-unit_exponent as products by two normal powers of two, which equal ldexp(w, -unit_exponent)
// (one correctly rounded result) without ldexp's special cases on the device: the first factor is
// 2^-unit_exponent itself, the second 1, unless 2^-unit_exponent is above 2^1000 (totals below
// 2^-945); then the first is 2^1000, exact on weights that small, and the second the rest.
struct table_unit_scale {
  double first, second;
  SCANKIT_HOST_DEVICE explicit table_unit_scale(int unit_exponent)
      : first(ldexp(1.0, -unit_exponent > 1000 ? 1000 : -unit_exponent)),
        second(ldexp(1.0, -unit_exponent > 1000 ? -unit_exponent - 1000 : 0)) {}
};

// Branch-free (selects only): the one-pass build converts 16 weights per thread, and branches
// around each conversion cost more instructions than the conversion.
template <class T>
SCANKIT_HOST_DEVICE table_units to_table_units(T w, table_unit_scale scale) {
  const bool bad = !(w >= T(0)) || isinf(w);
  const double x = static_cast<double>(w) * scale.first * scale.second;
  const bool beyond = !bad && !(x < 0x1p63);
  const double in_range = bad || beyond ? 0.0 : x;  // what the conversion may see: [0, 2^63)
#ifdef __CUDA_ARCH__
  const std::uint64_t rounded = __double2ull_rn(in_range);
#else
  const std::uint64_t rounded = static_cast<std::uint64_t>(nearbyint(in_range));  // the default mode: nearest even
#endif
  const std::uint64_t q = beyond ? std::uint64_t(1) << 63 : (rounded == 0 ? std::uint64_t(1) : rounded);
  return {bad || w == T(0) ? std::uint64_t(0) : q, bad, beyond};
}

template <class T>
SCANKIT_HOST_DEVICE table_units to_table_units(T w, int unit_exponent) {
  return to_table_units(w, table_unit_scale(unit_exponent));
}

// The target of draw `counter` (= offset + k) in a table of `total` units.
SCANKIT_HOST_DEVICE std::uint64_t table_target(std::uint64_t seed, std::uint64_t counter, std::uint64_t total) {
  const philox_words r = philox4x32_10(counter, 0, seed);
  const std::uint64_t u = (static_cast<std::uint64_t>(r.x[0]) << 32) | r.x[1];
#ifdef __CUDA_ARCH__
  return __umul64hi(u, total);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(u) * total) >> 64);
#endif
}

}  // namespace scankit::detail
