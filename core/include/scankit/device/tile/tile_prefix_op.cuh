// Tile layer: the single-pass protocol around the look-back, written once for every algorithm.
//
// A single-pass kernel (scan, compaction, and whatever else needs "the combination of everything
// before my tile") does, per tile:
//   1. draw a ticket: the tile id and the launch's epoch (tile_ticket.cuh);
//   2. compute its aggregate (a scan value, a count, ...);
//   3. publish the aggregate (tile 0: its inclusive prefix, since nothing precedes it);
//   4. get its exclusive prefix from its predecessors (look-back, or the chained wait);
//   5. publish its inclusive prefix; hand the exclusive prefix to the whole block.
// single_pass_context is what a launch carries for this (ticket word, tile state, back-off,
// memory-order policy); tile_prefix_op is one tile's view of it with steps 3-5. A kernel either
// calls resolve() (warp 0 runs steps 3-5 once the aggregate is known, then a block barrier) or
// schedules the steps itself: a look-back warp beside the working warps runs look_back() from the
// moment the ticket is drawn, the working threads publish_aggregate() the moment they have it
// and publish_prefix() after the hand-over (scan_staged_kernel.cuh, compact_staged_kernel.cuh).
//
// Memory order. The aggregate and prefix values need nothing beyond tile_state (each value
// travels with its status). Some algorithms communicate more memory through the protocol:
// compaction in place writes output over input that its predecessors must have read. With
// `fence_other_memory` the protocol adds the fence pattern: a fence before each publication
// (release: the block's earlier input reads, ordered before the publishing thread by the block
// barrier the caller passes, happen-before the status store) and a fence after the look-back
// (acquire: the predecessors' reads happen-before everything this block does after the hand-over
// barrier). Inputs read through the async proxy (the bulk copy) also get a proxy fence before
// the release fence, so the generic writes of later tiles are ordered after those reads too.
// Without it no fence is issued.
//
// Shared-memory layout. A kernel keeps the drawn ticket and the broadcast slot of resolve() in
// shared memory. The thread that stores the prefix into the slot may do so while other threads of
// the block still read the ticket; a load the compiler merges across both words (a 16-byte load
// covering the slot) then races with that store. The value is unused, but it is a shared-memory
// race: tile_prefix_slots gives each of the two its own 16-byte granule, and kernels keep both
// there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tile/tile_state.cuh"
#include "scankit/device/tile/tile_ticket.cuh"

namespace scankit::device_detail {

// The protocol's two words in a kernel's shared memory (the layout note above).
template <class T>
struct tile_prefix_slots {
  alignas(16) T prefix;            // the broadcast slot: the tile's exclusive prefix
  alignas(16) tile_ticket ticket;  // the ticket drawn by the block
};

// How a tile finds its predecessors' combination.
enum class look_back_kind {
  decoupled,      // Merrill & Garland's decoupled look-back (the default)
  deterministic,  // a look-back with a fixed association (group leaders publish prefixes)
  chained         // wait for the predecessor's inclusive prefix (adjacent synchronisation)
};

// The compile-time shape of the look-back. TilesPerLane widens the decoupled window; GroupTiles
// is the deterministic look-back's group size (look_back.cuh).
template <look_back_kind Kind = look_back_kind::decoupled, int TilesPerLane = 1,
          int GroupTiles = deterministic_group_tiles>
struct look_back_shape {
  static constexpr look_back_kind kind = Kind;
  static constexpr int tiles_per_lane = TilesPerLane;
  static constexpr int group_tiles = GroupTiles;
};

// What one single-pass launch carries (a kernel argument; every block reads the same).
template <class T>
struct single_pass_context {
  single_pass_header* header = nullptr;
  tile_state<T> state{};          // its epoch is set per block from the drawn ticket
  std::size_t region_slots = 0;   // slots of the workspace's state region (cleared on epoch wrap)
  long long tiles = 0;
  look_back_backoff backoff{32, 1024};
  bool fence_other_memory = false;  // see the memory-order note above
  bool async_proxy_input = false;   // the block read its input through the async proxy (bulk copy)

  // One thread per block.
  __device__ __forceinline__ tile_ticket draw() const {
    return draw_tile_ticket(header, static_cast<std::uint32_t>(tiles));
  }

  // One thread per block, for a block whose ticket lies past the tiles of a count read on the
  // device (device_count.cuh): it touches no tile state, and only reports (wrap launches).
  __device__ __forceinline__ void finish_idle(const tile_ticket& ticket) const {
    finish_tile_states(header, ticket, static_cast<std::uint32_t>(tiles), state.slots, region_slots);
  }
};

// A tile's exclusive prefix; `present` is false only where nothing precedes the tile (tile 0
// without a seed), since a user operator need not have an identity.
template <class T>
struct optional_prefix {
  bool present;
  T value;
};

// MayFence: whether the algorithm ever communicates other memory (fence_other_memory); false
// compiles the fences out (a scan never needs them).
template <class T, class Op, class Shape = look_back_shape<>, bool MayFence = true>
struct tile_prefix_op {
  // Copies, not references: a reference to a kernel parameter makes the compiler copy the whole
  // parameter block to the stack.
  single_pass_context<T> context;
  tile_state<T> state;
  long long tile;
  std::uint32_t epoch;
  Op op;
  bool has_seed;  // `seed` precedes tile 0 (an exclusive scan's init)
  T seed;

  __device__ __forceinline__ tile_prefix_op(const single_pass_context<T>& c, const tile_ticket& ticket, Op o,
                                            bool with_seed = false, const T& s = T{})
      : context(c), state(c.state), tile(ticket.tile), epoch(ticket.epoch), op(o), has_seed(with_seed), seed(s) {
    state.epoch = ticket.epoch;
  }

  // The prefix of tile 0: the seed, if any.
  __device__ __forceinline__ optional_prefix<T> first() const { return {has_seed, seed}; }

  // Thread 0, as soon as the aggregate is known (after a block barrier that follows the block's
  // input reads). Tile 0 publishes its inclusive prefix, and is then done with the states.
  __device__ __forceinline__ void publish_aggregate(const T& aggregate) const {
    release_fence();
    if (tile == 0) {
      state.publish(0, flag_prefix, has_seed ? op(seed, aggregate) : aggregate);
      finish();
    } else {
      state.publish(tile, flag_aggregate, aggregate);
    }
  }

  // One warp (all 32 lanes) for the look-back kinds, or one thread for chained; tile >= 1. Reads
  // only the predecessors, so it may start before the tile's own aggregate is known.
  __device__ __forceinline__ T look_back() const {
    T before;
    if constexpr (Shape::kind == look_back_kind::deterministic) {
      before = deterministic_look_back<Shape::group_tiles, T>(state, tile, op, context.backoff);
    } else if constexpr (Shape::kind == look_back_kind::chained) {
      before = chained_wait_for_predecessor<T>(state, tile, context.backoff);
    } else {
      before = decoupled_look_back<T, Shape::tiles_per_lane>(state, tile, op, context.backoff);
    }
    if (MayFence && context.fence_other_memory) __threadfence();  // acquire pattern
    return before;
  }

  // Thread 0, tile >= 1, once the exclusive prefix and the aggregate are both known: publishes
  // the inclusive prefix (deterministic: group leaders only). The block's last state access.
  __device__ __forceinline__ void publish_prefix(const T& before, const T& aggregate) const {
    if (Shape::kind != look_back_kind::deterministic || tile % Shape::group_tiles == 0) {
      release_fence();
      state.publish(tile, flag_prefix, op(before, aggregate));
    }
    finish();
  }

  // Every thread of the block (all arrive at Barrier) with the aggregate valid on thread 0;
  // every thread gets the exclusive prefix. Warp 0 runs the whole protocol; `broadcast` is a
  // shared-memory slot that carries the prefix across the closing barrier.
  template <class Barrier>
  __device__ __forceinline__ optional_prefix<T> resolve(const T& aggregate, T& broadcast) const {
    if (threadIdx.x == 0 && (tile == 0 || Shape::kind != look_back_kind::chained)) publish_aggregate(aggregate);
    return resolve_published<Barrier>(aggregate, broadcast);
  }

  // resolve() for a block that has already published its aggregate (publish_aggregate), as early
  // as it could, and did other work since.
  template <class Barrier>
  __device__ __forceinline__ optional_prefix<T> resolve_published(const T& aggregate, T& broadcast) const {
    if (tile == 0) {
      Barrier::sync();
      return first();
    }
    if (Shape::kind == look_back_kind::chained ? threadIdx.x == 0 : threadIdx.x < 32) {
      const T before = look_back();
      if (threadIdx.x == 0) {
        publish_prefix(before, aggregate);
        broadcast = before;
      }
    }
    Barrier::sync();
    return {true, broadcast};
  }

 private:
  __device__ __forceinline__ void release_fence() const {
    if (MayFence && context.fence_other_memory) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
      if (context.async_proxy_input) asm volatile("fence.proxy.async.global;" ::: "memory");
#endif
      __threadfence();
    }
  }

  __device__ __forceinline__ void finish() const {
    finish_tile_states(context.header, tile_ticket{static_cast<std::uint32_t>(tile), epoch},
                       static_cast<std::uint32_t>(context.tiles), context.state.slots, context.region_slots);
  }
};

}  // namespace scankit::device_detail
