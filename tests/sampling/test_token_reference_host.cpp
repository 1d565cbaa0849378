// Host tests of the token sampler's reference (scankit/reference/token_sampler_reference.hpp):
// the bound on the device's integer weights, and the top-p brackets it widens, on the two rows of
// the GPU test's data where the device's boundary differed from the exact one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <cuda_fp16.h>

#include "scankit/reference/token_sampler_reference.hpp"

namespace {

namespace ref = scankit::reference::tokens;

TEST(TokenReference, WeightQuantumIsOneUnitOfEachTokensBinTop) {
  // Four equal logits: every token weighs 1, its bin's top is its own value (u = 0, the top of
  // the bin of +0.0 is a denormal above it), and a unit is 2^-(31 - 2).
  const std::vector<float> v(4, 0.0f);
  ref::row_params p;
  const std::vector<double> weight(4, 1.0);
  EXPECT_NEAR(ref::weight_quantum(v.data(), 4, p, weight), 4 * std::ldexp(1.0, -29), 1e-15);
  // Only the tokens at or above `floor` count; tokens without weight never do.
  const std::vector<float> w = {0.0f, -INFINITY, 0.0f, -1.0f};
  const std::vector<double> weights = {1.0, 0.0, 1.0, std::exp(-1.0)};
  EXPECT_NEAR(ref::weight_quantum(w.data(), 4, p, weights, 0.0f), 2 * std::ldexp(1.0, -29), 1e-15);
  // Probabilities at T = 1: a unit of the power of two above the value (for a power of two, the
  // next one: twice the weight), relative to the largest value.
  const std::vector<float> probs = {0.5f, 0.25f, 0.125f, 0.125f};
  ref::row_params raw;
  raw.probabilities = true;
  const std::vector<double> raw_weights = {1.0, 0.5, 0.25, 0.25};
  EXPECT_NEAR(ref::weight_quantum(probs.data(), 4, raw, raw_weights), 2.0 * 2.0 * std::ldexp(1.0, -29), 1e-15);
}

// The GPU test's rows (check_kept_sets: N(0, 2.5^2) logits of 131075 tokens, rounded to fp16,
// input row 1 of 2) for its seeds 221995854 and 1864778309.
std::vector<float> fp16_row(std::uint64_t seed) {
  const std::int64_t vocab = 131075;
  std::mt19937_64 rng(seed + vocab);
  std::normal_distribution<float> d(0.0f, 2.5f);
  std::vector<float> x(static_cast<std::size_t>(2 * vocab));
  for (auto& v : x) v = __half2float(__float2half_rn(d(rng)));
  return std::vector<float>(x.begin() + vocab, x.end());
}

TEST(TokenReference, TopPBracketsTheIntegerWeightsOfTheBoundary) {
  // T 1, top-p 0.1: the first 8 tokens hold 3.1e-5 more than the target; the device kept a 9th
  // (value 9.8359375), which K_loose must hold.
  {
    const std::vector<float> v = fp16_row(221995854);
    ref::row_params p;
    p.top_p = 0.1f;
    const ref::row_reference r = ref::reference_row(v.data(), static_cast<std::int64_t>(v.size()), p);
    EXPECT_EQ(r.threshold_strict, 9.890625f);
    EXPECT_LE(r.threshold_loose, 9.8359375f);
  }
  // T 2, top-p 0.1: the groups through 6.32421875 hold 1.1e-5 less than the target; the device
  // stopped there, which K_strict must allow.
  {
    const std::vector<float> v = fp16_row(1864778309);
    ref::row_params p;
    p.temperature = 2.0f;
    p.top_p = 0.1f;
    const ref::row_reference r = ref::reference_row(v.data(), static_cast<std::int64_t>(v.size()), p);
    EXPECT_GE(r.threshold_strict, 6.32421875f);
    EXPECT_EQ(r.threshold_loose, 6.3203125f);
  }
}

}  // namespace
