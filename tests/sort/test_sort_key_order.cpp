// The floating-point keys' ordered bits (sort_key_order.hpp) against the values' own order: the
// total order (-0.0 == +0.0, every NaN equal and above +inf) and the raw-bit order, for float,
// double, __half and __nv_bfloat16, on the special values and random bit patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "scankit/sort_key_order.hpp"

namespace {

using scankit::float_bit_key;
using scankit::float_order;

template <class Key, class Bits>
Key from_bits(Bits bits) {
  static_assert(sizeof(Key) == sizeof(Bits));
  Key key;
  std::memcpy(&key, &bits, sizeof(Key));
  return key;
}

double value_of(float v) { return v; }
double value_of(double v) { return v; }
double value_of(__half v) { return __half2float(v); }
double value_of(__nv_bfloat16 v) { return __bfloat162float(v); }

// -1, 0 or 1 as `a` sorts before, with or after `b`.
int total_order(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) == std::isnan(b) ? 0 : (std::isnan(a) ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Sign-magnitude: the sign bit first (set sorts lower), then the magnitude, reversed for negatives.
template <class Bits>
int raw_order(Bits a, Bits b) {
  constexpr Bits sign = static_cast<Bits>(Bits{1} << (8 * sizeof(Bits) - 1));
  const bool na = (a & sign) != 0, nb = (b & sign) != 0;
  if (na != nb) return na ? -1 : 1;
  if (a == b) return 0;
  return ((a < b) != na) ? -1 : 1;
}

template <class Key, class Bits>
void expect_orders(const std::vector<Bits>& patterns) {
  const float_bit_key<Key, float_order::total> total;
  const float_bit_key<Key, float_order::raw_bits> raw;
  const auto sign_of = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  for (const Bits a : patterns) {
    for (const Bits b : patterns) {
      const Key ka = from_bits<Key>(a), kb = from_bits<Key>(b);
      ASSERT_EQ(sign_of(total(ka), total(kb)), total_order(value_of(ka), value_of(kb)))
          << std::hex << "bits " << +a << " and " << +b << ", total order";
      ASSERT_EQ(sign_of(raw(ka), raw(kb)), raw_order(a, b)) << std::hex << "bits " << +a << " and " << +b << ", raw";
    }
  }
}

// The edges of the format (zeros, denormals, the largest finite, infinities, NaNs of both signs
// at both ends of the payload) with a sample of random patterns.
template <class Bits>
std::vector<Bits> patterns(Bits exponent, int random_count, std::uint64_t seed) {
  constexpr Bits sign = static_cast<Bits>(Bits{1} << (8 * sizeof(Bits) - 1));
  const Bits ones = static_cast<Bits>(~Bits{0});
  std::vector<Bits> v;
  for (const Bits magnitude : {Bits{0}, Bits{1}, static_cast<Bits>(exponent - 1), exponent, static_cast<Bits>(exponent + 1),
                               static_cast<Bits>(ones & ~sign), static_cast<Bits>(Bits{1} << (8 * sizeof(Bits) - 9))}) {
    v.push_back(magnitude);
    v.push_back(static_cast<Bits>(magnitude | sign));
  }
  std::mt19937_64 rng(seed);
  for (int i = 0; i < random_count; ++i) v.push_back(static_cast<Bits>(rng()));
  return v;
}

TEST(SortKeyOrder, Float) { expect_orders<float>(patterns<std::uint32_t>(0x7f800000u, 300, 1)); }
TEST(SortKeyOrder, Double) { expect_orders<double>(patterns<std::uint64_t>(0x7ff0000000000000ull, 300, 2)); }
TEST(SortKeyOrder, Half) { expect_orders<__half>(patterns<std::uint16_t>(0x7c00u, 300, 3)); }
TEST(SortKeyOrder, Bfloat16) { expect_orders<__nv_bfloat16>(patterns<std::uint16_t>(0x7f80u, 300, 4)); }

}  // namespace
