// Tile layer: tile ids handed out by an atomic ticket instead of blockIdx.
//
// A block that draws ticket t knows that the blocks holding tickets 0..t-1 have already started
// running, so waiting on them cannot deadlock whatever order the hardware schedules blocks in.
// Every block draws exactly one ticket, so the block that draws the last one (tickets - 1) is the
// last to touch the counter in this launch and resets it to zero for the next launch (which is
// ordered after this one on the stream): no separate clearing launch is needed.
#pragma once

#include <cstdint>

namespace scankit::device_detail {

// Called by one thread per block.
__device__ __forceinline__ std::uint32_t draw_tile_ticket(std::uint32_t* counter, std::uint32_t tickets) {
  const std::uint32_t ticket = atomicAdd(counter, 1u);
  if (ticket == tickets - 1) atomicExch(counter, 0u);
  return ticket;
}

}  // namespace scankit::device_detail
