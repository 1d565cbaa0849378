// Tile layer (compaction): where a tile's selected items go, from the engine's look-back.
//
// Every thread knows how many of its items are selected. A block scan of these counts gives each
// thread its offset inside the tile and the tile's count (the tile aggregate). The tile's offset
// in the output (the selected items of all tiles before it) comes from the single-pass protocol
// of the scan engine, reused as it is: tile_state publishes the count, decoupled_look_back (one
// warp) sums the counts and prefixes of the predecessors, and the tile publishes its inclusive
// prefix. Nothing of the protocol is re-implemented here.
//
// The tile state: tile_state<unsigned long long>, the wide packed form (status and 64-bit count in
// one relaxed 128-bit access, two 8-byte slots per tile), for every n. The one-word form for
// 32-bit counts (8-byte slots) was measured slower on every workload at 2^28 (bench_compact,
// commit c705eea: select_if u32 50% 1.05x against 1.19x CUB, unique 1.17x against 1.29x,
// partition 1.31x against 1.44x); a likely reason is that 16-byte slots put half as many
// tiles' states on each L2 line that publishers write and look-back warps poll.
//
// Memory order. The counts themselves need nothing beyond what tile_state gives (see
// tile_state.cuh). Compaction in place (out == in) needs more: a tile writes output over input
// that its predecessors must have read already. The argument (compact_tiles_kernel.cuh) is that
// every tile reads all its input before it publishes anything, so the reads must happen-before
// the successor's writes. Both states are relaxed, so in place the block adds the fence pattern:
// a fence before each publication (release pattern; the block's loads are ordered before it by
// the block barrier of the count scan) and a fence after the look-back (acquire pattern; the
// look-back lanes pass a block barrier after it before anyone writes). Without in place those
// fences are skipped: no memory other than the counts is communicated.
#pragma once

#include <cstdint>

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tile/tile_state.cuh"
#include "scankit/device/util/shuffle.cuh"
#include "scankit/operators.hpp"

namespace scankit::device_detail {

using selection_state = tile_state<unsigned long long>;

// Barrier: whole_block_barrier, or a named barrier over the BlockThreads threads that count
// (beside a look-back warp).
template <int BlockThreads, class Barrier = whole_block_barrier>
struct tile_selection_offsets {
  using block_scan = block_scan_warp_of_warps<int, BlockThreads, Barrier>;

  struct storage {
    typename block_scan::storage scan;
    unsigned long long tile_prefix;
  };

  struct tile_counts {
    int thread_offset;  // selected items of the threads before this one, in this tile
    int tile_count;     // selected items of the whole tile
  };

  // Block scan of the per-thread counts (two block barriers). Every thread must call it.
  static __device__ __forceinline__ tile_counts scan_counts(int count, storage& s) {
    const block_scan_result<int> scanned = block_scan::scan(count, s.scan, plus_op{});
    return {threadIdx.x == 0 ? 0 : scanned.exclusive, scanned.aggregate};
  }

  // Publishes the tile's count as soon as it is known: as its inclusive prefix for tile 0, as
  // its aggregate otherwise. Call after scan_counts (whose barriers order every thread's input
  // loads before this store), only when the launch has more than one tile.
  template <class V, tile_state_layout Layout>
  static __device__ __forceinline__ void publish_count(const tile_state<V, Layout>& state, long long tile,
                                                       int tile_count, bool fence) {
    if (threadIdx.x == 0) {
      if (fence) __threadfence();  // release pattern for the relaxed state
      state.publish(tile, tile == 0 ? flag_prefix : flag_aggregate, static_cast<V>(tile_count));
    }
  }

  // One warp, tile > 0: the selected items before the tile, from its predecessors only.
  template <class V, tile_state_layout Layout>
  static __device__ __forceinline__ V look_back_exclusive(const tile_state<V, Layout>& state, long long tile,
                                                          look_back_backoff backoff, bool fence) {
    const V prefix = decoupled_look_back<V>(state, tile, plus_op{}, backoff);
    if (fence) __threadfence();  // acquire pattern (and release for the prefix published after it)
    return prefix;
  }

  // Thread 0, tile > 0: publishes the inclusive prefix. In place it needs a fence of its own
  // (`fence`) after the block's input loads (release pattern), unless it already ran the
  // look-back's fence itself after them (the one-warp path below). A look-back warp's fence does
  // not count: that warp may fence before the other warps have loaded their input.
  template <class V, tile_state_layout Layout>
  static __device__ __forceinline__ void publish_prefix(const tile_state<V, Layout>& state, long long tile, V prefix,
                                                        int tile_count, bool fence) {
    if (fence) __threadfence();
    state.publish(tile, flag_prefix, static_cast<V>(prefix + static_cast<V>(tile_count)));
  }

  // Warp 0 of a tile > 0 looks back, publishes the inclusive prefix and leaves the exclusive one
  // in s.tile_prefix (tile 0: 0). The caller then passes a block barrier and reads s.tile_prefix.
  template <class V, tile_state_layout Layout>
  static __device__ __forceinline__ void look_back(const tile_state<V, Layout>& state, long long tile, int tile_count,
                                                   look_back_backoff backoff, bool fence, storage& s) {
    if (tile == 0) {
      if (threadIdx.x == 0) s.tile_prefix = 0;
      return;
    }
    if (threadIdx.x < 32) {
      const V prefix = look_back_exclusive(state, tile, backoff, fence);
      if (threadIdx.x == 0) {
        publish_prefix(state, tile, prefix, tile_count, false);  // fenced by the look-back above
        s.tile_prefix = prefix;
      }
    }
  }

  // The look-back warp's part (launches of more than one tile; compact_tiles_kernel.cuh and
  // compact_staged_kernel.cuh): the tile's exclusive prefix into s.tile_prefix, then the
  // hand-over barrier, where the workers meet it once they have gathered the tile.
  template <class HandOver, class V, tile_state_layout Layout>
  static __device__ __forceinline__ void look_back_warp(const tile_state<V, Layout>& state, long long tile,
                                                        look_back_backoff backoff, bool fence, storage& s) {
    const V prefix = tile > 0 ? look_back_exclusive(state, tile, backoff, fence) : V{0};
    if (lane_id() == 0) s.tile_prefix = prefix;
    HandOver::sync();
  }

  // The workers' part, once the tile is gathered in shared memory: the tile's offset in the
  // output. Every worker calls it; it ends with a barrier, so the gather is complete for all.
  // LookBackWarp: the prefix comes from look_back_warp() over the hand-over barrier, and thread 0
  // publishes the inclusive prefix; otherwise warp 0 runs the whole look-back (look_back()).
  template <bool LookBackWarp, class HandOver, class V, tile_state_layout Layout>
  static __device__ __forceinline__ unsigned long long tile_offset(const tile_state<V, Layout>& state,
                                                                   long long tiles, long long tile, int tile_count,
                                                                   look_back_backoff backoff, bool fence,
                                                                   storage& s) {
    if constexpr (LookBackWarp) {
      if (tiles == 1) {
        Barrier::sync();
        return 0;
      }
      HandOver::sync();
      const unsigned long long prefix = s.tile_prefix;
      if (tile > 0 && threadIdx.x == 0) publish_prefix(state, tile, static_cast<V>(prefix), tile_count, fence);
      return prefix;
    } else {
      look_back(state, tile, tile_count, backoff, fence, s);
      Barrier::sync();
      return s.tile_prefix;
    }
  }
};

}  // namespace scankit::device_detail
