// Device layer, host side: what every single-pass algorithm's dispatch needs before its launch
// (the scan, compaction, the radix sort, reduce-by-key, SpMV's carries, the sampling table): the
// tile count, 256-byte rounding of workspace pieces, and the single-pass context over a prepared
// workspace.
#pragma once

#include <cstddef>

#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tile/tile_extent.cuh"
#include "scankit/device/tile/tile_prefix_op.cuh"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

constexpr std::size_t round_up_256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// The single-pass context of a launch of `tiles` tiles over a prepared workspace.
template <class T>
single_pass_context<T> make_single_pass_context(const workspace_view& view, long long tiles,
                                                look_back_backoff backoff) {
  single_pass_context<T> pass;
  pass.header = static_cast<single_pass_header*>(view.header);
  pass.state = make_tile_state<T>(view.state_slots, view.scratch, static_cast<std::size_t>(tiles));
  pass.region_slots = view.state_slot_count;
  pass.tiles = tiles;
  pass.backoff = backoff;
  return pass;
}

}  // namespace scankit::device_detail
