// Block layer of the radix sort: the stable rank of every key of a tile among the tile's keys of
// the same digit, by warp-level multisplit.
//
// A warp holds 32 x ItemsPerThread consecutive keys, row j (item j of every lane) being keys
// 32j .. 32j + 31 of its share. For each row, match_digit groups the lanes by digit; the
// highest lane of a group (its leader) reads the warp's running position of that digit and adds
// the group's size, and every lane's position is that value plus the number of its group's lanes
// below it. Rows go in order, so positions follow the input order: the sort is stable. The
// running positions live in shared memory, one row of Radix counters per warp (starting where the
// caller wants the warp's keys of each digit to go); a __syncwarp between rows orders one
// leader's update before the next row's leader (maybe another lane) reads it.
//
// Two ways to find a row's lanes of one digit: match_digit (one ballot per digit bit, as CUB's
// onesweep does), or match_digit_by_atomic_or (one shared atomic and one load per key, through a
// per-warp array of one mask word per digit): fewer instructions per row, but lanes of one digit
// contend for one word, so tiles of few distinct digits pay more.
#pragma once

#include <cstddef>

#include "scankit/device/sort/packed_fields.cuh"
#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

// Shared-memory slot of tile position p in an exchange: one padding slot after every 32, so that
// runs of one digit whose starts lie a multiple of 32 apart (a tile with few distinct digits in
// equal runs, as sorted input gives) do not all land in one bank.
__device__ __forceinline__ int radix_exchange_slot(int p) { return p + (p >> 5); }

__device__ __forceinline__ unsigned lanes_below_mask() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

// The lanes whose digit equals this lane's (for a lane with valid == false: no valid lane's).
// Lanes outside the tile pass valid == false; Full says there are none. The digit sits in bits
// [offset, offset + RadixBits) of `word`. One ballot per bit; each lane keeps the ballot where its
// own bit is set and the complement where it is clear. Written in PTX so that ptxas sees one
// predicate per bit of the same register and moves them all at once (R2P): the C++ form of the
// same test costs a shift, a mask and a compare per bit.
template <int RadixBits, bool Full>
__device__ __forceinline__ unsigned match_digit(unsigned word, int offset, bool valid) {
  unsigned peers = Full ? full_warp_mask : __ballot_sync(full_warp_mask, valid);
#pragma unroll
  for (int b = 0; b < RadixBits; ++b) {
    unsigned votes;
    asm("{\n\t.reg .pred p;\n\t"
        "and.b32 %0, %1, %2;\n\t"
        "setp.ne.u32 p, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
        "@!p not.b32 %0, %0;\n\t}"
        : "=r"(votes)
        : "r"(word), "r"(1u << (offset + b)));
    peers &= votes;
  }
  return peers;
}

// The lanes whose digit equals this lane's, through `masks` (the warp's array of one word per
// digit, all zero on entry; this lane's digit's word is zero again once the caller's next
// __syncwarp has passed, see below). Invalid lanes get no peers. Each valid lane ors its bit into
// its digit's word; the __syncwarp orders those atomics before every lane's load of its word.
__device__ __forceinline__ unsigned match_digit_by_atomic_or(unsigned* masks, unsigned digit, bool valid) {
  if (valid) atomicOr(&masks[digit], 1u << lane_id());
  __syncwarp();
  return valid ? masks[digit] : 0u;
}

// The rank's mask words in a kernel's dynamic shared memory: 16-byte aligned after the kernel's
// `exchange_bytes`, one word per warp and digit when Policy::rank_by_atomic_or (else none).
template <class Policy>
constexpr std::size_t rank_masks_offset(std::size_t exchange_bytes) {
  return (exchange_bytes + 15) / 16 * 16;
}
template <class Policy>
constexpr std::size_t with_rank_masks(std::size_t exchange_bytes) {
  return Policy::rank_by_atomic_or ? rank_masks_offset<Policy>(exchange_bytes) + sizeof(unsigned) * Policy::warps * Policy::radix
                                   : exchange_bytes;
}

// digits.get(j): the digit of item j, for the items with valid(j) (those inside the tile).
// On return positions.get(j) is the item's position (or its exchange slot, PadSlots):
// warp_counts[d] as it was, plus the item's rank among the warp's items of digit d; warp_counts[d]
// has grown by the warp's number of such items.
// Rows at or beyond `rows` (a warp-uniform count) are not ranked. PadSlots: positions are given
// as exchange slots (radix_exchange_slot); without it, as plain positions. MatchByAtomicOr: the
// lanes of a digit come from match_digit_by_atomic_or on warp_masks (the warp's zeroed mask words,
// zero again on return), else from the ballots of match_digit.
template <int ItemsPerThread, int RadixBits, bool Full, bool PadSlots, class Valid, bool MatchByAtomicOr = false>
__device__ __forceinline__ void warp_rank_digits(const packed_fields<ItemsPerThread, 8>& digits,
                                                 packed_fields<ItemsPerThread, 16>& positions, unsigned* warp_counts,
                                                 Valid valid_item, int rows = ItemsPerThread,
                                                 unsigned* warp_masks = nullptr) {
  const int lane = lane_id();
  const unsigned below = lanes_below_mask();
#pragma unroll
  for (int j = 0; j < ItemsPerThread; ++j) {
    if (j >= rows) break;
    const unsigned digit = digits.get(j);
    const bool valid = Full || valid_item(j);
    unsigned peers;
    if constexpr (MatchByAtomicOr) {
      peers = match_digit_by_atomic_or(warp_masks, digit, valid);
    } else {
      peers = match_digit<RadixBits, Full>(digits.words[j / 4], (j % 4) * 8, valid);
    }
    const int leader = 31 - __clz(peers);
    unsigned count = 0;
    if (valid && lane == leader) {
      count = warp_counts[digit];
      warp_counts[digit] = count + __popc(peers);
    }
    count = __shfl_sync(full_warp_mask, count, leader & 31);
    // Every lane loaded its mask word before the shuffle (the leader's index depends on it), so
    // the leader may clear the word now; the __syncwarp below orders the clear before the next
    // row's atomics.
    if constexpr (MatchByAtomicOr) {
      if (valid && lane == leader) warp_masks[digit] = 0u;
    }
    const int position = static_cast<int>(count + __popc(peers & below));
    positions.set(j, PadSlots ? radix_exchange_slot(position) : position);
    __syncwarp();
  }
}

}  // namespace scankit::device_detail
