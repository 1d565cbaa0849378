// Sampling with lengths held in device memory (scankit::device_n): draws from both tables, one draw
// per row (plain, and top-k / top-p), draws from segments, and the token sampler. Each device-count
// call is checked against a host-count call on the first `count` items (the same bits), with every
// output past the count still holding its poison.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "scankit/detail/alias_slices.hpp"
#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/sampling.hpp"
#include "scankit/token_sampler.hpp"
#include "device_count_support.hpp"
#include "support/gpu_test.hpp"

namespace scankit::testing {
namespace {

// ---------------------------------------------------------------------------------------------
// Draws from both tables: the first `count` draws are the same bits as a host-count call's, and
// none is written past them (the alias table also in several slices).

TEST(DeviceCounts, TableDraws) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> weight(0.0f, 1.0f);
  std::vector<float> weights(5003);
  for (auto& w : weights) w = weight(rng);
  device_buffer<float> d_weights(weights);
  sampling_table table;
  alias_table aliases;
  build_sampling_table(d_weights.data(), static_cast<std::int64_t>(weights.size()), table);
  build_alias_table(d_weights.data(), static_cast<std::int64_t>(weights.size()), aliases);
  const std::int64_t bound = 300'007;
  device_buffer<std::int32_t> want(static_cast<std::size_t>(bound)), got(static_cast<std::size_t>(bound));
  device_count_cell cell;
  for (std::int64_t count : counts_for(bound, rng)) {
    SCOPED_TRACE("count " + std::to_string(count));
    const std::int64_t c = processed(count, bound);
    for (int form = 0; form < 3; ++form) {
      got.poison();
      want.poison();
      const device_n n{cell.set(count), bound};
      if (form == 0) {
        sample(table, want.data(), c, 77, 5);
        sample(table, got.data(), n, 77, 5);
      } else {
        const int slices = form == 1 ? 1 : 3;
        device_detail::sampling::draw_alias(aliases, want.data(), c, 77, 5, slices, nullptr);
        device_detail::sampling::draw_alias(aliases, got.data(), bound, 77, 5, slices, nullptr, n.count);
      }
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<std::int32_t> expected = want.download(), drawn = got.download();
      EXPECT_TRUE(std::equal(expected.begin(), expected.begin() + c, drawn.begin())) << "form " << form;
      expect_poisoned_from(drawn, c, "draws, form " + std::to_string(form));
    }
  }
  got.poison();
  sample(aliases, got.data(), device_n{cell.set(1000), bound}, 77, 5);  // the public alias form
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  expect_poisoned_from(got.download(), 1000, "alias draws");
}

// One draw per row of the first `count` rows: the same columns as a host-count call's, rows past
// the count untouched; also rows without columns.
TEST(DeviceCounts, SampleRows) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> weight(0.0, 1.0);
  const std::int64_t bound = 37;
  for (std::int64_t cols : {std::int64_t{5000}, std::int64_t{0}}) {
    SCOPED_TRACE("cols " + std::to_string(cols));
    std::vector<double> weights(static_cast<std::size_t>(bound * std::max<std::int64_t>(cols, 1)));
    for (auto& w : weights) w = weight(rng);
    device_buffer<double> d_weights(weights);
    device_buffer<std::int32_t> want(static_cast<std::size_t>(bound)), got(static_cast<std::size_t>(bound));
    device_count_cell cell;
    for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{20}, bound, bound + 3, std::int64_t{-1}}) {
      SCOPED_TRACE("count " + std::to_string(count));
      const std::int64_t c = processed(count, bound);
      want.poison();
      got.poison();
      sample_rows(d_weights.data(), c, cols, want.data(), 99, 3);
      sample_rows(d_weights.data(), device_n{cell.set(count), bound}, cols, got.data(), 99, 3);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<std::int32_t> expected = want.download(), drawn = got.download();
      EXPECT_TRUE(std::equal(expected.begin(), expected.begin() + c, drawn.begin()));
      expect_poisoned_from(drawn, c, "sample_rows");
    }
  }
}

// Draws from segments with the weights, the segments and the draws counted on the device: the
// first `count` segments' draws equal a host-count call on those segments (empty segments,
// segments without draws and a zero-weight segment among them), draws past the count untouched.
TEST(DeviceCounts, SampleSegments) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t segments = 41;
  std::vector<std::int64_t> offsets{0}, draw_offsets{0};
  std::uniform_int_distribution<std::int64_t> size(0, 3000), draws(0, 9);
  for (std::int64_t s = 0; s < segments; ++s) {
    offsets.push_back(offsets.back() + (s % 7 == 3 ? 0 : size(rng)));
    draw_offsets.push_back(draw_offsets.back() + (s % 5 == 1 ? 0 : draws(rng)));
  }
  std::uniform_real_distribution<double> weight(0.0, 1.0);
  std::vector<double> weights(static_cast<std::size_t>(offsets.back()));
  for (auto& w : weights) w = weight(rng);
  const std::size_t zero_segment = 10;  // all its weights zero: its draws are -1
  std::fill(weights.begin() + offsets[zero_segment], weights.begin() + offsets[zero_segment + 1], 0.0);
  const std::int64_t n_bound = offsets.back(), draws_bound = draw_offsets.back();
  device_buffer<double> d_weights(weights);
  device_buffer<std::int64_t> d_offsets(offsets), d_draw_offsets(draw_offsets);
  device_buffer<std::int32_t> want(static_cast<std::size_t>(draws_bound)), got(static_cast<std::size_t>(draws_bound));
  device_count_cell n_cell, segment_cell, draw_cell;
  for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{11}, std::int64_t{30}, segments,
                             segments + 4, std::int64_t{-2}}) {
    SCOPED_TRACE("segments " + std::to_string(count));
    const std::int64_t c = processed(count, segments);
    const std::int64_t n = offsets[static_cast<std::size_t>(c)], d = draw_offsets[static_cast<std::size_t>(c)];
    want.poison();
    got.poison();
    if (d > 0) sample_segments(d_weights.data(), n, d_offsets.data(), c, d_draw_offsets.data(), d, want.data(), 5, 8);
    sample_segments(d_weights.data(), device_n{n_cell.set(n), n_bound}, d_offsets.data(),
                    device_n{segment_cell.set(count), segments}, d_draw_offsets.data(),
                    device_n{draw_cell.set(d), draws_bound}, got.data(), 5, 8);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<std::int32_t> expected = want.download(), drawn = got.download();
    EXPECT_TRUE(std::equal(expected.begin(), expected.begin() + d, drawn.begin()));
    expect_poisoned_from(drawn, d, "sample_segments");
    for (std::int64_t k = draw_offsets[zero_segment]; k < std::min(d, draw_offsets[zero_segment + 1]); ++k) {
      EXPECT_EQ(drawn[static_cast<std::size_t>(k)], -1) << "draw " << k << " of the zero-weight segment";
    }
  }
  // Draws from zero segments: -1 (a host count throws), and nothing past the draws' count.
  got.poison();
  sample_segments(d_weights.data(), device_n{n_cell.set(n_bound), n_bound}, d_offsets.data(),
                  device_n{segment_cell.set(0), segments}, d_draw_offsets.data(),
                  device_n{draw_cell.set(7), draws_bound}, got.data(), 5, 8);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<std::int32_t> none = got.download();
  EXPECT_TRUE(std::all_of(none.begin(), none.begin() + 7, [](std::int32_t v) { return v == -1; }));
  expect_poisoned_from(none, 7, "draws from zero segments");
}

// Top-k / top-p draws of the first `count` rows: the same tokens as a host-count call's, rows past
// the count untouched (the select kernel's blocks and the draw's both leave); also rows without
// columns.
TEST(DeviceCounts, SampleRowsTop) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> logit(0.0f, 3.0f);
  const std::int64_t bound = 23;
  top_sampling_options options;
  options.top_k = 40;
  options.top_p = 0.9;
  for (std::int64_t cols : {std::int64_t{7001}, std::int64_t{0}}) {
    SCOPED_TRACE("cols " + std::to_string(cols));
    std::vector<float> values(static_cast<std::size_t>(bound * std::max<std::int64_t>(cols, 1)));
    for (auto& v : values) v = logit(rng);
    device_buffer<float> d_values(values);
    device_buffer<std::int32_t> want(static_cast<std::size_t>(bound)), got(static_cast<std::size_t>(bound));
    device_count_cell cell;
    for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{9}, bound, bound + 2, std::int64_t{-3}}) {
      SCOPED_TRACE("count " + std::to_string(count));
      const std::int64_t c = processed(count, bound);
      want.poison();
      got.poison();
      sample_rows_top(d_values.data(), c, cols, want.data(), options, 41, 6);
      sample_rows_top(d_values.data(), device_n{cell.set(count), bound}, cols, got.data(), options, 41, 6);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<std::int32_t> expected = want.download(), drawn = got.download();
      EXPECT_TRUE(std::equal(expected.begin(), expected.begin() + c, drawn.begin()));
      expect_poisoned_from(drawn, c, "sample_rows_top");
    }
  }
}

// The token sampler with the output rows counted on the device: one block per row (many rows) and
// a cluster of blocks per row (a few long rows, sm_90 on), with log-probabilities and kept
// probabilities; every output of the first `count` rows equals a host-count call's and nothing past
// them is written.
template <class T>
void check_sample_tokens(std::int64_t bound, std::int64_t vocab, std::mt19937_64& rng) {
  SCOPED_TRACE("bound " + std::to_string(bound) + ", vocab " + std::to_string(vocab));
  std::normal_distribution<float> logit(0.0f, 3.0f);
  std::vector<T> values(static_cast<std::size_t>(bound * vocab));
  for (auto& v : values) v = static_cast<T>(logit(rng));
  device_buffer<T> d_values(values);
  std::vector<float> top_ps(static_cast<std::size_t>(bound));
  for (std::size_t r = 0; r < top_ps.size(); ++r) top_ps[r] = r % 3 == 0 ? 1.0f : 0.5f + 0.1f * float(r % 5);
  device_buffer<float> d_top_ps(top_ps);
  token_sampling_params params;
  params.top_k = 64;
  params.top_ps = d_top_ps.data();
  params.seed = 2024;
  params.offset = 9;
  const auto rows = static_cast<std::size_t>(bound);
  device_buffer<std::int32_t> want(rows), got(rows);
  device_buffer<float> want_logprobs(rows), got_logprobs(rows);
  device_buffer<float> want_kept(rows * static_cast<std::size_t>(vocab)), got_kept(rows * static_cast<std::size_t>(vocab));
  device_count_cell cell;
  for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, bound / 2, bound, bound + 5, std::int64_t{-1}}) {
    SCOPED_TRACE("count " + std::to_string(count));
    const std::int64_t c = processed(count, bound);
    for (auto* b : {&want_logprobs, &got_logprobs, &want_kept, &got_kept}) b->poison();
    want.poison();
    got.poison();
    sample_tokens(d_values.data(), bound, vocab, c, params,
                  token_sampling_outputs{want.data(), want_logprobs.data(), want_kept.data()});
    sample_tokens(d_values.data(), bound, vocab, device_n{cell.set(count), bound}, params,
                  token_sampling_outputs{got.data(), got_logprobs.data(), got_kept.data()});
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<std::int32_t> expected = want.download(), drawn = got.download();
    EXPECT_TRUE(std::equal(expected.begin(), expected.begin() + c, drawn.begin()));
    for (std::int64_t r = 0; r < c; ++r) EXPECT_GE(drawn[static_cast<std::size_t>(r)], 0) << "row " << r;
    expect_poisoned_from(drawn, c, "tokens");
    const std::vector<float> lp_want = want_logprobs.download(), lp_got = got_logprobs.download();
    EXPECT_EQ(0, std::memcmp(lp_want.data(), lp_got.data(), sizeof(float) * static_cast<std::size_t>(c)));
    expect_poisoned_from(lp_got, c, "logprobs");
    const std::vector<float> kept_want = want_kept.download(), kept_got = got_kept.download();
    EXPECT_EQ(0, std::memcmp(kept_want.data(), kept_got.data(), sizeof(float) * static_cast<std::size_t>(c * vocab)));
    expect_poisoned_from(kept_got, c * vocab, "kept_probs");
  }
}

TEST(DeviceCounts, SampleTokens) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  check_sample_tokens<float>(29, 3000, rng);      // one block per row
  check_sample_tokens<float>(3, 70'000, rng);     // clusters of 8 blocks per row (sm_90 on)
  check_sample_tokens<__nv_bfloat16>(11, 5000, rng);
}

TEST(DeviceCounts, SamplingBadArgumentsAreRefused) {
  std::int64_t* cell = reinterpret_cast<std::int64_t*>(std::uintptr_t{0x1000});  // never dereferenced
  auto* out = reinterpret_cast<std::int32_t*>(std::uintptr_t{0x40000000});
  const auto* weights = reinterpret_cast<const double*>(std::uintptr_t{0x10000});
  const auto* segment_offsets = reinterpret_cast<const std::int64_t*>(std::uintptr_t{0x20000000});
  for (int null_count = 0; null_count < 3; ++null_count) {  // each of the three counts null
    const device_n good{cell, 10}, bad{nullptr, 10};
    EXPECT_THROW(sample_segments(weights, null_count == 0 ? bad : good, segment_offsets, null_count == 1 ? bad : good,
                                 segment_offsets, null_count == 2 ? bad : good, out, 1),
                 error)
        << "null count " << null_count;
  }
  EXPECT_THROW(sample_segments(weights, device_n{cell, 10}, segment_offsets, device_n{cell, -1}, segment_offsets,
                               device_n{cell, 10}, out, 1),
               error);
  const auto* values = reinterpret_cast<const float*>(std::uintptr_t{0x10000});
  EXPECT_THROW(sample_rows(values, device_n{nullptr, 10}, 100, out, 1), error);
  EXPECT_THROW(sample_rows_top(values, device_n{nullptr, 10}, 100, out, top_sampling_options{}, 1), error);
  EXPECT_THROW(sample_rows_top(values, device_n{cell, -2}, 100, out, top_sampling_options{}, 1), error);
  token_sampling_params params;
  EXPECT_THROW(sample_tokens(values, 10, 100, device_n{nullptr, 10}, params, token_sampling_outputs{out}), error);
  EXPECT_THROW(sample_tokens(values, 10, 100, device_n{cell, -1}, params, token_sampling_outputs{out}), error);
  // Without row indices the input must hold the bound's rows.
  EXPECT_THROW(sample_tokens(values, 10, 100, device_n{cell, 11}, params, token_sampling_outputs{out}), error);
}

}  // namespace
}  // namespace scankit::testing
