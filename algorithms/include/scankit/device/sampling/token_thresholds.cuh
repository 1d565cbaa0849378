// The token sampler's building blocks below the kernel (token_sampler_kernel.cuh): the block's
// shared memory, the row loops, block reductions, and the thresholds: the bins' running sums, the
// refinement of one bin, and the boundary tokens sorted and summed on chip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "scankit/device/sampling/token_keys.cuh"
#include "scankit/device/sampling/token_row_blocks.cuh"
#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail::sampling {

constexpr int token_threads = 384;
constexpr int token_max_candidates = 2048;
// The filtered kernel's row loops over at most this many groups of four per thread run one copy
// of their body (token_for_each_full_group; docs/tuning.md).
constexpr int token_compact_groups = 16;

// Dynamic shared memory of a block.
struct token_shared {
  std::uint32_t count_incl[token_bins + 1];  // tokens in bins >= b ([token_bins]: 0)
  std::uint32_t mass[token_bins];            // integer mass of bin b
  double w_above[token_bins];                // weight of the bins above b
  std::int32_t deferred[token_max_candidates];  // chunks holding candidates, raced after tau is known
  union {
    struct {
      unsigned long long entry[token_max_candidates];  // (key << 32) | ~index, sorted descending
      std::uint64_t mass_incl[token_max_candidates];   // integer mass at or above, within its bin
    } candidates;
    struct {
      std::uint32_t count[token_bins];
      std::uint32_t mass[token_bins];
    } sub;
  };
};

// 4096 words of shared memory that hold no sub-bin count (the candidates' masses, unused while
// sub-bins are counted): the scratch of sub-bin counts summed over a cluster.
__device__ __forceinline__ std::uint32_t* token_sub_scratch(token_shared& sm) {
  return reinterpret_cast<std::uint32_t*>(sm.candidates.mass_incl);
}
// The same for the bins' counts in pass 1, when neither sub-bins nor candidates are in use.
__device__ __forceinline__ std::uint32_t* token_bin_scratch(token_shared& sm) {
  return reinterpret_cast<std::uint32_t*>(sm.candidates.entry);
}

// The first proposals of logits rows: expf of each bin's top, in the sub-bin counts' words, which
// nothing uses during pass 1 (the cluster's sums of pass 1 begin with a cluster barrier, after
// every block's pass 1, and only then write token_bin_scratch, which overlaps them).
__device__ __forceinline__ float* token_bin_top_scales(token_shared& sm) {
  static_assert(sizeof(std::declval<token_shared&>().sub.count) >= token_bins * sizeof(float), "a scale per bin");
  return reinterpret_cast<float*>(sm.sub.count);
}

// The scratch of summed counts overlaps nothing in use while it is (token_sub_scratch and
// token_bin_scratch).
static_assert(sizeof(std::declval<token_shared&>().candidates.mass_incl) >=
                      2 * sizeof(std::declval<token_shared&>().sub.count) &&
                  sizeof(std::declval<token_shared&>().candidates.entry) >= 2 * sizeof(token_shared::mass) &&
                  offsetof(token_shared, candidates.mass_incl) >=
                      offsetof(token_shared, sub.mass) + sizeof(std::declval<token_shared&>().sub.mass),
              "the scratch overlaps the counts it sums");

struct token_row_state {
  std::int64_t input_row;
  float temperature, top_p, min_p;
  std::int32_t top_k;
  std::uint64_t seed, offset;
  bool bad;
  // This block's results (token_row_blocks.cuh): its bad-value flag, (key << 32) | ~index of its
  // largest value (lowest index), its race entry, and the sum over its kept tokens of floor(w 2^32).
  token_row_results own;
  // Results the block shares, each written once before a barrier and read after it.
  int bin_k, bin_min, bin_p, bin_p_exact, candidate_count, deferred_count, end_k, first_p;
  // token_refine's results: the threshold key, the bin's integer mass at or above it; and per
  // level the sub-bin found with the count and mass of the sub-bins above it.
  std::uint32_t key_result;
  std::uint64_t mass_result;
  int found_sub;
  std::uint32_t found_count_above;
  std::uint32_t found_count;  // tokens of the sub-bin found
  std::uint64_t found_mass_above;
};

// ---- loading -----------------------------------------------------------------------------------

template <class T>
struct token_vector;
template <>
struct token_vector<float> {
  using type = float4;
};
template <>
struct token_vector<__half> {
  using type = uint2;
};
template <>
struct token_vector<__nv_bfloat16> {
  using type = uint2;
};

// Values 4g .. 4g + 3 of a row whose alignment and length allow one vector load of them.
template <class T>
__device__ __forceinline__ void token_load_whole_group(const T* row, std::int64_t g, float (&v)[4]) {
  const auto raw = __ldg(reinterpret_cast<const typename token_vector<T>::type*>(row + 4 * g));
  if constexpr (sizeof(T) == 4) {
    v[0] = raw.x, v[1] = raw.y, v[2] = raw.z, v[3] = raw.w;
  } else {
    T h[4];
    memcpy(h, &raw, sizeof(h));
#pragma unroll
    for (int q = 0; q < 4; ++q) v[q] = token_to_float(h[q]);
  }
}

// Values 4g .. 4g + 3 of the row (n of them inside it).
template <class T>
__device__ __forceinline__ int token_load_group(const T* row, std::int64_t vocab, std::int64_t g, bool aligned,
                                                float (&v)[4]) {
  const std::int64_t j = 4 * g;
  if (j >= vocab) return 0;
  if (aligned && j + 3 < vocab) {
    token_load_whole_group(row, g, v);
    return 4;
  }
  const int n = vocab - j < 4 ? static_cast<int>(vocab - j) : 4;
#pragma unroll
  for (int q = 0; q < 4; ++q) v[q] = q < n ? token_to_float(row[j + q]) : 0.0f;
  return n;
}

struct token_no_op {
  __device__ __forceinline__ void operator()() const {}
};

// The groups of four [begin, end) of a block's slice of the row (the whole row without a slice).
struct token_group_range {
  std::int64_t begin, end;
};
template <class Slice>
__device__ __forceinline__ token_group_range token_groups_of(std::int64_t vocab, const Slice& slice) {
  const std::int64_t row_groups = (vocab + 3) / 4;
  if constexpr (std::is_same_v<Slice, token_slice>) {
    return {slice.begin, slice.end < row_groups ? slice.end : row_groups};
  } else {
    return {0, row_groups};
  }
}


// The Unroll groups in v through one copy of f (token_for_each_full_group): group u is in v[0] on
// turn u (the registers move down; an array indexed at run time would live in local memory).
template <int Unroll, class Full, class F, class Next>
__device__ __forceinline__ void token_take_turns(Full full, F& f, Next& next_round, float (&v)[Unroll][4],
                                                 int (&n)[Unroll], std::int64_t g0, const int& round) {
#pragma unroll 1
  for (int u = 0; u < Unroll; ++u) {
    f(full, g0 + u * token_threads, v[0], n[0], round);
    next_round();
#pragma unroll
    for (int w = 0; w + 1 < Unroll; ++w) {
      n[w] = n[w + 1];
#pragma unroll
      for (int q = 0; q < 4; ++q) v[w][q] = v[w + 1][q];
    }
  }
}

// Calls f(full, g, v, n, round) for every group of 4 values of `slice` this thread owns, Unroll groups'
// loads in flight, with round counting the calls modulo 8; and done() after every 8 rounds (Unroll
// divides 8) and once at the end, from one call site: done() is the race's flush, the largest code
// of a pass, and every copy of it is fetched by every multiprocessor. `full` tells at compile time
// that every group of the warp's Unroll rounds is whole (the common case: no bounds tests, n == 4).
// Every lane of a warp makes the same calls (n == 0 past the row's end), so f and done may use
// warp intrinsics.
// f is compiled Unroll times with full groups, and once for groups that are not (the Unroll groups
// whose loads are in flight take turns in that copy). With Compact, slices of at most
// token_compact_groups per thread take turns in one more copy for full groups: they are too short
// for f's unrolled copies to be fetched in less time than they save. The unfiltered kernel passes
// Compact false: its bodies are small, and one copy was slower there (docs/tuning.md). Either way
// f sees the same calls in the same order.
template <int Unroll = 4, bool Compact = true, class T, class F, class Done = token_no_op,
          class Slice = token_whole_row>
__device__ __forceinline__ void token_for_each_full_group(const T* row, std::int64_t vocab, F f, Done done = {},
                                                          Slice slice = {}) {
  constexpr int unroll = Unroll;
  static_assert(8 % unroll == 0, "a turn's rounds end within a round of eight");
  constexpr bool sliced = std::is_same_v<Slice, token_slice>;
  const token_group_range range = token_groups_of(vocab, slice);  // this block's groups
  const std::int64_t begin = range.begin, groups = range.end;
  const bool aligned = reinterpret_cast<std::uintptr_t>(row) % (4 * sizeof(T)) == 0;
  const int lane = lane_id();
  int round = 0;
  auto next_round = [&] { round = (round + 1) & 7; };
  const bool compact = Compact && groups - begin <= static_cast<std::int64_t>(token_compact_groups) * token_threads;
  for (std::int64_t g0 = begin + threadIdx.x;; g0 += unroll * token_threads) {
    const bool more = g0 - lane < groups;  // the warp's first group: the same in every lane
    if (more) {
      float v[unroll][4];
      int n[unroll];
      const std::int64_t last = g0 + (unroll - 1) * token_threads;
      if (__all_sync(full_warp_mask, aligned && (!sliced || last < groups) && 4 * last + 3 < vocab)) {
#pragma unroll
        for (int u = 0; u < unroll; ++u) token_load_whole_group(row, g0 + u * token_threads, v[u]), n[u] = 4;
        if (compact) {
          token_take_turns<unroll>(std::true_type{}, f, next_round, v, n, g0, round);
        } else {
#pragma unroll
          for (int u = 0; u < unroll; ++u) f(std::true_type{}, g0 + u * token_threads, v[u], 4, round), next_round();
        }
      } else {
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
          const std::int64_t g = g0 + u * token_threads;
          n[u] = !sliced || g < groups ? token_load_group(row, vocab, g, aligned, v[u]) : 0;
          if (n[u] == 0) v[u][0] = v[u][1] = v[u][2] = v[u][3] = 0.0f;
        }
        token_take_turns<unroll>(std::false_type{}, f, next_round, v, n, g0, round);
      }
    }
    // A turn's unroll rounds start at a multiple of unroll, so 8 rounds end only with a turn; at
    // the end, the rounds held since the last done().
    if (more ? round == 0 : round != 0) done();
    if (!more) break;
  }
}

// The same for an f(g, v, n, round) compiled once.
template <int Unroll = 4, class T, class F, class Done = token_no_op, class Slice = token_whole_row>
__device__ __forceinline__ void token_for_each_group(const T* row, std::int64_t vocab, F f, Done done = {},
                                                     Slice slice = {}) {
  token_for_each_full_group<Unroll>(
      row, vocab, [&](auto, std::int64_t g, const float(&v)[4], int n, int round) { f(g, v, n, round); }, done,
      slice);
}

// Adds a token to a shared histogram: 32-bit atomics, which shared memory does natively (the
// masses' unit keeps every bin's sum below 2^31, token_keys.cuh).
__device__ __forceinline__ void token_hist_add(std::uint32_t* count, std::uint32_t* mass, bool valid, int bin,
                                               std::uint32_t m, bool skip_zero = true) {
  if (!valid) return;
  atomicAdd(&count[bin], 1u);
  if (!skip_zero || m != 0) atomicAdd(&mass[bin], m);
}

// ---- block reductions --------------------------------------------------------------------------

__device__ __forceinline__ void token_block_max(unsigned long long* target, unsigned long long x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long y = __shfl_xor_sync(full_warp_mask, x, o);
    x = y > x ? y : x;
  }
  if (lane_id() == 0 && x != 0) atomicMax(target, x);
}

__device__ __forceinline__ void token_block_sum(unsigned long long* target, unsigned long long x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(full_warp_mask, x, o);
  if (lane_id() == 0 && x != 0) atomicAdd(target, x);
}

__device__ __forceinline__ unsigned long long token_max_entry(std::uint32_t key, std::int64_t j) {
  return (static_cast<unsigned long long>(key) << 32) | (0xffffffffu - static_cast<std::uint32_t>(j));
}

// ---- the bins ----------------------------------------------------------------------------------

// The sums over the bins split them alike (token_scan_bins, token_sums_around): each thread adds
// token_bins_per_thread bins from token_thread_top_bin() down, thread 0 the highest.
constexpr int token_bins_per_thread = (token_bins + token_threads - 1) / token_threads;
__device__ __forceinline__ int token_thread_top_bin() {
  return token_bins - 1 - static_cast<int>(threadIdx.x) * token_bins_per_thread;
}

// count_incl and w_above from the bins' counts (in count_incl) and weights (in w_above), by the
// whole block: each thread takes its bins (token_thread_top_bin), a warp scan
// and the warps' totals in warp order give each thread the sums above its bins. The additions'
// order is fixed, so every block of every launch gets the same doubles. Every thread calls it;
// the caller's next barrier publishes the results.
inline __device__ void token_scan_bins(token_shared& sm) {
  constexpr int per_thread = token_bins_per_thread;
  constexpr int warps = token_threads / 32;
  __shared__ std::uint32_t warp_count[warps];
  __shared__ double warp_weight[warps];
  const int top = token_thread_top_bin();
  std::uint32_t c = 0;
  double w = 0.0;
#pragma unroll
  for (int i = 0; i < per_thread; ++i) {
    if (top - i >= 0) c += sm.count_incl[top - i], w += sm.w_above[top - i];
  }
  std::uint32_t c_in = c;  // inclusive over the warp's lanes, lane order = descending bins
  double w_in = w;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const std::uint32_t cy = __shfl_up_sync(full_warp_mask, c_in, o);
    const double wy = __shfl_up_sync(full_warp_mask, w_in, o);
    if (lane_id() >= o) c_in += cy, w_in = wy + w_in;
  }
  if (lane_id() == 31) warp_count[warp_id()] = c_in, warp_weight[warp_id()] = w_in;
  __syncthreads();
  std::uint32_t c_ex = c_in - c;
  double w_ex = __shfl_up_sync(full_warp_mask, w_in, 1);
  if (lane_id() == 0) w_ex = 0.0;
  std::uint32_t c_warps = 0;
  double w_warps = 0.0;
  for (int k = 0; k < warp_id(); ++k) c_warps += warp_count[k], w_warps += warp_weight[k];
  c_ex += c_warps;
  w_ex = w_warps + w_ex;
#pragma unroll
  for (int i = 0; i < per_thread; ++i) {
    const int b = top - i;
    if (b < 0) break;
    const std::uint32_t cb = sm.count_incl[b];
    const double wb = sm.w_above[b];
    c_ex += cb;
    sm.count_incl[b] = c_ex;
    sm.w_above[b] = w_ex;
    w_ex += wb;
  }
  if (threadIdx.x == 0) sm.count_incl[token_bins] = 0;
}

// Before token_scan_bins, with each bin's own weight in w_above: for each of the bins b_i
// (b_i < 0: none), the weight of the bins above b_i and of b_i itself, and the weight of all bins.
// Every thread calls it and gets the same sums: each thread adds the bins token_scan_bins gives it,
// and the warps' sums are added in warp order. The next barrier ends its reads of the warps' sums.
constexpr int token_sum_bins = 4;
struct token_bin_sums {
  double above[token_sum_bins], at[token_sum_bins], all;
};
inline __device__ token_bin_sums token_sums_around(const token_shared& sm, const int (&bins)[token_sum_bins]) {
  constexpr int per_thread = token_bins_per_thread;
  constexpr int warps = token_threads / 32;
  constexpr int fields = 2 * token_sum_bins + 1;
  __shared__ double warp_sums[warps][fields];
  const int top = token_thread_top_bin();
  double x[fields] = {};
#pragma unroll
  for (int j = 0; j < per_thread; ++j) {
    const int b = top - j;
    const double w = b >= 0 ? sm.w_above[b] : 0.0;
#pragma unroll
    for (int i = 0; i < token_sum_bins; ++i) {
      x[i] += b > bins[i] ? w : 0.0;
      x[token_sum_bins + i] += b == bins[i] ? w : 0.0;
    }
    x[2 * token_sum_bins] += w;
  }
#pragma unroll
  for (int f = 0; f < fields; ++f) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x[f] += __shfl_xor_sync(full_warp_mask, x[f], o);
  }
  if (lane_id() == 0) {
#pragma unroll
    for (int f = 0; f < fields; ++f) warp_sums[warp_id()][f] = x[f];
  }
  __syncthreads();
  token_bin_sums sums{};
  for (int w = 0; w < warps; ++w) {
#pragma unroll
    for (int i = 0; i < token_sum_bins; ++i) {
      sums.above[i] += warp_sums[w][i];
      sums.at[i] += warp_sums[w][token_sum_bins + i];
    }
    sums.all += warp_sums[w][2 * token_sum_bins];
  }
  return sums;
}

// The weight of tokens of `bin` at or above some key whose integer mass there is `mass_int`.
__device__ __forceinline__ double token_mass_at(const token_shared& sm, int bin, std::uint64_t mass_int, float u_max,
                                                const token_row_rule& rule) {
  return sm.w_above[bin] + token_bin_weight(mass_int, bin, u_max, rule);
}

// ---- one threshold by refining its bin ---------------------------------------------------------

enum class token_criterion { count, mass };

// The sub-bin search of token_refine, over sub-histograms already in sm.sub (`subs` sub-bins of
// `bin`, above which count_above tokens of integer mass mass_above lie): the highest non-empty
// sub-bin meeting the criterion, with the count and mass above it, into st.found_*. Every thread
// calls it; st is written by the first warp and read after the caller's next barrier.
inline __device__ void token_refine_search(token_shared& sm, token_row_state& st, int bin, int subs,
                                           std::uint32_t count_above, std::uint64_t mass_above,
                                           token_criterion criterion, std::uint32_t need, double target, float u_max,
                                           const token_row_rule& rule) {
  if (threadIdx.x < 32) {
    // Sub-bins from the top, 32 at a time; the first non-empty one that meets the criterion.
    const int lane = threadIdx.x;
    std::uint32_t c_carry = count_above;
    std::uint64_t m_carry = mass_above;
    int found = -1;
    std::uint32_t found_c_ex = 0, found_c = 0;
    std::uint64_t found_m_ex = 0, found_m_in = 0;
    for (int base = subs - 1; base >= 0 && found < 0; base -= 32) {
      const int s = base - lane;
      const std::uint32_t c = s >= 0 ? sm.sub.count[s] : 0;
      const std::uint64_t m = s >= 0 ? sm.sub.mass[s] : 0;
      std::uint32_t c_in = c;
      std::uint64_t m_in = m;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const std::uint32_t cy = __shfl_up_sync(full_warp_mask, c_in, o);
        const std::uint64_t my = __shfl_up_sync(full_warp_mask, m_in, o);
        if (lane >= o) c_in += cy, m_in += my;
      }
      c_in += c_carry;
      m_in += m_carry;
      bool meets = false;
      if (s >= 0 && c != 0) {
        meets = criterion == token_criterion::count ? c_in >= need
                                                      : token_mass_at(sm, bin, m_in, u_max, rule) >= target;
      }
      const unsigned ballot = __ballot_sync(full_warp_mask, meets);
      if (ballot != 0) {
        const int first = __ffs(ballot) - 1;
        found = base - first;
        found_c_ex = __shfl_sync(full_warp_mask, c_in - c, first);
        found_c = __shfl_sync(full_warp_mask, c, first);
        found_m_ex = __shfl_sync(full_warp_mask, m_in - m, first);
        found_m_in = __shfl_sync(full_warp_mask, m_in, first);
      }
      c_carry = __shfl_sync(full_warp_mask, c_in, 31);
      m_carry = __shfl_sync(full_warp_mask, m_in, 31);
    }
    if (lane == 0) {
      st.found_sub = found;
      st.found_count = found_c;
      st.found_count_above = found_c_ex;
      st.found_mass_above = found_m_ex;
      st.mass_result = found_m_in;
    }
  }
}

// token_refine_search's sub-bin for the mass criterion alone, found by the whole block: the
// highest non-empty sub-bin s of `bin` (2048 sub-bins in sm.sub) with mass_at(bin, mass of the
// sub-bins >= s) >= target, into st.found_sub. Each thread takes 6 sub-bins from the top down; a
// block scan gives each the integer mass above its own (the same sums as the one-warp search, in
// any order), and the criterion grows as s falls, so the highest sub-bin meeting it is the
// largest any thread finds. Every thread calls it; st.found_sub is read after the final barrier.
inline __device__ void token_mass_search(token_shared& sm, token_row_state& st, int bin, double target,
                                         float u_max, const token_row_rule& rule) {
  constexpr int per_thread = (token_bins + token_threads - 1) / token_threads;
  constexpr int warps = token_threads / 32;
  __shared__ std::uint64_t warp_mass[warps];
  const int top = token_bins - 1 - static_cast<int>(threadIdx.x) * per_thread;  // this thread's highest
  std::uint64_t mine = 0;
#pragma unroll
  for (int i = 0; i < per_thread; ++i) mine += top - i >= 0 ? sm.sub.mass[top - i] : 0u;
  std::uint64_t incl = mine;  // the warp's inclusive scan, lane order = descending sub-bins
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const std::uint64_t y = __shfl_up_sync(full_warp_mask, incl, o);
    if (lane_id() >= o) incl += y;
  }
  if (lane_id() == 31) warp_mass[warp_id()] = incl;
  if (threadIdx.x == 0) st.found_sub = -1;
  __syncthreads();
  std::uint64_t above = incl - mine;
  for (int w = 0; w < warp_id(); ++w) above += warp_mass[w];
  int found = -1;
  for (int i = 0; i < per_thread && found < 0; ++i) {
    const int sub = top - i;
    if (sub < 0) break;
    above += sm.sub.mass[sub];
    if (sm.sub.count[sub] != 0 && token_mass_at(sm, bin, above, u_max, rule) >= target) found = sub;
  }
  if (found >= 0) atomicMax(&st.found_sub, found);
  __syncthreads();
}

// The largest key t of `bin` (t >= floor) with, counting only tokens >= floor:
//   count: count_above + count(key >= t) >= need;   mass: mass_at(bin, mass(key >= t)) >= target.
// Two passes over 11 and 10 more bits. Returns t in st.key_result and the bin's integer mass at or
// above t in st.mass_result. Every thread calls it. With levels == 1, one pass: st.key_result is
// the lowest key of the 11-bit sub-bin that holds t, st.found_count its tokens, and
// st.found_count_above / st.found_mass_above the count and integer mass of the bin's tokens above it.
// Each block of the row (Blocks, token_row_blocks.cuh) counts its slice; the counts are summed
// over the row's blocks before the search.
template <class Blocks, class T, class Slice>
__device__ void token_refine(const T* row, std::int64_t vocab, Slice slice, token_shared& sm, token_row_state& st,
                             int bin, std::uint32_t floor, token_criterion criterion, std::uint32_t need,
                             double target, float u_max, const token_row_rule& rule, int levels = 2) {
  std::uint32_t prefix = static_cast<std::uint32_t>(bin);
  std::uint32_t count_above = 0;
  std::uint64_t mass_above = 0;
  const float bin_top = token_bin_top(bin);
  for (int level = 1; level <= levels; ++level) {
    const int shift = level == 1 ? 10 : 0;
    const int width = level == 1 ? 11 : 10;
    const int subs = 1 << width;
    for (int i = threadIdx.x; i < subs; i += token_threads) sm.sub.count[i] = 0, sm.sub.mass[i] = 0;
    __syncthreads();
    token_for_each_group(row, vocab, [&](std::int64_t, const float(&v)[4], int n, int) {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const float u = token_order_value(v[q], rule);
        const std::uint32_t key = token_key(u);
        const bool in = q < n && (key >> (shift + width)) == prefix && key >= floor;
        const int s = static_cast<int>((key >> shift) & static_cast<std::uint32_t>(subs - 1));
        token_hist_add(sm.sub.count, sm.sub.mass, in, s, in ? token_bin_mass(u, bin_top, rule) : 0);
      }
    }, token_no_op{}, slice);
    __syncthreads();
    Blocks::sum_arrays(sm.sub.count, sm.sub.mass, subs, token_sub_scratch(sm));
    token_refine_search(sm, st, bin, subs, count_above, mass_above, criterion, need, target, u_max, rule);
    __syncthreads();
    // A threshold always exists (the criterion holds for the bin's lowest token), so s >= 0.
    const int s = st.found_sub;
    count_above = st.found_count_above;
    mass_above = st.found_mass_above;
    prefix = (prefix << width) | static_cast<std::uint32_t>(s < 0 ? 0 : s);
    __syncthreads();  // everyone has read st before the next level writes it
  }
  if (threadIdx.x == 0) st.key_result = levels == 1 ? prefix << 10 : prefix;
  __syncthreads();
}

// ---- candidates --------------------------------------------------------------------------------

// Sorts the n candidate entries descending (bitonic, padded with zeros to a power of two).
inline __device__ void token_sort_candidates(token_shared& sm, int n) {
  int size = 1;
  while (size < n) size <<= 1;
  for (int i = n + threadIdx.x; i < size; i += token_threads) sm.candidates.entry[i] = 0;
  __syncthreads();
  for (int k = 2; k <= size; k <<= 1) {
    for (int stride = k >> 1; stride > 0; stride >>= 1) {
      for (int i = threadIdx.x; i < size / 2; i += token_threads) {
        const int lo = ((i & ~(stride - 1)) << 1) | (i & (stride - 1));  // stride is a power of two
        const int hi = lo + stride;
        const bool descending = (lo & k) == 0;
        const unsigned long long a = sm.candidates.entry[lo], b = sm.candidates.entry[hi];
        if ((a < b) == descending) sm.candidates.entry[lo] = b, sm.candidates.entry[hi] = a;
      }
      __syncthreads();
    }
  }
}

// Warp 0: mass_incl[i] = the integer mass of candidates 0..i of i's bin (sorted descending, so a
// bin's candidates are contiguous).
inline __device__ void token_scan_candidates(token_shared& sm, int n) {
  if (threadIdx.x >= 32) return;
  const int lane = threadIdx.x;
  std::uint64_t carry = 0;
  int carry_bin = -1;
  for (int base = 0; base < n; base += 32) {
    const int i = base + lane;
    const bool valid = i < n;
    std::uint64_t x = valid ? sm.candidates.mass_incl[i] : 0;
    const int b = valid ? token_bin(static_cast<std::uint32_t>(sm.candidates.entry[i] >> 32)) : -2;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const std::uint64_t y = __shfl_up_sync(full_warp_mask, x, o);
      const int by = __shfl_up_sync(full_warp_mask, b, o);
      if (lane >= o && by == b) x += y;
    }
    if (b == carry_bin) x += carry;
    if (valid) sm.candidates.mass_incl[i] = x;
    const int last = (n - base < 32 ? n - base : 32) - 1;
    carry = __shfl_sync(full_warp_mask, x, last);
    carry_bin = __shfl_sync(full_warp_mask, b, last);
  }
}

}  // namespace scankit::device_detail::sampling
