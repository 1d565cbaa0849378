// Tile layer (compaction): where a tile's selected items go.
//
// Every thread knows how many of its items are selected. A block scan of these counts gives each
// thread its offset inside the tile and the tile's count (the tile aggregate). The tile's offset
// in the output (the selected items of all tiles before it) comes from the engine's single-pass
// protocol (tile_prefix_op.cuh) over counts: the kernels publish the count, look back and publish
// the inclusive prefix through it. Nothing of the protocol is written here.
//
// The tile state: tile_state<unsigned long long>, the wide packed form (status and 64-bit count in
// one relaxed 128-bit access, two 8-byte slots per tile), for every n. The one-word form for
// 32-bit counts (8-byte slots) measured slower (docs/compaction.md).
//
// In place (out == in) the kernels set the context's fence_other_memory: a tile writes output
// over input that its predecessors must have read already (compact_tiles_kernel.cuh has the
// argument; tile_prefix_op.cuh the fences).
#pragma once

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/tile/tile_prefix_op.cuh"
#include "scankit/operators.hpp"

namespace scankit::device_detail {

using selection_count = unsigned long long;
using selection_context = single_pass_context<selection_count>;
using selection_prefix_op = tile_prefix_op<selection_count, plus_op>;

// Barrier: whole_block_barrier, or a named barrier over the BlockThreads threads that count
// (beside a look-back warp).
template <int BlockThreads, class Barrier = whole_block_barrier>
struct tile_selection_offsets {
  using block_scan = block_scan_warp_of_warps<int, BlockThreads, Barrier>;

  struct storage {
    typename block_scan::storage scan;
    tile_prefix_slots<selection_count> slots;  // the kernel's ticket, and the look-back warp's result
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

  // The look-back warp's part (launches of more than one tile): the tile's exclusive prefix into
  // s.slots.prefix, then the hand-over barrier, where the workers meet it once they have gathered
  // the tile.
  template <class HandOver>
  static __device__ __forceinline__ void look_back_warp(const selection_prefix_op& prefix, storage& s) {
    const selection_count before = prefix.tile > 0 ? prefix.look_back() : selection_count{0};
    if (lane_id() == 0) s.slots.prefix = before;
    HandOver::sync();
  }

  // The workers' part, once the tile is gathered in shared memory and its count published: the
  // tile's offset in the output. Every worker calls it; it ends with a barrier, so the gather is
  // complete for all. LookBackWarp: the prefix comes from look_back_warp() over the hand-over
  // barrier and thread 0 publishes the inclusive prefix; otherwise warp 0 runs the look-back.
  template <bool LookBackWarp, class HandOver>
  static __device__ __forceinline__ selection_count tile_offset(const selection_prefix_op& prefix, long long tiles,
                                                                int tile_count, storage& s) {
    if (tiles == 1) {
      Barrier::sync();
      return 0;
    }
    const auto count = static_cast<selection_count>(tile_count);
    if constexpr (LookBackWarp) {
      HandOver::sync();
      const selection_count before = s.slots.prefix;
      if (prefix.tile > 0 && threadIdx.x == 0) prefix.publish_prefix(before, count);
      return before;
    } else {
      const optional_prefix<selection_count> before =
          prefix.template resolve_published<Barrier>(count, s.slots.prefix);
      return before.present ? before.value : 0;
    }
  }
};

}  // namespace scankit::device_detail
