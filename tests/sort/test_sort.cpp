// The precompiled radix sort (g++-compiled caller) against the host reference (std::stable_sort
// by the same order): every key type, key patterns, sizes around the tile, both strategies, both
// directions, keys / pairs / argsort, out of place and double-buffered, bit ranges, the float
// order, workspaces, and bad arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "sort_test_util.hpp"

namespace scankit::testing {
namespace {

// Around the small sorts' limits (one block up to 1024 and 4096 items; a cluster of up to 16
// blocks of 1024 to 4096 items, up to 2^16 on sm_90 and later, 8 blocks where 16 do not fit) and
// the tiles of the tuned pass shapes: 384 x 24 (keys of up to 4 bytes), 384 x 20 (4-byte keys
// and values), 384 x 16 (the others).
std::vector<std::int64_t> sort_sizes(std::uint64_t seed) {
  const bool small = sort_small_sizes_only();
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> sizes = {0,     1,     2,     31,    33,    1024,  1025,  4096,  4097,  6143,
                                     6144,  6145,  8191,  8192,  8193,  12287, 12288, 12289, 16383, 16384,
                                     16385, 18431, 18432, 18433, 23039, 23040, 23041, 24575, 24576, 24577,
                                     32768, 32769, 65536, 65537};
  sizes.push_back(static_cast<std::int64_t>(5 * 9216 + rng() % 9216));
  if (!small) {
    sizes.push_back(static_cast<std::int64_t>(40 * 9216 + rng() % 9216));
    sizes.push_back((std::int64_t{1} << 20) + 7);
  }
  return sizes;
}

const sort_strategy strategies[] = {sort_strategy::onesweep, sort_strategy::reduce_then_scan};
const sort_order orders[] = {sort_order::ascending, sort_order::descending};

std::string describe(std::int64_t n, key_pattern p, sort_strategy s, sort_order o) {
  return "n = " + std::to_string(n) + ", " + to_string(p) + " keys, " + to_string(s) + ", " +
         (o == sort_order::ascending ? "ascending" : "descending");
}

template <class K>
class SortKeys : public ::testing::Test {};
using key_types = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                                   std::int64_t, std::uint64_t, float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(SortKeys, key_types);

TYPED_TEST(SortKeys, OutOfPlaceMatchesReference) {
  SCANKIT_REQUIRE_GPU();
  using K = TypeParam;
  SCANKIT_SEEDED(seed);
  workspace ws;
  for (std::int64_t n : sort_sizes(seed)) {
    for (key_pattern p : all_key_patterns) {
      if (n > 100000 && p != key_pattern::uniform && p != key_pattern::few_distinct) continue;
      const std::vector<K> keys = make_keys<K>(static_cast<std::size_t>(n), p, seed + static_cast<std::uint64_t>(n));
      device_buffer<K> in(keys), out(static_cast<std::size_t>(n));
      for (sort_strategy s : strategies) {
        for (sort_order o : orders) {
          SCOPED_TRACE(describe(n, p, s, o));
          sort_options options;
          options.strategy = s;
          options.order = o;
          out.poison();
          sort_keys(in.data(), out.data(), n, nullptr, &ws, options);
          ASSERT_TRUE(same_bits(reference::sort_keys(keys, options), out.download()));
          ASSERT_TRUE(same_bits(keys, in.download())) << "the input changed";
        }
      }
    }
  }
}

TYPED_TEST(SortKeys, DoubleBufferMatchesReference) {
  SCANKIT_REQUIRE_GPU();
  using K = TypeParam;
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7681}, std::int64_t{100003}}) {
    for (sort_strategy s : strategies) {
      SCOPED_TRACE(describe(n, key_pattern::uniform, s, sort_order::ascending));
      const std::vector<K> keys = make_keys<K>(static_cast<std::size_t>(n), key_pattern::uniform, seed);
      device_buffer<K> a(keys), b(static_cast<std::size_t>(n));
      b.poison();
      double_buffer<K> buffers(a.data(), b.data());
      sort_options options;
      options.strategy = s;
      sort_keys(buffers, n, nullptr, nullptr, options);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<K> sorted = buffers.current() == a.data() ? a.download() : b.download();
      ASSERT_TRUE(same_bits(reference::sort_keys(keys, options), sorted));
      // Every pass flips the selector: 8 bits per pass.
      const int passes = static_cast<int>(sizeof(K));
      EXPECT_EQ(buffers.selector, n > 0 ? passes % 2 : 0);
    }
  }
}

// Pairs whose values are the input positions: the values prove the permutation and stability.
template <class K, class V>
void check_pairs(std::int64_t n, key_pattern p, std::uint64_t seed, workspace* ws) {
  const std::vector<K> keys = make_keys<K>(static_cast<std::size_t>(n), p, seed);
  std::vector<V> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<V>(i * 3 + 1);
  device_buffer<K> keys_in(keys), keys_out(static_cast<std::size_t>(n));
  device_buffer<V> values_in(values), values_out(static_cast<std::size_t>(n));
  for (sort_strategy s : strategies) {
    for (sort_order o : orders) {
      SCOPED_TRACE(describe(n, p, s, o));
      sort_options options;
      options.strategy = s;
      options.order = o;
      keys_out.poison();
      values_out.poison();
      sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, nullptr, ws, options);
      const std::vector<std::int64_t> order = reference::argsort(keys, options);
      ASSERT_TRUE(same_bits(reference::permute(keys, order), keys_out.download()));
      ASSERT_TRUE(same_bits(reference::permute(values, order), values_out.download()));
    }
  }
}

TEST(SortPairs, EveryValueSizeMatchesReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  workspace ws;
  for (std::int64_t n : sort_sizes(seed)) {
    for (key_pattern p : {key_pattern::uniform, key_pattern::few_distinct, key_pattern::all_equal}) {
      check_pairs<std::uint32_t, std::uint32_t>(n, p, seed, &ws);
      check_pairs<float, std::int64_t>(n, p, seed, &ws);
      check_pairs<std::int64_t, double>(n, p, seed, &ws);
      check_pairs<std::uint8_t, float>(n, p, seed, &ws);
      check_pairs<__half, std::int32_t>(n, p, seed, &ws);
      check_pairs<std::uint64_t, std::uint64_t>(n, p, seed, &ws);
    }
  }
}

TEST(SortPairs, DoubleBuffer) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 250007;
  const std::vector<std::int16_t> keys = make_keys<std::int16_t>(n, key_pattern::few_distinct, seed);
  std::vector<double> values(n);
  std::iota(values.begin(), values.end(), 0.0);
  for (sort_strategy s : strategies) {
    SCOPED_TRACE(to_string(s));
    device_buffer<std::int16_t> k0(keys), k1(n);
    device_buffer<double> v0(values), v1(n);
    double_buffer<std::int16_t> kb(k0.data(), k1.data());
    double_buffer<double> vb(v0.data(), v1.data());
    sort_options options;
    options.strategy = s;
    sort_pairs(kb, vb, n, nullptr, nullptr, options);
    EXPECT_EQ(kb.selector, 0);  // two passes
    EXPECT_EQ(vb.selector, 0);
    const auto order = reference::argsort(keys, options);
    ASSERT_TRUE(same_bits(reference::permute(keys, order), k0.download()));
    ASSERT_TRUE(same_bits(reference::permute(values, order), v0.download()));
  }
}

// Keys that are all equal (+inf doubles) over many tiles: every pass is trivial; the indices must
// come out in input order and the keys unchanged.
TEST(Argsort, AllEqualDoublesOverManyTiles) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 24) + 5;
  device_buffer<double> in(std::vector<double>(static_cast<std::size_t>(n), HUGE_VAL));
  device_buffer<double> sorted(static_cast<std::size_t>(n));
  device_buffer<std::int32_t> idx(static_cast<std::size_t>(n));
  scankit::workspace ws;
  for (int call = 0; call < 2; ++call) {
    argsort(in.data(), sorted.data(), idx.data(), n, nullptr, call == 0 ? nullptr : &ws);
    const auto got = idx.download();
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[static_cast<std::size_t>(i)], i) << "call " << call;
    const auto keys = sorted.download();
    ASSERT_TRUE(std::all_of(keys.begin(), keys.end(), [](double v) { return v == HUGE_VAL; }));
  }
}

TEST(Argsort, IndicesAndOptionalKeys) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : sort_sizes(seed)) {
    const std::vector<float> keys = make_keys<float>(static_cast<std::size_t>(n), key_pattern::uniform, seed);
    device_buffer<float> in(keys), sorted(static_cast<std::size_t>(n));
    device_buffer<std::int32_t> idx32(static_cast<std::size_t>(n));
    device_buffer<std::int64_t> idx64(static_cast<std::size_t>(n));
    for (sort_strategy s : strategies) {
      SCOPED_TRACE(describe(n, key_pattern::uniform, s, sort_order::ascending));
      sort_options options;
      options.strategy = s;
      const std::vector<std::int64_t> order = reference::argsort(keys, options);
      idx32.poison();
      argsort(in.data(), static_cast<float*>(nullptr), idx32.data(), n, nullptr, nullptr, options);
      const std::vector<std::int32_t> got32 = idx32.download();
      ASSERT_TRUE(std::equal(order.begin(), order.end(), got32.begin(), got32.end()));
      idx64.poison();
      sorted.poison();
      argsort(in.data(), sorted.data(), idx64.data(), n, nullptr, nullptr, options);
      ASSERT_TRUE(same_bits(order, idx64.download()));
      ASSERT_TRUE(same_bits(reference::permute(keys, order), sorted.download()));
    }
  }
}

// ---- the float order ----------------------------------------------------------------------------

std::vector<float> special_floats(std::size_t n, std::uint64_t seed) {
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 1.0f, -1.0f};
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) {
    const auto r = rng() % 16;
    if (r < 11) {
      x = specials[r];
    } else if (r < 13) {  // NaNs of both signs with random payloads
      std::uint32_t bits = 0x7f800000u | (static_cast<std::uint32_t>(rng()) & 0x807fffffu) | 1u;
      std::memcpy(&x, &bits, 4);
    } else {
      x = std::uniform_real_distribution<float>(-10.0f, 10.0f)(rng);
    }
  }
  return v;
}

TEST(SortFloatOrder, TotalOrderNansLastZerosEqual) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 100000;
  const std::vector<float> keys = special_floats(n, seed);
  device_buffer<float> in(keys), out(n);
  device_buffer<std::int64_t> idx(n);
  for (sort_strategy s : strategies) {
    SCOPED_TRACE(to_string(s));
    sort_options options;
    options.strategy = s;
    argsort(in.data(), out.data(), idx.data(), n, nullptr, nullptr, options);
    const std::vector<float> sorted = out.download();
    const std::vector<std::int64_t> order = idx.download();
    // Independent of the bit mapping: non-NaNs ascend by operator<, NaNs come last, and among
    // equal keys (-0.0 == +0.0 included; NaNs among themselves) the input order is kept.
    std::size_t first_nan = n;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (std::isnan(sorted[i])) {
        if (first_nan == static_cast<std::size_t>(n)) first_nan = i;
        continue;
      }
      ASSERT_EQ(first_nan, static_cast<std::size_t>(n)) << "a number at " << i << " after a NaN";
      if (i > 0) {
        ASSERT_FALSE(sorted[i] < sorted[i - 1]) << "at " << i;
        if (sorted[i] == sorted[i - 1]) ASSERT_LT(order[i - 1], order[i]) << "unstable at " << i;
      }
    }
    for (std::size_t i = first_nan + 1; i < sorted.size(); ++i) ASSERT_LT(order[i - 1], order[i]) << "NaNs unstable";
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      ASSERT_EQ(std::memcmp(&sorted[i], &keys[static_cast<std::size_t>(order[i])], 4), 0) << "keys not moved bit for bit";
    }
    // Descending: the exact reverse order of the distinct keys, still stable.
    options.order = sort_order::descending;
    sort_keys(in.data(), out.data(), n, nullptr, nullptr, options);
    ASSERT_TRUE(same_bits(reference::sort_keys(keys, options), out.download()));
    EXPECT_TRUE(std::isnan(out.download()[0]));
  }
}

TEST(SortFloatOrder, RawBitsOrder) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 30011;
  const std::vector<float> keys = special_floats(n, seed);
  device_buffer<float> in(keys), out(n);
  sort_options options;
  options.floats = float_order::raw_bits;
  sort_keys(in.data(), out.data(), n, nullptr, nullptr, options);
  const std::vector<float> sorted = out.download();
  ASSERT_TRUE(same_bits(reference::sort_keys(keys, options), sorted));
  // -0.0 before +0.0, negative NaNs first.
  std::uint32_t first_bits;
  std::memcpy(&first_bits, &sorted.front(), 4);
  EXPECT_TRUE(std::isnan(sorted.front()) && (first_bits >> 31) == 1u);
}

// ---- bit ranges -----------------------------------------------------------------------------------

TEST(SortBitRange, SubsetsOfBits) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 77777;
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::uniform, seed);
  const std::vector<std::int64_t> keys64 = make_keys<std::int64_t>(n, key_pattern::uniform, seed + 1);
  device_buffer<std::uint32_t> in(keys), out(n);
  device_buffer<std::int64_t> in64(keys64), out64(n);
  const std::pair<int, int> ranges[] = {{0, 32}, {4, 20}, {0, 0}, {13, 13}, {31, 32}, {0, 1}, {7, 9}, {24, 32}};
  for (sort_strategy s : strategies) {
    for (sort_order o : orders) {
      for (auto [begin, end] : ranges) {
        SCOPED_TRACE(describe(n, key_pattern::uniform, s, o) + ", bits [" + std::to_string(begin) + ", " +
                     std::to_string(end) + ")");
        sort_options options;
        options.strategy = s;
        options.order = o;
        options.begin_bit = begin;
        options.end_bit = end;
        out.poison();
        sort_keys(in.data(), out.data(), n, nullptr, nullptr, options);
        ASSERT_TRUE(same_bits(reference::sort_keys(keys, options), out.download()));
        options.end_bit = end * 2;
        options.begin_bit = begin * 2;
        out64.poison();
        sort_keys(in64.data(), out64.data(), n, nullptr, nullptr, options);
        ASSERT_TRUE(same_bits(reference::sort_keys(keys64, options), out64.download()));
      }
    }
  }
}

// A cluster of more than 8 blocks as the kernel's first launch in the process (ctest runs each
// case on its own): the opt-in to such clusters must come before the occupancy query and the launch.
TEST(SortSmall, SixteenBlockClusterAsTheFirstLaunch) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 65536;
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::uniform, seed);
  device_buffer<std::uint32_t> in(keys), out(n);
  out.poison();
  sort_keys(in.data(), out.data(), n);
  ASSERT_TRUE(same_bits(reference::sort_keys(keys, sort_options{}), out.download()));
}

// Each small-sort shape once, on every key pattern (sorted keys put a whole row of a warp on one
// digit, the worst case of ranking by atomic or), keys and pairs: small enough for racecheck.
TEST(SortSmall, EachShapeOnEveryPattern) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{1000}, std::int64_t{4000}, std::int64_t{30001}}) {
    for (key_pattern pattern : all_key_patterns) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", " + to_string(pattern));
      const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, pattern, seed + n);
      std::vector<std::int32_t> values(static_cast<std::size_t>(n));
      std::iota(values.begin(), values.end(), 7);
      device_buffer<std::uint32_t> in(keys), out(n);
      device_buffer<std::int32_t> vin(values), vout(n);
      out.poison();
      sort_keys(in.data(), out.data(), n);
      ASSERT_TRUE(same_bits(reference::sort_keys(keys, sort_options{}), out.download()));
      out.poison();
      vout.poison();
      sort_pairs(in.data(), out.data(), vin.data(), vout.data(), n);
      const std::vector<std::int64_t> order = reference::argsort(keys, sort_options{});
      ASSERT_TRUE(same_bits(reference::permute(keys, order), out.download()));
      ASSERT_TRUE(same_bits(reference::permute(values, order), vout.download()));
    }
  }
}

// The small sorts (one block up to 1024 and 4096 keys, a cluster above up to 2^16): widths around
// their limits, bit ranges in both orders, floats in the total order (NaNs and zeros), pairs,
// argsort, and 8-byte keys of the same sizes, all against the reference.
TEST(SortSmall, OneBlockAndClusterWidthsBitRangesAndValues) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  // Under the sanitizers (SCANKIT_TEST_SMALL): one size per shape and the two widest ranges.
  const bool small = sort_small_sizes_only();
  const std::vector<std::pair<int, int>> ranges =
      small ? std::vector<std::pair<int, int>>{{0, 32}, {4, 20}}
            : std::vector<std::pair<int, int>>{{0, 32}, {4, 20}, {0, 1}, {31, 32}};
  const std::vector<std::int64_t> sizes =
      small ? std::vector<std::int64_t>{65, 1000, 4097, 30001, 65536}
            : std::vector<std::int64_t>{1, 2, 63, 64, 65, 1000, 1023, 1024, 1025, 4096, 4097, 20000, 30001, 40000, 65536};
  for (std::int64_t n : sizes) {
    const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::few_distinct, seed + n);
    const std::vector<float> floats = make_keys<float>(n, key_pattern::uniform, seed + n);
    const std::vector<std::int16_t> shorts = make_keys<std::int16_t>(n, key_pattern::uniform, seed + n);
    const std::vector<std::int64_t> longs = make_keys<std::int64_t>(n, key_pattern::few_distinct, seed + n);
    std::vector<double> values(static_cast<std::size_t>(n));
    std::iota(values.begin(), values.end(), 0.5);
    device_buffer<std::uint32_t> in(keys), out(n);
    device_buffer<float> fin(floats), fout(n);
    device_buffer<std::int16_t> sin(shorts), sout(n);
    device_buffer<std::int64_t> lin(longs), lout(n);
    device_buffer<double> vin(values), vout(n);
    device_buffer<std::int32_t> indices(n);
    for (sort_order o : orders) {
      for (auto [begin, end] : ranges) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", bits [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ")" + (o == sort_order::ascending ? "" : ", descending"));
        sort_options options;
        options.order = o;
        options.begin_bit = begin;
        options.end_bit = end;
        out.poison();
        vout.poison();
        sort_pairs(in.data(), out.data(), vin.data(), vout.data(), n, nullptr, nullptr, options);
        const std::vector<std::int64_t> order = reference::argsort(keys, options);
        ASSERT_TRUE(same_bits(reference::permute(keys, order), out.download()));
        ASSERT_TRUE(same_bits(reference::permute(values, order), vout.download()));
        options.begin_bit /= 2;
        options.end_bit /= 2;
        sout.poison();
        sort_keys(sin.data(), sout.data(), n, nullptr, nullptr, options);
        ASSERT_TRUE(same_bits(reference::sort_keys(shorts, options), sout.download()));
        options.begin_bit = begin * 2;
        options.end_bit = end * 2;
        lout.poison();
        sort_keys(lin.data(), lout.data(), n, nullptr, nullptr, options);
        ASSERT_TRUE(same_bits(reference::sort_keys(longs, options), lout.download()));
      }
      sort_options options;
      options.order = o;
      fout.poison();
      indices.poison();
      argsort(fin.data(), fout.data(), indices.data(), n, nullptr, nullptr, options);
      const std::vector<std::int64_t> order = reference::argsort(floats, options);
      ASSERT_TRUE(same_bits(reference::permute(floats, order), fout.download()));
      const std::vector<std::int32_t> got = indices.download();
      ASSERT_TRUE(std::equal(order.begin(), order.end(), got.begin())) << "argsort indices, n = " << n;
    }
  }
}

// ---- skipped passes and single-digit tiles ----------------------------------------------------

// u32 keys whose byte b is random when bit b of `varying` is set and 0xa5 otherwise: the passes
// of the constant bytes are trivial (skipped on the device), in every combination.
std::vector<std::uint32_t> keys_with_constant_bytes(std::size_t n, unsigned varying, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> keys(n);
  for (auto& k : keys) {
    const auto r = static_cast<std::uint32_t>(rng());
    k = 0;
    for (int b = 0; b < 4; ++b) k |= ((varying >> b) & 1u ? (r >> (8 * b)) & 0xffu : 0xa5u) << (8 * b);
  }
  return keys;
}

TEST(SortSkippedPasses, EveryCombinationOfTrivialPasses) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 3 * 7680 + 1234;
  workspace ws;
  for (unsigned varying = 0; varying < 16; ++varying) {
    const std::vector<std::uint32_t> keys = keys_with_constant_bytes(static_cast<std::size_t>(n), varying, seed + varying);
    std::vector<std::uint32_t> values(static_cast<std::size_t>(n));
    std::iota(values.begin(), values.end(), 7u);
    for (sort_strategy s : strategies) {
      for (sort_order o : orders) {
        SCOPED_TRACE("varying bytes mask " + std::to_string(varying) + ", " + to_string(s) +
                     (o == sort_order::ascending ? ", ascending" : ", descending"));
        sort_options options;
        options.strategy = s;
        options.order = o;
        const std::vector<std::int64_t> order = reference::argsort(keys, options);
        const std::vector<std::uint32_t> sorted = reference::permute(keys, order);
        device_buffer<std::uint32_t> in(keys), out(static_cast<std::size_t>(n));
        out.poison();
        sort_keys(in.data(), out.data(), n, nullptr, &ws, options);
        ASSERT_TRUE(same_bits(sorted, out.download())) << "keys, out of place";
        ASSERT_TRUE(same_bits(keys, in.download())) << "the input changed";

        device_buffer<std::uint32_t> k0(keys), k1(static_cast<std::size_t>(n)), v0(values), v1(static_cast<std::size_t>(n));
        k1.poison();
        v1.poison();
        double_buffer<std::uint32_t> kb(k0.data(), k1.data());
        double_buffer<std::uint32_t> vb(v0.data(), v1.data());
        sort_pairs(kb, vb, n, nullptr, &ws, options);
        EXPECT_EQ(kb.selector, 0);  // four passes, whether they ran or not
        ASSERT_TRUE(same_bits(sorted, k0.download())) << "keys, double buffer";
        ASSERT_TRUE(same_bits(reference::permute(values, order), v0.download())) << "values, double buffer";

        device_buffer<std::int32_t> indices(static_cast<std::size_t>(n));
        indices.poison();
        argsort(in.data(), static_cast<std::uint32_t*>(nullptr), indices.data(), n, nullptr, &ws, options);
        const std::vector<std::int32_t> got = indices.download();
        ASSERT_TRUE(std::equal(order.begin(), order.end(), got.begin(), got.end())) << "argsort";
      }
    }
  }
}

// Three-pass keys (24 bits) double-buffered: an odd pass count, with every trivial pattern.
TEST(SortSkippedPasses, OddPassCountDoubleBuffer) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 20011;
  for (unsigned varying = 0; varying < 8; ++varying) {
    SCOPED_TRACE("varying bytes mask " + std::to_string(varying));
    const std::vector<std::uint32_t> keys = keys_with_constant_bytes(static_cast<std::size_t>(n), varying, seed + varying);
    sort_options options;
    options.end_bit = 24;
    device_buffer<std::uint32_t> k0(keys), k1(static_cast<std::size_t>(n));
    k1.poison();
    double_buffer<std::uint32_t> kb(k0.data(), k1.data());
    sort_keys(kb, n, nullptr, nullptr, options);
    EXPECT_EQ(kb.selector, 1);
    const std::vector<std::uint32_t> sorted = reference::sort_keys(keys, options);
    ASSERT_TRUE(same_bits(sorted, k1.download()));
  }
}

// Runs of 36864 keys (4 tiles of 384 x 24, 6 of 384 x 16) share their top byte: most full tiles
// hold one digit in the last pass and go straight to the output; the other bytes are random.
TEST(SortSingleDigitTiles, RunsOfOneTopByte) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 36864 * 9 + 4321;
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<std::uint32_t>((i / 36864 * 37 % 256) << 24) | (static_cast<std::uint32_t>(rng()) & 0xffffffu);
  }
  std::vector<std::uint64_t> values(keys.size());
  std::iota(values.begin(), values.end(), std::uint64_t{1} << 40);
  device_buffer<std::uint32_t> ki(keys), ko(keys.size());
  device_buffer<std::uint64_t> vi(values), vo(keys.size());
  for (sort_order o : orders) {
    sort_options options;
    options.order = o;
    const auto order = reference::argsort(keys, options);
    ko.poison();
    sort_keys(ki.data(), ko.data(), n, nullptr, nullptr, options);
    ASSERT_TRUE(same_bits(reference::permute(keys, order), ko.download()));
    ko.poison();
    vo.poison();
    sort_pairs(ki.data(), ko.data(), vi.data(), vo.data(), n, nullptr, nullptr, options);
    ASSERT_TRUE(same_bits(reference::permute(keys, order), ko.download()));
    ASSERT_TRUE(same_bits(reference::permute(values, order), vo.download()));
  }
}

// ---- workspaces -------------------------------------------------------------------------------------

// The automatic strategy's counting sort (keys only, 8- and 16-bit keys, every bit): sizes
// around its threshold (2^16), keys that start off a 16-byte boundary, every pattern and both
// orders, half and bfloat16 in the raw-bit order (counted) and the total order (radix-sorted),
// and a wrapped workspace of the reported size.
template <class K>
class SortCounting : public ::testing::Test {};
using counting_key_types = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(SortCounting, counting_key_types);

TYPED_TEST(SortCounting, AutomaticMatchesReference) {
  SCANKIT_REQUIRE_GPU();
  using K = TypeParam;
  SCANKIT_SEEDED(seed);
  std::vector<std::int64_t> sizes = {65535, 65536, 65536 + 13, 300007};
  if (!sort_small_sizes_only()) sizes.push_back(3000017);
  for (std::int64_t n : sizes) {
    for (key_pattern p : all_key_patterns) {
      // One key in front, so that the sorted keys start 1 element past the allocation.
      const std::vector<K> keys = make_keys<K>(static_cast<std::size_t>(n + 1), p, seed + static_cast<std::uint64_t>(n));
      device_buffer<K> in(keys), out(static_cast<std::size_t>(n + 1));
      const std::vector<K> sorted_part(keys.begin() + 1, keys.end());
      for (sort_order o : orders) {
        for (float_order f : {float_order::raw_bits, float_order::total}) {
          if (f == float_order::total && !detail::is_sort_float_v<K>) continue;
          SCOPED_TRACE(describe(n, p, sort_strategy::automatic, o) +
                       (f == float_order::total ? ", total float order" : ""));
          sort_options options;
          options.order = o;
          options.floats = f;
          const std::size_t bytes = sort_keys_workspace_bytes(in.data() + 1, n, options);
          device_buffer<unsigned char> memory(bytes);
          workspace ws(memory.data(), bytes);
          out.poison();
          sort_keys(in.data() + 1, out.data() + 1, n, nullptr, &ws, options);
          const std::vector<K> got = out.download();
          ASSERT_TRUE(same_bits(reference::sort_keys(sorted_part, options), std::vector<K>(got.begin() + 1, got.end())));
          std::vector<K> poison(1);
          std::memset(poison.data(), 0xA5, sizeof(K));
          ASSERT_TRUE(same_bits(poison, std::vector<K>(got.begin(), got.begin() + 1))) << "wrote before the output";
        }
      }
    }
  }
}

TEST(SortWorkspace, ReportedSizesSuffice) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 1000003;
  const std::vector<std::uint64_t> keys = make_keys<std::uint64_t>(n, key_pattern::uniform, seed);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  device_buffer<std::uint64_t> k0(keys), k1(n);
  device_buffer<std::uint32_t> v0(values), v1(n);
  for (sort_strategy s : strategies) {
    sort_options options;
    options.strategy = s;
    const std::size_t out_of_place = sort_pairs_workspace_bytes(k0.data(), v0.data(), n, options);
    double_buffer<std::uint64_t> kb(k0.data(), k1.data());
    double_buffer<std::uint32_t> vb(v0.data(), v1.data());
    const std::size_t in_buffers = sort_pairs_workspace_bytes(kb, vb, n, options);
    // The double-buffer form needs no copy of the data.
    EXPECT_LT(in_buffers + static_cast<std::size_t>(n) * 12, out_of_place + 1);
    EXPECT_LT(in_buffers, static_cast<std::size_t>(n) * 4);
    // Exactly the reported size, wrapped: one call of each form, then smaller ones.
    device_buffer<unsigned char> memory(std::max(out_of_place, in_buffers));
    workspace ws(memory.data(), out_of_place);
    const auto order = reference::argsort(keys, options);
    sort_pairs(k0.data(), k1.data(), v0.data(), v1.data(), n, nullptr, &ws, options);
    ASSERT_TRUE(same_bits(reference::permute(keys, order), k1.download()));
    ASSERT_TRUE(same_bits(reference::permute(values, order), v1.download()));
    workspace small(memory.data(), in_buffers);
    k0.upload(keys);
    v0.upload(values);
    sort_pairs(kb, vb, n, nullptr, &small, options);
    EXPECT_EQ(kb.selector, 0);
    ASSERT_TRUE(same_bits(reference::permute(keys, order), k0.download()));
    ASSERT_TRUE(same_bits(reference::permute(values, order), v0.download()));
    k0.upload(keys);
    v0.upload(values);
  }
}

// Many sorts of random sizes and types on one workspace (the tile states and the ticket are
// reused from launch to launch).
TEST(SortStress, ManyLaunchesOneWorkspace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  workspace ws;
  const int launches = sort_small_sizes_only() ? 20 : 300;
  for (int i = 0; i < launches; ++i) {
    const auto n = static_cast<std::int64_t>(rng() % (sort_small_sizes_only() ? 40000 : 400000));
    const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::few_distinct, rng());
    std::vector<std::uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    device_buffer<std::uint32_t> ki(keys), ko(n), vi(values), vo(n);
    sort_options options;
    options.strategy = (i % 3 == 2) ? sort_strategy::reduce_then_scan : sort_strategy::onesweep;
    options.end_bit = 1 + static_cast<int>(rng() % 32);
    SCOPED_TRACE("launch " + std::to_string(i) + ", n = " + std::to_string(n) + ", end_bit " +
                 std::to_string(options.end_bit));
    sort_pairs(ki.data(), ko.data(), vi.data(), vo.data(), n, nullptr, &ws, options);
    const auto order = reference::argsort(keys, options);
    ASSERT_TRUE(same_bits(reference::permute(keys, order), ko.download()));
    ASSERT_TRUE(same_bits(reference::permute(values, order), vo.download()));
  }
}

// ---- bad arguments ------------------------------------------------------------------------------

TEST(SortArguments, RejectedBeforeAnyLaunch) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1000;
  std::vector<std::uint32_t> keys(n);
  std::iota(keys.rbegin(), keys.rend(), 0u);
  device_buffer<std::uint32_t> in(keys), out(n);
  out.poison();
  const std::vector<std::uint32_t> poisoned = out.download();
  sort_options bad_range;
  bad_range.begin_bit = 8;
  bad_range.end_bit = 33;
  EXPECT_THROW(sort_keys(in.data(), out.data(), n, nullptr, nullptr, bad_range), scankit::error);
  bad_range.begin_bit = 9;
  bad_range.end_bit = 8;
  EXPECT_THROW(sort_keys(in.data(), out.data(), n, nullptr, nullptr, bad_range), scankit::error);
  bad_range.begin_bit = -1;
  bad_range.end_bit = 8;
  EXPECT_THROW(sort_keys(in.data(), out.data(), n, nullptr, nullptr, bad_range), scankit::error);
  bad_range.begin_bit = 0;
  bad_range.end_bit = -2;  // only -1 means every bit
  EXPECT_THROW(sort_keys(in.data(), out.data(), n, nullptr, nullptr, bad_range), scankit::error);
  EXPECT_THROW(sort_keys(in.data(), out.data(), -1), scankit::error);
  EXPECT_THROW(sort_keys(static_cast<const std::uint32_t*>(nullptr), out.data(), n), scankit::error);
  EXPECT_THROW(sort_keys(in.data(), static_cast<std::uint32_t*>(nullptr), n), scankit::error);
  EXPECT_THROW(sort_keys(in.data(), in.data() + 10, n - 10), scankit::error);  // overlapping
  EXPECT_THROW(sort_keys(in.data(), in.data(), n), scankit::error);             // in place is not out of place
  device_buffer<std::uint32_t> values(n);
  EXPECT_THROW(sort_pairs(in.data(), out.data(), values.data(), out.data(), n), scankit::error);
  double_buffer<std::uint32_t> same(in.data(), in.data());
  EXPECT_THROW(sort_keys(same, n), scankit::error);
  device_buffer<std::int32_t> idx(n);
  EXPECT_THROW(argsort(in.data(), static_cast<std::uint32_t*>(nullptr), idx.data(), std::int64_t{1} << 32),
               scankit::error);  // int32 indices cannot address that many keys
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(same_bits(keys, in.download()));
  EXPECT_TRUE(same_bits(poisoned, out.download()));
  // n == 0 accepts null arrays and does nothing.
  EXPECT_NO_THROW(sort_keys(static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), 0));
}

}  // namespace
}  // namespace scankit::testing
