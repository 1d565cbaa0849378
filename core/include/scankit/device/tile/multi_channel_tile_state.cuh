// Tile layer: the published state of each tile when a tile has many independent counts.
//
// Why. A one-sweep radix sort pass needs, for every tile and every digit d, the number of keys
// with digit d in all earlier tiles. That is `channels` independent exclusive prefix sums over
// the tiles, one per digit, each with its own decoupled look-back (channel_look_back.cuh). A
// single tile_state over a struct of all counts would make every look-back step move the whole
// histogram and wait for the slowest channel; one word per (tile, channel) lets each channel's
// look-back run on its own, one thread per channel.
//
// Layout. One 8-byte slot per (tile, channel), [tile][channel], channel-minor: the `channels`
// threads that publish one tile's counts store one contiguous run of slots (coalesced), and the
// threads that look back over the same predecessor tile load one contiguous run too.
//
// Word. The same packed word as tile_state's packed representation (tile_state.cuh): the status
// (epoch << 2 | flag) in the low 32 bits, the count in the high 32. The epoch is the launch's,
// drawn with the tile's ticket on the device (tile_ticket.cuh): a slot left by an earlier launch
// carries another epoch and reads as flag_none, so the slots need no clearing between launches
// (the wrap launch clears them through finish_tile_states, given the whole slot region).
//
// Memory order. Relaxed loads and stores at device scope suffice. The count travels in the same
// 64-bit word as its status, and an aligned 64-bit atomic access is single-copy atomic, so a
// reader that sees this launch's status sees the count stored with it. Nothing else is
// communicated through the state: the counts a tile publishes come from its own shared memory,
// and what a tile learns (its exclusive prefixes) it uses only itself. A caller that needs other
// memory ordered by the protocol must add its own fences (as tile_prefix_op.cuh does).
//
// Limits. Count is an unsigned integer of at most 4 bytes; the sums are taken modulo its range.
// Each channel's total over the whole launch must fit it: with 32-bit counts, fewer than 2^32
// items per launch. Epochs take 30 bits of the status (max_epoch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda/atomic>

#include "scankit/device/tile/tile_state.cuh"

namespace scankit::device_detail {

// 8-byte slots a launch of `tiles` tiles with `channels` counts per tile needs.
__host__ __device__ constexpr std::size_t multi_channel_state_slots(std::size_t tiles, std::size_t channels) {
  return tiles * channels;
}

// A view of the slots, passed by value as a kernel argument; each block sets `epoch` from its
// drawn ticket (with_epoch).
template <class Count = std::uint32_t>
struct multi_channel_tile_state {
  static_assert(std::is_integral_v<Count> && std::is_unsigned_v<Count> && sizeof(Count) <= 4,
                "counts are unsigned integers that fit the 32 value bits of a packed word");

  std::uint64_t* slots;  // multi_channel_state_slots(tiles, channels), 8-byte aligned
  std::uint32_t channels;
  std::uint32_t epoch;

  __host__ __device__ multi_channel_tile_state with_epoch(std::uint32_t launch_epoch) const {
    multi_channel_tile_state state = *this;
    state.epoch = launch_epoch;
    return state;
  }

  __device__ __forceinline__ std::uint64_t& slot(long long tile, std::uint32_t channel) const {
    return slots[static_cast<std::size_t>(tile) * channels + channel];
  }

  __device__ __forceinline__ void publish(long long tile, std::uint32_t channel, tile_flag flag,
                                          Count count) const {
    std::uint32_t bits = 0;
    memcpy(&bits, &count, sizeof(Count));
    const std::uint64_t word = (static_cast<std::uint64_t>(bits) << 32) | ((epoch << 2) | flag);
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(slot(tile, channel))
        .store(word, cuda::memory_order_relaxed);
  }

  // The channel's flag for the tile in this launch (flag_none if nothing is published yet) and,
  // when published, its count.
  __device__ __forceinline__ tile_flag read(long long tile, std::uint32_t channel, Count& count) const {
    const std::uint64_t word =
        cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(slot(tile, channel)).load(cuda::memory_order_relaxed);
    const auto status = static_cast<std::uint32_t>(word);
    if ((status >> 2) != epoch) return flag_none;
    const auto bits = static_cast<std::uint32_t>(word >> 32);
    memcpy(&count, &bits, sizeof(Count));
    return static_cast<tile_flag>(status & 3u);
  }
};

}  // namespace scankit::device_detail
