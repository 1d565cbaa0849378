// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011): a
// counter-based generator, so draw k of a call is a pure function of (seed, offset + k). That makes
// results reproducible, independent of the launch shape, and lets a long run be split into calls
// (offset, then offset + count) with the same draws. Host and device share this code, so the host
// reference reproduces the device's draws bit for bit.
#pragma once

#include <cstdint>

#include "scankit/operators.hpp"  // SCANKIT_HOST_DEVICE

namespace scankit::detail {

struct philox_words {
  std::uint32_t x[4];
};

SCANKIT_HOST_DEVICE std::uint32_t philox_mulhi(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) * b) >> 32);
}

// Ten rounds of Philox4x32 on the 128-bit counter (c0..c3) with the 64-bit key.
SCANKIT_HOST_DEVICE philox_words philox4x32_10(std::uint64_t counter_lo, std::uint64_t counter_hi, std::uint64_t key) {
  std::uint32_t c0 = static_cast<std::uint32_t>(counter_lo), c1 = static_cast<std::uint32_t>(counter_lo >> 32);
  std::uint32_t c2 = static_cast<std::uint32_t>(counter_hi), c3 = static_cast<std::uint32_t>(counter_hi >> 32);
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u, w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint32_t hi0 = philox_mulhi(m0, c0), lo0 = m0 * c0;
    const std::uint32_t hi1 = philox_mulhi(m1, c2), lo1 = m1 * c2;
    const std::uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += w0;
    k1 += w1;
  }
  return philox_words{{c0, c1, c2, c3}};
}

// A double uniform in [0, 1) with 53 random bits: the draw with counter `index` of `seed`'s stream.
SCANKIT_HOST_DEVICE double philox_uniform(std::uint64_t seed, std::uint64_t index) {
  const philox_words r = philox4x32_10(index, 0, seed);
  const std::uint64_t bits = ((static_cast<std::uint64_t>(r.x[0]) << 32) | r.x[1]) >> 11;
  return static_cast<double>(bits) * 0x1.0p-53;
}

}  // namespace scankit::detail
