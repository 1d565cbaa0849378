// Tile layer: the decoupled look-back run per channel of a multi-channel tile state.
//
// Every tile publishes each channel's count as an aggregate as soon as its counts are known
// (tile 0 publishes them as inclusive prefixes: nothing precedes it). Then one thread per channel
// walks back over the tiles before its own, reading that channel's word: an aggregate is added
// and the walk goes on, an inclusive prefix is added and the walk ends, a word not yet published
// is re-read after a back-off. The thread then publishes its tile's inclusive prefix for the
// channel (exclusive prefix + own count). All channels' walks are in flight at once.
//
// Progress. Tile ids come from the ticket, so every predecessor has started; each publishes all
// its aggregates before its own look-back waits on anything, and tile 0 publishes prefixes, so
// every walk ends (by induction over the tiles). No thread waits on a thread of its own block.
//
// The walk adds counts from the nearest tile backwards; unsigned addition is associative and
// commutative, so the order does not matter. Sums wrap modulo Count's range (the limits are in
// multi_channel_tile_state.cuh).
//
// Memory order: as in multi_channel_tile_state.cuh, every count read travels in the same
// single-copy-atomic word as its status, and nothing else is read. A channel's aggregate and
// prefix are stored by the same thread to the same word, so no reader sees the aggregate after
// the prefix (coherence); either one gives a correct sum anyway.
//
// A walk step reads Window predecessors at once (independent loads, all in flight together) and
// adds from the nearest back to the first prefix among them; a word not yet published ends the
// step there, and the next step starts from it after a back-off. With one tile per step a walk of
// L tiles costs L dependent loads; in a one-sweep radix sort pass, where the prefixes are
// published late (after the ranking), walks of four or five tiles are common, and reading a
// window makes them one or two round trips for Window - 1 more loads per channel.
#pragma once

#include <cstdint>

#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tile/multi_channel_tile_state.cuh"
#include "scankit/device/tile/tile_state.cuh"

namespace scankit::device_detail {

// One thread per channel, tile >= 1: the sum of the channel's counts over tiles 0 .. tile - 1.
template <int Window = 1, class Count>
__device__ __forceinline__ Count channel_look_back(const multi_channel_tile_state<Count>& state, long long tile,
                                                   std::uint32_t channel, look_back_backoff backoff) {
  static_assert(Window >= 1 && Window <= 32, "a window of 1 to 32 predecessors");
  Count exclusive = 0;
  long long nearest = tile - 1;  // the nearest predecessor not yet added
  unsigned delay = backoff.first_ns;
  for (;;) {
    Count counts[Window];
    tile_flag flags[Window];
#pragma unroll
    for (int k = 0; k < Window; ++k) {
      flags[k] = flag_prefix;  // below tile 0: never reached (tile 0 publishes a prefix)
      counts[k] = 0;
      if (nearest - k >= 0) flags[k] = state.read(nearest - k, channel, counts[k]);
    }
    bool waiting = false;
#pragma unroll
    for (int k = 0; k < Window; ++k) {
      if (flags[k] == flag_none) {
        waiting = true;
        break;
      }
      exclusive = static_cast<Count>(exclusive + counts[k]);
      --nearest;
      if (flags[k] == flag_prefix) return exclusive;
    }
    if (waiting) {
      if (delay > 0) __nanosleep(delay);
      delay = delay * 2 < backoff.max_ns ? delay * 2 : backoff.max_ns;
    } else {
      delay = backoff.first_ns;
    }
  }
}

// Every thread of a one-dimensional block calls this once the block's counts are final:
// counts[c] (shared memory, c < state.channels, visible to all threads after a barrier). Thread i
// handles channels i, i + blockDim.x, ...: it publishes their aggregates, then looks back over
// each in turn and publishes its inclusive prefix. All aggregates go out before any look-back so
// that no successor waits on this tile's look-back. Ends with a block barrier, after which
// exclusive[c] (shared memory; may be `counts` itself, each entry is read before it is
// overwritten, by the thread that owns it) holds the tile's exclusive prefix for channel c, and
// the block has made its last access to the state: one thread may then call finish_tile_states.
template <int Window = 1, class Count>
__device__ __forceinline__ void block_channel_look_back(const multi_channel_tile_state<Count>& state, long long tile,
                                                        const Count* counts, Count* exclusive,
                                                        look_back_backoff backoff) {
  const std::uint32_t channels = state.channels;
  if (tile == 0) {
    for (std::uint32_t c = threadIdx.x; c < channels; c += blockDim.x) {
      state.publish(0, c, flag_prefix, counts[c]);
      exclusive[c] = 0;
    }
  } else {
    for (std::uint32_t c = threadIdx.x; c < channels; c += blockDim.x) {
      state.publish(tile, c, flag_aggregate, counts[c]);
    }
    for (std::uint32_t c = threadIdx.x; c < channels; c += blockDim.x) {
      const Count own = counts[c];
      const Count before = channel_look_back<Window>(state, tile, c, backoff);
      state.publish(tile, c, flag_prefix, static_cast<Count>(before + own));
      exclusive[c] = before;
    }
  }
  __syncthreads();
}

}  // namespace scankit::device_detail
