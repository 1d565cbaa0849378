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

// The look-back that walks while it waits. decoupled_look_back() first waits until all of the
// nearest 32 tiles have published and only then walks back, one L2 round trip per window, to the
// nearest inclusive prefix: every round of that walk is added to the tile's wait. Here one warp
// keeps two windows in flight at once:
//   * the nearest window (tiles tile-32 .. tile-1), re-reading only the lanes still unpublished;
//   * a far walk from tile-33 backwards, folding each window once it is complete, until it meets
//     a window that holds an inclusive prefix.
// The far walk runs while the nearest tiles are still loading (their aggregates come last), so
// when the nearest window completes, everything before it is usually already combined and the
// tile needs one more round trip, not one per window.
//
// A window can end the walk early: if it holds a prefix and every later lane of it has
// published, nothing before that prefix matters (the nearest window then alone gives the
// result). Combination order is the same as in decoupled_look_back (tile order, shuffle tree
// per window, older windows on the left), so non-commutative operators stay correct.
//
// All 32 lanes of one warp call this for tile >= 1; every lane gets the tile's exclusive prefix.
template <class T, class Op, class State>
__device__ __forceinline__ T overlapped_look_back(const State& state, long long tile, Op op, look_back_backoff backoff) {
  const int lane = lane_id();
  // Lane l of a window ending at `last` holds tile last-31+l; tiles before 0 read as published
  // (they never end the walk: tile 0 itself always holds a prefix).
  const long long near_tile = tile - 32 + lane;
  T near_value;
  tile_flag near_flag = near_tile >= 0 ? flag_none : flag_aggregate;
  long long far_last = tile - 33;
  bool far_done = far_last < 0;  // the nearest window reaches tile 0
  T far_value;
  tile_flag far_flag = flag_none;
  T far_prefix;  // combination of the far windows folded so far (the prefix of the oldest tile folded on)
  bool have_far = false;
  unsigned delay = backoff.first_ns;
  for (;;) {
    if (near_flag == flag_none) near_flag = state.read(near_tile, near_value);
    const long long far_tile = far_last - 31 + lane;
    if (!far_done && far_flag == flag_none) {
      far_flag = far_tile >= 0 ? state.read(far_tile, far_value) : flag_aggregate;
    }
    // The nearest window alone: its last prefix with every later lane published.
    const unsigned near_ready = __ballot_sync(full_warp_mask, near_flag != flag_none);
    const unsigned near_prefixes = __ballot_sync(full_warp_mask, near_flag == flag_prefix && near_tile >= 0);
    if (near_prefixes != 0) {
      const int from = 31 - __clz(static_cast<int>(near_prefixes));
      if ((near_ready >> from) == (full_warp_mask >> from)) {
        return warp_reduce_valid_suffix(near_value, lane >= from, op);
      }
    }
    bool progressed = false;
    if (!far_done) {
      const unsigned far_ready = __ballot_sync(full_warp_mask, far_flag != flag_none);
      const unsigned far_prefixes = __ballot_sync(full_warp_mask, far_flag == flag_prefix && far_tile >= 0);
      const int from = far_prefixes != 0 ? 31 - __clz(static_cast<int>(far_prefixes)) : 0;
      if ((far_ready >> from) == (full_warp_mask >> from)) {  // complete from its last prefix on
        const T window = warp_reduce_valid_suffix(far_value, lane >= from && far_tile >= 0, op);
        far_prefix = have_far ? op(window, far_prefix) : window;  // the window lies before what we have
        have_far = true;
        far_done = far_prefixes != 0;
        far_last -= 32;
        far_flag = flag_none;
        progressed = true;
      }
    }
    if (far_done && near_ready == full_warp_mask) {
      // No prefix in the nearest window (it would have ended the walk above): all aggregates.
      const T window = warp_reduce_valid_suffix(near_value, near_tile >= 0, op);
      return have_far ? op(far_prefix, window) : window;
    }
    if (progressed) {
      delay = backoff.first_ns;
    } else {
      if (delay > 0) __nanosleep(delay);
      delay = delay * 2 < backoff.max_ns ? delay * 2 : backoff.max_ns;
    }
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
