// Device layer: where a tile's exclusive prefix comes from, shared by every tile kernel.
//
//   independent           none, a seed (tile 0), or an array of scanned tile totals
//   chained               the predecessor's published inclusive prefix
//   decoupled look-back   the look-back over published aggregates and prefixes (the default)
//   deterministic         a look-back with a fixed association (group leaders publish prefixes)
//
// resolve_tile_prefix() also publishes this tile's aggregate and inclusive prefix for its
// successors, so a kernel only has to compute its aggregate and call it.
#pragma once

#include <cstdint>

#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tile/tile_state.cuh"

namespace scankit::device_detail {

enum class tile_prefix_source {
  independent,
  chained,
  decoupled_look_back,
  deterministic_look_back
};

template <class T>
struct scan_tiles_args {
  const T* in;
  T* out;
  long long n;
  long long tiles;
  bool exclusive;             // write exclusive results (out[i] excludes in[i])
  bool has_seed;              // `seed` goes in front of everything (exclusive scan's init)
  T seed;
  const T* tile_prefixes;     // independent: scanned tile totals, or nullptr
  bool tile_prefixes_exclusive;  // prefix of tile t is tile_prefixes[t] (else tile_prefixes[t-1], t > 0)
  T* tile_totals;             // independent: each tile's aggregate is written here, or nullptr
  std::uint32_t* ticket;      // single pass: tile ticket counter
  tile_state<T> state;        // single pass: published tile states
  look_back_backoff backoff;
};

// A tile's exclusive prefix; `present` is false only where nothing precedes the tile
// (tile 0 without a seed), since a user operator need not have an identity.
template <class T>
struct optional_prefix {
  bool present;
  T value;
};

// The three steps of a look-back source, for kernels that schedule them themselves (the staged
// kernel's look-back warp runs the look-back while the other warps scan the tile).

// Thread 0, as soon as the tile's aggregate is known: tile 0 publishes its inclusive prefix
// (nothing precedes it), other tiles their aggregate.
template <tile_prefix_source Source, class T, class Op>
__device__ __forceinline__ void publish_tile_aggregate(const scan_tiles_args<T>& args, long long tile,
                                                       const T& aggregate, Op op) {
  if (tile == 0) {
    args.state.publish(0, flag_prefix, args.has_seed ? op(args.seed, aggregate) : aggregate);
  } else {
    args.state.publish(tile, flag_aggregate, aggregate);
  }
}

// One warp (all 32 lanes), tile >= 1: the tile's exclusive prefix, from its predecessors only.
// GroupTiles: the deterministic look-back's group size.
template <tile_prefix_source Source, int LookBackTilesPerLane, int GroupTiles = deterministic_group_tiles, class T,
          class Op>
__device__ __forceinline__ T look_back_exclusive(const scan_tiles_args<T>& args, long long tile, Op op) {
  if constexpr (Source == tile_prefix_source::deterministic_look_back) {
    return deterministic_look_back<GroupTiles, T>(args.state, tile, op, args.backoff);
  } else {
    return decoupled_look_back<T, LookBackTilesPerLane>(args.state, tile, op, args.backoff);
  }
}

// Thread 0, tile >= 1, once the exclusive prefix (`before`) and the aggregate are both known
// (deterministic: only group leaders publish a prefix).
template <tile_prefix_source Source, int GroupTiles = deterministic_group_tiles, class T, class Op>
__device__ __forceinline__ void publish_tile_prefix(const scan_tiles_args<T>& args, long long tile, const T& before,
                                                    const T& aggregate, Op op) {
  if (Source == tile_prefix_source::decoupled_look_back || tile % GroupTiles == 0) {
    args.state.publish(tile, flag_prefix, op(before, aggregate));
  }
}

// The prefix of tile 0: the seed, if any.
template <class T>
__device__ __forceinline__ optional_prefix<T> first_tile_prefix(const scan_tiles_args<T>& args) {
  return {args.has_seed, args.seed};
}

// Every thread of the block calls this with the tile's aggregate (valid on thread 0 at least);
// every thread gets the prefix. The single-pass sources end with a block barrier, after which
// `broadcast` (shared memory) holds the prefix.
template <tile_prefix_source Source, int LookBackTilesPerLane = 1, int GroupTiles = deterministic_group_tiles, class T,
          class Op>
__device__ __forceinline__ optional_prefix<T> resolve_tile_prefix(const scan_tiles_args<T>& args, long long tile,
                                                                  const T& aggregate, Op op, T& broadcast) {
  if constexpr (Source == tile_prefix_source::independent) {
    optional_prefix<T> prefix{false, aggregate};  // the value is only read when present
    if (args.tile_prefixes != nullptr) {
      if (args.tile_prefixes_exclusive) {
        prefix = {true, args.tile_prefixes[tile]};
      } else if (tile > 0) {
        prefix = {true, args.tile_prefixes[tile - 1]};
      }
    } else if (args.has_seed && tile == 0) {
      prefix = {true, args.seed};
    }
    if (args.tile_totals != nullptr && threadIdx.x == 0) args.tile_totals[tile] = aggregate;
    return prefix;
  } else {
    if (tile == 0) {
      if (threadIdx.x == 0) publish_tile_aggregate<Source>(args, 0, aggregate, op);
      return first_tile_prefix(args);
    }
    if constexpr (Source == tile_prefix_source::chained) {
      if (threadIdx.x == 0) {
        const T before = chained_wait_for_predecessor<T>(args.state, tile, args.backoff);
        args.state.publish(tile, flag_prefix, op(before, aggregate));
        broadcast = before;
      }
    } else {
      if (threadIdx.x < 32) {
        if (threadIdx.x == 0) publish_tile_aggregate<Source>(args, tile, aggregate, op);
        const T before = look_back_exclusive<Source, LookBackTilesPerLane, GroupTiles>(args, tile, op);
        if (threadIdx.x == 0) {
          publish_tile_prefix<Source, GroupTiles>(args, tile, before, aggregate, op);
          broadcast = before;
        }
      }
    }
    __syncthreads();
    return {true, broadcast};
  }
}

}  // namespace scankit::device_detail
