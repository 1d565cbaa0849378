// Host reference of the token sampler (scankit/token_sampler.hpp), for the tests and the command
// line: the kept set K of one row in double precision, and the draw (the race between chunks of 32
// tokens, then the inverse CDF inside the winner) replayed in float with the device's Philox words.
//
// The device adds the filters' weights in fixed point, so a top-p or min-p decision next to its
// boundary may fall either way. The reference gives two kept sets instead of one: K_strict, the
// decisions made with the targets moved inward (top-p at p (1 - eps), min-p at min_p (1 + eps)),
// and K_loose, moved outward. Every filter keeps an upper set by value (ties kept), so both are
// {j : v_j >= threshold}; the device's K lies between them, and where the two thresholds agree
// the set is known exactly and so is the drawn token (the draw, up to its float rounding).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "scankit/detail/philox.hpp"

namespace scankit::reference::tokens {

// Relative slack of the top-p target (besides the device's weight quanta, weight_quantum) and of
// the min-p bound between K_strict and K_loose.
constexpr double top_p_slack = 1e-5;
constexpr double min_p_slack = 1e-5;

// One row's parameters.
struct row_params {
  bool probabilities = false;
  float temperature = 1.0f;
  std::int32_t top_k = 0;
  float top_p = 1.0f;
  float min_p = 0.0f;
};

inline std::string describe(const row_params& p) {
  std::ostringstream s;
  s << (p.probabilities ? "probabilities" : "logits") << " T " << p.temperature << " k " << p.top_k << " p " << p.top_p
    << " min_p " << p.min_p;
  return s.str();
}

// The spec's ranges: T >= 0, k >= 0, p in (0, 1], min_p in [0, 1] (NaN fails every one).
inline bool params_valid(const row_params& p) {
  return p.temperature >= 0.0f && p.top_k >= 0 && p.top_p > 0.0f && p.top_p <= 1.0f && p.min_p >= 0.0f &&
         p.min_p <= 1.0f;
}

// A value that makes its row bad: NaN or +infinity; for probabilities also negative or infinite.
inline bool value_bad(float v, bool probabilities) {
  if (!probabilities) return std::isnan(v) || (std::isinf(v) && v > 0.0f);
  return !(v >= 0.0f) || std::isinf(v);
}

// A token that can carry weight: a logit above -infinity, a probability above 0.
inline bool has_weight(float v, bool probabilities) { return probabilities ? v > 0.0f : v > -INFINITY; }

// The score in float, as the spec writes it: v / T or logf(v) / T.
inline float score_of(float v, const row_params& p) {
  const float s = p.probabilities ? std::log(v) : v;
  return s / p.temperature;
}

// Indices by value, largest first, ties by index (the reference's only sort; it depends on the
// values alone, so callers checking many settings of one row may compute it once).
inline std::vector<std::int32_t> value_order(const float* v, std::int64_t vocab) {
  std::vector<std::int32_t> order(static_cast<std::size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [v](std::int32_t a, std::int32_t b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
  return order;
}

// The order key of a float, as the device's (larger value, larger key; -0.0 just below +0.0).
inline std::uint32_t order_key(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits ^ ((bits >> 31) != 0 ? 0xffffffffu : 0x80000000u);
}

// The value that logits are ordered by, v / T - c, subtracts c, the largest score of 256 evenly
// spaced tokens (token_sampler.hpp); probabilities are ordered by their value (c = 0).
inline float order_shift(const float* v, std::int64_t vocab, const row_params& p) {
  float shift = 0.0f;
  if (!p.probabilities) {
    const std::int64_t sample = std::min<std::int64_t>(vocab, 256);
    std::uint32_t best = 0;
    for (std::int64_t i = 0; i < sample; ++i) {
      const float s = v[i * vocab / sample] / p.temperature;
      if (std::isfinite(s)) best = std::max(best, order_key(s));
    }
    if (best != 0) {
      const std::uint32_t bits = best ^ ((best >> 31) != 0 ? 0x80000000u : 0xffffffffu);
      std::memcpy(&shift, &bits, sizeof shift);
    }
  }
  return shift;
}
inline float order_value(float x, const row_params& p, float shift) {
  return p.probabilities ? x : (p.temperature == 1.0f ? x : x / p.temperature) - shift;
}
// The histogram bin of an order value: its key's top 11 bits; and the largest value of a bin.
inline std::uint32_t order_bin(float u) { return order_key(u) >> 21; }
inline float bin_top(std::uint32_t bin) {
  const std::uint32_t key = (bin << 21) | 0x1fffffu;
  const std::uint32_t bits = key ^ ((key >> 31) != 0 ? 0x80000000u : 0xffffffffu);
  float top;
  std::memcpy(&top, &bits, sizeof top);
  return top;
}

// A bound on how far the device's sum of the weights of any set of tokens lies from the exact
// sum, relative to the largest token's weight (token_sampler.hpp: each token's weight is an
// integer in units of 2^-mass_bits of its histogram bin's top, mass_bits = 31 - log2 of the
// vocabulary rounded up to a power of two; for probabilities at T = 1, of the power of two above
// the value): one unit per token, and each sum low (the units are whole). weight[j] is token j's
// exact weight; counted are the tokens of weight with v[j] >= floor.
inline double weight_quantum(const float* v, std::int64_t vocab, const row_params& p,
                             const std::vector<double>& weight, float floor = -INFINITY) {
  int vocab_bits = 0;  // log2 of the vocabulary rounded up to a power of two
  while ((std::int64_t{1} << vocab_bits) < vocab) ++vocab_bits;
  const double unit = std::ldexp(1.0, -(31 - vocab_bits));
  const float shift = order_shift(v, vocab, p);
  const bool raw = p.probabilities && p.temperature == 1.0f;
  double sum = 0.0;
  for (std::int64_t j = 0; j < vocab; ++j) {
    if (!has_weight(v[j], p.probabilities) || !(v[j] >= floor)) continue;
    const float u = order_value(v[j], p, shift);
    const double top = bin_top(order_bin(u));
    double ratio;  // the unit's scale over the token's weight
    if (raw) {
      int e = 0;
      std::frexp(static_cast<double>(v[j]), &e);  // v in [2^(e-1), 2^e)
      ratio = std::ldexp(1.0, e) / v[j];
    } else if (p.probabilities) {
      ratio = std::pow(top / u, 1.0 / p.temperature);
    } else {
      ratio = std::exp(top - static_cast<double>(u));
    }
    sum += unit * weight[static_cast<std::size_t>(j)] * std::min(ratio, 1e30);
  }
  return sum;
}

// The retry's set (token_sampler.hpp): tokens of weight whose order value's key has its top 11 bits
// (the histogram bin) at least lo, the bin of the top-p threshold; and min-p. Returned as the
// lowest value in it, NaN when the top-p or min-p boundary is not known exactly enough to tell.
inline float retry_threshold(const float* v, std::int64_t vocab, const row_params& p, float strict_p, float loose_p,
                             float strict_m, float loose_m) {
  const float shift = order_shift(v, vocab, p);
  auto bin = [&](float x) { return order_bin(order_value(x, p, shift)); };
  if (bin(strict_p) != bin(loose_p)) return NAN;
  const std::uint32_t lo = bin(strict_p);
  if (strict_m != loose_m) return NAN;
  float lowest = INFINITY;
  for (std::int64_t j = 0; j < vocab; ++j)
    if (has_weight(v[j], p.probabilities) && v[j] >= strict_m && bin(v[j]) >= lo) lowest = std::min(lowest, v[j]);
  return lowest;
}

constexpr float proposal_shift_limit = 32.0f;  // logits rows propose while every order value is below it

struct row_reference {
  bool bad = false;
  bool greedy = false;
  bool raw = false;  // probabilities at T == 1: the chunk weights are the values themselves
  bool two_draws = false;  // top-p without top-k, from probabilities at T = 1 or logits: proposals come first
  float shift = 0.0f;      // logits: the order values' shift (order_shift)
  // The retry's set K' = {j : v_j >= retry_threshold} (NaN where the reference cannot tell it).
  float retry_threshold = NAN;
  // Greedy: the lowest index of the largest value; for k == 1 (T > 0) also accepted, the lowest
  // index of the largest float score (distinct probabilities can share logf).
  std::int32_t greedy_token = -1;
  std::int32_t greedy_token_by_score = -1;
  std::vector<double> score;                                      // s_j widened; -infinity for a token without weight
  std::vector<double> weight;                                     // exp(s_j - s_max) in double
  float threshold_strict = INFINITY, threshold_loose = INFINITY;  // K = {j : v_j >= threshold}
  double mass_strict = 0.0, mass_loose = 0.0;                     // sum of weights over each set
  bool exact() const { return threshold_strict == threshold_loose; }
};

// The kept sets of one row. `order` (from value_order) may be passed to skip the sort.
inline row_reference reference_row(const float* v, std::int64_t vocab, const row_params& p,
                                   const std::vector<std::int32_t>* order = nullptr) {
  row_reference ref;
  if (!params_valid(p) || vocab <= 0) {
    ref.bad = true;
    return ref;
  }
  bool any_weight = false;
  for (std::int64_t j = 0; j < vocab; ++j) {
    if (value_bad(v[j], p.probabilities)) {
      ref.bad = true;
      return ref;
    }
    any_weight = any_weight || has_weight(v[j], p.probabilities);
  }
  if (!any_weight) {
    ref.bad = true;
    return ref;
  }
  ref.greedy = p.temperature == 0.0f || p.top_k == 1;
  ref.raw = p.probabilities && p.temperature == 1.0f;
  ref.shift = order_shift(v, vocab, p);
  {
    // Logits rows propose while every order value lies below the limit (token_sampler.hpp).
    float v_max = -INFINITY;
    for (std::int64_t j = 0; j < vocab; ++j) v_max = std::max(v_max, v[j]);
    const bool logits_propose = !p.probabilities && order_value(v_max, p, ref.shift) < proposal_shift_limit;
    ref.two_draws = (ref.raw || logits_propose) && !ref.greedy && !(p.top_k >= 1 && p.top_k < vocab) && p.top_p < 1.0f;
  }
  {
    std::int64_t best = 0;
    for (std::int64_t j = 1; j < vocab; ++j)
      if (v[j] > v[best]) best = j;
    ref.greedy_token = ref.greedy_token_by_score = static_cast<std::int32_t>(best);
  }
  if (ref.greedy) {
    if (p.temperature > 0.0f) {
      std::int64_t best = 0;
      float best_s = score_of(v[0], p);
      for (std::int64_t j = 1; j < vocab; ++j) {
        const float s = score_of(v[j], p);
        if (s > best_s) best = j, best_s = s;
      }
      ref.greedy_token_by_score = static_cast<std::int32_t>(best);
    }
    return ref;
  }

  ref.score.resize(static_cast<std::size_t>(vocab));
  ref.weight.resize(static_cast<std::size_t>(vocab));
  std::vector<float> score_f(static_cast<std::size_t>(vocab));
  float s_max = -INFINITY;
  for (std::int64_t j = 0; j < vocab; ++j) {
    score_f[j] = has_weight(v[j], p.probabilities) ? score_of(v[j], p) : -INFINITY;
    s_max = std::max(s_max, score_f[j]);
  }
  for (std::int64_t j = 0; j < vocab; ++j) {
    ref.score[j] = score_f[j];
    ref.weight[j] = std::exp(ref.score[j] - double(s_max));
  }

  std::vector<std::int32_t> own_order;
  if (order == nullptr) {
    own_order = value_order(v, vocab);
    order = &own_order;
  }
  const std::vector<std::int32_t>& o = *order;

  // top-k: the k-th largest value, ties kept.
  float threshold_k = -INFINITY;
  if (p.top_k >= 1 && p.top_k < vocab) threshold_k = v[o[static_cast<std::size_t>(p.top_k - 1)]];
  std::size_t in_k = 0;  // tokens of the top-k set (a prefix of the order)
  double mass_k = 0.0;
  while (in_k < o.size() && v[o[in_k]] >= threshold_k) mass_k += ref.weight[o[in_k++]];

  // top-p within the top-k set: the first group of equal values whose cumulative weight reaches
  // the target; the whole top-k set when the target is out of reach.
  auto top_p_threshold = [&](double target) {
    double cumulative = 0.0;
    std::size_t i = 0;
    while (i < in_k) {
      const float group = v[o[i]];
      while (i < in_k && v[o[i]] == group) cumulative += ref.weight[o[i++]];
      if (cumulative >= target) return group;
    }
    return v[o[in_k - 1]];
  };
  // The device compares sums of integer weights, each at most weight_quantum below the exact sum:
  // its cumulative weight c' in [c - q_c, c] against its target p m' in [p m - p q_m, p m], so it
  // stops where c reaches a target between p m - p q_m and p m + q_c. q_m counts the row's tokens,
  // q_c only those of the sums the device compares (at or above the loose threshold; found with
  // q_m first, which bounds q_c).
  float strict_p = threshold_k, loose_p = threshold_k;
  if (p.top_p < 1.0f) {
    const double target = double(p.top_p) * mass_k, q_m = weight_quantum(v, vocab, p, ref.weight);
    strict_p = top_p_threshold(target * (1.0 - top_p_slack) - double(p.top_p) * q_m);
    const float widest = top_p_threshold(target * (1.0 + top_p_slack) + q_m);
    loose_p = top_p_threshold(target * (1.0 + top_p_slack) + weight_quantum(v, vocab, p, ref.weight, widest));
  }

  // min-p: expf(s_j - s_max) >= min_p in float, which brackets the device's test (s_j - s_max >=
  // logf(min_p), or v_j >= min_p * v_max) within the slack; the smallest value that passes.
  auto min_p_threshold = [&](double bound) {
    float lowest = INFINITY;
    for (std::int64_t j = 0; j < vocab; ++j)
      if (std::exp(score_f[j] - s_max) >= bound) lowest = std::min(lowest, v[j]);
    return lowest;
  };
  float strict_m = -INFINITY, loose_m = -INFINITY;
  if (p.min_p > 0.0f) {
    strict_m = min_p_threshold(std::min(double(p.min_p) * (1.0 + min_p_slack), 1.0));
    loose_m = min_p_threshold(double(p.min_p) * (1.0 - min_p_slack));
  }

  ref.threshold_strict = std::max({threshold_k, strict_p, strict_m});
  ref.threshold_loose = std::max({threshold_k, loose_p, loose_m});
  for (std::int64_t j = 0; j < vocab; ++j) {
    if (v[j] >= ref.threshold_strict) ref.mass_strict += ref.weight[j];
    if (v[j] >= ref.threshold_loose) ref.mass_loose += ref.weight[j];
  }
  if (ref.two_draws) ref.retry_threshold = retry_threshold(v, vocab, p, strict_p, loose_p, strict_m, loose_m);
  return ref;
}

// ---------------------------------------------------------------------------------------------
// The draw, replayed in float as the spec writes it: a race between chunks of 32 consecutive
// tokens (chunk c = tokens 32c .. 32c + 31 of K), then an inverse CDF inside the winner. Chunk c
// scores (m_c + logf(W_c)) - logf(E_c), m_c its largest kept score, W_c the sum of
// expf(s_j - m_c) over its kept tokens (lane l = 0 .. 7 adds tokens 4l .. 4l + 3 in index order,
// a token not kept adding 0, then the eight sums pairwise: l with l ^ 1, l ^ 2, l ^ 4), E_c from
// word 0 of Philox4x32-10 at counter (c, offset) under key seed. Inside the winner, t = word 1 *
// 2^-32 and the token is the first kept one whose running float sum of expf(s_j - m_c) exceeds
// t W_c (the chunk's last kept token if none does). Only additions, multiplications and divisions
// that cannot contract into a fused multiply-add. The device's expf and logf may differ from the
// host's in the last place, so a draw is predicted only where that cannot change it.
//
// Top-p rows without top-k, of probabilities at T = 1 or of logits, make proposals first
// (token_sampler.hpp): P1 to P4 from every token of weight, chunk c scoring W_c / E with word i of
// counter (c + 2^63, offset) and picking with word i of (c + 2^63 + 2^61, offset); then, when none
// of them lies in K', P5 and P6 from K' with (c + 2^62, offset), words 0-1 and 2-3. The first of
// them in K is the row's token, and the draw from K decides when none is. For probabilities W_c is
// the chunk's sum of values; for logits the sum of exp(u_j), u_j = s_j - shift, each term computed
// as min(expf(u_j - top), 1) * expf(top) with `top` the largest value of u_j's histogram bin (a
// chunk whose sum is 0 does not run).

constexpr std::int64_t chunk_tokens = 32;
constexpr std::uint64_t first_draw_base = 1ull << 63;
constexpr std::uint64_t first_pick_base = (1ull << 63) + (1ull << 61);
constexpr std::uint64_t retry_draw_base = 1ull << 62;
constexpr int first_proposals = 4;

// Where a draw takes its numbers: the race's word of each chunk's counter (chunk + race_base), and
// the inverse CDF's word of the winner's counter (chunk + pick_base); `ratio`: chunks score
// W_c / E (the first proposals), not (m_c + logf(W_c)) - logf(E).
struct draw_words {
  std::uint64_t race_base = 0;
  int race_word = 0;
  std::uint64_t pick_base = 0;
  int pick_word = 1;
  bool ratio = false;
};

inline scankit::detail::philox_words chunk_words(std::uint64_t seed, std::uint64_t offset, std::int64_t chunk,
                                                 std::uint64_t base = 0) {
  return scankit::detail::philox4x32_10(static_cast<std::uint64_t>(chunk) + base, offset, seed);
}

// (m_c + logf(W_c)) - logf(E): E = -log1pf(-u) for word 0 below 2^31, else -logf((2^32 - word) 2^-32)
// (u = word 2^-32); word 0 == 0 scores +infinity (E = 0). `log_weight` is m_c + logf(W_c).
inline float chunk_exponential(std::uint32_t word) {
  if (word < 0x80000000u) return -std::log1p(-static_cast<float>(word) * 0x1p-32f);
  return -std::log(static_cast<float>(0x100000000ull - word) * 0x1p-32f);
}
inline float chunk_race_score(float log_weight, std::uint32_t word) {
  if (word == 0) return INFINITY;
  return log_weight - std::log(chunk_exponential(word));
}
// The first proposals' score W_c / E (probabilities at T = 1: W_c is the chunk's sum of values).
inline float chunk_ratio_score(float weight, std::uint32_t word) {
  if (word == 0) return INFINITY;
  return weight / chunk_exponential(word);
}

// One chunk of the kept set {j : v_j >= threshold, s_j > -infinity}.
struct chunk_weights {
  int count = 0;           // kept tokens
  float m = -INFINITY;     // their largest score
  float w = 0.0f;          // W_c, in the spec's order
  bool kept[chunk_tokens] = {};
  float a[chunk_tokens] = {};  // expf(s_j - m_c) of the kept tokens, 0 for the others
  bool races() const { return count > 0 && m > -INFINITY; }
};

inline chunk_weights chunk_of(const float* v, std::int64_t vocab, const row_reference& ref, float threshold,
                              std::int64_t chunk) {
  chunk_weights c;
  const std::int64_t first = chunk * chunk_tokens;
  float s[chunk_tokens];
  for (int q = 0; q < chunk_tokens; ++q) {
    const std::int64_t j = first + q;
    c.kept[q] = j < vocab && v[j] >= threshold && ref.score[static_cast<std::size_t>(j)] > -INFINITY;
    s[q] = c.kept[q] ? static_cast<float>(ref.score[static_cast<std::size_t>(j)]) : -INFINITY;
    if (c.kept[q]) {
      ++c.count;
      c.m = ref.raw ? 0.0f : std::max(c.m, s[q]);
    }
  }
  if (!c.races()) return c;
  float lane[8];
  for (int l = 0; l < 8; ++l) {
    float x = 0.0f;
    for (int q = 4 * l; q < 4 * l + 4; ++q) {
      c.a[q] = !c.kept[q] ? 0.0f : ref.raw ? v[first + q] : std::exp(s[q] - c.m);
      x = x + c.a[q];
    }
    lane[l] = x;
  }
  for (int o = 1; o < 8; o <<= 1) {
    float next[8];
    for (int l = 0; l < 8; ++l) next[l] = lane[l] + lane[l ^ o];
    std::copy(next, next + 8, lane);
  }
  c.w = lane[0];
  return c;
}

// W_c of a logits row's first proposals (see above), in the spec's order of additions.
inline float logits_ratio_weight(std::int64_t vocab, const row_reference& ref, std::int64_t chunk) {
  float lane[8];
  for (int l = 0; l < 8; ++l) {
    float x = 0.0f;
    for (int q = 4 * l; q < 4 * l + 4; ++q) {
      const std::int64_t j = chunk * chunk_tokens + q;
      float w = 0.0f;
      const float s = j < vocab ? static_cast<float>(ref.score[static_cast<std::size_t>(j)]) : -INFINITY;
      if (s > -INFINITY) {
        const float u = s - ref.shift;  // order_value: v / T - shift
        const float top = bin_top(order_bin(u));
        w = std::min(std::exp(u - top), 1.0f) * std::exp(top);
      }
      x = x + w;
    }
    lane[l] = x;
  }
  for (int o = 1; o < 8; o <<= 1) {
    float next[8];
    for (int l = 0; l < 8; ++l) next[l] = lane[l] + lane[l ^ o];
    std::copy(next, next + 8, lane);
  }
  return lane[0];
}

inline float chunk_score(const chunk_weights& c, std::uint32_t word0) {
  return chunk_race_score(c.m + std::log(c.w), word0);
}

struct draw_result {
  std::int32_t token = -1;  // the replayed draw (-1: nothing kept)
  std::int64_t chunk = -1;  // the winning chunk
  double best = -INFINITY;  // its score
  double margin = 0.0;      // best minus the runner-up's score (infinity without one)
  double target = 0.0;      // t W_c in the winning chunk
  double boundary = 0.0;    // the running sum nearest the target
  bool cdf_decisive = false;
  // Whether the device's race surely picks the same chunk: the top two scores are not within
  // rounding.
  bool race_decisive() const {
    if (chunk < 0) return false;
    if (std::isinf(best)) return std::isinf(margin);
    return margin > 1e-4 * std::max(1.0, std::fabs(best));
  }
  // Whether the device surely draws the same token: the chunk, and a target not within rounding of
  // a running sum.
  bool decisive() const { return race_decisive() && cdf_decisive; }
};

// The draw from {j : v_j >= threshold, s_j > -infinity} (chunks without a kept token do not run),
// with the numbers `words` names (the final draw's by default, words 0 and 1 of counter (c, offset)).
inline draw_result draw(const float* v, std::int64_t vocab, const row_reference& ref, float threshold,
                        std::uint64_t seed, std::uint64_t offset, const draw_words& words = {}) {
  draw_result r;
  double second = -INFINITY;
  const std::int64_t chunks = (vocab + chunk_tokens - 1) / chunk_tokens;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const chunk_weights w = chunk_of(v, vocab, ref, threshold, c);
    if (!w.races()) continue;
    // Logits rows' first proposals weigh exp(u) on the row's shift (a chunk of weight 0 does not run).
    const float ratio_weight = words.ratio && !ref.raw ? logits_ratio_weight(vocab, ref, c) : w.w;
    if (!(ratio_weight > 0.0f)) continue;
    const std::uint32_t word = chunk_words(seed, offset, c, words.race_base).x[words.race_word];
    const double s = words.ratio ? chunk_ratio_score(ratio_weight, word) : chunk_score(w, word);
    if (r.chunk < 0 || s > r.best) {  // ties stay with the lower chunk
      second = r.best;
      r.best = s;
      r.chunk = c;
    } else if (s > second) {
      second = s;
    }
  }
  if (r.chunk < 0) return r;
  r.margin = std::isinf(r.best) && std::isinf(second) && r.best > 0 && second > 0 ? 0.0 : r.best - second;

  const chunk_weights w = chunk_of(v, vocab, ref, threshold, r.chunk);
  const float target =
      static_cast<float>(chunk_words(seed, offset, r.chunk, words.pick_base).x[words.pick_word]) * 0x1p-32f * w.w;
  // The running weights in the device's order (token_octet_pick): each lane's four tokens in
  // order, on top of an inclusive scan (steps 1, 2, 4) of the eight lanes' totals.
  constexpr int lanes = chunk_tokens / 4;
  float lane_run[chunk_tokens], inclusive[lanes];
  for (int l = 0; l < lanes; ++l) {
    float total = 0.0f;
    for (int q = 4 * l; q < 4 * l + 4; ++q) lane_run[q] = total = total + (w.kept[q] ? w.a[q] : 0.0f);
    inclusive[l] = total;
  }
  for (int o = 1; o < lanes; o <<= 1) {
    float next[lanes];
    for (int l = 0; l < lanes; ++l) next[l] = l >= o ? inclusive[l - o] + inclusive[l] : inclusive[l];
    std::copy(next, next + lanes, inclusive);
  }
  int chosen = -1, last = -1;
  double nearest = INFINITY;
  for (int q = 0; q < chunk_tokens; ++q) {
    if (!w.kept[q]) continue;
    const float run = (q < 4 ? 0.0f : inclusive[q / 4 - 1]) + lane_run[q];
    if (chosen < 0 && run > target) chosen = q;
    last = q;
    const double gap = std::fabs(double(run) - double(target));
    if (gap < nearest) nearest = gap, r.boundary = run;
  }
  r.target = target;
  r.token = static_cast<std::int32_t>(r.chunk * chunk_tokens + (chosen >= 0 ? chosen : last));
  r.cdf_decisive = nearest > 1e-5 * std::max(double(target), r.boundary);
  return r;
}

// ---------------------------------------------------------------------------------------------
// One output row against the reference: the token, and the optional logprob and kept_probs row
// (null when not requested). `error` is empty when the row passes; `predicted` says whether the
// host knew the kept set and the draw was decisive (the chunk race and the inverse CDF inside the
// winner both clear of rounding), so that the token was checked exactly. Where only the race is
// decisive, the token's chunk is still checked.

struct row_check {
  std::string error;
  bool predicted = false;
};

// `ref` is reference_row(v, vocab, p) (rows drawn many times compute it once).
inline row_check check_row(const float* v, std::int64_t vocab, const row_reference& ref, std::uint64_t seed,
                           std::uint64_t offset, std::int32_t token, const float* logprob, const float* kept) {
  row_check c;
  std::ostringstream e;
  if (ref.bad) {
    if (token != -1) e << "bad row: token " << token << ", want -1; ";
    if (logprob != nullptr && !std::isnan(*logprob)) e << "bad row: logprob " << *logprob << ", want NaN; ";
    if (kept != nullptr)
      for (std::int64_t j = 0; j < vocab; ++j)
        if (kept[j] != 0.0f) {
          e << "bad row: kept_probs[" << j << "] = " << kept[j] << ", want 0; ";
          break;
        }
    c.error = e.str();
    c.predicted = true;
    return c;
  }
  if (token < 0 || token >= vocab) {
    e << "token " << token << " outside [0, " << vocab << ")";
    c.error = e.str();
    return c;
  }
  if (ref.greedy) {
    if (token != ref.greedy_token && token != ref.greedy_token_by_score)
      e << "greedy: token " << token << " (value " << v[token] << "), want " << ref.greedy_token << " (value "
        << v[ref.greedy_token] << "); ";
    if (logprob != nullptr && *logprob != 0.0f) e << "greedy: logprob " << *logprob << ", want 0; ";
    if (kept != nullptr)
      for (std::int64_t j = 0; j < vocab; ++j)
        if (kept[j] != (j == token ? 1.0f : 0.0f)) {
          e << "greedy: kept_probs[" << j << "] = " << kept[j] << "; ";
          break;
        }
    c.error = e.str();
    c.predicted = true;
    return c;
  }

  if (!(v[token] >= ref.threshold_loose))
    e << "token " << token << " (value " << v[token] << ") outside K_loose (values >= " << ref.threshold_loose
      << "; K_strict >= " << ref.threshold_strict << "); ";
  if (!(ref.weight[token] > 0.0)) e << "token " << token << " has no weight; ";

  // The device's kept set, where kept_probs shows it: between K_strict and K_loose, an upper set.
  float threshold = ref.exact() ? ref.threshold_strict : NAN;
  double mass = ref.exact() ? ref.mass_strict : NAN;
  if (kept != nullptr) {
    float lowest = INFINITY;
    double sum = 0.0;
    for (std::int64_t j = 0; j < vocab; ++j) {
      if (!(kept[j] >= 0.0f) || !(kept[j] <= 1.0f)) {
        e << "kept_probs[" << j << "] = " << kept[j] << "; ";
        break;
      }
      sum += kept[j];
      if (kept[j] > 0.0f) {
        lowest = std::min(lowest, v[j]);
        if (!(v[j] >= ref.threshold_loose)) {
          e << "kept_probs[" << j << "] = " << kept[j] << " outside K_loose; ";
          break;
        }
      }
    }
    if (std::fabs(sum - 1.0) > 1e-4) e << "kept_probs sum to " << sum << "; ";
    if (!(kept[token] > 0.0f)) e << "the drawn token " << token << " has kept_probs " << kept[token] << "; ";
    if (lowest < INFINITY) {
      threshold = lowest;
      mass = 0.0;
      for (std::int64_t j = 0; j < vocab; ++j)
        if (v[j] >= lowest) mass += ref.weight[j];
      for (std::int64_t j = 0; j < vocab; ++j) {
        const double want = v[j] >= lowest ? ref.weight[j] / mass : 0.0;
        const bool surely_kept = v[j] >= ref.threshold_strict && ref.weight[j] / ref.mass_loose > 1e-30;
        if ((surely_kept && !(kept[j] > 0.0f)) || (want > 1e-30 && std::fabs(kept[j] - want) > 1e-3 * want) ||
            (want <= 1e-30 && kept[j] > 1e-29f)) {
          e << "kept_probs[" << j << "] = " << kept[j] << ", want " << want << " (K_strict >= " << ref.threshold_strict
            << ", device's lowest kept value " << lowest << "); ";
          break;
        }
      }
    }
  }
  if (logprob != nullptr) {
    const double w = ref.weight[token];
    const double lo = std::log(w / (std::isnan(mass) ? ref.mass_loose : mass)) - 1e-3;
    const double hi = std::log(w / (std::isnan(mass) ? ref.mass_strict : mass)) + 1e-3;
    if (!(*logprob >= lo && *logprob <= hi)) e << "logprob " << *logprob << ", want [" << lo << ", " << hi << "]; ";
  }
  // The proposals, where the row makes them: P1 to P4 from every token of weight, then, when none
  // of them lies in K', P5 and P6 from K'; the first of them in K is the row's token. Where one
  // is not surely known, neither is the token.
  bool from_k = !std::isnan(threshold);
  if (from_k && ref.two_draws) {
    bool retry = true;  // no pass-1 proposal in K'
    for (int i = 0; i < first_proposals && from_k; ++i) {
      const draw_result d =
          draw(v, vocab, ref, -INFINITY, seed, offset, {first_draw_base, i, first_pick_base, i, true});
      const bool in_k = d.decisive() && v[d.token] >= threshold;
      if (in_k) {
        c.predicted = true;
        if (token != d.token)
          e << "proposal " << i + 1 << ": token " << token << ", want " << d.token << " (in K, value " << v[d.token]
            << "); ";
      }
      // Unknown: an undecided draw, or K' not known exactly enough to tell whether the retry runs.
      from_k = d.decisive() && !in_k && !std::isnan(ref.retry_threshold);
      retry = retry && !(v[d.token] >= ref.retry_threshold);
    }
    for (int i = 0; i < 2 && from_k && retry; ++i) {
      const draw_result d =
          draw(v, vocab, ref, ref.retry_threshold, seed, offset, {retry_draw_base, 2 * i, retry_draw_base, 2 * i + 1});
      from_k = d.decisive() && !(v[d.token] >= threshold);
      if (d.decisive() && v[d.token] >= threshold) {
        c.predicted = true;
        if (token != d.token)
          e << "proposal " << i + 5 << ": token " << token << ", want " << d.token << " (in K, value " << v[d.token]
            << "); ";
      }
    }
  }
  if (from_k) {
    const draw_result d = draw(v, vocab, ref, threshold, seed, offset);
    if (d.race_decisive() && token / chunk_tokens != d.chunk) {
      e << "race: token " << token << " in chunk " << token / chunk_tokens << ", want chunk " << d.chunk << " (score "
        << d.best << ", margin " << d.margin << "; the host's token " << d.token << "); ";
    } else if (d.decisive()) {
      c.predicted = true;
      if (token != d.token)
        e << "inverse CDF in chunk " << d.chunk << ": token " << token << ", want " << d.token << " (target "
          << d.target << ", nearest running sum " << d.boundary << "); ";
    }
  }
  c.error = e.str();
  return c;
}

inline row_check check_row(const float* v, std::int64_t vocab, const row_params& p, std::uint64_t seed,
                           std::uint64_t offset, std::int32_t token, const float* logprob, const float* kept,
                           const std::vector<std::int32_t>* order = nullptr) {
  return check_row(v, vocab, reference_row(v, vocab, p, order), seed, offset, token, logprob, kept);
}

}  // namespace scankit::reference::tokens
