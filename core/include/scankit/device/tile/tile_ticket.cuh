// Tile layer: tile ids and the launch epoch, handed out by one atomic ticket word.
//
// Tile ids come from an atomic counter instead of blockIdx: a block that draws ticket t knows that
// the blocks holding tickets 0..t-1 have already started running, so waiting on them cannot
// deadlock whatever order the hardware schedules blocks in.
//
// The same 64-bit word carries the launch's epoch in its high half (the tag of every tile status
// this launch publishes, tile_state.cuh), so one atomicAdd returns both, and the epoch is decided
// on the device, never on the host: a launch captured in a CUDA graph and replayed gets a fresh
// epoch on every replay. Every block draws exactly one ticket, so the block that draws the last
// one (tickets - 1) is the last to touch the word in this launch (all other increments come
// before its own in the word's modification order); it resets the count and advances the epoch
// for the next launch, which is stream-ordered after this one. No clearing launch is needed.
//
// Epochs run 0 .. max_epoch and then wrap. A slot last written exactly one wrap ago would carry a
// valid-looking status, so the launch that holds max_epoch (one in 2^30) clears every slot of the
// state region before the next launch can start: each block reports when it has finished with the
// tile states (finish_tile_states), and the last one to finish clears them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scankit::device_detail {

// The workspace header's single-pass part (its first bytes, zeroed when the workspace is laid
// out).
struct single_pass_header {
  unsigned long long ticket;  // epoch << 32 | tickets drawn in this launch
  unsigned int finished;      // blocks done with the tile states (wrap launches only)
};

// Epochs fit the 30 bits a tile status has above its 2 flag bits.
constexpr std::uint32_t max_epoch = (1u << 30) - 1;

struct tile_ticket {
  std::uint32_t tile;
  std::uint32_t epoch;
};

// One thread per block, once per launch.
__device__ __forceinline__ tile_ticket draw_tile_ticket(single_pass_header* header, std::uint32_t tickets) {
  const unsigned long long word = atomicAdd(&header->ticket, 1ull);
  const tile_ticket ticket{static_cast<std::uint32_t>(word), static_cast<std::uint32_t>(word >> 32)};
  if (ticket.tile == tickets - 1) {
    const std::uint32_t next = ticket.epoch == max_epoch ? 0u : ticket.epoch + 1;
    atomicExch(&header->ticket, static_cast<unsigned long long>(next) << 32);
  }
  return ticket;
}

// One thread per block (the one that makes the block's last tile-state access, after everything
// else the block reads or writes in the state region is ordered before it), once per launch.
// Outside the wrap launch this is one comparison. In the wrap launch the last block to finish
// zeroes `region_slots` 8-byte slots: the fences order every block's state accesses before its
// count (release pattern) and the count before the clearing stores (acquire pattern), so no
// block can read a cleared slot. Slow (one thread), but once per 2^30 launches.
__device__ __forceinline__ void finish_tile_states(single_pass_header* header, const tile_ticket& ticket,
                                                   std::uint32_t tickets, std::uint64_t* slots,
                                                   std::size_t region_slots) {
  if (ticket.epoch != max_epoch) return;
  __threadfence();
  if (atomicAdd(&header->finished, 1u) != tickets - 1) return;
  __threadfence();
  for (std::size_t i = 0; i < region_slots; ++i) slots[i] = 0;
  header->finished = 0;
}

}  // namespace scankit::device_detail
