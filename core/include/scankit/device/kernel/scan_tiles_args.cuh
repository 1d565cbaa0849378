// Device layer: what a scan's tile kernels are given, and where a tile's exclusive prefix comes
// from:
//
//   independent           none, a seed (tile 0), or an array of scanned tile totals (the
//                         multi-launch strategies and single-tile launches)
//   chained               the predecessor's published inclusive prefix
//   decoupled look-back   the look-back over published aggregates and prefixes (the default)
//   deterministic         a look-back with a fixed association (group leaders publish prefixes)
//
// The single-pass sources run the tile layer's protocol (tile_prefix_op.cuh); nothing of it is
// written here.
#pragma once

#include <cstdint>

#include "scankit/device/tile/tile_prefix_op.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

enum class tile_prefix_source { independent, chained, decoupled_look_back, deterministic_look_back };

// The tile layer's look-back shape for a single-pass source.
template <tile_prefix_source Source, int TilesPerLane = 1, int GroupTiles = deterministic_group_tiles>
using look_back_shape_for = look_back_shape<
    Source == tile_prefix_source::chained
        ? look_back_kind::chained
        : (Source == tile_prefix_source::deterministic_look_back ? look_back_kind::deterministic
                                                                 : look_back_kind::decoupled),
    TilesPerLane, GroupTiles>;

// T is the accumulator type; In and Out are the input and output iterators (contiguous pointers
// for the precompiled API; any random-access iterator through the template API).
template <class T, class In = const T*, class Out = T*>
struct scan_tiles_args {
  In in;
  Out out;
  long long n;                   // the items, or their bound when n_device is set
  const std::int64_t* n_device;  // the count in device memory (device_count.cuh), or nullptr
  long long tiles;
  bool exclusive;                // write exclusive results (out[i] excludes in[i])
  bool has_seed;                 // `seed` goes in front of everything (exclusive scan's init)
  T seed;
  const T* tile_prefixes;        // independent: scanned tile totals, or nullptr
  bool tile_prefixes_exclusive;  // prefix of tile t is tile_prefixes[t] (else tile_prefixes[t-1], t > 0)
  T* tile_totals;                // independent: each tile's aggregate is written here, or nullptr
  single_pass_context<T> pass;   // single pass: ticket, tile states, back-off
};

// Independent source: the tile's prefix from the arguments alone (every thread); thread 0 also
// records the tile's aggregate when asked to.
template <class T, class In, class Out>
__device__ __forceinline__ optional_prefix<T> independent_tile_prefix(const scan_tiles_args<T, In, Out>& args,
                                                                      long long tile,
                                                                      const T& aggregate) {
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
}

}  // namespace scankit::device_detail
