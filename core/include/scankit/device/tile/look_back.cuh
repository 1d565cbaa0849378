// Tile layer: the look-back of the single-pass scan, generic over the aggregate and operator.
//
// Decoupled look-back (Merrill & Garland): one warp inspects the 32 tiles before its own at
// once. When all of them have published something, it combines, in tile order, the values from
// the nearest tile that has published its inclusive prefix up to its immediate predecessor; if
// none of the 32 has a prefix yet, it combines all 32 aggregates and moves the window 32 tiles
// back. Tile 0 always publishes a prefix, so the walk ends.
//
// Chained scan (adjacent synchronisation): one thread waits for the predecessor's prefix.
//
// The same functions serve any aggregate: a scan value, a selected-item count, a struct of
// digit counts (through tile_state's split representation).
#pragma once

#include "scankit/device/tile/tile_state.cuh"
#include "scankit/device/warp/warp_scan.cuh"

namespace scankit::device_detail {

// Back-off while predecessors have not published: exponential from `first_ns` up to `max_ns`.
struct look_back_backoff {
  unsigned first_ns;
  unsigned max_ns;
};

// All 32 lanes of one warp call this for tile >= 1; every lane gets the tile's exclusive prefix.
// TilesPerLane > 1 widens the window to 32 x TilesPerLane tiles (lane l reads TilesPerLane
// consecutive states, all loads in flight at once): fewer round trips to L2 when the nearest
// published prefix is far back, for a few more registers.
template <class T, int TilesPerLane = 1, class Op, class State>
__device__ __forceinline__ T decoupled_look_back(const State& state, long long tile, Op op, look_back_backoff backoff) {
  constexpr int M = TilesPerLane;
  static_assert(M >= 1, "at least one tile per lane");
  const int lane = lane_id();
  long long window_last = tile - 1;  // lane 31 ends at window_last
  T prefix;
  bool have_prefix = false;
  for (;;) {
    const long long lane_first = window_last - 32 * M + 1 + static_cast<long long>(lane) * M;
    T values[M];
    tile_flag flags[M];
    unsigned delay = backoff.first_ns;
    for (;;) {
      bool ready = true;
#pragma unroll
      for (int m = 0; m < M; ++m) {
        // Tiles before 0 read as prefixes so that the wait ends; the ballot below ignores them.
        flags[m] = lane_first + m >= 0 ? state.read(lane_first + m, values[m]) : flag_prefix;
        ready = ready && flags[m] != flag_none;
      }
      if (__all_sync(full_warp_mask, ready)) break;
      if (delay > 0) __nanosleep(delay);
      delay = delay * 2 < backoff.max_ns ? delay * 2 : backoff.max_ns;
    }
    // This lane's last published prefix, if any; the window's last one is in the highest such lane.
    int last_prefix = -1;
#pragma unroll
    for (int m = 0; m < M; ++m) {
      if (lane_first + m >= 0 && flags[m] == flag_prefix) last_prefix = m;
    }
    const unsigned prefix_lanes = __ballot_sync(full_warp_mask, last_prefix >= 0);
    const int first_lane = prefix_lanes != 0 ? 31 - __clz(static_cast<int>(prefix_lanes)) : 0;
    // Fold this lane's part of [the last prefix .. window_last] in tile order.
    const int from = lane == first_lane && prefix_lanes != 0 ? last_prefix : 0;
    T lane_value = values[M - 1];
    bool lane_valid = lane >= first_lane;
    if constexpr (M > 1) {
      bool started = false;
#pragma unroll
      for (int m = 0; m < M; ++m) {
        if (m >= from && lane_first + m >= 0) {
          lane_value = started ? op(lane_value, values[m]) : values[m];
          started = true;
        }
      }
      lane_valid = lane_valid && started;
    } else {
      lane_valid = lane_valid && lane_first >= 0;
    }
    const T window = warp_reduce_valid_suffix(lane_value, lane_valid, op);
    prefix = have_prefix ? op(window, prefix) : window;  // the window lies before what we have
    have_prefix = true;
    if (prefix_lanes != 0) return prefix;
    window_last -= 32 * M;
  }
}

// One thread calls this for tile >= 1: waits for the predecessor's inclusive prefix.
template <class T, class State>
__device__ __forceinline__ T chained_wait_for_predecessor(const State& state, long long tile, look_back_backoff backoff) {
  T value;
  unsigned delay = backoff.first_ns;
  while (state.read(tile - 1, value) != flag_prefix) {
    if (delay > 0) __nanosleep(delay);
    delay = delay * 2 < backoff.max_ns ? delay * 2 : backoff.max_ns;
  }
  return value;
}

}  // namespace scankit::device_detail

namespace scankit::device_detail {

// Deterministic look-back: the same association on every run, so floating-point sums give the
// same bits. Tiles are grouped in runs of GroupTiles; the first tile of each group (a "leader")
// publishes its inclusive prefix, every other tile only its aggregate. Tile t's exclusive prefix is
//     I_g op A_{g+1} op ... op A_{t-1},   g = the last leader before t,
// folded in a fixed order (chunks of 32 tiles left to right, each by a fixed shuffle tree), so
// the grouping never depends on timing. The price is a chain of leaders, one hop per GroupTiles
// tiles instead of one per tile, and reading up to GroupTiles states instead of about 32.
//
// All 32 lanes of one warp call this for tile >= 1; every lane gets the prefix.
template <int GroupTiles, class T, class Op, class State>
__device__ __forceinline__ T deterministic_look_back(const State& state, long long tile, Op op,
                                                     look_back_backoff backoff) {
  static_assert(GroupTiles % 32 == 0, "group size must be whole warps of tiles");
  constexpr int chunks = GroupTiles / 32;
  const int lane = lane_id();
  const long long leader = (tile - 1) / GroupTiles * GroupTiles;
  const int window = static_cast<int>(tile - leader);  // tiles leader .. tile-1

  T values[chunks];
  bool ready[chunks];
#pragma unroll
  for (int c = 0; c < chunks; ++c) ready[c] = c * 32 + lane >= window;  // outside the window
  unsigned delay = backoff.first_ns;
  for (;;) {
    bool all_ready = true;
#pragma unroll
    for (int c = 0; c < chunks; ++c) {
      if (!ready[c]) {
        const int offset = c * 32 + lane;
        const tile_flag flag = state.read(leader + offset, values[c]);
        // The leader's slot must hold its inclusive prefix; the others their aggregates.
        ready[c] = offset == 0 ? flag == flag_prefix : flag != flag_none;
        all_ready = all_ready && ready[c];
      }
    }
    if (__all_sync(full_warp_mask, all_ready)) break;
    if (delay > 0) __nanosleep(delay);
    delay = delay * 2 < backoff.max_ns ? delay * 2 : backoff.max_ns;
  }

  T prefix = shuffle_index(values[0], 0);  // I_leader
  if (window > 1) {
    // Lane 0 of chunk 0 already is the leader's prefix, so folding chunk 0 from lane 0 gives
    // I_leader op A_{leader+1} op ...; later chunks are folded on their own and appended.
#pragma unroll
    for (int c = 0; c < chunks; ++c) {
      const int count = window - c * 32;  // valid lanes in this chunk
      if (count > 0) {
        const T scanned = warp_inclusive_scan(values[c], op);
        const T chunk_total = shuffle_index(scanned, (count < 32 ? count : 32) - 1);
        prefix = c == 0 ? chunk_total : op(prefix, chunk_total);
      }
    }
  }
  return prefix;
}

}  // namespace scankit::device_detail
