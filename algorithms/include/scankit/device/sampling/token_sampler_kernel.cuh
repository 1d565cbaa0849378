// The token sampler (scankit/token_sampler.hpp): one block, or one cluster of blocks, per output
// row, every pass over the row inside one launch.
//
// Every filter keeps the tokens whose key (token_keys.cuh) is at least a threshold tau:
//   top-k  tau_k = the largest key t with count(key >= t) >= k;
//   top-p  tau_p = the largest key t >= tau_k with mass(key >= t) >= top_p * mass(key >= tau_k);
// where mass(key >= t) = W_above(bin(t)) + weight(the integer mass of t's bin at or above t), and
// W_above(b) is the weight of the bins above b, added in a fixed order (token_scan_bins). Both are the
// same function in every path below, so the paths agree on tau; min-p is a per-token test.
//
// Passes (each a read of the row):
//   1. a histogram of the keys' top 11 bits, the count and the integer mass of each bin, the
//      row's largest value, and for top-p rows of probabilities at T = 1 without top-k the first
//      four proposals (token_sampler.hpp), which end the row when the first of them that is not
//      below tau's bin lies above it (or just the largest value, when only min-p or the optional
//      outputs need it; nothing when no filter and no optional output is asked for);
//   1b. for such rows whose deciding proposal lies in tau's bin: the integer mass of that bin
//      above each such proposal, which judges it exactly; when none lies in tau's bin or above,
//      two more proposals and tau's bin counted by 11 more bits (the retry pass); either ends the
//      row when a proposal is settled in K;
//   2. the bins that surely hold no threshold are settled: the chunks of tokens above them race
//      (token_race.cuh), tokens below them are dropped, and the tokens of the bins between are
//      collected in shared memory, sorted, and the thresholds found among them; the chunks that
//      hold them race then, re-read. Rows with optional outputs that proposed (1b does not judge
//      theirs: this pass finds the exact tau anyway) race nothing here: the pass sums the
//      kept mass and collects the candidates, whose own values then add theirs, and the exact tau
//      judges the proposals; only when none lies in K does one more pass race the chunks.
// When the bins between hold more tokens than fit, a single threshold's bin is refined by 11 bits
// in one more pass (after the proposals' verdicts, which the bins settle for most rows) and its
// boundary sub-bin collected instead; when that does not fit either
// (nearly flat rows), or with both top-k and top-p, each threshold is found by two more histogram
// passes over 11 and then 10 more bits of its bin, and the race is a pass of its own.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "scankit/device/sampling/token_keys.cuh"
#include "scankit/device/sampling/token_marks.cuh"
#include "scankit/device/sampling/token_race.cuh"
#include "scankit/device/sampling/token_row_blocks.cuh"
#include "scankit/device/sampling/token_thresholds.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail::sampling {

struct token_kernel_params {
  bool logits;
  float temperature;
  const float* temperatures;
  std::int32_t top_k;
  const std::int32_t* top_ks;
  float top_p;
  const float* top_ps;
  float min_p;
  const float* min_ps;
  const std::int32_t* row_indices;
  std::uint64_t seed;
  const std::uint64_t* seeds;
  bool seeds_per_row;
  std::uint64_t offset;
  const std::uint64_t* offsets;
  bool offsets_per_row;
};

template <class T>
struct token_kernel_args {
  const T* values;
  std::int64_t input_rows;
  std::int64_t vocab;
  token_kernel_params params;
  std::int32_t* tokens;
  float* logprobs;
  float* kept_probs;
  // The output rows' count in device memory (output_rows its bound), or null: the bound's rows.
  std::int64_t output_rows;
  const std::int64_t* output_rows_device;
  // The groups of four a block may mark (token_marks.cuh; 0: the launch has no room for marks).
  std::int64_t mark_groups;
};

// ---- the row's parameters ----------------------------------------------------------------------

template <class T>
__device__ void token_load_row(const token_kernel_args<T>& a, std::int64_t r, token_row_state& st) {
  const token_kernel_params& p = a.params;
  std::int64_t d = r;
  if (p.row_indices != nullptr) d = p.row_indices[r];
  st.input_row = d;
  st.temperature = p.temperatures != nullptr ? p.temperatures[r] : p.temperature;
  st.top_k = p.top_ks != nullptr ? p.top_ks[r] : p.top_k;
  st.top_p = p.top_ps != nullptr ? p.top_ps[r] : p.top_p;
  st.min_p = p.min_ps != nullptr ? p.min_ps[r] : p.min_p;
  st.seed = p.seeds != nullptr ? p.seeds[p.seeds_per_row ? r : 0] : p.seed;
  st.offset = p.offsets != nullptr ? p.offsets[p.offsets_per_row ? r : 0] : p.offset;
  st.bad = d < 0 || d >= a.input_rows || !(st.temperature >= 0.0f) || isinf(st.temperature) || st.top_k < 0 ||
           !(st.top_p > 0.0f && st.top_p <= 1.0f) || !(st.min_p >= 0.0f && st.min_p <= 1.0f) || a.vocab == 0;
  st.own = token_row_results{};
}

// A proposal (token_sampler.hpp): its token (-1: none), key, and whether it passes min-p.
struct token_proposal {
  std::int32_t token;
  std::uint32_t key;
  bool min_p;
};

// ---- the kernel ----------------------------------------------------------------------------------

// The kind of values a kernel is compiled for: either (the launch's params.logits tells), or one
// of them, whose kernel then holds none of the other's code (docs/tuning.md).
enum class token_kernel_values { either, probabilities, logits };

// Clustered: a cluster of blocks per row (token_row_blocks.cuh). Each block reads its slice of the
// row in every pass; what a pass counts or races is combined over the cluster before anything
// depends on it, so every block holds the same histograms, candidates and thresholds, every exit
// below is taken by all blocks of the cluster alike, and the leader writes the row's token.
// Filtered: false when no row of the launch has top-k or top-p (the host knows it from scalar
// parameters): the histogram passes are then not compiled, and the kernel that plain, min-p and
// greedy rows run is a small part of the whole, which the multiprocessors fetch in less time.
// Values: the kind of values compiled for (token_kernel_values).
template <class T, bool Clustered, bool Filtered, token_kernel_values Values>
__device__ __forceinline__ void token_sample_row(const token_kernel_args<T>& a) {
  extern __shared__ __align__(16) unsigned char token_smem[];
  token_shared& sm = *reinterpret_cast<token_shared*>(token_smem);
  __shared__ token_row_state st;
  using blocks = token_row_blocks<Clustered>;
  const std::int64_t r = blocks::row();
  // Rows past a device count leave before any barrier: every block of a cluster has the same row,
  // so a cluster leaves whole and none of its blocks waits at a cluster barrier for another.
  if (a.output_rows_device != nullptr && r >= items_to_process(a.output_rows, a.output_rows_device)) return;
  const bool leader = blocks::rank() == 0;  // writes the row's token and log-probability
  if (threadIdx.x == 0) token_load_row(a, r, st);
  __syncthreads();
  const std::int64_t vocab = a.vocab;
  const auto slice = blocks::slice(vocab);
  const std::int64_t slice_first = token_first(slice), slice_end = token_last(slice, vocab);  // this block's tokens
  auto write_bad = [&] {
    if (leader && threadIdx.x == 0) {
      a.tokens[r] = -1;
      if (a.logprobs != nullptr) a.logprobs[r] = NAN;
    }
    if (a.kept_probs != nullptr) {
      for (std::int64_t j = slice_first + threadIdx.x; j < slice_end; j += token_threads) a.kept_probs[r * vocab + j] = 0.0f;
    }
  };
  // The first proposals' race entries over the row (set in pass 1; token_sampler.hpp).
  __shared__ unsigned long long first_entries[token_first_proposals];
  // The row's results over its blocks, once every thread has added its own to st.own; `bad`: this
  // thread saw a bad value (every thread calls it). With `histogram` (pass 1 of a row with one),
  // also the bins' counts and masses and the first proposals' entries (combine_with_histogram).
  auto combine_row = [&](bool bad, bool histogram = false) {
    const bool block_bad = __syncthreads_or(bad);
    if constexpr (Clustered) {
      if (threadIdx.x == 0) st.own.flag = block_bad;
      // Each begins with a cluster barrier, which orders the write.
      if (histogram) {
        return blocks::combine_with_histogram(&st.own, first_entries, token_first_proposals, sm.count_incl, sm.mass,
                                              token_bins, token_bin_scratch(sm));
      }
      return blocks::combine(&st.own);
    } else {
      token_row_results row_results = st.own;
      row_results.flag = block_bad;
      return row_results;
    }
  };
  if (st.bad) {
    write_bad();
    return;
  }
  const T* row = a.values + st.input_row * vocab;
  // body(full, g, v, n, round) for every group of this block's slice, and done() after every eight
  // rounds and at the end (token_for_each_full_group, with the compact bodies of the filtered kernel).
  auto for_each_group = [&](auto body, auto done) {
    token_for_each_full_group<4, Filtered>(row, vocab, body, done, slice);
  };
  const bool logits = Values == token_kernel_values::either ? a.params.logits : Values == token_kernel_values::logits;
  const bool greedy = st.temperature == 0.0f || st.top_k == 1;
  const bool k_active = !greedy && st.top_k > 0 && st.top_k < vocab;
  const bool p_active = !greedy && st.top_p < 1.0f;
  const bool minp_active = !greedy && st.min_p > 0.0f;
  const bool want_mass = a.logprobs != nullptr || a.kept_probs != nullptr;
  const bool need_hist = Filtered && (k_active || p_active);
  // The shift of the logits' order values: the largest score of 256 evenly spaced tokens. Rows
  // that race every token of weight (no filter, no min-p, no optional output) order no value, so
  // they skip it.
  if (logits && !greedy && (need_hist || minp_active || want_mass)) {
    const std::int64_t sample = vocab < 256 ? vocab : 256;
    unsigned long long best = 0;
    if (threadIdx.x < sample) {
      const float s = token_to_float(row[threadIdx.x * vocab / sample]) / st.temperature;
      if (isfinite(s)) best = static_cast<unsigned long long>(token_key(s)) << 32;
    }
    if (threadIdx.x == 0) st.own.race_entry = 0;
    __syncthreads();
    token_block_max(&st.own.race_entry, best);
    __syncthreads();
  }
  const float shift = st.own.race_entry == 0 ? 0.0f : token_value(static_cast<std::uint32_t>(st.own.race_entry >> 32));
  const token_row_rule rule = token_make_rule(logits, st.temperature, logits && !greedy ? shift : 0.0f, vocab);
  __syncthreads();
  if (threadIdx.x == 0) st.own.race_entry = 0;
  const bool raw = !logits && st.temperature == 1.0f;  // probabilities at T = 1
  // Top-p rows without top-k, of probabilities at T = 1 or of logits, propose tokens before settling
  // K (token_sampler.hpp). The first proposals' chunk weights cost pass 1 a few additions per token:
  // probabilities weigh their values; logits their weight relative to the row's shift, which the
  // histogram's mass already holds relative to the token's bin top, times a table of the bins'
  // tops' exponentials. Logits rows whose largest order value is not below
  // token_proposal_shift_limit (the shift far below the row's largest score) drop the proposals
  // after pass 1, before any is used. Rows with optional outputs propose too, although they need
  // pass 2's kept mass anyway: the token may not depend on which outputs are asked for.
  bool proposals = need_hist && p_active && !k_active && (raw || logits);
  const bool need_max = greedy || need_hist || minp_active || want_mass;
  // Rows of the compiled kinds find their largest value, not its index (only greedy rows need that).
  const bool max_by_value = !greedy && (logits || raw);

  // Marks of the groups (token_marks.cuh), which the filtered passes after pass 1 read to load only
  // the groups that can hold a token they use; in the launch's shared memory after the filters'.
  // Only rows in one block each mark: a cluster's slices stay in L1 between the passes, where the
  // marks cost more than the loads they save (docs/tuning.md).
  std::uint8_t* const marks = token_smem + (Filtered ? sizeof(token_shared) : 0);
  const std::int64_t group_first = slice_first / 4;
  const bool marking = !Clustered && max_by_value && (need_hist || minp_active) && (!want_mass || proposals) &&
                       (slice_end - slice_first + 3) / 4 <= a.mark_groups;

  const std::uint64_t seed = st.seed, offset = st.offset;
  // The first proposals: races over every token of weight, run in pass 1 into first_entries.
  token_race_batch first_batch;

  // Pass 1: the largest value, and the histogram and the first draw when a filter needs them; bad
  // values.
  unsigned long long max_entry = 0;  // (key << 32) | ~index of the largest value, over the row
  if (need_max) {
    if (need_hist) {
      for (int b = threadIdx.x; b < token_bins; b += token_threads) sm.count_incl[b] = 0, sm.mass[b] = 0;
      if (threadIdx.x < token_first_proposals) first_entries[threadIdx.x] = 0;
      if (proposals && logits) {
        float* const top_scale = token_bin_top_scales(sm);
        for (int b = threadIdx.x; b < token_bins; b += token_threads) top_scale[b] = expf(token_bin_top(b));
      }
      __syncthreads();
    }
    bool bad = false;
    // This thread's largest key and its first token (a thread meets its tokens in index order).
    std::uint32_t best_key = 0;
    std::int64_t best_j = -1;
    float best_v = -INFINITY;  // the compiled kinds: the largest value (the order value grows with it)
    // Probabilities at T = 1: the range of the keys, which tells both the largest value and a bad
    // one (a valid probability, -0.0 to the largest float, has a key in [0x7fffffff, 0xff800000)).
    std::uint32_t key_lo = 0xffffffffu, key_hi = 0;
    // logit_proposals: the first proposals of a logits row (a copy of the loop of its own, so that
    // the rows without them run the loop as it was).
    auto pass1 = [&](auto kind, auto hist, auto logit_proposals) {
      constexpr bool with_logit_proposals = decltype(logit_proposals)::value;
      using kind_t = decltype(kind);
      constexpr bool any_kind = std::is_same_v<kind_t, token_any_kind>;
      constexpr bool is_logits = std::is_same_v<kind_t, token_logits_kind>;
      constexpr bool is_raw = std::is_same_v<kind_t, token_raw_kind>;
      auto flush_first = [&] {
        if constexpr (decltype(hist)::value && (is_raw || with_logit_proposals)) {
          if (proposals) {
            first_batch.flush_ratio<token_first_proposals>(seed, offset, token_draw_base(token_draw::first),
                                                           first_entries);
          }
        }
      };
      for_each_group([&](auto full, std::int64_t g, const float(&v)[4], int n, int round) {
        if constexpr (decltype(hist)::value && is_raw) {
          if (proposals) {  // the first proposal's chunk weights: the sum of the chunk's values
            // Every value joins: one of no weight adds 0 (+0.0 or -0.0), and a negative or NaN one
            // makes the row bad, which ends it before any proposal is used.
            bool kept[4];
            const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // raw chunks weigh the values themselves
#pragma unroll
            for (int q = 0; q < 4; ++q) kept[q] = decltype(full)::value || q < n;
            first_batch.hold(round, g >> 3, token_octet_chunk(kept, zero, v, true), true);
          }
        }
        [[maybe_unused]] float weight[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // logits: the first proposals' weights
        [[maybe_unused]] std::uint32_t group_key = 0;  // the group's largest key and order value, for its mark
        [[maybe_unused]] float group_u = -INFINITY;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool valid = decltype(full)::value || q < n;
          const float u = any_kind && greedy ? v[q] : token_order_value(v[q], rule, kind);
          const std::uint32_t key = token_key(u);
          if constexpr (is_raw) {
            key_lo = valid ? min(key_lo, key) : key_lo;
            key_hi = valid ? max(key_hi, key) : key_hi;
            group_key = valid ? max(group_key, key) : group_key;
          } else if (valid) {
            group_u = fmaxf(group_u, u);
            bad |= token_value_bad(v[q], any_kind ? logits : is_logits);
            if constexpr (any_kind) {
              if (key > best_key) best_key = key, best_j = 4 * g + q;  // key 0 is a NaN: the row is bad
            } else {
              best_v = fmaxf(best_v, v[q]);
            }
          }
          if constexpr (decltype(hist)::value) {
            const int bin = token_bin(key);
            if constexpr (is_logits) {
              // The same mass as token_bin_mass's, its ratio kept for the proposals' weight.
              const float ratio = valid ? token_logit_ratio(u, token_bin_top(bin)) : 0.0f;
              if constexpr (with_logit_proposals) weight[q] = ratio * token_bin_top_scales(sm)[bin];
              token_hist_add(sm.count_incl, sm.mass, valid, bin, static_cast<std::uint32_t>(ratio * rule.mass_unit),
                             false);
            } else {
              // The compiled kinds add a zero mass rather than test for it (a branch per token).
              token_hist_add(sm.count_incl, sm.mass, valid, bin,
                             valid ? token_bin_mass(u, token_bin_top(bin), rule, kind) : 0, any_kind);
            }
          }
        }
        if constexpr (decltype(hist)::value && with_logit_proposals) {
          {  // every token of weight, weighing exp(u) (a chunk of none does not join)
            bool kept[4];
            const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
            for (int q = 0; q < 4; ++q) kept[q] = weight[q] > 0.0f;
            first_batch.hold(round, g >> 3, token_octet_chunk(kept, zero, weight, true), true);
          }
        }
        if constexpr (!any_kind && !Clustered) {
          // The loop also calls this for groups past the slice's end (n == 0), which have no mark.
          if (marking && (decltype(full)::value || n > 0)) {
            marks[g - group_first] =
                static_cast<std::uint8_t>(is_raw ? token_mark_of_key(group_key) : token_mark_of_logit(group_u));
          }
        }
      }, flush_first);
    };
    auto pass1_of = [&](auto kind) {
      if (need_hist) {
        if constexpr (std::is_same_v<decltype(kind), token_logits_kind>) {
          if (proposals) {
            pass1(kind, std::true_type{}, std::true_type{});
          } else {
            pass1(kind, std::true_type{}, std::false_type{});
          }
        } else {
          pass1(kind, std::true_type{}, std::false_type{});
        }
      } else {
        pass1(kind, std::false_type{}, std::false_type{});
      }
    };
    if (!max_by_value) {
      pass1_of(token_any_kind{});
    } else if (logits) {
      pass1_of(token_logits_kind{});
    } else {
      pass1_of(token_raw_kind{});
    }
    if (max_by_value && !logits) {  // the raw kind ran
      bad |= key_lo < 0x7fffffffu || key_hi >= 0xff800000u;
      best_v = key_hi != 0 ? token_value(key_hi) : -INFINITY;
    }
    const unsigned long long best = max_by_value ? token_max_entry(token_key(best_v), 0)
                                    : best_j < 0  ? 0ull
                                                  : token_max_entry(best_key, best_j);
    token_block_max(&st.own.max_entry, best);
    const token_row_results row_results = combine_row(bad, need_hist);
    if (row_results.flag) {
      write_bad();
      return;
    }
    max_entry = row_results.max_entry;
  }
  // u_max: the largest order value; s_max: the largest score (of the same token).
  const std::uint32_t max_key = static_cast<std::uint32_t>(max_entry >> 32);
  const std::int64_t max_index = 0xffffffffu - static_cast<std::uint32_t>(max_entry);
  const float v_at_max = !need_max ? 0.0f : max_by_value ? token_value(max_key) : token_to_float(row[max_index]);
  const float u_max = max_by_value ? token_order_value(v_at_max, rule) : token_value(max_key);
  if (need_max && !(logits ? v_at_max > -INFINITY : v_at_max > 0.0f)) {  // nothing has weight
    write_bad();
    return;
  }
  const float s_max = need_max && !greedy ? token_score(v_at_max, rule) : 0.0f;
  // Logits rows whose largest order value reaches the limit drop the proposals that pass 1 drew.
  if (proposals && logits && !(u_max < token_proposal_shift_limit)) proposals = false;
  const token_min_p_bound min_p_bound{raw, raw ? st.min_p * v_at_max : logf(st.min_p), s_max};

  if (greedy) {
    const std::int32_t token = static_cast<std::int32_t>(0xffffffffu - static_cast<std::uint32_t>(max_entry));
    if (leader && threadIdx.x == 0) {
      a.tokens[r] = token;
      if (a.logprobs != nullptr) a.logprobs[r] = 0.0f;
    }
    if (a.kept_probs != nullptr) {
      for (std::int64_t j = slice_first + threadIdx.x; j < slice_end; j += token_threads) {
        a.kept_probs[r * vocab + j] = j == token ? 1.0f : 0.0f;
      }
    }
    return;
  }

  std::uint64_t kept_mass = 0;  // sum over this thread's kept tokens of floor(w 2^32)
  // A kept token's weight as the integer every kept-mass sum adds, so that all passes add the same.
  auto kept_weight = [&](float sc) { return static_cast<std::uint64_t>(expf(sc - s_max) * 4294967296.0f); };
  // The kept tokens of a group at or above `floor` (and min-p, except for the first proposal), their
  // scores, and the mass the optional outputs need (the final draw's only); `count_below` limits
  // that mass to keys below it (deferred chunks count only their candidates, the pass counted the
  // rest).
  auto keep = [&](const float(&v)[4], int n, bool whole, std::uint32_t floor, std::uint32_t count_below,
                  bool(&kept)[4], float(&sc)[4], token_draw draw = token_draw::final_draw) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      kept[q] = (whole || q < n) && (logits ? v[q] > -INFINITY : v[q] > 0.0f);
      std::uint32_t key = 0xffffffffu;
      if (floor != 0 || count_below != 0xffffffffu) key = token_key(token_order_value(v[q], rule));
      kept[q] = kept[q] && key >= floor;
      sc[q] = 0.0f;
      if (kept[q] && (!raw || want_mass)) sc[q] = token_score(v[q], rule);
      if (kept[q] && minp_active && draw != token_draw::first) kept[q] = token_min_p_keeps(v[q], sc[q], min_p_bound);
      if (kept[q] && want_mass && draw == token_draw::final_draw && (count_below == 0xffffffffu || key < count_below)) {
        kept_mass += kept_weight(sc[q]);
      }
    }
  };
  // The token of a race's winning chunk (`entry`; 0: none): its kept weights again (the same lanes,
  // the same sums), then the inverse CDF of Philox word `word` of the chunk's pick draw
  // (token_pick_base) over the chunk in index order (token_octet_pick). Called by a whole warp, whose
  // first lane writes the token to `out` (and its value to `out_value`, when given).
  auto pick = [&](unsigned long long entry, std::uint32_t floor, token_draw draw, std::int32_t* out, int word = 1,
                  float* out_value = nullptr) {
    const std::uint64_t base = token_pick_base(draw);
    if (entry == 0) {
      if (lane_id() == 0) *out = -1;
      return;
    }
    const std::int64_t chunk = token_race_index(entry);
    float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int count = 0;
    if (lane_id() < 8) count = token_load_group(row, vocab, chunk * 8 + lane_id(), false, v);
    bool kept[4];
    float sc[4];
    keep(v, count, false, floor, 0u, kept, sc, draw);
    float weights[4];
    const token_chunk c = token_octet_chunk(kept, sc, v, raw, weights);
    const scankit::detail::philox_words words = token_noise(seed, offset, chunk, base);
    // A select, not an index: an array indexed at run time would live in local memory.
    const std::uint32_t u = word == 0 ? words.x[0] : word == 1 ? words.x[1] : word == 2 ? words.x[2] : words.x[3];
    const float target = static_cast<float>(u) * 0x1p-32f * c.w;
    const token_chunk_pick chosen = token_octet_pick(kept, weights, v, target);
    if (lane_id() == 0) {
      *out = static_cast<std::int32_t>(chunk * 32 + chosen.index);
      if (out_value != nullptr) *out_value = chosen.value;
    }
  };
  // The first proposals' tokens (they need no threshold): picked by the last four warps now, so
  // that their reads overlap the thresholds' work; settled below, after the barriers between.
  // picked[4] and [5]: the retry's, none until it runs.
  constexpr int proposal_count = token_first_proposals + 2;
  __shared__ std::int32_t picked[proposal_count];
  __shared__ float picked_value[proposal_count];
  if (proposals) {
    const int i = warp_id() - (token_threads / 32 - token_first_proposals);
    if (i >= 0) pick(first_entries[i], 0u, token_draw::first, &picked[i], i, &picked_value[i]);
    if (threadIdx.x == 0) picked[token_first_proposals] = picked[token_first_proposals + 1] = -1;
  }

  // The proposals (token_sampler.hpp; see below for how they settle).
  using proposal = token_proposal;
  // The proposals live in shared memory (registers are short in the passes between).
  __shared__ proposal proposed[proposal_count];
  // After the picks into picked[i] and picked_value[i]: the proposals first .. first + count - 1,
  // written by the first lanes of warps 0 .. count - 1 and read by all after the barrier.
  auto settle = [&](int first, int count) {
    const int i = first + warp_id();
    if (warp_id() < count && lane_id() == 0) {
      proposal p{picked[i], 0u, false};
      if (p.token >= 0) {
        const float v0 = picked_value[i];
        p.key = token_key(token_order_value(v0, rule));
        p.min_p = !minp_active || token_min_p_keeps(v0, token_score(v0, rule), min_p_bound);
      }
      proposed[i] = p;
    }
    __syncthreads();
  };
  auto in_k = [&](const proposal& p, std::uint32_t floor) { return p.token >= 0 && p.min_p && p.key >= floor; };
  // The token the proposals give once tau is exact: the first in K, or -1 for none (P5 and P6 are
  // none unless the retry drew them).
  auto first_in_k = [&](std::uint32_t exact_tau) {
    for (int i = 0; i < proposal_count; ++i) {
      if (in_k(proposed[i], exact_tau)) return proposed[i].token;
    }
    return std::int32_t{-1};
  };

  // The thresholds: either the collect range [lo, hi] of bins (fast) or tau itself (refined).
  std::uint32_t tau = 0;          // keep keys >= tau
  std::uint32_t sure_floor = 0;   // keys >= sure_floor race in the pass
  std::uint32_t collect_floor = 0xffffffffu;  // keys in [collect_floor, sure_floor) are collected
  int lo = 0, hi = token_bins - 1;
  bool fast = true;
  // The candidates' place: tokens above them, and the integer mass above them in their bin.
  std::uint32_t candidates_above = 0;
  std::uint64_t candidates_mass_base = 0;
  double mass_all = 0.0;
  double p_target = 0.0;  // top-p's target, with the bins' first estimate of the top-k set's mass
  // A value's key, and whether it is a valid token of `bin` with its integer mass there (the
  // histogram's arithmetic, token_bin_mass): what the retry's sub-bins and the exact verdicts add.
  // Proposals are made for probabilities at T = 1 and for logits; of_logits picks the kind.
  auto bin_key_mass = [&](auto of_logits, float v, bool valid, int bin, std::uint32_t& key, std::uint32_t& mass) {
    const float u = decltype(of_logits)::value ? token_order_value(v, rule, token_logits_kind{}) : v;
    key = token_key(u);
    const bool in = valid && token_bin(key) == bin;
    if constexpr (decltype(of_logits)::value) {
      mass = in ? token_bin_mass(u, token_bin_top(bin), rule, token_logits_kind{}) : 0u;
    } else {
      mass = in ? token_bin_mass(v, token_bin_top(bin), rule, token_raw_kind{}) : 0u;
    }
    return in;
  };
  // A proposal P is in K exactly when the mass at or above key(P) + 1 is below the target, since
  // tau is the largest key whose mass at or above it reaches the target, and that mass only falls
  // as the key grows. For P in bin b that mass is W_above(b) plus the integer mass of bin b's
  // tokens with keys above P's: the same function every path finds tau with (token_mass_at).
  // exact_masses sums, in one pass over the row, bin b's integer masses at or above above[i] for
  // the four proposals at once (0xffffffff for one that needs none: no key of a valid row reaches
  // it; the sums fit 32 bits, token_keys.cuh), into exact_mass[0] of every block of the row, which
  // its caller zeroed before a barrier. Every thread calls it.
  __shared__ std::uint32_t exact_mass[2][token_first_proposals];  // [0]: the sums; [1]: unused
  auto exact_masses = [&](int bin, const std::uint32_t(&above)[token_first_proposals]) {
    std::uint32_t m[token_first_proposals] = {};
    auto exact_pass = [&](auto of_logits) {
      for_each_group([&](auto full, std::int64_t, const float(&v)[4], int n, int) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          std::uint32_t key, mass;
          if (bin_key_mass(of_logits, v[q], decltype(full)::value || q < n, bin, key, mass)) {
#pragma unroll
            for (int i = 0; i < token_first_proposals; ++i) m[i] += key >= above[i] ? mass : 0u;
          }
        }
      }, token_no_op{});
    };
    if (logits) {
      exact_pass(std::true_type{});
    } else {
      exact_pass(std::false_type{});
    }
#pragma unroll
    for (int i = 0; i < token_first_proposals; ++i) {
      const std::uint32_t warp_mass = __reduce_add_sync(full_warp_mask, m[i]);
      if (lane_id() == 0) atomicAdd(&exact_mass[0][i], warp_mass);
    }
    __syncthreads();  // publishes the block's sums; sum_arrays' cluster barriers publish the rest
    blocks::sum_arrays(exact_mass[0], exact_mass[1], token_first_proposals, token_sub_scratch(sm));
  };
  if (need_hist) {
    for (int b = threadIdx.x; b < token_bins; b += token_threads) sm.w_above[b] = token_bin_weight(sm.mass[b], b, u_max, rule);
    if (threadIdx.x == 0) {
      st.bin_k = -1;  // b_k
      st.bin_min = token_bins;  // lowest non-empty bin
      st.bin_p = -1;  // b_p (highest non-empty bin meeting the target)
    }
    __syncthreads();
    // Clustered proposing rows: most settle on a proposal whose bin lies wholly above tau's or
    // wholly below it, which the bins' weights tell without the thresholds: P is in K when the
    // weight of its bin and the bins above is below the target, out when the bins above alone
    // reach it (the mass at or above key(P) + 1 lies between the two); a proposal in tau's bin is
    // judged on that bin alone (below). These sums add the bins in another order than
    // token_scan_bins, within 2^-40 of its sums; the verdicts keep a margin of 2^-30 of the target
    // and leave the rest to the thresholds, so every verdict is the exact tau's. The sums are the
    // same in every block of a cluster, which all leave here alike. Logits rows' bins are wide, so
    // most of theirs take the bin's pass. The kernel of one block per row spills more registers
    // with this block (docs/tuning.md).
    if (Clustered && proposals && !want_mass) {
      // Zeroed before settle's barrier, which orders it before exact_masses' additions.
      if (threadIdx.x < token_first_proposals) exact_mass[0][threadIdx.x] = exact_mass[1][threadIdx.x] = 0;
      settle(0, token_first_proposals);
      int bins[token_first_proposals];
#pragma unroll
      for (int i = 0; i < token_first_proposals; ++i) {
        bins[i] = proposed[i].token >= 0 ? token_bin(proposed[i].key) : -1;
      }
      const token_bin_sums sums = token_sums_around(sm, bins);
      const double target = static_cast<double>(st.top_p) * sums.all;
      constexpr double margin = 0x1p-30;
      std::int32_t token = -1;
      int open = -1, b = -1;  // the first proposal the bins leave open, and its bin
      for (int i = 0; i < token_first_proposals; ++i) {
        const proposal& p = proposed[i];
        if (p.token < 0 || !p.min_p || sums.above[i] >= target * (1.0 + margin)) continue;  // out
        if (sums.above[i] + sums.at[i] < target * (1.0 - margin)) {
          token = p.token;  // in
        } else {
          open = i, b = bins[i];  // tau lies in its bin (or within the margin of it)
        }
        break;
      }
      // The open proposal's verdict needs only its bin b: the mass at or above key(P) + 1 is
      // W_above(b), which the sums give to 2^-40, plus b's integer mass above key(P) (exact_masses),
      // wherever tau lies; so it is judged here with the same margin, without the thresholds, and
      // the later proposals of bin b in the same pass. What the margin leaves open takes the
      // thresholds' path below.
      if (open >= 0) {
        std::uint32_t above[token_first_proposals];
#pragma unroll
        for (int j = 0; j < token_first_proposals; ++j) {
          above[j] = j >= open && bins[j] == b ? proposed[j].key + 1u : 0xffffffffu;
        }
        exact_masses(b, above);
        // Unrolled: the sums and bins are register arrays, which an index known only at run time
        // would put in local memory.
        bool judged = false;
#pragma unroll
        for (int j = 0; j < token_first_proposals; ++j) {
          const proposal& p = proposed[j];
          if (judged || j < open || p.token < 0 || !p.min_p) continue;
          // The mass at or above key(P) + 1 lies in [low, high]: exactly known for bin b.
          const double low = bins[j] == b ? sums.above[j] + token_bin_weight(exact_mass[0][j], b, u_max, rule)
                                          : sums.above[j];
          const double high = bins[j] == b ? low : sums.above[j] + sums.at[j];
          if (low >= target * (1.0 + margin)) continue;  // out
          if (high < target * (1.0 - margin)) token = p.token;  // in
          judged = true;
        }
      }
      if (token >= 0) {
        if (leader && threadIdx.x == 0) a.tokens[r] = token;
        return;
      }
    }
    token_scan_bins(sm);
    __syncthreads();
    const std::uint32_t k = static_cast<std::uint32_t>(st.top_k);
    for (int b = threadIdx.x; b < token_bins; b += token_threads) {
      const std::uint32_t ci = sm.count_incl[b], ca = sm.count_incl[b + 1];
      if (ci != ca) atomicMin(&st.bin_min, b);
      if (k_active && ci >= k && ca < k) st.bin_k = b;
    }
    __syncthreads();
    const int b_min = st.bin_min;
    mass_all = token_mass_at(sm, b_min, sm.mass[b_min], u_max, rule);
    const int b_k = k_active ? st.bin_k : 0;
    // Top-p's target: exact without top-k; with top-k at least top_p times the mass above b_k.
    double& target = p_target;
    if (p_active) {
      target = static_cast<double>(st.top_p) * (k_active ? sm.w_above[b_k] : mass_all);
      for (int b = threadIdx.x; b < token_bins; b += token_threads) {
        if (sm.count_incl[b] != sm.count_incl[b + 1] && b >= b_k &&
            token_mass_at(sm, b, sm.mass[b], u_max, rule) >= target) {
          atomicMax(&st.bin_p, b);
        }
      }
      __syncthreads();
    }
    lo = k_active ? b_k : (st.bin_p >= 0 ? st.bin_p : b_min);
    hi = p_active ? (st.bin_p > lo ? st.bin_p : lo) : lo;
    const std::uint32_t candidates = sm.count_incl[lo] - sm.count_incl[hi + 1];
    fast = candidates <= token_max_candidates;
    candidates_above = sm.count_incl[hi + 1];
    // The bins' floors. When the bins between hold more tokens than fit, the refinement below
    // replaces them, after the proposals: those need no more than these floors to settle nearly
    // every row, and a row they settle skips that pass.
    collect_floor = static_cast<std::uint32_t>(lo) << token_bin_shift;
    sure_floor = hi + 1 >= token_bins ? 0xffffffffu : static_cast<std::uint32_t>(hi + 1) << token_bin_shift;
    // keys >= 0xffffffff are NaN: never in a row that reaches here, so that floor races none.
  }

  // The proposals (token_sampler.hpp; top-p rows of probabilities at T = 1 without top-k): P1 to
  // P4, drawn in pass 1 from every token of weight, then, only when none of them lies in
  // K' = {bin(key) >= lo} (and min-p), lo the bin that holds tau, P5 and P6, drawn from K' in the
  // retry pass. K' is a superset of K. The first proposal in K is the row's token: each comes from
  // its set in proportion to the weights, so given that it lies in K it is an exact draw from K,
  // and whether the retry runs depends on P1 to P4 alone; the final draw from K (pass 2) only
  // decides when all miss. A proposal above the sure floor is in K whatever tau is, one below the
  // floor of K's candidates is not; for one between, a pass counts bin lo's 2048 sub-bins, which
  // places tau in one of them and settles nearly every proposal without pass 2.
  std::int32_t settled = -1;  // the row's token, when a proposal is surely in K before pass 2
  // A row with optional outputs whose deciding proposal lies in tau's bin or sub-bin: its pass 2
  // finds the exact tau anyway, which then judges the proposals (the same verdict the race path's
  // final choice gives), so that pass 2 races nothing.
  bool undecided = false;
  const std::uint32_t out_floor = collect_floor < sure_floor ? collect_floor : sure_floor;  // keys below: surely out
  const std::uint32_t retry_floor = static_cast<std::uint32_t>(lo) << token_bin_shift;
  __shared__ unsigned long long retry_entries[2];
  // The retry pass, when no pass-1 proposal lies in K': P5 and P6 race over K', and bin lo's
  // sub-bins are counted and the one holding tau found (token_mass_search, into st.found_sub), which
  // settles nearly every verdict of theirs. Called from one place only, so that it is inlined (a
  // call would spill the kernel's live registers).
  auto run_retry = [&] {
    if (threadIdx.x == 0) retry_entries[0] = retry_entries[1] = 0;
    for (int i = threadIdx.x; i < token_bins; i += token_threads) sm.sub.count[i] = 0, sm.sub.mass[i] = 0;
    __syncthreads();
    token_race races[2];
    token_race_batch retry_batch;
    // Proposals are made for probabilities at T = 1 (the raw kind's arithmetic) and for logits; each
    // kind gets a loop of its own, since the pass runs alone on its multiprocessor in the launch's tail.
    auto retry_pass = [&](auto of_logits) {
      constexpr bool lg = decltype(of_logits)::value;
      for_each_group([&](auto full, std::int64_t g, const float(&v)[4], int n, int round) {
        constexpr bool whole = decltype(full)::value;
        std::uint32_t key[4];
        float sc[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {  // bin lo's sub-bins: a few operations per token
          sc[q] = lg ? token_logit_score(v[q], st.temperature) : 0.0f;
          std::uint32_t mass;
          const bool in = bin_key_mass(of_logits, v[q], whole || q < n, lo, key[q], mass);
          token_hist_add(sm.sub.count, sm.sub.mass, in, static_cast<int>((key[q] >> 10) & (token_bins - 1)), mass);
        }
        bool kept[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          kept[q] = (whole || q < n) && (lg ? v[q] > -INFINITY : v[q] > 0.0f) && key[q] >= retry_floor;
          if (minp_active) kept[q] = kept[q] && token_min_p_keeps(v[q], sc[q], min_p_bound);
        }
        if (__any_sync(full_warp_mask, kept[0] || kept[1] || kept[2] || kept[3])) {
          retry_batch.hold(round, g >> 3, token_octet_chunk(kept, sc, v, !lg), true);
        }
      }, [&] {
        retry_batch.flush_each<2, 2>(seed, offset, token_draw_base(token_draw::retry),
                                     [&](int i, std::int32_t chunk, float score) { races[i].run(chunk, score); });
      });
    };
    if (logits) {
      retry_pass(std::true_type{});
    } else {
      retry_pass(std::false_type{});
    }
    token_block_max(&retry_entries[0], races[0].entry());
    token_block_max(&retry_entries[1], races[1].entry());
    __syncthreads();
    blocks::sum_arrays(sm.sub.count, sm.sub.mass, token_bins, token_sub_scratch(sm), retry_entries, 2);
    token_mass_search(sm, st, lo, p_target, u_max, rule);
    constexpr int p5 = token_first_proposals;
    if (warp_id() == 0) pick(retry_entries[0], retry_floor, token_draw::retry, &picked[p5], 1, &picked_value[p5]);
    if (warp_id() == 1) pick(retry_entries[1], retry_floor, token_draw::retry, &picked[p5 + 1], 3, &picked_value[p5 + 1]);
    settle(p5, 2);  // its barrier also publishes st.found_sub
  };
  // The exact verdicts of pass-1 proposals that lie in tau's bin lo (top-p alone puts tau there,
  // exact_masses): returns bit i set for P(i + 1) in K. Every thread calls it.
  auto judge_exactly = [&](const std::uint32_t(&above)[token_first_proposals]) {
    exact_masses(lo, above);
    unsigned in = 0;
#pragma unroll
    for (int i = 0; i < token_first_proposals; ++i) {
      if (token_mass_at(sm, lo, exact_mass[0][i], u_max, rule) < p_target) in |= 1u << i;
    }
    return in;
  };
  if (proposals) {
    // Zeroed before settle's barrier, which orders it before judge_exactly's additions.
    if (threadIdx.x < token_first_proposals) exact_mass[0][threadIdx.x] = exact_mass[1][threadIdx.x] = 0;
    settle(0, proposal_count);  // P5 and P6 as none until the retry draws them
    bool retry = true;  // no pass-1 proposal lies in K'
    for (int i = 0; i < token_first_proposals; ++i) retry = retry && !in_k(proposed[i], retry_floor);
    // 1 in K, 0 out, -1 not known yet; with `subs` (bin lo's sub-bins counted), tau lies in
    // sub-bin found_sub of bin lo: keys above it are in K, keys below it out.
    auto verdict = [&](const proposal& p, bool subs) {
      if (p.token < 0 || !p.min_p) return 0;
      if (p.key >= sure_floor) return 1;
      if (p.key < out_floor) return 0;
      if (!subs) return -1;
      const std::uint32_t sub_first = retry_floor | (static_cast<std::uint32_t>(st.found_sub) << 10);
      if (p.key > sub_first + 1023u) return 1;
      if (p.key < sub_first) return 0;
      return -1;
    };
    // The pass-1 proposals are settled in order; when the first that is not surely out is not
    // surely in either, the undecided ones are judged exactly (judge_exactly). Rows with optional
    // outputs leave them to pass 2's exact tau, which that pass finds anyway.
    const bool subs = retry;
    bool exact = false;
    if (!retry && !want_mass) {
      for (int i = 0; i < token_first_proposals; ++i) {
        const int known = verdict(proposed[i], false);
        exact = known < 0;
        if (known != 0) break;
      }
    }
    if (subs) run_retry();
    unsigned exact_in = 0;
    if (exact) {
      std::uint32_t above[token_first_proposals];
#pragma unroll
      for (int i = 0; i < token_first_proposals; ++i) {
        above[i] = verdict(proposed[i], false) < 0 ? proposed[i].key + 1u : 0xffffffffu;
      }
      exact_in = judge_exactly(above);
    }
    for (int i = retry ? token_first_proposals : 0; i < (retry ? proposal_count : token_first_proposals); ++i) {
      int known = verdict(proposed[i], subs);
      if (known < 0 && exact) known = (exact_in >> i) & 1u;
      if (known == 1) {
        settled = proposed[i].token;
        break;
      }
      if (known < 0) {  // pass 2 settles it, and the rest
        undecided = want_mass;
        break;
      }
    }
    if (settled >= 0 && !want_mass) {
      if (leader && threadIdx.x == 0) a.tokens[r] = settled;
      return;
    }
  }
  if (need_hist && !fast) {
    // A crowded bin: the thresholds by refinement (the bins' floors above were for the proposals).
    const std::uint32_t k = static_cast<std::uint32_t>(st.top_k);
    const int b_k = k_active ? st.bin_k : 0, b_min = st.bin_min;
    collect_floor = 0xffffffffu, sure_floor = 0;
    if (k_active != p_active) {
      // One threshold in a crowded bin: one more pass finds its 11-bit sub-bin; when that fits,
      // its tokens are the candidates, and the sub-bins above it are counted in their place.
      token_refine<blocks>(row, vocab, slice, sm, st, lo, 0u,
                           k_active ? token_criterion::count : token_criterion::mass,
                           k_active ? k - sm.count_incl[lo + 1] : 0u, p_target, u_max, rule, 1);
      if (st.found_sub >= 0 && st.found_count <= token_max_candidates) {
        fast = true;
        collect_floor = st.key_result;
        sure_floor = collect_floor + (1u << 10);  // the sub-bin's end; a bin's last ends at the next bin
        candidates_above = sm.count_incl[lo + 1] + st.found_count_above;
        candidates_mass_base = st.found_mass_above;
      }
      __syncthreads();
    }
    if (!fast) {
      // Thresholds one at a time, each by refining its bin.
      std::uint32_t tau_k = 0;
      double mass_k = mass_all;
      if (k_active) {
        token_refine<blocks>(row, vocab, slice, sm, st, b_k, 0u, token_criterion::count, k - sm.count_incl[b_k + 1],
                             0.0, u_max, rule);
        tau_k = st.key_result;
        mass_k = token_mass_at(sm, b_k, st.mass_result, u_max, rule);
      }
      tau = tau_k;
      if (p_active) {
        const double exact_target = static_cast<double>(st.top_p) * mass_k;
        // The highest non-empty bin meeting the target; the lowest candidate (tau_k's bin, or the
        // lowest non-empty one) always meets it.
        const int base_bin = k_active ? token_bin(tau_k) : b_min;
        if (threadIdx.x == 0) st.bin_p_exact = base_bin;
        __syncthreads();
        for (int b = threadIdx.x; b < token_bins; b += token_threads) {
          if (b > base_bin && sm.count_incl[b] != sm.count_incl[b + 1] &&
              token_mass_at(sm, b, sm.mass[b], u_max, rule) >= exact_target) {
            atomicMax(&st.bin_p_exact, b);
          }
        }
        __syncthreads();
        const int b_p = st.bin_p_exact;
        __syncthreads();
        token_refine<blocks>(row, vocab, slice, sm, st, b_p, tau_k, token_criterion::mass, 0u, exact_target, u_max,
                             rule);
        tau = st.key_result > tau ? st.key_result : tau;
      }
      sure_floor = tau;
    }
    // Refined one threshold at a time, tau is exact: it judges the proposals that the bins' floors
    // left open (a row without outputs that it settles ends here, one with them needs no race).
    if (!fast && proposals && settled < 0) {
      settled = first_in_k(tau);
      undecided = false;
      if (settled >= 0 && !want_mass) {
        if (leader && threadIdx.x == 0) a.tokens[r] = settled;
        return;
      }
    }
  }

  // Pass 2: the chunks race (token_race.cuh); tokens between the sure bins and the dropped ones
  // are collected, and their chunks deferred until tau is known.
  if (threadIdx.x == 0) st.candidate_count = 0, st.deferred_count = 0;
  __syncthreads();
  // The marks' floor for pass 2: a token is collected at collect_floor or above, kept at sure_floor
  // and min-p's bound or above. Min-p keeps s with fl(s - s_max) >= L = logf(min_p) <= 0, so every
  // kept s is at least s_max + L - |L| 2^-23; the margin of (|s_max| + |L|) 2^-20 covers that and
  // the rounding of the bound's own sums, and u = s - shift rounds monotonically, so every kept
  // token's u is at least the bound's.
  std::uint32_t floor_mark = 0;
  if (!Clustered && marking) {
    std::uint32_t kept_mark = token_mark_floor(sure_floor, logits);
    if (minp_active) {
      std::uint32_t minp_mark = 0;
      if (raw) {
        minp_mark = token_mark_of_key(token_key(min_p_bound.bound));
      } else {
        const float s_floor = (s_max + min_p_bound.bound) - (fabsf(s_max) + fabsf(min_p_bound.bound)) * 0x1p-20f;
        minp_mark = token_mark_of_logit(s_floor - rule.shift);
      }
      kept_mark = max(kept_mark, minp_mark);
    }
    floor_mark = min(token_mark_floor(collect_floor, logits), kept_mark);
  }
  // A pass over the groups that can hold a token at the floor (all groups, without marks or where
  // most of the warp's groups reach it). Every thread calls it.
  auto for_each_used_group = [&](auto body, auto done) {
    if constexpr (!Clustered) {
      if (marking && token_marks_pay(vocab, marks, floor_mark, slice)) {
        token_for_each_marked_group(row, vocab, marks, floor_mark, body, done, slice);
        return;
      }
    }
    for_each_group(body, done);
  };
  token_race race;              // over chunk indices
  token_race_batch batch;       // chunks waiting for their draws
  bool bad = false;  // checked here when pass 1 did not run
  const bool all_sure = sure_floor == 0 && collect_floor == 0xffffffffu;
  // Chunks are raced eight rounds of groups at a time: one chunk per lane.
  constexpr int rounds = 8;
  auto hold_chunk = [&](int round, std::int64_t chunk, const bool(&kept)[4], const float(&sc)[4], const float(&v)[4],
                        bool join) { batch.hold(round, chunk, token_octet_chunk(kept, sc, v, raw), join); };
  auto race_held = [&] {
    batch.flush_each<1, 1>(seed, offset, 0, [&](int, std::int32_t chunk, float score) { race.run(chunk, score); });
  };

  // Rows with optional outputs still need pass 2's kept mass (and tau, which bounds it); once a
  // proposal is settled, or waits for the exact tau, their pass 2 only sums (mass_pass) and races
  // nothing. `settled` and `undecided` are the same in every block of a cluster: the proposals and
  // the verdicts' floors are.
  const bool mass_pass = settled >= 0 || undecided;
  bool race_needed = !mass_pass;  // also, after tau, for an undecided row none of whose proposals is in K
  // Group g's tokens between the sure bins and the dropped ones (collect[q], keys key[q]) join the
  // candidates, and with `chunks` their chunk the deferred ones (a settled row races no chunk);
  // returns whether the lane's chunk is deferred. Called by whole warps.
  auto collect_group = [&](std::int64_t g, const bool(&collect)[4], const std::uint32_t(&key)[4], auto chunks) {
    bool defer = collect[0] || collect[1] || collect[2] || collect[3];
    if (__any_sync(full_warp_mask, defer)) {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        if (collect[q]) sm.candidates.entry[atomicAdd(&st.candidate_count, 1)] = token_max_entry(key[q], 4 * g + q);
      }
      if constexpr (decltype(chunks)::value) {
#pragma unroll
        for (int o = 1; o < 8; o <<= 1) defer |= __shfl_xor_sync(full_warp_mask, defer, o) != 0;
        if (defer && (lane_id() & 7) == 0) {
          sm.deferred[atomicAdd(&st.deferred_count, 1)] = static_cast<std::int32_t>(g >> 3);
        }
      }
    }
    return defer;
  };
  if (all_sure && !minp_active && !want_mass) {
    // Plain sampling: every token with weight races. Compiled once per kind of value, so that the
    // loop tests nothing per token that is the same for the whole row.
    // unit_tag: logits at T = 1, whose scores are the values (v / 1 is v; the division would cost
    // a reciprocal, its refinement and a range check per token).
    auto plain = [&](auto logits_tag, auto raw_tag, auto unit_tag) {
      constexpr bool is_logits = decltype(logits_tag)::value, is_raw = decltype(raw_tag)::value;
      constexpr bool unit_t = decltype(unit_tag)::value;
      for_each_group([&](auto full, std::int64_t g, const float(&v)[4], int n, int round) {
        constexpr bool whole = decltype(full)::value;
        bool kept[4];
        float sc[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool valid = whole || q < n;
          bad |= valid && token_value_bad(v[q], is_logits);
          kept[q] = valid && (is_logits ? v[q] > -INFINITY : v[q] > 0.0f);
          if constexpr (is_logits) {
            sc[q] = unit_t ? v[q] : v[q] / st.temperature;
          } else if constexpr (is_raw) {
            sc[q] = 0.0f;
          } else {
            sc[q] = logf(v[q]) / st.temperature;
          }
        }
        hold_chunk(round, g >> 3, kept, sc, v, true);
      }, race_held);
    };
    if (logits && st.temperature == 1.0f) {
      plain(std::true_type{}, std::false_type{}, std::true_type{});
    } else if (logits) {
      plain(std::true_type{}, std::false_type{}, std::false_type{});
    } else if (raw) {
      plain(std::false_type{}, std::true_type{}, std::false_type{});
    } else {
      plain(std::false_type{}, std::false_type{}, std::false_type{});
    }
  } else if (!want_mass && (logits || raw)) {
    // Filtered sampling without the optional outputs, compiled per kind of value: each token's key
    // once, for the race and for the collection.
    auto filtered = [&](auto kind, auto collecting) {
      constexpr bool is_logits = std::is_same_v<decltype(kind), token_logits_kind>;
      constexpr bool is_raw = std::is_same_v<decltype(kind), token_raw_kind>;
      constexpr bool collects = decltype(collecting)::value;  // false: every kept token races (min-p alone)
      for_each_used_group([&](auto full, std::int64_t g, const float(&v)[4], int n, int round) {
        constexpr bool whole = decltype(full)::value;
        bool kept[4], collect[4];
        float sc[4];
        std::uint32_t key[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool valid = whole || q < n;
          kept[q] = valid && (is_logits ? v[q] > -INFINITY : v[q] > 0.0f);
          collect[q] = false;
          key[q] = 0;
          if constexpr (collects) {
            key[q] = token_key(token_order_value(v[q], rule, kind));
            collect[q] = valid && key[q] < sure_floor && key[q] >= collect_floor;
            kept[q] = kept[q] && key[q] >= sure_floor;
          }
          sc[q] = is_logits ? token_logit_score(v[q], st.temperature) : 0.0f;
          if (minp_active) kept[q] = kept[q] && token_min_p_keeps(v[q], sc[q], min_p_bound);
        }
        const bool defer = collects && collect_group(g, collect, key, std::true_type{});
        // Most groups of a filtered row hold no kept token: their warps skip the chunk sums.
        if (__any_sync(full_warp_mask, kept[0] || kept[1] || kept[2] || kept[3])) {
          batch.hold(round, g >> 3, token_octet_chunk(kept, sc, v, is_raw), !defer);
        }
      }, race_held);
    };
    auto filtered_of = [&](auto kind) {
      if (all_sure) {
        filtered(kind, std::false_type{});
      } else {
        filtered(kind, std::true_type{});
      }
    };
    if (logits) {
      filtered_of(token_logits_kind{});
    } else {
      filtered_of(token_raw_kind{});
    }
  } else if (mass_pass) {  // only rows of logits or of probabilities at T = 1 propose
    // Optional outputs of a row whose token is settled: pass 2 only collects the candidates (for
    // tau) and sums the kept mass, compiled per kind of value: each token's key once, no race. The
    // kept mass adds the same integer per token as `keep` does.
    auto mass_only = [&](auto kind) {
      constexpr bool is_logits = std::is_same_v<decltype(kind), token_logits_kind>;
      for_each_used_group([&](auto full, std::int64_t g, const float(&v)[4], int n, int) {
        constexpr bool whole = decltype(full)::value;
        bool collect[4];
        std::uint32_t key[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const bool valid = whole || q < n;
          key[q] = token_key(token_order_value(v[q], rule, kind));
          collect[q] = valid && key[q] < sure_floor && key[q] >= collect_floor;
          bool kept = valid && (is_logits ? v[q] > -INFINITY : v[q] > 0.0f) && key[q] >= sure_floor;
          if (kept) {
            const float sc = is_logits ? token_logit_score(v[q], rule.temperature) : token_score(v[q], rule);
            if (minp_active) kept = token_min_p_keeps(v[q], sc, min_p_bound);
            if (kept) kept_mass += kept_weight(sc);
          }
        }
        collect_group(g, collect, key, std::false_type{});
      }, token_no_op{});
    };
    if (logits) {
      mass_only(token_logits_kind{});
    } else {
      mass_only(token_raw_kind{});
    }
  } else {
    for_each_group([&](auto full, std::int64_t g, const float(&v)[4], int n, int round) {
      constexpr bool whole = decltype(full)::value;
      if (!need_max) {
#pragma unroll
        for (int q = 0; q < 4; ++q) bad |= (whole || q < n) && token_value_bad(v[q], logits);
      }
      bool defer = false, any_kept = all_sure;
      if (!all_sure) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const std::uint32_t key = token_key(token_order_value(v[q], rule));
          const bool valid = whole || q < n;
          any_kept |= valid && key >= sure_floor;
          if (valid && key < sure_floor && key >= collect_floor) {
            const int slot = atomicAdd(&st.candidate_count, 1);
            sm.candidates.entry[slot] = token_max_entry(key, 4 * g + q);
            defer = true;
          }
        }
        if (__any_sync(full_warp_mask, defer)) {
#pragma unroll
          for (int o = 1; o < 8; o <<= 1) defer |= __shfl_xor_sync(full_warp_mask, defer, o) != 0;
          if (defer && (lane_id() & 7) == 0) sm.deferred[atomicAdd(&st.deferred_count, 1)] = static_cast<std::int32_t>(g >> 3);
        }
      }
      // Most groups of a filtered row hold no kept token: their warps skip the chunk sums.
      if (__any_sync(full_warp_mask, any_kept)) {
        bool kept[4];
        float sc[4];
        keep(v, n, whole, sure_floor, 0xffffffffu, kept, sc);
        hold_chunk(round, g >> 3, kept, sc, v, !defer);  // settled rows took the mass-only pass
      }
    }, race_held);
  }
  if (!Clustered && __syncthreads_or(bad)) {  // a cluster checks with its last exchange below
    write_bad();
    return;
  }

  if (need_hist && fast) {
    // A cluster's blocks each collected their slice's candidates: every block gathers them all.
    const int n = blocks::gather(sm.candidates.entry, &st.candidate_count,
                                 reinterpret_cast<unsigned long long*>(sm.candidates.mass_incl));
    token_sort_candidates(sm, n);
    for (int i = threadIdx.x; i < n; i += token_threads) {
      const std::uint32_t key = static_cast<std::uint32_t>(sm.candidates.entry[i] >> 32);
      sm.candidates.mass_incl[i] = token_bin_mass(token_value(key), token_bin_top(token_bin(key)), rule);
    }
    __syncthreads();
    token_scan_candidates(sm, n);
    __syncthreads();
    if (candidates_mass_base != 0) {  // candidates of one sub-bin: their bin's mass above them first
      for (int i = threadIdx.x; i < n; i += token_threads) sm.candidates.mass_incl[i] += candidates_mass_base;
      __syncthreads();
    }
    const std::uint32_t above = candidates_above;  // tokens above the candidates
    auto key_at = [&](int i) { return static_cast<std::uint32_t>(sm.candidates.entry[i] >> 32); };
    auto group_end = [&](int i) { return i == n - 1 || key_at(i + 1) != key_at(i); };
    std::uint32_t tau_k = 0;
    double mass_k = mass_all;
    if (k_active) {
      const int ik = static_cast<int>(static_cast<std::uint32_t>(st.top_k) - 1 - above);
      tau_k = key_at(ik);
      if (threadIdx.x == 0) st.end_k = n - 1;
      __syncthreads();
      for (int i = ik + threadIdx.x; i < n; i += token_threads) {
        if (key_at(i) == tau_k && group_end(i)) st.end_k = i;
      }
      __syncthreads();
      const int ek = st.end_k;
      mass_k = token_mass_at(sm, token_bin(tau_k), sm.candidates.mass_incl[ek], u_max, rule);
    }
    tau = tau_k;
    if (p_active) {
      const double target = static_cast<double>(st.top_p) * mass_k;
      if (threadIdx.x == 0) st.first_p = n;
      __syncthreads();
      for (int i = threadIdx.x; i < n; i += token_threads) {
        const std::uint32_t key = key_at(i);
        if (key >= tau_k && group_end(i) &&
            token_mass_at(sm, token_bin(key), sm.candidates.mass_incl[i], u_max, rule) >= target) {
          atomicMin(&st.first_p, i);
        }
      }
      __syncthreads();
      const int ip = st.first_p;
      if (ip < n && key_at(ip) > tau) tau = key_at(ip);
    }
    if (mass_pass) {
      // The first proposal in K, now that tau is exact (token_sampler.hpp: with none, the race).
      if (undecided) settled = first_in_k(tau);
      // The mass pass deferred no chunk: what it left out is the kept mass of the candidates at or
      // above tau, and each candidate's own value gives its share (the integer `keep` adds). Every
      // block of a cluster holds all candidates and counts its slice's.
      for (int i = threadIdx.x; i < n; i += token_threads) {
        const unsigned long long entry = sm.candidates.entry[i];
        const std::int64_t j = token_race_index(entry);  // candidates' entries order as race entries do
        if (static_cast<std::uint32_t>(entry >> 32) < tau || j < slice_first || j >= slice_end) continue;
        const float v = token_to_float(row[j]);
        if (!(logits ? v > -INFINITY : v > 0.0f)) continue;
        const float sc = token_score(v, rule);
        if (!minp_active || token_min_p_keeps(v, sc, min_p_bound)) kept_mass += kept_weight(sc);
      }
      if (settled < 0) {
        // No proposal is in K (rare: each lies in K with its mass's share): the row's chunks race
        // above tau, in one more pass that adds no mass (count_below 0).
        race_needed = true;
        for_each_group([&](auto full, std::int64_t g, const float(&v)[4], int n_in, int round) {
          bool kept[4];
          float sc[4];
          keep(v, n_in, decltype(full)::value, tau, 0u, kept, sc);
          if (__any_sync(full_warp_mask, kept[0] || kept[1] || kept[2] || kept[3])) {
            hold_chunk(round, g >> 3, kept, sc, v, true);
          }
        }, race_held);
      }
    }
    // The deferred chunks, four per warp (one per octet), each re-read whole (none after the mass pass).
    const int deferred = mass_pass ? 0 : st.deferred_count;
    const int octet = (threadIdx.x & 31) >> 3;
    int round = 0;
    for (int base = warp_id() * 4; base < deferred; base += token_threads / 8) {
      const int i = base + octet;
      const std::int64_t chunk = i < deferred ? sm.deferred[i] : -1;
      float v[4];
      int count = 0;
      if (chunk >= 0) {
        const std::int64_t g = chunk * 8 + (lane_id() & 7);
        count = token_load_group(row, vocab, g, false, v);
      }
      bool kept[4];
      float sc[4];
      keep(v, count, false, tau, sure_floor, kept, sc);
      hold_chunk(round, chunk, kept, sc, v, chunk >= 0);
      if (++round == rounds) race_held(), round = 0;
    }
    race_held();
  }
  token_block_max(&st.own.race_entry, race.entry());
  if (want_mass) token_block_sum(&st.own.kept_mass, kept_mass);
  const token_row_results row_results = combine_row(Clustered && bad);
  const unsigned long long race_entry = row_results.race_entry;
  const unsigned long long kept_mass_sum = row_results.kept_mass;
  // A bad value, or nothing raced: no token has weight (a settled proposal has).
  if (row_results.flag || (race_needed && race_entry == 0)) {
    write_bad();
    return;
  }
  if (race_needed && leader && threadIdx.x < 32) {
    pick(race_entry, need_hist ? tau : 0u, token_draw::final_draw, &st.first_p);
  }
  __syncthreads();
  std::int32_t token = race_needed ? st.first_p : settled;
  if (proposals && race_needed) {  // the race decides only when no proposal lies in K
    const std::int32_t proposed_token = first_in_k(tau);
    if (proposed_token >= 0) token = proposed_token;
  }
  const double kept_total = static_cast<double>(kept_mass_sum) * 0x1p-32;
  if (leader && threadIdx.x == 0) {
    a.tokens[r] = token;
    if (a.logprobs != nullptr) {
      const float s_tok = token_score(token_to_float(row[token]), rule);
      a.logprobs[r] = static_cast<float>(static_cast<double>(s_tok - s_max) - log(kept_total));
    }
  }
  if (a.kept_probs != nullptr) {
    for (std::int64_t j = slice_first + threadIdx.x; j < slice_end; j += token_threads) {
      const float v = token_to_float(row[j]);
      float out = 0.0f;
      if (!need_hist || token_key(token_order_value(v, rule)) >= tau) {
        const float s = token_score(v, rule);
        if (s > -INFINITY) {
          if (!minp_active || token_min_p_keeps(v, s, min_p_bound)) {
            out = static_cast<float>(static_cast<double>(expf(s - s_max)) / kept_total);
          }
        }
      }
      a.kept_probs[r * vocab + j] = out;
    }
  }
}

// Clusters exist from sm_90 on, and the host launches the clustered kernel only there
// (token_launch.cuh): below, its body is not compiled.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr bool token_arch_has_clusters = false;
#else
constexpr bool token_arch_has_clusters = true;
#endif

// Two blocks per multiprocessor, or one for the clustered kernel, whose launches never hold more
// blocks than the device has multiprocessors (token_launch.cuh): it takes the registers of two,
// and spills none (docs/tuning.md).
template <class T, bool Clustered, bool Filtered, token_kernel_values Values>
__global__ void __launch_bounds__(token_threads, Clustered ? 1 : 2) token_sampler_kernel(const token_kernel_args<T> a) {
  if constexpr (Clustered && !token_arch_has_clusters) {
    __trap();
  } else {
    token_sample_row<T, Clustered, Filtered, Values>(a);
  }
}

}  // namespace scankit::device_detail::sampling
