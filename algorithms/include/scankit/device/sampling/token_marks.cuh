// Group marks: one byte per group of four tokens, written in pass 1, that let the later passes load
// only the groups that can hold a token they use. A filtered pass uses the tokens whose order key
// reaches a floor (the sure bins' floor, the candidates' floor, the min-p bound); a group whose
// largest order value lies below that floor holds none of them and is passed over without a load.
//
// A mark is a code of the group's largest order value u that never decreases as u grows, so that
// u >= floor gives code(u) >= code(floor): skipping the groups whose mark is below the floor's code
// drops no token at or above the floor, whatever the rounding inside the code. The codes resolve
// the ranges where floors lie:
// - probabilities at T = 1 (u the value): the key's bin (a quarter octave) from about 2^-64 up to 1;
// - logits (u = s - shift, shift the largest score of a sample of the row): half a unit of u over
//   [-64, 64), a factor e^0.5 of weight.
// Outside those ranges the codes saturate: a floor there loads more groups, never fewer.
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/device/sampling/token_keys.cuh"
#include "scankit/device/sampling/token_thresholds.cuh"

namespace scankit::device_detail::sampling {

// The marks' room in a block's shared memory (after token_shared in the filtered kernel): a block
// whose slice holds more groups keeps none, and its passes load every group. Two blocks of the
// filtered kernel with marks still fit a multiprocessor (docs/tuning.md).
constexpr int token_mark_bytes = 38912;

// The code of order value u (key: its token_key) for the row's kind of values.
__device__ __forceinline__ std::uint32_t token_mark_of_key(std::uint32_t key) {
  const int code = static_cast<int>(key >> token_bin_shift) - (1532 - 254);  // bin of 1.0 (1532) -> 254
  return static_cast<std::uint32_t>(code < 0 ? 0 : code > 255 ? 255 : code);
}
__device__ __forceinline__ std::uint32_t token_mark_of_logit(float u) {
  // fmaf and floorf round monotonically; NaN makes its row bad before any mark is read.
  const float code = floorf(fmaf(u, 2.0f, 128.0f));
  return code > 0.0f ? static_cast<std::uint32_t>(fminf(code, 255.0f)) : 0u;
}

// The code a group's mark must reach for the group to hold a key >= floor_key (256: no key can).
// Keys below 0x00800000 and from 0xff800000 on are NaN, which no row that reaches a filtered pass
// holds: the lowest stand for every key, the highest for none.
__device__ __forceinline__ std::uint32_t token_mark_floor(std::uint32_t floor_key, bool logits) {
  if (floor_key < 0x00800000u) return 0u;
  if (floor_key >= 0xff800000u) return 256u;
  return logits ? token_mark_of_logit(token_value(floor_key)) : token_mark_of_key(floor_key);
}

// Whether the marked loop pays for this warp at `floor`: it skips the groups below the floor, but
// runs the others through the body's copy for partial groups, so on rows where most groups reach
// the floor (nearly flat rows) the full loop is faster (docs/tuning.md). Judged on the warp's first
// token_mark_sample rounds of groups, from marks this thread wrote; the same in every lane.
constexpr int token_mark_sample = 8;
template <class Slice>
__device__ __forceinline__ bool token_marks_pay(std::int64_t vocab, const std::uint8_t* marks, std::uint32_t floor,
                                                Slice slice) {
  const token_group_range range = token_groups_of(vocab, slice);
  unsigned seen = 0, marked = 0;
#pragma unroll
  for (int u = 0; u < token_mark_sample; ++u) {
    const std::int64_t g = range.begin + threadIdx.x + u * token_threads;
    if (g < range.end) ++seen, marked += marks[g - range.begin] >= floor ? 1u : 0u;
  }
  seen = __reduce_add_sync(full_warp_mask, seen);
  marked = __reduce_add_sync(full_warp_mask, marked);
  return 4 * marked <= seen;  // at most a quarter of the sample reaches the floor
}

// The row loop of token_for_each_full_group for passes that use only tokens whose mark reaches
// `floor`: f(std::false_type, g, v, n, round) for every group of the slice this thread owns (the
// same groups, rounds and done() calls as that loop), with n = 0 and no load for a group whose
// mark is below the floor. Unroll groups' loads are in flight, and f is compiled once. A warp whose
// Unroll groups are all below the floor calls nothing but done(). marks[g - first group of the
// slice] is the mark pass 1 wrote for group g, by this same thread (it owns the same groups in
// every pass), so no barrier orders the two.
template <int Unroll = 4, class T, class F, class Done, class Slice>
__device__ __forceinline__ void token_for_each_marked_group(const T* row, std::int64_t vocab, const std::uint8_t* marks,
                                                            std::uint32_t floor, F f, Done done, Slice slice) {
  static_assert(8 % Unroll == 0, "a turn's rounds end within a round of eight");
  const token_group_range range = token_groups_of(vocab, slice);
  const std::int64_t begin = range.begin, groups = range.end;
  const bool aligned = reinterpret_cast<std::uintptr_t>(row) % (4 * sizeof(T)) == 0;
  const int lane = lane_id();
  int round = 0;
  auto next_round = [&] { round = (round + 1) & 7; };
  for (std::int64_t g0 = begin + threadIdx.x;; g0 += Unroll * token_threads) {
    const bool more = g0 - lane < groups;  // the warp's first group: the same in every lane
    if (more) {
      bool marked[Unroll];
      bool any = false;
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        const std::int64_t g = g0 + u * token_threads;
        marked[u] = g < groups && marks[g - begin] >= floor;
        any |= marked[u];
      }
      if (__any_sync(full_warp_mask, any)) {
        float v[Unroll][4];
        int n[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
          n[u] = marked[u] ? token_load_group(row, vocab, g0 + u * token_threads, aligned, v[u]) : 0;
          if (n[u] == 0) v[u][0] = v[u][1] = v[u][2] = v[u][3] = 0.0f;
        }
        token_take_turns<Unroll>(std::false_type{}, f, next_round, v, n, g0, round);
      } else {
        round = (round + Unroll) & 7;
      }
    }
    if (more ? round == 0 : round != 0) done();
    if (!more) break;
  }
}

}  // namespace scankit::device_detail::sampling
