// The sort key of weighted sampling without replacement, shared by the device and the host
// reference so that both give the same sample bit for bit.
//
// Item i's key is E_i = -log(u_i) / w_i (Efraimidis and Spirakis), u_i = philox_uniform(seed,
// offset + i) + 2^-54, which lies in (0, 1]. In double, E overflows for weights below about
// 2e-307 (every denormal double) and underflows for weights near the largest double, which would
// make such items look weightless or tie. So E is formed with an unbounded exponent: with
// -log(u) = a 2^ea and w = b 2^eb (a, b in [0.5, 1)), E = frexp(a / b) scaled by 2^(ea - eb), and
// the key is that exponent (biased, 12 bits) above the quotient's 52 stored mantissa bits. The
// quotient a / b is the double division rounded once, so wherever E is a normal double the keys
// order the items exactly as E does.
#pragma once

#include <math.h>  // frexp, log in the global namespace (host and device)

#include <cstdint>
#include <cstring>

#include "scankit/detail/philox.hpp"
#include "scankit/operators.hpp"  // SCANKIT_HOST_DEVICE

namespace scankit::detail {

// A zero weight: after every positive weight. A bad weight (negative, NaN, infinite): last of all.
constexpr std::uint64_t exponential_key_weightless = ~std::uint64_t(0) - 1;
constexpr std::uint64_t exponential_key_bad = ~std::uint64_t(0);

// w >= 0 and finite (the caller sorts bad weights out first).
SCANKIT_HOST_DEVICE std::uint64_t exponential_key(double w, std::uint64_t seed, std::uint64_t counter) {
  if (!(w > 0.0)) return exponential_key_weightless;
  const double e = -log(philox_uniform(seed, counter) + 0x1.0p-54);
  if (!(e > 0.0)) return 0;  // u rounded to 1: E = 0, the smallest key
  int ea = 0, eb = 0, eq = 0;
  const double a = frexp(e, &ea), b = frexp(w, &eb);
  const double q = frexp(a / b, &eq);  // in [0.5, 1)
#ifdef __CUDA_ARCH__
  const auto bits = static_cast<std::uint64_t>(__double_as_longlong(q));
#else
  std::uint64_t bits = 0;
  std::memcpy(&bits, &q, sizeof bits);
#endif
  // ea in [-53, 6], eb in [-1073, 1024], eq in {0, 1}: the biased exponent is in [970, 3128].
  return (static_cast<std::uint64_t>(ea - eb + eq + 2048) << 52) | (bits & ((std::uint64_t(1) << 52) - 1));
}

}  // namespace scankit::detail
