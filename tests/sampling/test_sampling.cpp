// GPU tests of the sampling module against the host reference: exact draws for the same seed and
// offset (tables: integer units, so every draw must agree; rows and segments: the reference sums
// in another order, so a draw may differ only for a target within rounding distance of a
// boundary, about 2^-50 per draw, and the tests demand equality), the guarantees (zero bins never
// drawn, ends, status), every path of the table build, and reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "sampling_test_util.hpp"
#include "scankit/detail/philox.hpp"
#include "scankit/error.hpp"
#include "scankit/reference/sampling_reference.hpp"
#include "scankit/sampling.hpp"
#include "support/gpu_test.hpp"

namespace {

using scankit::testing::device_buffer;

template <class T>
class SamplingTyped : public ::testing::Test {};
using WeightTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SamplingTyped, WeightTypes);

// Draws `count` from a table of `w` into a poisoned buffer with a guard region, checks the guard.
template <class T>
std::vector<std::int32_t> draw_from_table(const std::vector<T>& w, std::int64_t count, std::uint64_t seed,
                                          std::uint64_t offset, scankit::sampling_table& table) {
  device_buffer<T> d_w(w);
  scankit::build_sampling_table(d_w.data(), static_cast<std::int64_t>(w.size()), table);
  const std::int64_t guard = 64;
  device_buffer<std::int32_t> out(static_cast<std::size_t>(count + guard));
  out.poison();
  scankit::sample(table, out.data(), count, seed, offset);
  std::vector<std::int32_t> host = out.download();
  for (std::int64_t g = 0; g < guard; ++g) EXPECT_EQ(static_cast<std::uint32_t>(host[count + g]), 0xA5A5A5A5u) << "guard " << g;
  host.resize(static_cast<std::size_t>(count));
  return host;
}

template <class T>
void expect_table_matches_reference(const std::vector<T>& w, std::int64_t count, std::uint64_t seed,
                                    std::uint64_t offset) {
  scankit::sampling_table table;
  const std::vector<std::int32_t> got = draw_from_table(w, count, seed, offset, table);
  const std::int64_t n = static_cast<std::int64_t>(w.size());
  EXPECT_EQ(table.status_host(), scankit::reference::sampling_check(w.data(), n));
  const std::vector<std::int32_t> want =
      scankit::reference::sample_table(w.data(), n, table.unit_exponent_host(), count, seed, offset);
  std::int64_t mismatches = 0;
  for (std::int64_t k = 0; k < count; ++k) {
    if (got[k] != want[k] && ++mismatches <= 5)
      ADD_FAILURE() << "n " << n << " draw " << k << ": got " << got[k] << ", want " << want[k];
    if (got[k] >= 0 && got[k] < n) ASSERT_GT(w[got[k]], T(0)) << "zero-weight bin " << got[k] << " drawn";
  }
  EXPECT_EQ(mismatches, 0) << "n " << n;
}

TYPED_TEST(SamplingTyped, TableMatchesReferenceAcrossSizes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {1, 2, 31, 32, 33, 1023, 1024, 1025, 4095, 4096, 4097, 12289, 100003, 1 << 20}) {
    const auto w = scankit::testing::sampling_weights<TypeParam>(n, 0.3, seed + n);
    expect_table_matches_reference(w, 50001, seed, seed * 7 + 1);
  }
}

TYPED_TEST(SamplingTyped, WideBinsFillTheGuideTable) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  // Zipf: the first bins own long stretches of the guide table (the wide-bin pass).
  expect_table_matches_reference(scankit::reference::zipf_weights<TypeParam>(300007, 1.1), 200000, seed, 0);
  // All weight on one bin in the middle, and a few tiny ones around it.
  std::vector<TypeParam> w(77777, TypeParam(0));
  w[40000] = TypeParam(1000);
  w[3] = w[77776] = TypeParam(1e-3);
  expect_table_matches_reference(w, 100000, seed, 5);
}

TYPED_TEST(SamplingTyped, TiedCodesFallBackToTheExactCdf) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  // Bins of 1e-7 (and 0) between bins of 1: their ends share a 16-bit code with the bin before,
  // so about one draw in 2^14 lands on a tied code and is decided by the double CDF.
  std::vector<TypeParam> w(100003);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = i % 3 == 0 ? TypeParam(1) : (i % 3 == 1 ? TypeParam(1e-7) : TypeParam(0));
  expect_table_matches_reference(w, 2000000, seed, 0);
}

TYPED_TEST(SamplingTyped, SingleBinAndLastBin) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  scankit::sampling_table table;
  for (std::int32_t v : draw_from_table(std::vector<TypeParam>{TypeParam(0.25)}, 1000, seed, 0, table)) ASSERT_EQ(v, 0);
  std::vector<TypeParam> last(9001, TypeParam(0));
  last.back() = TypeParam(3);
  for (std::int32_t v : draw_from_table(last, 100000, seed, 0, table)) ASSERT_EQ(v, 9000);
  std::vector<TypeParam> first(9001, TypeParam(0));
  first.front() = TypeParam(3);
  for (std::int32_t v : draw_from_table(first, 100000, seed, 0, table)) ASSERT_EQ(v, 0);
}

TYPED_TEST(SamplingTyped, BadWeightsGiveStatusAndMinusOne) {
  SCANKIT_REQUIRE_GPU();
  using T = TypeParam;
  using scankit::sampling_status;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  struct bad_case {
    std::vector<T> w;
    sampling_status status;
  };
  std::vector<bad_case> cases;
  std::vector<T> base(5000, T(1));
  auto with = [&](std::size_t i, T v) { auto w = base; w[i] = v; return w; };
  cases.push_back({with(4999, T(-1)), sampling_status::invalid_weight});
  cases.push_back({with(17, nan), sampling_status::invalid_weight});
  cases.push_back({with(4096, inf), sampling_status::invalid_weight});
  cases.push_back({std::vector<T>(5000, T(0)), sampling_status::all_zero});
  cases.push_back({{}, sampling_status::all_zero});
  if constexpr (sizeof(T) == 8) cases.push_back({std::vector<T>(3, std::numeric_limits<T>::max()), sampling_status::sum_overflow});
  for (const auto& c : cases) {
    scankit::sampling_table table;
    const auto got = draw_from_table(c.w, 777, 1, 0, table);
    EXPECT_EQ(table.status_host(), c.status);
    EXPECT_THROW(table.check_host(), scankit::error);
    for (std::int32_t v : got) ASSERT_EQ(v, -1);
  }
}

TYPED_TEST(SamplingTyped, SeedAndOffsetReproduceAndSplit) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const auto w = scankit::testing::sampling_weights<TypeParam>(65537, 0.1, seed);
  scankit::sampling_table table;
  const auto whole = draw_from_table(w, 100000, seed, 1000, table);
  const auto again = draw_from_table(w, 100000, seed, 1000, table);  // rebuilt into the same memory
  EXPECT_EQ(whole, again);
  auto first = draw_from_table(w, 37001, seed, 1000, table);
  const auto second = draw_from_table(w, 100000 - 37001, seed, 1000 + 37001, table);
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_EQ(whole, first);
  const auto other_seed = draw_from_table(w, 100000, seed + 1, 1000, table);
  EXPECT_NE(whole, other_seed);
}

TYPED_TEST(SamplingTyped, RowsMatchReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  for (std::int64_t cols : {1, 3, 33, 4095, 4096, 4097, 20000, 131072}) {
    const std::int64_t rows = cols > 10000 ? 37 : 301;
    auto w = scankit::testing::sampling_weights<T>(rows * cols, 0.4, seed + cols);
    // Special rows: all zero, a NaN, all weight on the last column, only the first column.
    for (std::int64_t c = 0; c < cols; ++c) w[c] = T(0);
    w[cols + cols / 2] = std::numeric_limits<T>::quiet_NaN();
    for (std::int64_t c = 0; c < cols; ++c) w[2 * cols + c] = c == cols - 1 ? T(2) : T(0);
    for (std::int64_t c = 0; c < cols; ++c) w[3 * cols + c] = c == 0 ? T(2) : T(0);
    device_buffer<T> d_w(w);
    device_buffer<std::int32_t> out(static_cast<std::size_t>(rows + 16));
    out.poison();
    scankit::workspace ws;
    scankit::sample_rows(d_w.data(), rows, cols, out.data(), seed, 99, nullptr, &ws);
    auto got = out.download();
    for (int g = 0; g < 16; ++g) EXPECT_EQ(static_cast<std::uint32_t>(got[rows + g]), 0xA5A5A5A5u);
    got.resize(rows);
    const auto want = scankit::reference::sample_rows(w.data(), rows, cols, seed, 99);
    EXPECT_EQ(got, want) << "cols " << cols;
    EXPECT_EQ(got[0], -1);
    EXPECT_EQ(got[1], -1);
    EXPECT_EQ(got[2], cols - 1);
    EXPECT_EQ(got[3], 0);
  }
}

// The build's paths (device/sampling/table_scale.cuh): the one pass at the unit and cells a sample
// of 16384 weights chose, the guide rewritten when the sample overestimated the total, and the
// exact path when it misjudged the total badly (overflow, or too few units). Every path must give
// the reference's draws for the unit exponent it ended with; the exact path ends with the total
// at 2^61 .. 2^62 units.
TYPED_TEST(SamplingTyped, EveryBuildPathMatchesReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  const std::int64_t n = std::int64_t(1) << 20;
  // The build's sample: runs of 128 weights every 8192 (table_scale.cuh).
  const auto sampled = [](std::int64_t i) { return i % 8192 < 128; };
  struct build_case {
    const char* name;
    std::vector<T> w;
    bool exact;
  };
  std::vector<build_case> cases;
  cases.push_back({"sampled well", scankit::testing::sampling_weights<T>(n, 0.2, seed), false});
  std::vector<T> spike(n, T(1e-3));
  spike[12345] = T(1e9);  // not sampled: the total is 10^6 times the estimate, beyond 2^64 units
  ASSERT_FALSE(sampled(12345));
  cases.push_back({"unsampled spike", spike, true});
  std::vector<T> over(n, T(0));
  for (std::int64_t i = 0; i < n; ++i)
    if (sampled(i)) over[i] = T(1);  // every sampled weight, and no other: the estimate 64 times the total
  cases.push_back({"overestimated 64x", over, true});
  std::vector<T> sparse(n, T(1.0 / 32));
  for (std::int64_t i = 0; i < n; ++i)
    if (sampled(i)) sparse[i] = T(1);  // the estimate 21.6 times the total
  cases.push_back({"guide rewritten", sparse, false});
  cases.push_back({"zipf", scankit::reference::zipf_weights<T>(n, 1.0), false});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    scankit::sampling_table table;
    const std::vector<std::int32_t> got = draw_from_table(c.w, 200000, seed, 11, table);
    ASSERT_EQ(table.status_host(), scankit::sampling_status::ok);
    const int e = table.unit_exponent_host();
    const double units = std::ldexp(table.total_host(), -e);
    EXPECT_GE(units, 0x1p50);
    if (c.exact) {
      EXPECT_GE(units, 0x1p61);
      EXPECT_LT(units, 0x1p62 + double(n));
    }
    EXPECT_EQ(got, scankit::reference::sample_table(c.w.data(), n, e, 200000, seed, 11));
  }
}

TYPED_TEST(SamplingTyped, SegmentsMatchReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  std::mt19937_64 rng(seed);
  // Segment lengths: empty ones, short, tile-sized and long; draw counts 0 .. 40 (some empty
  // segments ask for draws: they get -1).
  std::vector<std::int64_t> offsets{0}, draw_offsets{0};
  const std::int64_t lengths[] = {0, 1, 5, 0, 4096, 4097, 33, 70000, 0, 2, 12345};
  for (int rep = 0; rep < 20; ++rep)
    for (std::int64_t len : lengths) {
      offsets.push_back(offsets.back() + len);
      draw_offsets.push_back(draw_offsets.back() + static_cast<std::int64_t>(rng() % 41));
    }
  const std::int64_t n = offsets.back(), segments = static_cast<std::int64_t>(offsets.size()) - 1;
  auto w = scankit::testing::sampling_weights<T>(n, 0.3, seed);
  w[offsets[7] + 3] = T(-2);  // segment 7 is bad
  for (std::int64_t i = offsets[9]; i < offsets[10]; ++i) w[i] = T(0);  // segment 9 is all zero
  device_buffer<T> d_w(w);
  device_buffer<std::int64_t> d_offsets(offsets), d_draws(draw_offsets);
  const std::int64_t total = draw_offsets.back();
  device_buffer<std::int32_t> out(static_cast<std::size_t>(total + 16));
  out.poison();
  scankit::sample_segments(d_w.data(), n, d_offsets.data(), segments, d_draws.data(), total, out.data(), seed, 3);
  auto got = out.download();
  for (int g = 0; g < 16; ++g) EXPECT_EQ(static_cast<std::uint32_t>(got[total + g]), 0xA5A5A5A5u);
  got.resize(total);
  EXPECT_EQ(got, scankit::reference::sample_segments(w.data(), offsets, draw_offsets, seed, 3));
  for (std::int64_t d = draw_offsets[7]; d < draw_offsets[8]; ++d) EXPECT_EQ(got[d], -1);
}

TYPED_TEST(SamplingTyped, WithoutReplacementMatchesReference) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  for (std::int64_t n : {1, 5, 4097, 100003}) {
    const auto w = scankit::testing::sampling_weights<T>(n, 0.3, seed + n);
    std::int64_t positive = 0;
    for (T x : w) positive += x > T(0);
    device_buffer<T> d_w(w);
    for (std::int64_t k : {std::int64_t(1), n / 2, n}) {
      if (k == 0) continue;
      device_buffer<std::int32_t> out(static_cast<std::size_t>(k + 16));
      out.poison();
      scankit::sample_without_replacement(d_w.data(), n, k, out.data(), seed, 17);
      auto got = out.download();
      for (int g = 0; g < 16; ++g) EXPECT_EQ(static_cast<std::uint32_t>(got[k + g]), 0xA5A5A5A5u);
      got.resize(static_cast<std::size_t>(k));
      EXPECT_EQ(got, scankit::reference::sample_without_replacement(w.data(), n, k, seed, 17)) << "n " << n << " k " << k;
      std::vector<char> seen(static_cast<std::size_t>(n), 0);
      for (std::int64_t r = 0; r < k; ++r) {
        if (r < positive) {
          ASSERT_GE(got[r], 0);
          ASSERT_GT(w[got[r]], T(0)) << "a zero weight was taken";
          ASSERT_FALSE(seen[got[r]]) << "index " << got[r] << " taken twice";
          seen[got[r]] = 1;
        } else {
          ASSERT_EQ(got[r], -1) << "slot " << r << " beyond the " << positive << " positive weights";
        }
      }
    }
  }
  std::vector<T> bad(1000, T(1));
  bad[999] = std::numeric_limits<T>::quiet_NaN();
  device_buffer<T> d_bad(bad);
  device_buffer<std::int32_t> out(10);
  scankit::sample_without_replacement(d_bad.data(), 1000, 10, out.data(), seed);
  for (std::int32_t v : out.download()) EXPECT_EQ(v, -1);
}

// The size of the benchmark (2^24 weights), through a caller's workspace reused by a second call.
TEST(SamplingWithoutReplacement, LargeInputThroughAWorkspace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = (std::int64_t(1) << 24) + 3, k = 1000;
  const auto w = scankit::testing::sampling_weights<float>(n, 0.1, seed);
  const auto expected = scankit::reference::sample_without_replacement(w.data(), n, k, seed, 5);
  device_buffer<float> d_w(w);
  scankit::workspace ws;
  for (int call = 0; call < 2; ++call) {
    device_buffer<std::int32_t> out(static_cast<std::size_t>(k + 16));
    out.poison();
    scankit::sample_without_replacement(d_w.data(), n, k, out.data(), seed, 5, nullptr, &ws);
    auto got = out.download();
    for (int g = 0; g < 16; ++g) EXPECT_EQ(static_cast<std::uint32_t>(got[k + g]), 0xA5A5A5A5u);
    got.resize(static_cast<std::size_t>(k));
    EXPECT_EQ(got, expected) << "call " << call;
  }
}

// The benchmark's weights (uniform in (0, 1), none zero), on a stream of its own.
TEST(SamplingWithoutReplacement, UniformWeightsOnAStream) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = std::int64_t(1) << 24, k = 1000;
  std::vector<float> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[i] = float(scankit::detail::philox_uniform(0x5eed, std::uint64_t(i)));
  device_buffer<float> d_w(w);
  cudaStream_t stream;
  SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  scankit::workspace ws;
  for (const std::uint64_t seed : {std::uint64_t(12345), std::uint64_t(42)}) {
    const auto expected = scankit::reference::sample_without_replacement(w.data(), n, k, seed, 0);
    for (int call = 0; call < 3; ++call) {
      device_buffer<std::int32_t> out(static_cast<std::size_t>(k));
      scankit::sample_without_replacement(d_w.data(), n, k, out.data(), seed, 0, stream, &ws);
      SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
      EXPECT_EQ(out.download(), expected) << "seed " << seed << " call " << call;
    }
  }
  ws.release();  // returned on `stream`, which must still exist
  SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
}

// Every weight zero at the benchmark's size: every key is +inf (all radix passes trivial), every
// slot -1.
TEST(SamplingWithoutReplacement, AllZeroWeightsAtScale) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = std::int64_t(1) << 24, k = 1000;
  device_buffer<float> d_w(std::vector<float>(static_cast<std::size_t>(n), 0.0f));
  scankit::workspace ws;
  device_buffer<std::int32_t> out(static_cast<std::size_t>(k));
  scankit::sample_without_replacement(d_w.data(), n, k, out.data(), 7, 0, nullptr, &ws);
  for (std::int32_t v : out.download()) ASSERT_EQ(v, -1);
}

}  // namespace
