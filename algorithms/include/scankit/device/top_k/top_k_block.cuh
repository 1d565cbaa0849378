// Block-wide steps of the top-k kernel on a buffer of rank keys in shared memory
// (top_k_keys.cuh): appending the items that pass a threshold, finding the k-th largest rank key
// by radix select, keeping only the k largest, and sorting them.
//
// Every function is called by all threads of the block with the same arguments, and starts and
// ends at a __syncthreads: the buffer and the counter are plain shared memory, and the barrier is
// what orders one step's writes before the next step's reads.
#pragma once

#include <cstdint>

#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail::top_k {

constexpr int digit_bits = 8;
constexpr int digit_count = 1 << digit_bits;

template <int Threads>
struct select_storage {
  unsigned int histogram[digit_count];
  int digit;
  int above;     // items in the digits above the chosen one
  int in_digit;  // items in the chosen digit
  int count;     // items in the buffer
  int moved;     // compaction: holes handed out so far
  int holes;
};

// Appends `rank` to the buffer when `keep` (a warp-wide call: every lane of the warp takes part).
// One atomic per warp: the leader reserves room for the warp's kept items, the lanes fill it in
// ballot order. Order in the buffer is not deterministic and need not be: rank keys are distinct.
template <class Rank>
__device__ __forceinline__ void append_if(bool keep, Rank rank, Rank* buffer, int* count) {
  const unsigned kept = __ballot_sync(full_warp_mask, keep);
  if (kept == 0) return;
  const int lane = lane_id();
  const int leader = __ffs(kept) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(count, __popc(kept));
  base = __shfl_sync(full_warp_mask, base, leader);
  if (keep) buffer[base + __popc(kept & ((1u << lane) - 1u))] = rank;
}

// The k-th largest rank key of buffer[0, count) (1 <= k <= count), or a lower bound of it that no
// other item reaches: exactly k items are >= the result. Radix select from the top digit down:
// each round counts the items that share the digits chosen so far, by their next digit, and
// stops as soon as the chosen digit holds exactly the items still needed.
template <int Threads, int Bits, class Rank>
__device__ Rank select_kth(const Rank* buffer, int count, int k, select_storage<Threads>& s) {
  Rank prefix = 0, mask = 0;
  int need = k;
  for (int shift = Bits - digit_bits; shift >= 0; shift -= digit_bits) {
    for (int d = threadIdx.x; d < digit_count; d += Threads) s.histogram[d] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < count; i += Threads) {
      const Rank r = buffer[i];
      if ((r & mask) == prefix) atomicAdd(&s.histogram[static_cast<unsigned>(r >> shift) & (digit_count - 1)], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 32) {
      // Lane l holds digits 255 - 8l down to 248 - 8l: the running sum from the top digit down.
      constexpr int per_lane = digit_count / 32;
      const int lane = lane_id();
      int lane_items = 0;
#pragma unroll
      for (int j = 0; j < per_lane; ++j) lane_items += s.histogram[digit_count - 1 - lane * per_lane - j];
      int before = lane_items;
#pragma unroll
      for (int offset = 1; offset < 32; offset <<= 1) {
        const int up = __shfl_up_sync(full_warp_mask, before, offset);
        if (lane >= offset) before += up;
      }
      before -= lane_items;
#pragma unroll
      for (int j = 0; j < per_lane; ++j) {
        const int d = digit_count - 1 - lane * per_lane - j;
        const int here = static_cast<int>(s.histogram[d]);
        if (before < need && before + here >= need) {
          s.digit = d;
          s.above = before;
          s.in_digit = here;
        }
        before += here;
      }
    }
    __syncthreads();
    prefix |= static_cast<Rank>(s.digit) << shift;
    mask |= static_cast<Rank>(digit_count - 1) << shift;
    need -= s.above;
    const bool exact = s.in_digit == need;
    __syncthreads();  // s.digit and friends are rewritten by the next round
    if (exact) break;  // the whole digit is needed: the prefix, low bits zero, is the bound
  }
  return prefix;
}

// Keeps the k items of buffer[0, count) that are >= bound (exactly k of them) in buffer[0, k):
// each kept item at or past k moves into a hole (an item below bound) before k. The holes' slots
// are listed first, then handed to the movers in any order. s.count becomes k.
template <int Threads, class Rank>
__device__ void keep_largest(Rank* buffer, int count, int k, Rank bound, int* hole_slots, select_storage<Threads>& s) {
  if (threadIdx.x == 0) {
    s.holes = 0;
    s.moved = 0;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < k; i += Threads) {
    if (buffer[i] < bound) hole_slots[atomicAdd(&s.holes, 1)] = i;
  }
  __syncthreads();
  for (int i = k + threadIdx.x; i < count; i += Threads) {
    const Rank r = buffer[i];
    if (r >= bound) buffer[hole_slots[atomicAdd(&s.moved, 1)]] = r;
  }
  if (threadIdx.x == 0) s.count = k;
  __syncthreads();
}

// Sorts buffer[0, size) descending; size is a power of two (bitonic network).
template <int Threads, class Rank>
__device__ void sort_descending(Rank* buffer, int size) {
  for (int span = 2; span <= size; span <<= 1) {
    for (int stride = span >> 1; stride > 0; stride >>= 1) {
      for (int i = threadIdx.x; i < size / 2; i += Threads) {
        const int lo = 2 * i - (i & (stride - 1));
        const int hi = lo + stride;
        const bool descending = (lo & span) == 0;
        const Rank a = buffer[lo], b = buffer[hi];
        if ((a < b) == descending) {
          buffer[lo] = b;
          buffer[hi] = a;
        }
      }
      __syncthreads();
    }
  }
}

}  // namespace scankit::device_detail::top_k
