// GPU tests of the token sampler (scankit/token_sampler.hpp) against the host reference
// (scankit/reference/token_sampler_reference.hpp): every drawn token lies in the reference's loose
// kept set, and where the kept set is known exactly the token is the host's own draw (the race
// between chunks of 32 tokens and the inverse CDF inside the winner, replayed in float with the
// same Philox words; rows
// whose draw is within rounding skipped, or only their chunk checked); greedy rows, bad rows,
// logprobs and kept_probs; the kept distribution by chi-square (fixed seeds); the same token
// whatever the batch, position, call or parameter source; seeds and offsets in device memory, and a
// captured graph that advances its offsets. Outputs are poisoned before every call and followed by
// a guard region.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "sampling_test_util.hpp"
#include "scankit/error.hpp"
#include "scankit/reference/token_sampler_reference.hpp"
#include "scankit/token_sampler.hpp"
#include "support/gpu_test.hpp"
#include "support/graph_replay.hpp"

namespace {

using scankit::testing::device_buffer;
namespace ref = scankit::reference::tokens;

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan_value = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------------------------------------
// Values of the three types, converted on the host; the reference reads them widened back.

template <class T>
T from_float(float x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(x);
  } else {
    return x;
  }
}

template <class T>
float to_float(T x) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return x;
  }
}

// Rows of values as the device reads them (raw) and as the reference reads them (value).
template <class T>
struct token_rows {
  std::int64_t rows = 0, vocab = 0;
  std::vector<T> raw;
  std::vector<float> value;

  const float* row(std::int64_t r) const { return value.data() + r * vocab; }
  void set(std::int64_t r, std::int64_t j, float x) {
    raw[static_cast<std::size_t>(r * vocab + j)] = from_float<T>(x);
    value[static_cast<std::size_t>(r * vocab + j)] = to_float(raw[static_cast<std::size_t>(r * vocab + j)]);
  }
};

template <class T>
token_rows<T> make_rows(const std::vector<float>& x, std::int64_t rows, std::int64_t vocab) {
  token_rows<T> t;
  t.rows = rows;
  t.vocab = vocab;
  t.raw.resize(x.size());
  t.value.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    t.raw[i] = from_float<T>(x[i]);
    t.value[i] = to_float(t.raw[i]);
  }
  return t;
}

std::vector<float> random_logits(std::int64_t rows, std::int64_t vocab, std::uint64_t seed, float sigma,
                                 float mean = 0.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(mean, sigma);
  std::vector<float> x(static_cast<std::size_t>(rows * vocab));
  for (auto& v : x) v = d(rng);
  return x;
}

// Each row's softmax (double), as float probabilities.
std::vector<float> softmax_rows(const std::vector<float>& logits, std::int64_t rows, std::int64_t vocab) {
  std::vector<float> p(logits.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* x = logits.data() + r * vocab;
    const double top = *std::max_element(x, x + vocab);
    double z = 0.0;
    for (std::int64_t j = 0; j < vocab; ++j) z += std::exp(double(x[j]) - top);
    for (std::int64_t j = 0; j < vocab; ++j) p[r * vocab + j] = static_cast<float>(std::exp(double(x[j]) - top) / z);
  }
  return p;
}

template <class T>
std::vector<std::vector<std::int32_t>> value_orders(const token_rows<T>& in) {
  std::vector<std::vector<std::int32_t>> orders;
  for (std::int64_t r = 0; r < in.rows; ++r) orders.push_back(ref::value_order(in.row(r), in.vocab));
  return orders;
}

// ---------------------------------------------------------------------------------------------
// One call: poisoned outputs with guard regions, checked after the call.

enum class extras { none, logprobs, both };

struct sampler_outputs {
  std::vector<std::int32_t> tokens;
  std::vector<float> logprobs;  // empty unless requested
  std::vector<float> kept;      // empty unless requested
};

constexpr std::int64_t guard = 64;

template <class U>
void expect_guard_intact(const std::vector<U>& host, std::size_t used, const char* what) {
  static_assert(sizeof(U) == 4);
  for (std::size_t g = used; g < host.size(); ++g) {
    std::uint32_t bits;
    std::memcpy(&bits, &host[g], 4);
    if (bits != 0xA5A5A5A5u) {
      ADD_FAILURE() << what << ": written past the outputs at " << g - used << " after the end";
      return;
    }
  }
}

// Output buffers of one batch (tokens, logprobs, kept_probs), each followed by a guard region.
struct output_buffers {
  std::int64_t rows, vocab;
  device_buffer<std::int32_t> tokens;
  device_buffer<float> logprobs, kept;

  output_buffers(std::int64_t output_rows, std::int64_t vocab_size, extras want)
      : rows(output_rows),
        vocab(vocab_size),
        tokens(static_cast<std::size_t>(output_rows + guard)),
        logprobs(want == extras::none ? 0 : static_cast<std::size_t>(output_rows + guard)),
        kept(want == extras::both ? static_cast<std::size_t>(output_rows * vocab_size + guard) : 0) {}

  scankit::token_sampling_outputs outputs() {
    scankit::token_sampling_outputs o;
    o.tokens = tokens.data();
    o.logprobs = logprobs.size() > 0 ? logprobs.data() : nullptr;
    o.kept_probs = kept.size() > 0 ? kept.data() : nullptr;
    return o;
  }
  void poison() {
    tokens.poison();
    logprobs.poison();
    kept.poison();
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  sampler_outputs download() const {
    sampler_outputs out;
    out.tokens = tokens.download();
    expect_guard_intact(out.tokens, static_cast<std::size_t>(rows), "tokens");
    out.tokens.resize(static_cast<std::size_t>(rows));
    if (logprobs.size() > 0) {
      out.logprobs = logprobs.download();
      expect_guard_intact(out.logprobs, static_cast<std::size_t>(rows), "logprobs");
      out.logprobs.resize(static_cast<std::size_t>(rows));
    }
    if (kept.size() > 0) {
      out.kept = kept.download();
      expect_guard_intact(out.kept, static_cast<std::size_t>(rows * vocab), "kept_probs");
      out.kept.resize(static_cast<std::size_t>(rows * vocab));
    }
    return out;
  }
};

template <class T>
sampler_outputs run_sampler(const device_buffer<T>& values, std::int64_t input_rows, std::int64_t vocab,
                            std::int64_t output_rows, const scankit::token_sampling_params& params, extras want) {
  output_buffers out(output_rows, vocab, want);
  out.poison();
  scankit::sample_tokens(values.data(), input_rows, vocab, output_rows, params, out.outputs());
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  return out.download();
}

ref::row_params rule_of(const scankit::token_sampling_params& p) {
  ref::row_params r;
  r.probabilities = p.values == scankit::token_values::probabilities;
  r.temperature = p.temperature;
  r.top_k = p.top_k;
  r.top_p = p.top_p;
  r.min_p = p.min_p;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Checking a batch: what each output row drew from, and with what.

struct row_case {
  std::int64_t input_row;
  ref::row_params rule;
  std::uint64_t seed, offset;
};

struct check_tally {
  std::int64_t rows = 0, predicted = 0;
  bool failed = false;
  check_tally& operator+=(const check_tally& o) {
    rows += o.rows, predicted += o.predicted, failed = failed || o.failed;
    return *this;
  }
};

bool same_rule(const ref::row_params& a, const ref::row_params& b) {
  return a.probabilities == b.probabilities && std::memcmp(&a.temperature, &b.temperature, sizeof(float)) == 0 &&
         a.top_k == b.top_k && std::memcmp(&a.top_p, &b.top_p, sizeof(float)) == 0 &&
         std::memcmp(&a.min_p, &b.min_p, sizeof(float)) == 0;
}

// Checks every output row; reports the first failing one and stops.
template <class T>
check_tally check_rows(const token_rows<T>& in, const sampler_outputs& out, const std::vector<row_case>& cases,
                       const std::string& what, const std::vector<std::vector<std::int32_t>>* orders = nullptr) {
  check_tally tally;
  // The reference of each input row, computed once for the output rows that draw from it.
  std::map<std::int64_t, std::pair<ref::row_params, ref::row_reference>> references;
  for (std::size_t r = 0; r < cases.size(); ++r) {
    const row_case& c = cases[r];
    const float* lp = out.logprobs.empty() ? nullptr : &out.logprobs[r];
    const float* kp = out.kept.empty() ? nullptr : &out.kept[r * static_cast<std::size_t>(in.vocab)];
    ref::row_check rc;
    if (c.input_row < 0 || c.input_row >= in.rows) {
      // A row index outside the input: a bad row (a NaN temperature takes the reference there).
      ref::row_params bad = c.rule;
      bad.temperature = nan_value;
      rc = ref::check_row(in.value.data(), in.vocab, bad, c.seed, c.offset, out.tokens[r], lp, kp);
    } else {
      auto found = references.find(c.input_row);
      if (found == references.end() || !same_rule(found->second.first, c.rule)) {
        found = references
                    .insert_or_assign(
                        c.input_row,
                        std::make_pair(c.rule, ref::reference_row(
                                                   in.row(c.input_row), in.vocab, c.rule,
                                                   orders != nullptr ? &(*orders)[static_cast<std::size_t>(c.input_row)]
                                                                     : nullptr)))
                    .first;
      }
      rc = ref::check_row(in.row(c.input_row), in.vocab, found->second.second, c.seed, c.offset, out.tokens[r], lp, kp);
    }
    ++tally.rows;
    tally.predicted += rc.predicted ? 1 : 0;
    if (!rc.error.empty()) {
      ADD_FAILURE() << what << ": output row " << r << " (input row " << c.input_row << ", vocab " << in.vocab << ", "
                    << ref::describe(c.rule) << ", seed " << c.seed << ", offset " << c.offset << "): " << rc.error;
      tally.failed = true;
      return tally;
    }
  }
  return tally;
}

// Cases for output row r reading input row r (or rows[r]) with one rule and per-row or common
// seeds and offsets.
std::vector<row_case> cases_for(std::int64_t output_rows, const ref::row_params& rule,
                                const std::vector<std::uint64_t>& seeds, const std::vector<std::uint64_t>& offsets,
                                const std::vector<std::int32_t>* rows = nullptr) {
  std::vector<row_case> cases;
  for (std::int64_t r = 0; r < output_rows; ++r) {
    row_case c;
    c.input_row = rows != nullptr ? (*rows)[static_cast<std::size_t>(r)] : r;
    c.rule = rule;
    c.seed = seeds.size() == 1 ? seeds[0] : seeds[static_cast<std::size_t>(r)];
    c.offset = offsets.size() == 1 ? offsets[0] : offsets[static_cast<std::size_t>(r)];
    cases.push_back(c);
  }
  return cases;
}

std::vector<std::uint64_t> random_u64(std::size_t n, std::mt19937_64& rng, int shift = 0) {
  std::vector<std::uint64_t> v(n);
  for (auto& x : v) x = rng() >> shift;
  return v;
}

// ---------------------------------------------------------------------------------------------
// The reference itself, on rows worked by hand (no GPU needed).

TEST(TokenSampler, ReferenceOnHandWorkedRows) {
  // Weights e^0, e^-1, e^-2, e^-1, 0: total 1.8711.
  const float v[] = {2.0f, 1.0f, 0.0f, 1.0f, -inf};
  ref::row_params p;
  auto threshold = [&](const ref::row_params& q) {
    const ref::row_reference r = ref::reference_row(v, 5, q);
    EXPECT_FALSE(r.bad);
    EXPECT_TRUE(r.exact()) << ref::describe(q);
    return r.threshold_strict;
  };
  EXPECT_EQ(threshold(p), -inf);
  p.top_k = 2;  // the second largest value is 1: tokens 1 and 3 tie, both kept
  EXPECT_EQ(threshold(p), 1.0f);
  p.top_k = 0, p.top_p = 0.5f;  // 0.5 of 1.8711 = 0.936: the top token reaches it
  EXPECT_EQ(threshold(p), 2.0f);
  p.top_p = 0.6f;  // 1.12: the group of value 1 crosses it
  EXPECT_EQ(threshold(p), 1.0f);
  p.top_k = 2, p.top_p = 0.7f;  // of the top-k set (1.7358): 1.215, crossed by the ties at 1
  EXPECT_EQ(threshold(p), 1.0f);
  p.top_k = 2, p.top_p = 0.3f;
  EXPECT_EQ(threshold(p), 2.0f);
  p = {};
  p.min_p = 0.3f;  // e^-1 = 0.368 passes
  EXPECT_EQ(threshold(p), 1.0f);
  p.min_p = 0.4f;
  EXPECT_EQ(threshold(p), 2.0f);
  p.min_p = 1.0f;  // only the largest
  EXPECT_EQ(threshold(p), 2.0f);
  // Probabilities 0.5, 0.25, 0.25, 0 with top-p 0.5: the top token reaches exactly 0.5, so the
  // device may keep it alone or with the tied pair: strict and loose differ.
  const float q[] = {0.5f, 0.25f, 0.25f, 0.0f};
  p = {};
  p.probabilities = true, p.top_p = 0.5f;
  const ref::row_reference r = ref::reference_row(q, 4, p);
  EXPECT_EQ(r.threshold_strict, 0.5f);
  EXPECT_EQ(r.threshold_loose, 0.25f);
  EXPECT_NEAR(r.mass_loose, 2.0, 1e-6);
  // Greedy: ties to the lowest index; bad rows.
  const float flat[] = {1.0f, 3.0f, 3.0f, 3.0f};
  p = {};
  p.temperature = 0.0f;
  EXPECT_EQ(ref::reference_row(flat, 4, p).greedy_token, 1);
  const float with_nan[] = {1.0f, nan_value};
  EXPECT_TRUE(ref::reference_row(with_nan, 2, p).bad);
  const float masked[] = {-inf, -inf};
  EXPECT_TRUE(ref::reference_row(masked, 2, ref::row_params{}).bad);
  const float negative[] = {0.5f, -0.5f};
  p = {};
  p.probabilities = true;
  EXPECT_TRUE(ref::reference_row(negative, 2, p).bad);
  // The draw's words are Philox's: chunk 5 reads counter (5, offset) under key seed.
  EXPECT_EQ(ref::chunk_words(7, 9, 5).x[0], scankit::detail::philox4x32_10(5, 9, 7).x[0]);
  EXPECT_EQ(ref::chunk_words(7, 9, 5).x[1], scankit::detail::philox4x32_10(5, 9, 7).x[1]);
  EXPECT_EQ(ref::chunk_race_score(0.0f, 0), inf);
  // E = -log1pf(-u) below u = 1/2, -logf(1 - u) from 1/2: u = 1/2 gives E = log 2 either way.
  EXPECT_NEAR(ref::chunk_race_score(0.0f, 0x80000000u), -std::log(std::log(2.0)), 1e-6);
  EXPECT_NEAR(ref::chunk_race_score(0.0f, 0x7fffffffu), -std::log(std::log(2.0)), 1e-6);
  // One chunk of the first row: lane 0 adds e^0, e^-1, e^-2, e^-1 in that order; the -inf token
  // is not kept; no other lane holds a token.
  p = {};
  const ref::row_reference plain = ref::reference_row(v, 5, p);
  const ref::chunk_weights c = ref::chunk_of(v, 5, plain, -inf, 0);
  EXPECT_EQ(c.count, 4);
  EXPECT_EQ(c.m, 2.0f);
  EXPECT_FALSE(c.kept[4]);
  EXPECT_EQ(c.w, ((1.0f + std::exp(-1.0f)) + std::exp(-2.0f)) + std::exp(-1.0f));
  EXPECT_FALSE(ref::chunk_of(v, 5, plain, -inf, 1).races());
}

// The replayed draw itself follows the kept distribution: many seeds on one row of 4 chunks (the
// last partial, one chunk with nothing kept), against w_j / sum_K w by chi-square (fixed seeds).
TEST(TokenSampler, ReferenceDrawFollowsTheKeptDistribution) {
  const std::int64_t vocab = 100, draws = 40000;
  std::vector<float> v = random_logits(1, vocab, 11, 1.0f);
  for (std::int64_t j = 32; j < 64; ++j) v[j] = -inf;  // chunk 1: nothing kept
  v[97] = -inf;                                        // chunk 3 keeps 3 of its 4 tokens
  ref::row_params p;
  p.top_k = 40;
  const ref::row_reference r = ref::reference_row(v.data(), vocab, p);
  ASSERT_TRUE(r.exact());
  std::vector<std::int64_t> counts(static_cast<std::size_t>(vocab), 0);
  std::int64_t decisive = 0;
  for (std::int64_t i = 0; i < draws; ++i) {
    const ref::draw_result d = ref::draw(v.data(), vocab, r, r.threshold_strict, 1000 + i, 77);
    ASSERT_GE(d.token, 0);
    ASSERT_GE(v[d.token], r.threshold_strict) << "draw " << i;
    ASSERT_NE(d.chunk, 1);
    ASSERT_EQ(d.token / ref::chunk_tokens, d.chunk);
    ++counts[static_cast<std::size_t>(d.token)];
    decisive += d.decisive() ? 1 : 0;
  }
  double chi2 = 0.0;
  int kept = 0;
  for (std::int64_t j = 0; j < vocab; ++j) {
    if (!(v[j] >= r.threshold_strict) || !(r.weight[j] > 0.0)) {
      EXPECT_EQ(counts[j], 0) << "token " << j;
      continue;
    }
    ++kept;
    const double e = r.weight[j] / r.mass_strict * double(draws);
    chi2 += (double(counts[j]) - e) * (double(counts[j]) - e) / e;
  }
  EXPECT_LT(chi2, scankit::testing::chi_square_critical(double(kept - 1), scankit::testing::z_one_in_a_million))
      << kept << " tokens kept";
  EXPECT_GE(decisive * 100, draws * 99) << decisive << " of " << draws << " draws decisive";
}

// ---------------------------------------------------------------------------------------------
// Greedy rows.

template <class T>
void check_greedy(std::uint64_t seed) {
  for (std::int64_t vocab : {1, 3, 4097, 32000}) {
    const std::int64_t rows = 16;
    // bf16 and half round many logits together: ties at the top are common.
    token_rows<T> in = make_rows<T>(random_logits(rows, vocab, seed + vocab, 3.0f), rows, vocab);
    if (vocab > 3) {
      // Row 1: the largest value at 7 and again at 3 (lowest wins); row 2: a flat row.
      in.set(1, 3, 20.0f);
      in.set(1, 7, 20.0f);
      for (std::int64_t j = 0; j < vocab; ++j) in.set(2, j, 0.25f);
    }
    device_buffer<T> d_values(in.raw);
    for (int variant = 0; variant < 4; ++variant) {
      scankit::token_sampling_params params;
      if (variant == 0) params.temperature = 0.0f;
      if (variant == 1) params.top_k = 1;
      if (variant == 2) params.temperature = 0.0f, params.top_k = 50, params.top_p = 0.5f, params.min_p = 0.5f;
      if (variant == 3) params.top_k = 1, params.temperature = 2.0f, params.top_p = 0.1f;
      params.seed = seed + variant;
      const sampler_outputs out = run_sampler(d_values, rows, vocab, rows, params, extras::both);
      const check_tally t = check_rows(in, out, cases_for(rows, rule_of(params), {params.seed}, {params.offset}),
                                       "greedy variant " + std::to_string(variant));
      if (t.failed) return;
      if (vocab > 3) {
        EXPECT_EQ(out.tokens[1], 3);
        EXPECT_EQ(out.tokens[2], 0);
      }
    }
  }
}

TEST(TokenSampler, GreedyIsTheLowestIndexArgmax) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_greedy<float>(seed);
  check_greedy<__half>(seed);
  check_greedy<__nv_bfloat16>(seed);
}

// ---------------------------------------------------------------------------------------------
// Kept sets on random rows of awkward sizes, every type, logits and probabilities.

constexpr std::int32_t k_vocab_minus_1 = -1, k_vocab = -2;  // markers in the settings below

struct filter_setting {
  float t;
  std::int32_t k;
  float p;
  float min_p;
};

constexpr filter_setting kept_set_settings[] = {
    {1.0f, 0, 1.0f, 0.0f},       {0.5f, 0, 1.0f, 0.0f},     {2.0f, 0, 1.0f, 0.0f},
    {0.0f, 50, 0.9f, 0.05f},     {1.0f, 1, 1.0f, 0.0f},     {1.0f, 2, 1.0f, 0.0f},
    {1.0f, 50, 0.9f, 0.0f},      {0.5f, 1000, 0.9f, 0.05f}, {1.0f, k_vocab_minus_1, 1.0f, 0.0f},
    {2.0f, k_vocab, 0.1f, 0.0f}, {1.0f, 0, 0.1f, 0.0f},     {1.0f, 0, 0.9f, 0.05f},
    {0.5f, 0, 1.0f, 0.5f},       {2.0f, 50, 1.0f, 0.05f},   {1.0f, k_vocab_minus_1, 0.9f, 0.5f}};

// A setting's parameters for output rows that read input rows `rows`, each with its own seed.
scankit::token_sampling_params gathered_params(const filter_setting& s, bool probabilities, const std::int32_t* rows,
                                               const std::uint64_t* seeds, std::uint64_t offset) {
  scankit::token_sampling_params params;
  params.values = probabilities ? scankit::token_values::probabilities : scankit::token_values::logits;
  params.temperature = s.t, params.top_k = s.k, params.top_p = s.p, params.min_p = s.min_p;
  params.row_indices = rows;
  params.seeds = seeds;
  params.offset = offset;
  return params;
}

template <class T>
void check_kept_sets(bool probabilities, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  check_tally total;
  int call = 0;
  for (std::int64_t vocab : {1, 2, 3, 5, 31, 1000, 4097, 32000, 131072 + 3}) {
    const std::int64_t rows = std::clamp<std::int64_t>(32768 / vocab, 2, 32);
    const std::vector<float> logits = random_logits(rows, vocab, seed + vocab, 2.5f);
    const token_rows<T> in = make_rows<T>(probabilities ? softmax_rows(logits, rows, vocab) : logits, rows, vocab);
    const auto orders = value_orders(in);
    device_buffer<T> d_values(in.raw);
    for (const filter_setting& s : kept_set_settings) {
      ++call;
      scankit::token_sampling_params params;
      params.values = probabilities ? scankit::token_values::probabilities : scankit::token_values::logits;
      params.temperature = s.t;
      params.top_k = s.k == k_vocab_minus_1 ? static_cast<std::int32_t>(vocab - 1)
                     : s.k == k_vocab       ? static_cast<std::int32_t>(vocab)
                                            : s.k;
      params.top_p = s.p;
      params.min_p = s.min_p;
      // Odd calls: a seed and an offset per row in device memory; even calls: the scalars.
      const bool per_row = call % 2 == 1;
      const std::vector<std::uint64_t> seeds = random_u64(per_row ? static_cast<std::size_t>(rows) : 1, rng);
      const std::vector<std::uint64_t> offsets = random_u64(per_row ? static_cast<std::size_t>(rows) : 1, rng, 16);
      device_buffer<std::uint64_t> d_seeds(per_row ? seeds : std::vector<std::uint64_t>{});
      device_buffer<std::uint64_t> d_offsets(per_row ? offsets : std::vector<std::uint64_t>{});
      if (per_row) {
        params.seeds = d_seeds.data();
        params.offsets = d_offsets.data();
      } else {
        params.seed = seeds[0];
        params.offset = offsets[0];
      }
      const extras want = call % 3 == 0 ? extras::none : call % 3 == 1 ? extras::logprobs : extras::both;
      const sampler_outputs out = run_sampler(d_values, rows, vocab, rows, params, want);
      total += check_rows(in, out, cases_for(rows, rule_of(params), seeds, offsets), "kept set", &orders);
      if (total.failed) return;
    }
  }
  // Most rows' kept sets are known exactly, so most tokens were predicted, not only bounded.
  EXPECT_GE(total.predicted * 4, total.rows * 3) << total.predicted << " of " << total.rows << " rows predicted";
}

template <class T>
class TokenSamplerTyped : public ::testing::Test {};
using ValueTypes = ::testing::Types<float, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(TokenSamplerTyped, ValueTypes);

TYPED_TEST(TokenSamplerTyped, KeptSetOfLogits) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_kept_sets<TypeParam>(false, seed);
}

TYPED_TEST(TokenSamplerTyped, KeptSetOfProbabilities) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_kept_sets<TypeParam>(true, seed);
}

// Logits as large as a model's (about 25 +- 4, so the largest sit in the float bins [32, 40) and
// [40, 48)) at temperatures below 1, as serving uses them: a token's weight relative to the top of
// its bin, exp((v - top) / T), is smallest there (e^-28 at the bottom of [40, 48) for T = 0.25), so
// this is where weights counted in units of 2^-32 of a bin's top have the fewest significant bits.
TEST(TokenSampler, LargeLogitsAtLowTemperature) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const filter_setting settings[] = {{0.5f, 50, 0.9f, 0.0f}, {0.5f, 0, 0.5f, 0.0f},  {0.7f, 0, 0.9f, 0.1f},
                                     {0.5f, 0, 1.0f, 0.05f}, {1.0f, 0, 0.95f, 0.0f}, {0.25f, 0, 0.9f, 0.0f},
                                     {0.3f, 40, 0.95f, 0.0f}};
  for (std::int64_t vocab : {4097, 32000}) {
    const std::int64_t rows = 16;
    const token_rows<float> in = make_rows<float>(random_logits(rows, vocab, seed + vocab, 4.0f, 25.0f), rows, vocab);
    const auto orders = value_orders(in);
    device_buffer<float> d_values(in.raw);
    for (const filter_setting& s : settings) {
      scankit::token_sampling_params params;
      params.temperature = s.t, params.top_k = s.k, params.top_p = s.p, params.min_p = s.min_p;
      params.seed = rng(), params.offset = rng() >> 20;
      const sampler_outputs out = run_sampler(d_values, rows, vocab, rows, params, extras::both);
      if (check_rows(in, out, cases_for(rows, rule_of(params), {params.seed}, {params.offset}), "large logits", &orders)
              .failed)
        return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The draw itself: plain sampling is the host's chunk race and inverse CDF, token for token.

TEST(TokenSampler, PlainSamplingReproducesTheChunkRace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  check_tally total;
  // 131073 tokens in 2 rows take a cluster of 8 blocks per row, each with its slice of the chunks.
  for (std::int64_t vocab : {1, 2, 3, 5, 31, 1000, 4097, 131073}) {
    const std::int64_t rows = vocab > 10000 ? 2 : vocab > 1000 ? 64 : 256;
    const std::vector<float> logits = random_logits(rows, vocab, seed + vocab, 2.0f);
    const token_rows<float> in_logits = make_rows<float>(logits, rows, vocab);
    const token_rows<float> in_probs = make_rows<float>(softmax_rows(logits, rows, vocab), rows, vocab);
    const token_rows<__nv_bfloat16> in_bf16 = make_rows<__nv_bfloat16>(logits, rows, vocab);
    device_buffer<float> d_logits(in_logits.raw), d_probs(in_probs.raw);
    device_buffer<__nv_bfloat16> d_bf16(in_bf16.raw);
    const std::vector<std::uint64_t> seeds = random_u64(static_cast<std::size_t>(rows), rng);
    const std::vector<std::uint64_t> offsets = random_u64(static_cast<std::size_t>(rows), rng, 8);
    device_buffer<std::uint64_t> d_seeds(seeds), d_offsets(offsets);
    scankit::token_sampling_params params;
    params.seeds = d_seeds.data();
    params.offsets = d_offsets.data();
    for (float t : {1.0f, 0.5f, 2.0f}) {
      params.temperature = t;
      params.values = scankit::token_values::logits;
      total += check_rows(in_logits, run_sampler(d_logits, rows, vocab, rows, params, extras::none),
                          cases_for(rows, rule_of(params), seeds, offsets), "float logits");
      params.values = scankit::token_values::probabilities;
      total += check_rows(in_probs, run_sampler(d_probs, rows, vocab, rows, params, extras::none),
                          cases_for(rows, rule_of(params), seeds, offsets), "float probabilities");
      if (total.failed) return;
    }
    params.temperature = 1.0f;
    params.values = scankit::token_values::logits;
    total += check_rows(in_bf16, run_sampler(d_bf16, rows, vocab, rows, params, extras::logprobs),
                        cases_for(rows, rule_of(params), seeds, offsets), "bf16 logits");
    if (total.failed) return;
  }
  // Only rows whose two best chunk scores, or whose inverse-CDF target and a running sum, are within
  // rounding go unpredicted.
  EXPECT_GE(total.predicted * 100, total.rows * 98) << total.predicted << " of " << total.rows << " rows predicted";
}

// The histogram of many draws from one row (the same row for every output row, a different seed
// each) against the renormalised kept distribution. Fixed inputs and seeds; each kept set is
// checked to be far from its boundaries; false-failure rate about 1e-6 per case.
TEST(TokenSampler, ChiSquareOfTheKeptDistribution) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t vocab = 16, draws = 32768;
  const std::vector<float> logits = {1.0f, 3.0f, -0.5f, 2.2f, 0.3f, 2.5f,  -2.0f, 1.7f,
                                     0.0f, 2.0f, -1.0f, 1.2f, 0.8f, -3.0f, 1.5f,  0.5f};
  const token_rows<float> in_logits = make_rows<float>(logits, 1, vocab);
  const token_rows<float> in_probs = make_rows<float>(softmax_rows(logits, 1, vocab), 1, vocab);
  device_buffer<float> d_logits(in_logits.raw), d_probs(in_probs.raw);
  std::vector<std::uint64_t> seeds(static_cast<std::size_t>(draws));
  std::iota(seeds.begin(), seeds.end(), std::uint64_t{0});
  device_buffer<std::uint64_t> d_seeds(seeds);
  device_buffer<std::int32_t> d_rows(std::vector<std::int32_t>(static_cast<std::size_t>(draws), 0));
  struct config {
    const char* name;
    bool probabilities;
    float t;
    std::int32_t k;
    float p, min_p;
  };
  const config configs[] = {{"plain", false, 1.0f, 0, 1.0f, 0.0f},
                            {"top-k 8, top-p 0.8", false, 1.0f, 8, 0.8f, 0.0f},
                            {"min-p 0.05 at T 0.7", false, 0.7f, 0, 1.0f, 0.05f},
                            {"probabilities at T 2, top-k 10, top-p 0.9", true, 2.0f, 10, 0.9f, 0.0f},
                            // Top-p at T = 1 from probabilities proposes tokens first (token_sampler.hpp):
                            // many first proposals miss K here, and min-p binds in the second. Logits
                            // draw from K directly.
                            {"probabilities, top-p 0.5", true, 1.0f, 0, 0.5f, 0.0f},
                            {"probabilities, top-p 0.95, min-p 0.1", true, 1.0f, 0, 0.95f, 0.1f},
                            {"logits, top-p 0.5", false, 1.0f, 0, 0.5f, 0.0f},
                            {"logits at T 0.8, top-p 0.95, min-p 0.1", false, 0.8f, 0, 0.95f, 0.1f}};
  for (const config& c : configs) {
    SCOPED_TRACE(c.name);
    scankit::token_sampling_params params;
    params.values = c.probabilities ? scankit::token_values::probabilities : scankit::token_values::logits;
    params.temperature = c.t, params.top_k = c.k, params.top_p = c.p, params.min_p = c.min_p;
    params.row_indices = d_rows.data();
    params.seeds = d_seeds.data();
    params.offset = 12345;
    const token_rows<float>& in = c.probabilities ? in_probs : in_logits;
    const ref::row_params rule = rule_of(params);
    const ref::row_reference r = ref::reference_row(in.row(0), vocab, rule);
    ASSERT_TRUE(r.exact());
    // Far from the boundaries: moving top-p or min-p by 0.1% keeps the same set.
    for (double f : {0.999, 1.001}) {
      ref::row_params moved = rule;
      moved.top_p = rule.top_p < 1.0f ? static_cast<float>(rule.top_p * f) : 1.0f;
      moved.min_p = static_cast<float>(rule.min_p * f);
      ASSERT_EQ(ref::reference_row(in.row(0), vocab, moved).threshold_strict, r.threshold_strict);
    }
    const sampler_outputs out =
        run_sampler(c.probabilities ? d_probs : d_logits, 1, vocab, draws, params, extras::none);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(vocab), 0);
    for (std::int32_t t : out.tokens) {
      ASSERT_GE(t, 0);
      ASSERT_LT(t, vocab);
      ++counts[static_cast<std::size_t>(t)];
    }
    double chi2 = 0.0;
    int kept = 0;
    for (std::int64_t j = 0; j < vocab; ++j) {
      if (!(in.row(0)[j] >= r.threshold_strict)) {
        EXPECT_EQ(counts[j], 0) << "token " << j << " is filtered out";
        continue;
      }
      ++kept;
      const double e = r.weight[j] / r.mass_strict * double(draws);
      chi2 += (double(counts[j]) - e) * (double(counts[j]) - e) / e;
    }
    ASSERT_GE(kept, 3);
    EXPECT_LT(chi2, scankit::testing::chi_square_critical(double(kept - 1), scankit::testing::z_one_in_a_million))
        << kept << " tokens kept";
  }
}

// Top-p rows of probabilities at T = 1 and of logits propose tokens before settling the nucleus
// (token_sampler.hpp); rows that ask for log-probabilities or kept probabilities run pass 2 for
// them and judge the proposals by the exact threshold it finds, racing the chunks only when none
// lies in K (top-p 0.3 leaves most of the mass outside K, so that some rows do). Both ways must
// give the same token for every row, and the outputs must match the host reference.
TEST(TokenSampler, ProposalsGiveTheSameTokenWithOrWithoutOutputs) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t vocab : {37, 4096, 50257, 131072}) {
    const std::int64_t rows = 64;
    const std::vector<float> logits = random_logits(rows, vocab, seed + vocab, 3.0f);
    const token_rows<float> probs = make_rows<float>(softmax_rows(logits, rows, vocab), rows, vocab);
    const token_rows<float> logit_rows = make_rows<float>(logits, rows, vocab);
    const auto prob_orders = value_orders(probs), logit_orders = value_orders(logit_rows);
    device_buffer<float> d_probs(probs.raw), d_logits(logits);
    for (const bool from_logits : {false, true}) {
      for (const float top_p : {0.3f, 0.9f, 0.99f}) {
        for (const float min_p : {0.0f, 0.02f}) {
          SCOPED_TRACE("vocab " + std::to_string(vocab) + (from_logits ? ", logits at T 0.9" : ", probabilities") +
                       ", top-p " + std::to_string(top_p) + ", min-p " + std::to_string(min_p));
          const device_buffer<float>& d_values = from_logits ? d_logits : d_probs;
          scankit::token_sampling_params params;
          params.values = from_logits ? scankit::token_values::logits : scankit::token_values::probabilities;
          params.temperature = from_logits ? 0.9f : 1.0f;
          params.top_p = top_p, params.min_p = min_p;
          params.seed = seed ^ static_cast<std::uint64_t>(vocab), params.offset = 7;
          const sampler_outputs none = run_sampler(d_values, rows, vocab, rows, params, extras::none);
          const sampler_outputs logprobs = run_sampler(d_values, rows, vocab, rows, params, extras::logprobs);
          const sampler_outputs both = run_sampler(d_values, rows, vocab, rows, params, extras::both);
          ASSERT_EQ(none.tokens, logprobs.tokens) << "log-probabilities change the draw";
          ASSERT_EQ(none.tokens, both.tokens) << "kept probabilities change the draw";
          const auto cases = cases_for(rows, rule_of(params), {params.seed}, {params.offset});
          if (check_rows(from_logits ? logit_rows : probs, both, cases, "logprobs and kept_probs",
                         from_logits ? &logit_orders : &prob_orders).failed) {
            return;
          }
        }
      }
    }
  }
}

// Ties with the last kept token are kept: the draws of many seeds cover exactly the tied set.
TEST(TokenSampler, TiesAtTheBoundaryAreKept) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t vocab = 10, draws = 4096;
  const std::vector<float> v = {1.0f, 3.0f, 2.0f, 3.0f, 0.0f, 2.0f, 2.0f, 3.0f, -1.0f, 2.0f};
  const token_rows<__nv_bfloat16> in = make_rows<__nv_bfloat16>(v, 1, vocab);  // exact in bf16
  device_buffer<__nv_bfloat16> d_values(in.raw);
  std::vector<std::uint64_t> seeds(static_cast<std::size_t>(draws));
  std::iota(seeds.begin(), seeds.end(), std::uint64_t{1000});
  device_buffer<std::uint64_t> d_seeds(seeds);
  const std::vector<std::int32_t> rows(static_cast<std::size_t>(draws), 0);
  device_buffer<std::int32_t> d_rows(rows);
  struct config {
    std::int32_t k;
    float p, min_p, t;
    std::set<std::int32_t> want;
  };
  const config configs[] = {{2, 1.0f, 0.0f, 1.0f, {1, 3, 7}},
                            {4, 1.0f, 0.0f, 1.0f, {1, 2, 3, 5, 6, 7, 9}},
                            {0, 0.1f, 0.0f, 1.0f, {1, 3, 7}},
                            {0, 0.6f, 0.0f, 1.0f, {1, 3, 7}},  // the tied 3s hold 0.64 of the weight
                            {0, 0.7f, 0.0f, 1.0f, {1, 2, 3, 5, 6, 7, 9}},
                            {0, 1.0f, 0.3f, 1.0f, {1, 2, 3, 5, 6, 7, 9}},  // e^-1 >= 0.3
                            {1, 1.0f, 0.0f, 1.0f, {1}},                    // greedy: ties to the lowest index
                            {0, 1.0f, 0.0f, 0.0f, {1}}};
  for (const config& c : configs) {
    scankit::token_sampling_params params;
    params.top_k = c.k, params.top_p = c.p, params.min_p = c.min_p, params.temperature = c.t;
    params.row_indices = d_rows.data();
    params.seeds = d_seeds.data();
    const sampler_outputs out = run_sampler(d_values, 1, vocab, draws, params, extras::none);
    const std::set<std::int32_t> seen(out.tokens.begin(), out.tokens.end());
    EXPECT_EQ(seen, c.want) << "k " << c.k << " p " << c.p << " min_p " << c.min_p << " T " << c.t;
    if (check_rows(in, out, cases_for(draws, rule_of(params), seeds, {0}, &rows), "ties").failed) return;
  }
}

// Output rows that read the input rows in turn (output row r reads input row r % input_rows), each
// with a seed of its own.
struct cyclic_batch {
  std::int64_t input_rows, output_rows;
  std::vector<std::int32_t> rows;
  std::vector<std::uint64_t> seeds;
  device_buffer<std::int32_t> d_rows;
  device_buffer<std::uint64_t> d_seeds;

  cyclic_batch(std::int64_t inputs, std::int64_t outputs, std::mt19937_64& rng)
      : input_rows(inputs),
        output_rows(outputs),
        rows(row_map(inputs, outputs)),
        seeds(random_u64(static_cast<std::size_t>(outputs), rng)),
        d_rows(rows),
        d_seeds(seeds) {}

  // Draws one setting (the call number is its offset) and checks every output row; nothing when a
  // row failed its check (reported already).
  template <class T>
  std::optional<sampler_outputs> run_checked(const device_buffer<T>& values, const token_rows<T>& in,
                                             const std::vector<std::vector<std::int32_t>>& orders,
                                             const filter_setting& s, bool probabilities, int call, extras want,
                                             const char* what) const {
    const scankit::token_sampling_params params =
        gathered_params(s, probabilities, d_rows.data(), d_seeds.data(), static_cast<std::uint64_t>(call));
    sampler_outputs out = run_sampler(values, input_rows, in.vocab, output_rows, params, want);
    if (check_rows(in, out, cases_for(output_rows, rule_of(params), seeds, {params.offset}, &rows), what, &orders)
            .failed)
      return std::nullopt;
    return out;
  }

 private:
  static std::vector<std::int32_t> row_map(std::int64_t inputs, std::int64_t outputs) {
    std::vector<std::int32_t> map(static_cast<std::size_t>(outputs));
    for (std::int64_t r = 0; r < outputs; ++r) map[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(r % inputs);
    return map;
  }
};

// Rows whose boundary holds many tokens (flat and nearly flat rows of 131072): the exact path.
TEST(TokenSampler, FlatRowsTakeTheExactPath) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t vocab = 131072, input_rows = 4, output_rows = 32;
  std::vector<float> x(static_cast<std::size_t>(input_rows * vocab));
  // Row 0: uniform probabilities. Row 1: 64 levels 2^-20 apart around 1. Row 2: half the tokens
  // tied at 0.5, the others below. Row 3: every value equal.
  std::uniform_int_distribution<int> level(0, 63);
  std::uniform_real_distribution<float> below(0.01f, 0.45f);  // positive: valid probabilities too
  for (std::int64_t j = 0; j < vocab; ++j) {
    x[j] = 1.0f / float(vocab);
    x[vocab + j] = 1.0f + float(level(rng)) * 0x1p-20f;
    x[2 * vocab + j] = (rng() & 1) != 0 ? 0.5f : below(rng);
    x[3 * vocab + j] = 0.75f;
  }
  const token_rows<float> in = make_rows<float>(x, input_rows, vocab);
  const auto orders = value_orders(in);
  device_buffer<float> d_values(in.raw);
  const cyclic_batch batch(input_rows, output_rows, rng);
  const filter_setting settings[] = {{1.0f, 70000, 0.5f, 0.0f}, {1.0f, 0, 0.5f, 0.0f},     {1.0f, 0, 1.0f, 0.99997f},
                                     {2.0f, 30000, 0.9f, 0.0f}, {0.0f, 70000, 0.5f, 0.0f}, {1.0f, 1, 1.0f, 0.0f}};
  int call = 0;
  std::int32_t highest = -1;
  for (bool probabilities : {true, false}) {
    for (const filter_setting& s : settings) {
      const int this_call = call++;
      const std::optional<sampler_outputs> drawn =
          batch.run_checked(d_values, in, orders, s, probabilities, this_call,
                            this_call % 2 == 1 ? extras::both : extras::logprobs, "flat rows");
      if (!drawn) return;
      const sampler_outputs& out = *drawn;
      if (s.t != 0.0f && s.k != 1) {
        // Rows 0 and 3 keep every token (ties): their draws spread over the whole row.
        std::set<std::int32_t> spread;
        for (std::int64_t r = 0; r < output_rows; r += 4)
          spread.insert(out.tokens[r]), spread.insert(out.tokens[r + 3]);
        EXPECT_GE(spread.size(), 12u);
        highest = std::max(highest, *spread.rbegin());
      }
    }
  }
  EXPECT_GT(highest, 70000) << "no draw of the flat rows past the top-k of 70000";
}

// Rows whose values span far more than the group marks resolve (logits of sigma 40: order values
// beyond +-64, probabilities down to denormals and zeros), beside ordinary rows, in clusters and in
// one block per row, with rows that fill the marks' room (155000 tokens) and rows too long for it
// (160000): the filtered passes load only the groups whose mark reaches the floor, and must still
// meet every kept and every boundary token.
TEST(TokenSampler, WideRowsKeepEveryTokenAtTheFloor) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const filter_setting settings[] = {{1.0f, 0, 1.0f, 0.5f},  {0.3f, 0, 1.0f, 0.05f}, {1.0f, 5, 1.0f, 0.0f},
                                     {1.0f, 0, 0.5f, 0.0f},  {2.0f, 50, 0.9f, 0.1f}, {0.5f, 0, 0.9f, 0.0f}};
  int call = 0;
  for (std::int64_t vocab : {32000, 155000, 160000}) {
    // Few output rows take clusters of blocks, many take one block each.
    const std::int64_t input_rows = 2, output_rows = vocab == 32000 ? 4 : 72;
    std::vector<float> x = random_logits(1, vocab, seed + vocab, 40.0f);
    const std::vector<float> typical = random_logits(1, vocab, seed + vocab + 1, 2.5f, 3.0f);
    x.insert(x.end(), typical.begin(), typical.end());
    for (int i = 0; i < 8; ++i) x[rng() % x.size()] = -inf;
    const cyclic_batch batch(input_rows, output_rows, rng);
    for (bool probabilities : {false, true}) {
      const token_rows<float> in = make_rows<float>(probabilities ? softmax_rows(x, input_rows, vocab) : x,
                                                    input_rows, vocab);
      const auto orders = value_orders(in);
      device_buffer<float> d_values(in.raw);
      for (const filter_setting& s : settings) {
        const int this_call = call++;
        if (!batch.run_checked(d_values, in, orders, s, probabilities, this_call,
                               this_call % 3 == 2 ? extras::logprobs : extras::none, "wide rows"))
          return;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The same row gives the same token whatever the batch, position and call.

// Batches of 1 and 7 of these rows take clusters of 4 blocks per row, the batch of 256 one block
// per row. Logits, and probabilities (whose top-p rows propose tokens first).
void check_same_token_in_every_batch(std::uint64_t seed, bool probabilities) {
  std::mt19937_64 rng(seed);
  const std::int64_t vocab = 50257, input_rows = 256;
  std::vector<float> x = random_logits(input_rows, vocab, seed, 2.5f);
  for (std::int64_t j = 0; j < vocab; ++j) x[5 * vocab + j] = 1.0f + float(j % 5) * 0x1p-20f;  // nearly flat
  if (probabilities) x = softmax_rows(x, input_rows, vocab);
  device_buffer<float> d_values(x);
  const std::vector<std::uint64_t> seeds = random_u64(input_rows, rng), offsets = random_u64(input_rows, rng, 20);
  device_buffer<std::uint64_t> d_seeds(seeds), d_offsets(offsets);
  const filter_setting settings[] = {{1.0f, 0, 1.0f, 0.0f},
                                     {1.0f, 50, 0.9f, 0.0f},
                                     {0.7f, 0, 1.0f, 0.1f},
                                     {0.0f, 0, 1.0f, 0.0f},
                                     {1.0f, 0, 0.5f, 0.0f},
                                     {1.0f, 0, 0.9f, 0.05f},
                                     {0.8f, 200, 1.0f, 0.0f}};
  for (const filter_setting& s : settings) {
    SCOPED_TRACE(std::string(probabilities ? "probabilities" : "logits") + " T " + std::to_string(s.t) + " k " +
                 std::to_string(s.k) + " p " + std::to_string(s.p) + " min_p " + std::to_string(s.min_p));
    scankit::token_sampling_params base;
    base.values = probabilities ? scankit::token_values::probabilities : scankit::token_values::logits;
    base.temperature = s.t, base.top_k = s.k, base.top_p = s.p, base.min_p = s.min_p;
    // The whole batch, row r at position r.
    scankit::token_sampling_params params = base;
    params.seeds = d_seeds.data(), params.offsets = d_offsets.data();
    const sampler_outputs whole = run_sampler(d_values, input_rows, vocab, input_rows, params, extras::logprobs);
    // Batches of 256 (permuted), 7 (random rows) and 1 (one row, scalar seed and offset).
    auto check_batch = [&](const std::vector<std::int32_t>& rows, const char* what) {
      std::vector<std::uint64_t> s_rows, o_rows;
      for (std::int32_t r : rows) s_rows.push_back(seeds[r]), o_rows.push_back(offsets[r]);
      device_buffer<std::int32_t> d_rows(rows);
      device_buffer<std::uint64_t> d_s(s_rows), d_o(o_rows);
      scankit::token_sampling_params p = base;
      p.row_indices = d_rows.data();
      if (rows.size() == 1) {
        p.seed = s_rows[0], p.offset = o_rows[0];
      } else {
        p.seeds = d_s.data(), p.offsets = d_o.data();
      }
      const std::int64_t n = static_cast<std::int64_t>(rows.size());
      const sampler_outputs got = run_sampler(d_values, input_rows, vocab, n, p, extras::logprobs);
      // Without optional outputs, top-p rows of probabilities may end before pass 2.
      const sampler_outputs bare = run_sampler(d_values, input_rows, vocab, n, p, extras::none);
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(got.tokens[i], whole.tokens[rows[i]]) << what << ": position " << i << ", row " << rows[i];
        ASSERT_EQ(bare.tokens[i], whole.tokens[rows[i]])
            << what << " (no outputs): position " << i << ", row " << rows[i];
        ASSERT_NEAR(got.logprobs[i], whole.logprobs[rows[i]], 1e-5)
            << what << ": position " << i << ", row " << rows[i];
      }
    };
    std::vector<std::int32_t> perm(static_cast<std::size_t>(input_rows));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    check_batch(perm, "permuted batch of 256");
    for (std::int32_t target : {0, 5, 37, 255}) {
      std::vector<std::int32_t> seven(7);
      for (auto& r : seven) r = static_cast<std::int32_t>(rng() % input_rows);
      seven[target % 7] = target;
      check_batch(seven, "batch of 7");
      check_batch({target}, "batch of 1");
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(TokenSampler, SameRowSameTokenInEveryBatch) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_same_token_in_every_batch(seed, false);
  if (HasFatalFailure()) return;
  check_same_token_in_every_batch(seed + 1, true);
}

TEST(TokenSampler, RepeatedCallsAreBitwiseIdentical) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t vocab : {4097, 131072}) {
    const std::int64_t rows = 16;
    std::vector<float> x = random_logits(rows, vocab, seed + vocab, 2.0f);
    for (std::int64_t j = 0; j < vocab; ++j) x[3 * vocab + j] = 0.5f + float(j % 3) * 0x1p-22f;  // nearly flat
    device_buffer<float> d_values(x);
    for (const filter_setting& s : {filter_setting{1.0f, 0, 1.0f, 0.0f}, filter_setting{0.8f, 1000, 0.9f, 0.02f},
                                    filter_setting{1.0f, 0, 0.5f, 0.0f}}) {
      scankit::token_sampling_params params;
      params.temperature = s.t, params.top_k = s.k, params.top_p = s.p, params.min_p = s.min_p;
      params.seed = seed, params.offset = 3;
      const sampler_outputs a = run_sampler(d_values, rows, vocab, rows, params, extras::both);
      const sampler_outputs b = run_sampler(d_values, rows, vocab, rows, params, extras::both);
      EXPECT_EQ(a.tokens, b.tokens);
      EXPECT_EQ(std::memcmp(a.logprobs.data(), b.logprobs.data(), a.logprobs.size() * sizeof(float)), 0) << "logprobs";
      EXPECT_EQ(std::memcmp(a.kept.data(), b.kept.data(), a.kept.size() * sizeof(float)), 0) << "kept_probs";
      params.offset = 4;
      EXPECT_NE(run_sampler(d_values, rows, vocab, rows, params, extras::none).tokens, a.tokens) << "a new offset";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Parameters, seeds and offsets from device memory.

template <class T>
void check_per_row_parameters(bool probabilities, std::int64_t vocab, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t rows = 96;
  const std::vector<float> logits = random_logits(rows, vocab, seed, 2.5f);
  const token_rows<T> in = make_rows<T>(probabilities ? softmax_rows(logits, rows, vocab) : logits, rows, vocab);
  const auto orders = value_orders(in);
  device_buffer<T> d_values(in.raw);
  const float temperatures[] = {0.0f, 0.5f, 1.0f, 2.0f};
  const std::int32_t top_ks[] = {0, 1, 2, 50, static_cast<std::int32_t>(vocab - 1), static_cast<std::int32_t>(vocab)};
  const float top_ps[] = {0.1f, 0.9f, 1.0f};
  const float min_ps[] = {0.0f, 0.05f, 0.5f};
  std::vector<float> t(rows), p(rows), m(rows);
  std::vector<std::int32_t> k(rows);
  for (std::int64_t r = 0; r < rows; ++r) {
    t[r] = temperatures[rng() % 4], k[r] = top_ks[rng() % 6], p[r] = top_ps[rng() % 3], m[r] = min_ps[rng() % 3];
  }
  const std::vector<std::uint64_t> seeds = random_u64(rows, rng), offsets = random_u64(rows, rng, 12);
  device_buffer<float> d_t(t), d_p(p), d_m(m);
  device_buffer<std::int32_t> d_k(k);
  device_buffer<std::uint64_t> d_seeds(seeds), d_offsets(offsets);
  scankit::token_sampling_params params;
  params.values = probabilities ? scankit::token_values::probabilities : scankit::token_values::logits;
  params.temperatures = d_t.data(), params.top_ks = d_k.data(), params.top_ps = d_p.data(), params.min_ps = d_m.data();
  params.seeds = d_seeds.data(), params.offsets = d_offsets.data();
  const sampler_outputs out = run_sampler(d_values, rows, vocab, rows, params, extras::both);
  std::vector<row_case> cases = cases_for(rows, rule_of(params), seeds, offsets);
  for (std::int64_t r = 0; r < rows; ++r) {
    cases[r].rule.temperature = t[r], cases[r].rule.top_k = k[r], cases[r].rule.top_p = p[r],
    cases[r].rule.min_p = m[r];
  }
  if (check_rows(in, out, cases, "per-row parameters", &orders).failed) return;
  // Each row alone with the same parameters as scalars: the same token and logprob.
  for (std::int64_t r = 0; r < rows; ++r) {
    scankit::token_sampling_params one;
    one.values = params.values;
    one.temperature = t[r], one.top_k = k[r], one.top_p = p[r], one.min_p = m[r];
    one.seed = seeds[r], one.offset = offsets[r];
    device_buffer<std::int32_t> d_row(std::vector<std::int32_t>{static_cast<std::int32_t>(r)});
    one.row_indices = d_row.data();
    const sampler_outputs alone = run_sampler(d_values, rows, vocab, 1, one, extras::logprobs);
    ASSERT_EQ(alone.tokens[0], out.tokens[r]) << "row " << r << " " << ref::describe(cases[r].rule);
    ASSERT_NEAR(alone.logprobs[0], out.logprobs[r], 1e-5) << "row " << r;
  }
  // Some parameters per row, the others scalar.
  scankit::token_sampling_params mixed = params;
  mixed.top_ks = nullptr, mixed.top_k = 50, mixed.min_ps = nullptr, mixed.min_p = 0.05f;
  const sampler_outputs out_mixed = run_sampler(d_values, rows, vocab, rows, mixed, extras::logprobs);
  for (std::int64_t r = 0; r < rows; ++r) cases[r].rule.top_k = 50, cases[r].rule.min_p = 0.05f;
  check_rows(in, out_mixed, cases, "per-row temperature and top-p, scalar top-k and min-p", &orders);
}

TEST(TokenSampler, PerRowParametersFromDeviceArrays) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_per_row_parameters<float>(false, 1000, seed);
  if (HasFailure()) return;
  check_per_row_parameters<__nv_bfloat16>(true, 4097, seed + 1);
}

TEST(TokenSampler, SeedsAndOffsetsInDeviceMemory) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t vocab = 1000, rows = 32;
  const token_rows<float> in = make_rows<float>(random_logits(rows, vocab, seed, 2.0f), rows, vocab);
  device_buffer<float> d_values(in.raw);
  const std::vector<std::uint64_t> seeds = random_u64(rows, rng), offsets = random_u64(rows, rng, 20);
  device_buffer<std::uint64_t> d_seeds(seeds), d_offsets(offsets);
  for (const filter_setting& s : {filter_setting{1.0f, 0, 1.0f, 0.0f}, filter_setting{0.7f, 50, 0.9f, 0.0f}}) {
    scankit::token_sampling_params base;
    base.temperature = s.t, base.top_k = s.k, base.top_p = s.p, base.min_p = s.min_p;
    base.seed = seeds[0], base.offset = offsets[0];
    const sampler_outputs scalar = run_sampler(d_values, rows, vocab, rows, base, extras::none);
    check_rows(in, scalar, cases_for(rows, rule_of(base), {seeds[0]}, {offsets[0]}), "scalar seed and offset");
    // One seed and one offset for the batch, in device memory (the first of each array).
    for (int form = 0; form < 4; ++form) {
      scankit::token_sampling_params params = base;
      params.seed = 999, params.offset = 999;  // ignored: the arrays are given
      params.seeds = d_seeds.data(), params.seeds_per_row = (form & 1) != 0;
      params.offsets = d_offsets.data(), params.offsets_per_row = (form & 2) != 0;
      const sampler_outputs out = run_sampler(d_values, rows, vocab, rows, params, extras::none);
      const std::vector<row_case> cases =
          cases_for(rows, rule_of(params), params.seeds_per_row ? seeds : std::vector<std::uint64_t>{seeds[0]},
                    params.offsets_per_row ? offsets : std::vector<std::uint64_t>{offsets[0]});
      const std::string what = std::string("seeds ") + (params.seeds_per_row ? "per row" : "per batch") + ", offsets " +
                               (params.offsets_per_row ? "per row" : "per batch");
      if (check_rows(in, out, cases, what).failed) return;
      if (form == 0) {
        EXPECT_EQ(out.tokens, scalar.tokens) << what;
      }
    }
    // Per-row seeds and offsets: row r as a scalar call of its own seed and offset.
    scankit::token_sampling_params params = base;
    params.seeds = d_seeds.data(), params.offsets = d_offsets.data();
    const sampler_outputs per_row = run_sampler(d_values, rows, vocab, rows, params, extras::none);
    for (std::int64_t r : {0, 1, 17, 31}) {
      scankit::token_sampling_params one = base;
      one.seed = seeds[r], one.offset = offsets[r];
      EXPECT_EQ(run_sampler(d_values, rows, vocab, rows, one, extras::none).tokens[r], per_row.tokens[r])
          << "row " << r;
    }
  }
}

// A captured graph of sample_tokens and advance_sampling_offsets: every replay draws with the next
// offsets, as direct calls with those offsets do.
TEST(TokenSampler, GraphReplayAdvancesTheOffsets) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t vocab = 1000, rows = 64;
  const token_rows<float> in = make_rows<float>(random_logits(rows, vocab, seed, 2.0f), rows, vocab);
  device_buffer<float> d_values(in.raw);
  const std::vector<std::uint64_t> seeds = random_u64(rows, rng);
  device_buffer<std::uint64_t> d_seeds(seeds);
  scankit::testing::owned_stream stream;
  for (bool per_row : {false, true}) {
    SCOPED_TRACE(per_row ? "offsets per row" : "one offset for the batch");
    const std::int64_t count = per_row ? rows : 1;
    const std::uint64_t step = per_row ? 3 : 1;
    const std::vector<std::uint64_t> start = random_u64(static_cast<std::size_t>(count), rng, 24);
    device_buffer<std::uint64_t> d_offsets(static_cast<std::size_t>(count + guard));
    d_offsets.poison();
    SCANKIT_CUDA_CHECK(
        cudaMemcpy(d_offsets.data(), start.data(), count * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before they land
    scankit::token_sampling_params params;
    params.top_k = 50, params.top_p = 0.95f;
    params.seeds = d_seeds.data();
    params.offsets = d_offsets.data(), params.offsets_per_row = per_row;
    output_buffers graph_out(rows, vocab, extras::logprobs);
    scankit::testing::captured_graph graph(stream.get(), [&] {
      scankit::sample_tokens(d_values.data(), rows, vocab, rows, params, graph_out.outputs(), stream.get());
      scankit::advance_sampling_offsets(d_offsets.data(), count, step, stream.get());
    });
    std::vector<std::int32_t> previous;
    const int replays = 5;
    for (int i = 0; i < replays; ++i) {
      SCOPED_TRACE("replay " + std::to_string(i));
      graph_out.poison();
      graph.launch();
      SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      const sampler_outputs got = graph_out.download();
      // The same draw directly, with this replay's offsets as values.
      std::vector<std::uint64_t> now(start);
      for (auto& o : now) o += step * static_cast<std::uint64_t>(i);
      device_buffer<std::uint64_t> d_now(now);
      scankit::token_sampling_params direct = params;
      direct.offsets = d_now.data();
      const sampler_outputs want = run_sampler(d_values, rows, vocab, rows, direct, extras::logprobs);
      ASSERT_EQ(got.tokens, want.tokens);
      ASSERT_EQ(std::memcmp(got.logprobs.data(), want.logprobs.data(), rows * sizeof(float)), 0) << "logprobs";
      if (check_rows(in, got, cases_for(rows, rule_of(params), seeds, now), "graph replay").failed) return;
      if (!previous.empty()) {
        EXPECT_NE(got.tokens, previous) << "a replay drew the same tokens as the one before";
      }
      previous = got.tokens;
    }
    std::vector<std::uint64_t> after = d_offsets.download();
    for (std::int64_t i = 0; i < count; ++i) EXPECT_EQ(after[i], start[i] + step * replays) << "offset " << i;
    for (std::int64_t g = count; g < count + guard; ++g)
      ASSERT_EQ(after[g], 0xA5A5A5A5A5A5A5A5ull) << "guard " << g - count;
  }
}

TEST(TokenSampler, AdvanceSamplingOffsets) {
  SCANKIT_REQUIRE_GPU();
  const std::vector<std::uint64_t> start = {0, 1, 1ull << 40, 12345, ~0ull - 100};
  const std::int64_t count = static_cast<std::int64_t>(start.size());
  device_buffer<std::uint64_t> d(static_cast<std::size_t>(count + guard));
  d.poison();
  SCANKIT_CUDA_CHECK(cudaMemcpy(d.data(), start.data(), count * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());  // pageable copies may return before they land
  scankit::advance_sampling_offsets(d.data(), count, 7);
  scankit::advance_sampling_offsets(d.data(), 0, 1000);  // nothing
  scankit::advance_sampling_offsets(d.data(), count - 1, 0);
  scankit::advance_sampling_offsets(d.data(), 2, 5);  // the first two only
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<std::uint64_t> got = d.download();
  for (std::int64_t i = 0; i < count; ++i) EXPECT_EQ(got[i], start[i] + 7 + (i < 2 ? 5 : 0)) << "offset " << i;
  for (std::int64_t g = count; g < count + guard; ++g)
    ASSERT_EQ(got[g], 0xA5A5A5A5A5A5A5A5ull) << "guard " << g - count;
}

// ---------------------------------------------------------------------------------------------
// logprobs and kept_probs.

TEST(TokenSampler, LogprobsAndKeptProbsMatchTheKeptDistribution) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const filter_setting settings[] = {{1.0f, 0, 1.0f, 0.0f}, {0.6f, 40, 0.9f, 0.0f}, {1.0f, 0, 0.8f, 0.05f},
                                     {1.5f, 5, 1.0f, 0.0f}, {1.0f, 0, 1.0f, 0.3f},  {0.0f, 0, 1.0f, 0.0f},
                                     {1.0f, 1, 0.9f, 0.0f}};
  for (std::int64_t vocab : {5, 1000, 32000, 70000}) {  // 70000: a cluster of 4 blocks per row
    const std::int64_t rows = 8;
    const token_rows<float> in = make_rows<float>(random_logits(rows, vocab, seed + vocab, 2.0f), rows, vocab);
    const auto orders = value_orders(in);
    device_buffer<float> d_values(in.raw);
    for (const filter_setting& s : settings) {
      scankit::token_sampling_params params;
      params.temperature = s.t, params.top_k = s.k, params.top_p = s.p, params.min_p = s.min_p;
      params.seed = rng(), params.offset = rng() >> 32;
      const auto cases = cases_for(rows, rule_of(params), {params.seed}, {params.offset});
      const sampler_outputs only = run_sampler(d_values, rows, vocab, rows, params, extras::logprobs);
      const sampler_outputs both = run_sampler(d_values, rows, vocab, rows, params, extras::both);
      if (check_rows(in, only, cases, "logprobs alone", &orders).failed) return;
      if (check_rows(in, both, cases, "logprobs and kept_probs", &orders).failed) return;
      for (std::int64_t r = 0; r < rows; ++r) {
        ASSERT_EQ(only.tokens[r], both.tokens[r]) << "the optional outputs change the draw";
        ASSERT_NEAR(only.logprobs[r], both.logprobs[r], 1e-6);
        const float kept = both.kept[r * vocab + both.tokens[r]];
        ASSERT_NEAR(both.logprobs[r], std::log(kept), 1e-4) << "row " << r << ": logprob and kept_probs disagree";
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Bad rows and bad arguments.

template <class T>
void check_bad_values(std::int64_t vocab, std::uint64_t seed) {
  const std::int64_t rows = 8;
  const std::vector<float> logits = random_logits(rows, vocab, seed, 2.0f);
  token_rows<T> in_l = make_rows<T>(logits, rows, vocab);
  in_l.set(0, vocab / 2, nan_value);
  in_l.set(1, vocab - 1, inf);
  for (std::int64_t j = 0; j < vocab; ++j) in_l.set(2, j, -inf);
  for (std::int64_t j = 0; j < vocab; ++j)
    if (j != vocab / 3) in_l.set(4, j, -inf);  // one token left
  in_l.set(5, 0, -inf);
  in_l.set(6, 0, nan_value);
  token_rows<T> in_p = make_rows<T>(softmax_rows(logits, rows, vocab), rows, vocab);
  in_p.set(0, vocab / 2, -0.25f);
  in_p.set(1, vocab - 1, inf);
  in_p.set(2, 0, nan_value);
  for (std::int64_t j = 0; j < vocab; ++j) in_p.set(3, j, 0.0f);
  for (std::int64_t j = 0; j < vocab; ++j) in_p.set(5, j, j == vocab / 3 ? 0.3f : 0.0f);
  in_p.set(6, vocab - 1, -inf);
  const std::int32_t bad_l[] = {0, 1, 2, 6}, bad_p[] = {0, 1, 2, 3, 6};
  device_buffer<T> d_l(in_l.raw), d_p(in_p.raw);
  for (int variant = 0; variant < 4; ++variant) {
    scankit::token_sampling_params params;
    if (variant == 1) params.top_k = 50, params.top_p = 0.9f, params.min_p = 0.05f;
    if (variant == 2) params.temperature = 0.0f;
    if (variant == 3) params.top_k = 1;
    params.seed = seed + variant;
    for (bool probabilities : {false, true}) {
      params.values = probabilities ? scankit::token_values::probabilities : scankit::token_values::logits;
      const token_rows<T>& in = probabilities ? in_p : in_l;
      const sampler_outputs out = run_sampler(probabilities ? d_p : d_l, rows, vocab, rows, params, extras::both);
      const std::string what =
          std::string(probabilities ? "probabilities" : "logits") + ", variant " + std::to_string(variant);
      if (check_rows(in, out, cases_for(rows, rule_of(params), {params.seed}, {0}), what).failed) return;
      for (std::int32_t r : probabilities ? std::vector<std::int32_t>(std::begin(bad_p), std::end(bad_p))
                                          : std::vector<std::int32_t>(std::begin(bad_l), std::end(bad_l)))
        EXPECT_EQ(out.tokens[r], -1) << what << ", row " << r;
      EXPECT_EQ(out.tokens[probabilities ? 5 : 4], vocab / 3) << what << ": the one token with weight";
      for (std::int32_t r : {3, 7}) {
        if (!probabilities || r != 3) {
          EXPECT_GE(out.tokens[r], 0) << what << ", row " << r;
        }
      }
    }
  }
}

TEST(TokenSampler, BadValuesGiveMinusOneForTheirRowOnly) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t vocab : {5, 1000, 40000}) {  // 40000: a cluster of 2 blocks per row
    check_bad_values<float>(vocab, seed);
    check_bad_values<__half>(vocab, seed);
    check_bad_values<__nv_bfloat16>(vocab, seed);
    if (HasFailure()) return;
  }
}

TEST(TokenSampler, BadRowParametersAndRowIndicesGiveMinusOne) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t vocab = 1000, rows = 14;
  const token_rows<float> in = make_rows<float>(random_logits(rows, vocab, seed, 2.0f), rows, vocab);
  device_buffer<float> d_values(in.raw);
  std::vector<float> t(rows, 1.0f), p(rows, 1.0f), m(rows, 0.0f);
  std::vector<std::int32_t> k(rows, 0);
  t[0] = -1.0f, t[1] = nan_value, k[2] = -1, p[3] = 0.0f, p[4] = 1.5f, p[5] = nan_value, m[6] = 2.0f, m[7] = -0.1f,
  m[8] = nan_value, t[9] = -inf, p[10] = -0.5f;
  t[11] = 0.0f, k[12] = 5, p[13] = 0.5f;  // good rows
  device_buffer<float> d_t(t), d_p(p), d_m(m);
  device_buffer<std::int32_t> d_k(k);
  scankit::token_sampling_params params;
  params.temperatures = d_t.data(), params.top_ks = d_k.data(), params.top_ps = d_p.data(), params.min_ps = d_m.data();
  params.seed = seed;
  const sampler_outputs out = run_sampler(d_values, rows, vocab, rows, params, extras::both);
  std::vector<row_case> cases = cases_for(rows, rule_of(params), {seed}, {0});
  for (std::int64_t r = 0; r < rows; ++r)
    cases[r].rule.temperature = t[r], cases[r].rule.top_k = k[r], cases[r].rule.top_p = p[r],
    cases[r].rule.min_p = m[r];
  check_rows(in, out, cases, "bad per-row parameters");
  for (std::int64_t r = 0; r < 11; ++r) EXPECT_EQ(out.tokens[r], -1) << "row " << r;
  for (std::int64_t r = 11; r < rows; ++r) EXPECT_GE(out.tokens[r], 0) << "row " << r;
  // Row indices outside the input rows.
  const std::vector<std::int32_t> row_indices = {
      0, -1, static_cast<std::int32_t>(rows), 1 << 30, 3, std::numeric_limits<std::int32_t>::min(), 13};
  device_buffer<std::int32_t> d_rows(row_indices);
  scankit::token_sampling_params indexed;
  indexed.row_indices = d_rows.data();
  indexed.seed = seed;
  const std::int64_t n = static_cast<std::int64_t>(row_indices.size());
  const sampler_outputs got = run_sampler(d_values, rows, vocab, n, indexed, extras::both);
  check_rows(in, got, cases_for(n, rule_of(indexed), {seed}, {0}, &row_indices), "row indices");
  for (std::int64_t i : {1, 2, 3, 5}) EXPECT_EQ(got.tokens[i], -1) << "position " << i;
}

// Host argument errors throw scankit::error before anything is enqueued: the poisoned outputs stay.
TEST(TokenSampler, HostArgumentErrorsThrowBeforeAnyLaunch) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t vocab = 100, rows = 4;
  device_buffer<float> d_values(random_logits(rows, vocab, 1, 1.0f));
  output_buffers out(rows, vocab, extras::both);
  auto expect_throw = [&](const char* what, std::int64_t in_rows, std::int64_t v, std::int64_t out_rows,
                          const scankit::token_sampling_params& params, bool null_values = false,
                          bool null_tokens = false) {
    out.poison();
    scankit::token_sampling_outputs o = out.outputs();
    if (null_tokens) o.tokens = nullptr;
    EXPECT_THROW(scankit::sample_tokens(null_values ? static_cast<const float*>(nullptr) : d_values.data(), in_rows, v,
                                        out_rows, params, o),
                 scankit::error)
        << what;
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    const sampler_outputs got = out.download();  // the guards are checked too
    for (std::int32_t t : got.tokens)
      ASSERT_EQ(static_cast<std::uint32_t>(t), 0xA5A5A5A5u) << what << ": tokens written";
    for (float x : got.logprobs) {
      std::uint32_t bits;
      std::memcpy(&bits, &x, 4);
      ASSERT_EQ(bits, 0xA5A5A5A5u) << what << ": logprobs written";
    }
    for (float x : got.kept) {
      std::uint32_t bits;
      std::memcpy(&bits, &x, 4);
      ASSERT_EQ(bits, 0xA5A5A5A5u) << what << ": kept_probs written";
    }
  };
  const scankit::token_sampling_params ok;
  expect_throw("negative input rows", -1, vocab, rows, ok);
  expect_throw("negative vocab", rows, -1, rows, ok);
  expect_throw("negative output rows", rows, vocab, -1, ok);
  expect_throw("null tokens", rows, vocab, rows, ok, false, true);
  expect_throw("null values", rows, vocab, rows, ok, true, false);
  auto with = [](auto change) {
    scankit::token_sampling_params p;
    change(p);
    return p;
  };
  expect_throw("temperature -1", rows, vocab, rows, with([](auto& p) { p.temperature = -1.0f; }));
  expect_throw("temperature NaN", rows, vocab, rows, with([](auto& p) { p.temperature = nan_value; }));
  expect_throw("top_k -1", rows, vocab, rows, with([](auto& p) { p.top_k = -1; }));
  expect_throw("top_p 0", rows, vocab, rows, with([](auto& p) { p.top_p = 0.0f; }));
  expect_throw("top_p -0.5", rows, vocab, rows, with([](auto& p) { p.top_p = -0.5f; }));
  expect_throw("top_p 1.5", rows, vocab, rows, with([](auto& p) { p.top_p = 1.5f; }));
  expect_throw("top_p NaN", rows, vocab, rows, with([](auto& p) { p.top_p = nan_value; }));
  expect_throw("min_p -0.1", rows, vocab, rows, with([](auto& p) { p.min_p = -0.1f; }));
  expect_throw("min_p 1.5", rows, vocab, rows, with([](auto& p) { p.min_p = 1.5f; }));
  expect_throw("min_p NaN", rows, vocab, rows, with([](auto& p) { p.min_p = nan_value; }));
  // The edges of the ranges are accepted; no output rows writes nothing.
  for (const auto& p : {with([](auto& q) { q.temperature = 0.0f; }), with([](auto& q) { q.top_p = 1.0f; }),
                        with([](auto& q) { q.min_p = 1.0f; }), with([](auto& q) { q.top_k = 1 << 30; })}) {
    EXPECT_NO_THROW(run_sampler(d_values, rows, vocab, rows, p, extras::both));
  }
  out.poison();
  EXPECT_NO_THROW(scankit::sample_tokens(d_values.data(), rows, vocab, 0, ok, out.outputs()));
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const sampler_outputs none = out.download();
  for (std::int32_t t : none.tokens) EXPECT_EQ(static_cast<std::uint32_t>(t), 0xA5A5A5A5u) << "no output rows: written";
}

}  // namespace
