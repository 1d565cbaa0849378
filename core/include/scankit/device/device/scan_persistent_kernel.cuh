// Device layer: the staged single-pass kernel as persistent blocks, each loading its next tile
// while its current tile waits for the look-back.
//
// Why: the one-tile staged kernel (scan_staged_kernel.cuh) keeps its tile in shared memory while
// it waits for the look-back, so that shared memory is not loading anything for as long as the
// wait lasts; shared memory caps the tiles in flight per SM, and measured throughput falls with
// every block of residency taken away (docs/scan-engine.md, "Where the time goes"). Here a block
// moves its tile into registers (V x 16 bytes per thread) as soon as the bulk copy lands, starts
// the copy of its next tile into the freed shared memory, and only then looks back. Shared memory
// is loading almost all the time and registers hold the tiles that wait.
//
// Tiles still come from the ticket, and waiting cannot deadlock. A block draws its next ticket
// before the look-back of its current tile, so tile t's aggregate waits for the look-back of the
// block's previous tile, which is below t. By induction on the ticket: if every tile below t
// eventually publishes its aggregate and prefix, the previous tile's look-back ends, tile t is
// scanned and published, and its own look-back (over tiles below t) ends. Every ticket holder is
// a running block, so nothing waits on a block that has not started.
//
// Each block draws exactly one ticket past the last tile, so a launch draws tiles + gridDim.x
// tickets, and the draw of the last one resets the counter (tile_ticket.cuh). The grid may hold
// more blocks than fit at once: a late block draws a ticket past the end and leaves.
#pragma once

#include <cstdint>

#include "scankit/device/device/scan_staged_kernel.cuh"

namespace scankit::device_detail {

template <class StagedPolicy, tile_prefix_source Source, class T, class Op>
__global__ void __launch_bounds__(StagedPolicy::block_threads, StagedPolicy::min_blocks_per_sm)
    scan_persistent_tiles_kernel(scan_tiles_args<T> args, Op op) {
  static_assert(Source == tile_prefix_source::decoupled_look_back ||
                    Source == tile_prefix_source::deterministic_look_back,
                "persistent blocks need tiles from the ticket");
  using shape = staged_shape<StagedPolicy, T>;
  using storage_t = staged_kernel_storage<StagedPolicy, T>;
  using stage = typename storage_t::stage;
  using lanes = typename storage_t::lanes;
  constexpr int B = shape::block_threads;
  constexpr int V = shape::stripes;
  constexpr int P = shape::items_per_chunk;
  __shared__ storage_t s;

  const auto tickets = static_cast<std::uint32_t>(args.tiles + gridDim.x);
  if (threadIdx.x == 0) {
    stage::init(s.staged);
    const std::uint32_t first = draw_tile_ticket(args.ticket, tickets);
    s.tile_id = first;
    if (first < args.tiles) stage::start(s.staged, args.in, args.n, first);
  }
  __syncthreads();

  const int thread = static_cast<int>(threadIdx.x);
  unsigned parity = 0;  // the mbarrier phase of the next bulk copy
  for (long long tile = s.tile_id; tile < args.tiles; tile = s.tile_id) {
    stage::complete(s.staged, args.in, args.n, tile, parity);
    if (stage::full(args.n, tile)) parity ^= 1u;

    T items[V][P];
    lanes partials;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      unpack_chunk(s.staged.chunks[v * B + thread], items[v]);
      partials.lane[v] = thread_reduce(items[v], op);
    }
    // The block scan's barrier follows every thread's reads of the staged tile: after it, the
    // shared tile is free for the next copy.
    const block_scan_result<lanes> scanned = storage_t::block_scan::scan(partials, s.scan_storage, lanewise<Op>{op});
    const T aggregate = combine_lanes(scanned.aggregate, op);

    // The next copy starts before the look-back, so it overlaps the wait (see the top of the file
    // for why drawing the ticket this early is safe).
    if (threadIdx.x == 0) {
      const std::uint32_t next = draw_tile_ticket(args.ticket, tickets);
      s.tile_id = next;
      if (next < args.tiles) stage::start(s.staged, args.in, args.n, next);
    }
    const optional_prefix<T> tile_prefix =
        resolve_tile_prefix<Source, StagedPolicy::look_back_tiles_per_lane>(args, tile, aggregate, op, s.tile_prefix);
    store_scanned_stripes<shape>(
        args, tile, tile_prefix, scanned.exclusive, op,
        [&](int v, T(&chunk)[P]) {
#pragma unroll
          for (int k = 0; k < P; ++k) chunk[k] = items[v][k];
        },
        [&](int v) { return storage_t::block_scan::aggregate(s.scan_storage).lane[v]; });
    // Makes s.tile_id visible (resolve_tile_prefix has no barrier on tile 0) and keeps the next
    // block scan from overwriting the stripe totals read just above.
    __syncthreads();
  }
}

}  // namespace scankit::device_detail
