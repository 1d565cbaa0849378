// The token sampler's draw (scankit/token_sampler.hpp): a Gumbel-max race between chunks of 32
// tokens, then an inverse CDF inside the winner. Chunk c runs with score L_c - log E_c, L_c the
// log of its kept weight and E_c = -log(1 - u) an exponential variable from its own Philox draw;
// the highest score wins (ties to the lowest chunk), which picks chunk c with probability
// W_c / sum W whatever order the chunks run in, so the race can be split over threads, passes and
// launches and still give the same token. One Philox draw and a few logarithms per 32 tokens
// leave the pass bound by its loads. Every number comes from correctly or faithfully rounded
// library functions in a fixed order, so it is the same on every GPU.
//
// A chunk's tokens lie in one octet of lanes, four consecutive tokens per lane (the passes'
// layout: lane l of a warp holds group 32 w + l of four tokens).
#pragma once

#include <cstdint>

#include "scankit/detail/philox.hpp"
#include "scankit/device/sampling/token_keys.cuh"

namespace scankit::device_detail::sampling {

// Top-p rows of probabilities at T = 1 without top-k propose up to six tokens before the final
// draw from K (token_sampler.hpp): four from pass 1, whose chunks race with words 0-3 of one draw
// and pick inside the winner with word i of another (token_pick_base), then the retry's two with
// words 0-1 and 2-3 of theirs. Each draw offsets the chunks' counters by its own base, so that no
// two draws share a Philox number (chunk indices stay below 2^58).
enum class token_draw { final_draw, first, retry };
__host__ __device__ constexpr std::uint64_t token_draw_base(token_draw d) {
  return d == token_draw::first ? 1ull << 63 : d == token_draw::retry ? 1ull << 62 : 0ull;
}
// The counters of the inverse CDF inside a race's winning chunk: the race's own, except for the
// first proposals, whose race takes all four words.
__host__ __device__ constexpr std::uint64_t token_pick_base(token_draw d) {
  return d == token_draw::first ? (1ull << 63) + (1ull << 61) : token_draw_base(d);
}
constexpr int token_first_proposals = 4;
// Logits rows propose only when every order value u = s - shift is below this (token_sampler.hpp):
// a chunk's weight, the sum of 32 exp(u), then stays below 32 e^32, and its ratio score W / E
// (E >= 2^-32) finite.
constexpr float token_proposal_shift_limit = 32.0f;

__device__ __forceinline__ scankit::detail::philox_words token_noise(std::uint64_t seed, std::uint64_t offset,
                                                                    std::int64_t group, std::uint64_t base = 0) {
  return scankit::detail::philox4x32_10(static_cast<std::uint64_t>(group) + base, offset, seed);
}

// E = -log(1 - word 2^-32) for the Philox word `word`, from whichever side keeps its precision
// (word != 0).
__device__ __forceinline__ float token_exponential(std::uint32_t word) {
  if (word < 0x80000000u) return -log1pf(-static_cast<float>(word) * 0x1p-32f);
  return -logf(static_cast<float>(0x100000000ull - word) * 0x1p-32f);
}
// s - log E (+infinity for word 0, E = 0).
__device__ __forceinline__ float token_race_score(float s, std::uint32_t word) {
  if (word == 0) return INFINITY;
  return s - logf(token_exponential(word));
}
// The first proposals' score W / E, W a chunk's sum of probabilities (+infinity for word 0). The
// race's order is that of log W - log E, with one logarithm instead of three. E >= u (1 - 2^-20)
// for u = word 2^-32 (E = -log(1 - u) >= u, within the rounding of log1pf and logf), so a chunk
// with W <= best u (1 - 2^-18) scores below `best` in float, whatever the rounding of the bound's
// products and of the division: it cannot win a race that a chunk scoring `best` runs in, and is
// skipped without its logarithm.
__device__ __forceinline__ float token_ratio_score(float w, std::uint32_t word) {
  if (word == 0) return INFINITY;
  return __fdiv_rn(w, token_exponential(word));
}
__device__ __forceinline__ bool token_ratio_below(float w, std::uint32_t word, float best) {
  return w <= best * (static_cast<float>(word) * 0x1p-32f) * (1.0f - 0x1p-18f);
}

// m_c and W_c of the octet's chunk, in every lane of the octet (all 32 lanes call this), and a_q,
// this lane's kept weights relative to m_c (0 for a token not kept), for the chunk's inverse CDF.
struct token_chunk {
  float m;  // largest kept score (-infinity: nothing kept)
  float w;  // sum of the kept weights relative to m (or of the raw probabilities)
};
// raw: probabilities at T = 1, whose weights are the values themselves (m = 0).
__device__ __forceinline__ float token_chunk_weight(float s, float v, float m, bool raw) {
  return raw ? v : expf(s - m);
}
__device__ __forceinline__ token_chunk token_octet_chunk(const bool (&kept)[4], const float (&s)[4],
                                                         const float (&v)[4], bool raw, float (&a)[4]) {
  float m = -INFINITY;
  if (!raw) {
#pragma unroll
    for (int q = 0; q < 4; ++q) m = kept[q] ? fmaxf(m, s[q]) : m;
#pragma unroll
    for (int o = 1; o < 8; o <<= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  } else {
    m = 0.0f;  // settled below: a sum of kept probabilities (each above 0) is above 0
  }
  float x = 0.0f;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    a[q] = kept[q] && m > -INFINITY ? token_chunk_weight(s[q], v[q], m, raw) : 0.0f;
    x = __fadd_rn(x, a[q]);
  }
#pragma unroll
  for (int o = 1; o < 8; o <<= 1) x = __fadd_rn(x, __shfl_xor_sync(0xffffffffu, x, o));
  if (raw && !(x > 0.0f)) m = -INFINITY;
  return token_chunk{m, x};
}
// The same without the lane's weights (the races need only m_c and W_c).
__device__ __forceinline__ token_chunk token_octet_chunk(const bool (&kept)[4], const float (&s)[4],
                                                         const float (&v)[4], bool raw) {
  float a[4];
  return token_octet_chunk(kept, s, v, raw, a);
}

// The inverse CDF inside a race's winning chunk, held by lanes 0-7 as token_octet_chunk's are, with
// the lane's weights a_q it gave (all 32 lanes call it; the other lanes keep nothing): the first
// kept token, in index order, whose
// running weight exceeds `target`, or the last kept one when rounding leaves the chunk's total at
// or below it; its index in the chunk (-1: nothing kept) and its value, in every lane. A token's
// running weight is its lane's own running sum (the lane's four in order) added to the weight of
// the lanes below, an inclusive scan of the octet's lane totals (shuffles up by 1, 2 and 4), so the
// walk is three shuffles deep, not 32 additions. token_sampler_reference.hpp adds in this order.
struct token_chunk_pick {
  int index;
  float value;
};
__device__ __forceinline__ token_chunk_pick token_octet_pick(const bool (&kept)[4], const float (&a)[4],
                                                            const float (&v)[4], float target) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int l = lane & 7;
  float run[4];
  float total = 0.0f;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    total = __fadd_rn(total, a[q]);
    run[q] = total;
  }
  float inclusive = total;
#pragma unroll
  for (int o = 1; o < 8; o <<= 1) {
    const float y = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (l >= o) inclusive = __fadd_rn(y, inclusive);
  }
  float below = __shfl_up_sync(0xffffffffu, inclusive, 1);
  if (l == 0) below = 0.0f;
  int first = -1, last = -1;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if (!kept[q]) continue;
    if (first < 0 && __fadd_rn(below, run[q]) > target) first = q;
    last = q;
  }
  const unsigned hit = __ballot_sync(0xffffffffu, lane < 8 && first >= 0);
  const unsigned any = __ballot_sync(0xffffffffu, lane < 8 && last >= 0);
  const int mine = hit != 0 ? first : last;
  // A select, not an index: an array indexed at run time would live in local memory.
  const float mine_v = mine == 0 ? v[0] : mine == 1 ? v[1] : mine == 2 ? v[2] : v[3];
  const int src = hit != 0 ? __ffs(hit) - 1 : any != 0 ? 31 - __clz(any) : 0;
  const int q = __shfl_sync(0xffffffffu, mine, src);
  const float value = __shfl_sync(0xffffffffu, mine_v, src);
  if (any == 0) return token_chunk_pick{-1, 0.0f};
  return token_chunk_pick{4 * src + q, value};
}

// A race entry ordered by score, then by the lower index: the block's winner is the max.
__device__ __forceinline__ unsigned long long token_race_entry(float score, std::int64_t index) {
  return (static_cast<unsigned long long>(token_key(score)) << 32) |
         static_cast<unsigned long long>(0xffffffffu - static_cast<std::uint32_t>(index));
}
__device__ __forceinline__ std::int32_t token_race_index(unsigned long long entry) {
  return static_cast<std::int32_t>(0xffffffffu - static_cast<std::uint32_t>(entry));
}

// One thread's running race over chunks.
struct token_race {
  float best = -INFINITY;
  std::int32_t index = -1;  // chunk indices fit 32 bits: tokens are int32

  __device__ __forceinline__ void run(std::int32_t chunk, float score) {
    if (index < 0 || score > best || (score == best && chunk < index)) {
      best = score;
      index = chunk;
    }
  }
  __device__ __forceinline__ unsigned long long entry() const {
    return index < 0 ? 0ull : token_race_entry(best, index);
  }
};

// Chunks scored a warp at a time. A round of a row loop leaves four chunks per warp, one per octet;
// each is held by one lane of its octet (lane 8 o + round), so after eight rounds every lane holds
// a chunk and the warp draws 32 Philox numbers and logarithms in one go, not four per round. The
// race is order-independent (see above), so scoring late changes no token.
struct token_race_batch {
  std::int32_t chunk = -1;  // -1: nothing held (or the chunk keeps nothing)
  token_chunk held{-INFINITY, 0.0f};

  // Every lane of the octet calls this with the octet's chunk; round in [0, 8).
  __device__ __forceinline__ void hold(int round, std::int64_t chunk_index, const token_chunk& c, bool join) {
    if ((threadIdx.x & 7) == static_cast<unsigned>(round)) {
      chunk = join && c.m > -INFINITY ? static_cast<std::int32_t>(chunk_index) : -1;
      held = c;
    }
  }
  // The first proposals' N races (probabilities at T = 1) from the same chunks, race i scored by
  // W / E of word i of each chunk's draw (token_ratio_score), run into the block's race entries
  // `entries` (shared memory, zeroed before the pass). A chunk whose score is below the entry a
  // thread reads is skipped (token_ratio_below): that entry is the score of some chunk of the block
  // (entries only grow, through atomicMax, and a 64-bit shared load is one access), so the skipped
  // chunk cannot win. The warp's chunks that are not skipped meet in a shuffle maximum per race,
  // and one lane adds it with atomicMax: the block's first flushes, before any entry holds a score
  // to skip against, would otherwise send every chunk of the block to the same four words. After
  // the pass's barrier each entry is the block's maximum. Once a block has met a few hundred chunks
  // nearly every chunk is skipped, which leaves one Philox draw per 32 tokens. Every lane of the
  // warp calls this.
  template <int N>
  __device__ __forceinline__ void flush_ratio(std::uint64_t seed, std::uint64_t offset, std::uint64_t base,
                                              unsigned long long* entries) {
    static_assert(N <= 4, "a draw has four words");
    if (__any_sync(0xffffffffu, chunk >= 0)) {
      unsigned long long better[N] = {};  // this lane's entries above what it read (0: none)
      if (chunk >= 0) {
        const scankit::detail::philox_words words = token_noise(seed, offset, chunk, base);
#pragma unroll
        for (int i = 0; i < N; ++i) {
          const unsigned long long current = *static_cast<volatile unsigned long long*>(&entries[i]);
          if (current != 0 &&
              token_ratio_below(held.w, words.x[i], token_value(static_cast<std::uint32_t>(current >> 32)))) {
            continue;
          }
          const unsigned long long entry = token_race_entry(token_ratio_score(held.w, words.x[i]), chunk);
          if (entry > current) better[i] = entry;
        }
      }
#pragma unroll
      for (int i = 0; i < N; ++i) {
        unsigned long long x = better[i];
        if (__any_sync(0xffffffffu, x != 0)) {
#pragma unroll
          for (int o = 16; o > 0; o >>= 1) {
            const unsigned long long y = __shfl_xor_sync(0xffffffffu, x, o);
            x = y > x ? y : x;
          }
          if ((threadIdx.x & 31) == 0) atomicMax(&entries[i], x);
        }
      }
    }
    chunk = -1;
  }
  // Every lane of the warp calls this: the held chunks race (N races, race i scored by word
  // i * Stride of each chunk's draw: run(i, chunk, score) for each), and the lanes are emptied.
  template <int N, int Stride, class Run>
  __device__ __forceinline__ void flush_each(std::uint64_t seed, std::uint64_t offset, std::uint64_t base, Run run) {
    static_assert((N - 1) * Stride < 4, "a draw has four words");
    if (__any_sync(0xffffffffu, chunk >= 0) && chunk >= 0) {
      const scankit::detail::philox_words words = token_noise(seed, offset, chunk, base);
      const float log_weight = held.m + logf(held.w);
#pragma unroll
      for (int i = 0; i < N; ++i) run(i, chunk, token_race_score(log_weight, words.x[i * Stride]));
    }
    chunk = -1;
  }
};

}  // namespace scankit::device_detail::sampling
