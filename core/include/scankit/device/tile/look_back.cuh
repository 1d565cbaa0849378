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
// publishes its inclusive prefix (after its aggregate), every other tile only its aggregate.
// Tile t's exclusive prefix is
//     E_t = I_g op A_{g+1} op ... op A_{t-1},   g = the last leader before t,
// folded in a fixed order (fold_from_leader: chunks of 32 tiles left to right, each by a fixed
// shuffle tree), so the grouping never depends on timing. A leader's inclusive prefix is
//     I_g = E_g op A_g,   E_g folded the same way from the leader before it, I_{g-GroupTiles}.
//
// Why the two-group window: if tile t waited for I_g itself, it would wait for leader g's own
// look-back, one more round trip after its predecessors are ready than the plain look-back
// needs. So when g's slot still shows only its aggregate, tile t folds I_g itself from the
// previous group (I_{g-GroupTiles}, A_{g-GroupTiles+1} .. A_{g-1}) with the same function the
// leader uses: the same operations on the same values, so the same bits whichever tile computes
// it (tested in test_scan_determinism.cu). The price is reading up to 2 x GroupTiles states.
// Memory order as in the plain look-back (tile_state.cuh): every value read travels in the same
// single-copy-atomic word as its status, and nothing else is read.
//
// This is the default group size (the register kernel, explicit staged shapes); the tuned staged
// shapes set their own (scan_policy.cuh). Measurements: docs/tuning.md.
constexpr int deterministic_group_tiles = 64;

// Lane l of chunk c holds tile leader + 32c + l, lane 0 of chunk 0 the leader's inclusive prefix;
// combines the first `count` of them (count >= 1) in the fixed association. Every lane gets it.
template <int Chunks, class T, class Op>
__device__ __forceinline__ T fold_from_leader(const T (&values)[Chunks], int count, Op op) {
  T prefix = shuffle_index(values[0], 0);
  if (count > 1) {
#pragma unroll
    for (int c = 0; c < Chunks; ++c) {
      const int in_chunk = count - c * 32;
      if (in_chunk > 0) {
        const T scanned = warp_inclusive_scan(values[c], op);
        const T chunk_total = shuffle_index(scanned, (in_chunk < 32 ? in_chunk : 32) - 1);
        prefix = c == 0 ? chunk_total : op(prefix, chunk_total);
      }
    }
  }
  return prefix;
}

// Polls, once, the states of one group not yet seen: lane l of chunk c reads tile first + 32c + l,
// the first `count` of them; bit c of `seen` records that chunk c's tile has been seen. With
// `first_needs_prefix` the first tile counts as seen only once it shows its inclusive prefix;
// `first_flag` gets the flag read for the first tile. Returns whether this lane has seen all of
// its tiles. (Bits rather than an array of flags: the look-back warp shares the scanning
// threads' register cap.)
template <int Chunks, class T, class State>
__device__ __forceinline__ bool poll_group(const State& state, long long first, int count, bool first_needs_prefix,
                                           T (&values)[Chunks], unsigned& seen, tile_flag& first_flag, int lane) {
  static_assert(Chunks <= 32, "one bit per chunk");
  bool all_seen = true;
#pragma unroll
  for (int c = 0; c < Chunks; ++c) {
    const int offset = c * 32 + lane;
    if (offset < count && (seen & (1u << c)) == 0) {
      const tile_flag flag = state.read(first + offset, values[c]);
      if (offset == 0) first_flag = flag;
      if (flag != flag_none && !(offset == 0 && first_needs_prefix && flag != flag_prefix)) seen |= 1u << c;
    }
    all_seen = all_seen && (offset >= count || (seen & (1u << c)) != 0);
  }
  return all_seen;
}

// All 32 lanes of one warp call this for tile >= 1; every lane gets the prefix.
template <int GroupTiles, class T, class Op, class State>
__device__ __forceinline__ T deterministic_look_back(const State& state, long long tile, Op op,
                                                     look_back_backoff backoff) {
  static_assert(GroupTiles % 32 == 0, "group size must be whole warps of tiles");
  constexpr int chunks = GroupTiles / 32;
  const int lane = lane_id();
  const long long leader = (tile - 1) / GroupTiles * GroupTiles;
  const int window = static_cast<int>(tile - leader);  // tiles leader .. tile-1

  // This group from its leader (whose slot shows its aggregate or its prefix) up to tile - 1, and
  // the previous group, needed only while the leader shows no prefix (tile 0 publishes only its
  // prefix, so the first group never needs one).
  T near[chunks], previous[chunks];
  unsigned near_seen = 0, previous_seen = 0;
  tile_flag leader_flag = flag_none, previous_leader_flag = flag_none;
  bool leader_has_prefix = false;
  unsigned delay = backoff.first_ns;
  for (;;) {
    bool all_seen = poll_group(state, leader, window, leader == 0, near, near_seen, leader_flag, lane);
    leader_has_prefix = __shfl_sync(full_warp_mask, leader_flag == flag_prefix, 0) != 0;
    if (!leader_has_prefix && leader > 0) {
      all_seen = poll_group(state, leader - GroupTiles, GroupTiles, true, previous, previous_seen,
                            previous_leader_flag, lane) &&
                 all_seen;
    }
    if (__all_sync(full_warp_mask, all_seen)) break;
    if (delay > 0) __nanosleep(delay);
    delay = delay * 2 < backoff.max_ns ? delay * 2 : backoff.max_ns;
  }

  if (!leader_has_prefix) {  // I_g = E_g op A_g, exactly as leader g publishes it
    const T leader_exclusive = fold_from_leader(previous, GroupTiles, op);
    const T leader_inclusive = op(leader_exclusive, shuffle_index(near[0], 0));
    if (lane == 0) near[0] = leader_inclusive;
  }
  return fold_from_leader(near, window, op);
}

}  // namespace scankit::device_detail
