// Device layer (compaction): the single-pass kernel with the tile staged in shared memory, the
// default for select_if and unique on items of 1, 2, 4, 8 or 16 bytes.
//
// Why a second kernel: the register kernel (compact_tiles_kernel.cuh) holds K = 32 items per
// thread in registers through its count scan; at 63 registers it fits 4 blocks per SM, and ncu
// (select_if u32 50% at 2^28) showed 50% occupancy, DRAM at 69% of peak, 53% of stalls at block
// barriers and 28% excess shared-memory wavefronts in the blocked gather. Here, as in the scan's
// staged kernel (scan_staged_kernel.cuh), one bulk copy stages the tile in shared memory and a
// thread keeps only a few registers per chunk.
//
//   1. thread 0 draws the ticket, starts the bulk copy of the tile (tile_stage) and an L2
//      prefetch of a later tile;
//   2. (look-back warp, optional: it looks back from here on, tile_selection_offsets.cuh);
//   3. the tile is V stripes of B 16-byte chunks; thread t reads chunk t of each stripe
//      (conflict-free) and flags its P items (the source's chunk_flags) -> a count per chunk;
//   4. one block scan of value_lanes<int, V> gives every chunk its place among the selected items
//      of the tile: stripe v's selected items follow those of stripes 0..v-1. Thread 0 publishes
//      the tile's count;
//   5. the selected items move down within the shared tile, stripe by stripe, in output order;
//   6. the tile's offset (look-back), then coalesced stores of the run; the last tile writes the
//      count.
//
// Step 5 in place. An item at tile position i lands at its rank among the selected items, which
// is <= i. So stripe v's items land below the end of stripe v: over stripes already moved, or
// over stripe v itself. A barrier between reading stripe v (every thread's chunk of it, into
// registers) and writing it is all it takes; stripes after v are never written before they are
// read. The flags are computed once in step 3 (unique compares with the previous item, which
// step 5 may overwrite) and kept as a few bits per chunk.
//
// In place (out == in) the argument of compact_tiles_kernel.cuh holds unchanged: the tile's input
// is read (bulk copy complete, stencil-free sources read nothing else but unique's in[base - 1])
// before the count scan's barriers, and thus before anything is published. The bulk copy reads
// through the async proxy and later tiles overwrite that input with generic stores, so the
// publications carry a proxy fence as well (tile_prefix_op.cuh, async_proxy_input).
//
// Partition cannot use this kernel: its rejected items move up the tile, over stripes not yet
// read. unique_by_key (values) and the stencil sources use the register kernel.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/block/tile_stage.cuh"
#include "scankit/device/compact/compact_policy.cuh"
#include "scankit/device/compact/compact_tiles_kernel.cuh"
#include "scankit/device/compact/tile_scatter.cuh"
#include "scankit/device/compact/tile_selection_offsets.cuh"
#include "scankit/device/thread/value_lanes.cuh"
#include "scankit/device/tile/tile_extent.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

template <class Policy, class T>
struct compact_staged_storage {
  using workers_barrier = compact_workers_barrier<Policy>;
  using stage = tile_stage<T, Policy::tile_items, Policy::block_threads, workers_barrier>;
  using lanes = value_lanes<int, Policy::chunks_per_thread>;
  using block_scan = block_scan_warp_of_warps<lanes, Policy::block_threads, workers_barrier>;
  using offsets = tile_selection_offsets<Policy::block_threads, workers_barrier>;
  typename stage::storage staged;
  typename block_scan::storage scan;
  typename offsets::storage offsets_storage;
};

// The bulk copy needs sm_90 and a 16-byte-aligned input; without it (args.bulk_copy false, or a
// misaligned input) tile_stage copies the tile item by item, and the rest is unchanged.
template <class Policy, class Source, class Sink>
__global__ void __launch_bounds__(compact_launch_threads<Policy>, Policy::min_blocks_per_sm)
    compact_staged_kernel(const compact_tiles_args<Source, Sink> args) {
  using T = typename Source::item_type;
  using storage_t = compact_staged_storage<Policy, T>;
  using stage = typename storage_t::stage;
  using lanes = typename storage_t::lanes;
  using offsets = typename storage_t::offsets;
  using workers_barrier = typename storage_t::workers_barrier;
  using hand_over = divergent_block_barrier<compact_launch_threads<Policy>, 2>;
  constexpr int B = Policy::block_threads;
  constexpr int V = Policy::chunks_per_thread;
  constexpr int P = Policy::items_per_chunk;
  constexpr bool look_back_warp = Policy::look_back_warp;
  static_assert(!Source::has_values, "unique_by_key uses the register kernel");
  static_assert(std::is_same_v<Sink, select_sink<T>>,
                "the staged kernel serves select_if and unique: partition_if needs a register compact_policy");
  static_assert(P * sizeof(T) == 16, "the policy's item size must be the source's");
  __shared__ storage_t s;
  __shared__ long long device_n;  // the count read on the device, when there is one

  // 1. Ticket, bulk copy, prefetch. Misaligned input takes tile_stage's item-by-item path.
  const bool bulk = args.bulk_copy && (reinterpret_cast<std::uintptr_t>(args.source.in) & 15u) == 0;
  if (threadIdx.x == 0) {
    // A device count is loaded before the ticket is drawn: the two round trips overlap.
    const long long n = items_to_process(args.n, args.n_device);
    const tile_ticket drawn = args.tiles > 1 ? args.pass.draw() : tile_ticket{0, 0};
    s.offsets_storage.slots.ticket = drawn;
    if (args.n_device != nullptr) device_n = n;
    if (drawn.tile < tiles_of<Policy::tile_items>(n)) {
      stage::issue(s.staged, args.source.in, n, drawn.tile, bulk);
      constexpr long long ahead =
          Policy::prefetch_bytes_ahead / (static_cast<long long>(Policy::tile_items) * sizeof(T));
      if constexpr (ahead > 0) {
        if (args.tiles > 1) stage::prefetch_l2(args.source.in, n, static_cast<long long>(drawn.tile) + ahead);
      }
    }
  }
  __syncthreads();
  const tile_ticket ticket = s.offsets_storage.slots.ticket;
  const long long tile = ticket.tile;
  const auto items = [&]() -> long long { return args.n_device != nullptr ? device_n : args.n; };
  const auto last_tile = [&]() -> long long {
    return (args.n_device != nullptr ? tiles_of<Policy::tile_items>(device_n) : args.tiles) - 1;
  };
  if (args.n_device != nullptr && tile > last_tile()) {
    leave_past_count(args.pass, args.tiles > 1, ticket, tile, args.d_count);
    return;  // no copy was issued for this tile
  }
  // The protocol's view of this tile, made where it is used (its epoch from shared memory then).
  const auto prefix_op = [&] { return selection_prefix_op(args.pass, s.offsets_storage.slots.ticket, plus_op{}); };

  // 2. The look-back warp.
  if constexpr (look_back_warp) {
    if (threadIdx.x >= B) {
      if (args.tiles > 1) offsets::template look_back_warp<hand_over>(prefix_op(), s.offsets_storage);
      return;
    }
  }

  // 3. Flags and counts per chunk.
  stage::complete(s.staged, args.source.in, items(), tile, bulk);
  const auto [base, valid] = tile_extent_of<Policy::tile_items>(tile, items());
  const int thread = static_cast<int>(threadIdx.x);
  const int4* chunks = s.staged.chunks;
  const T* staged_items = stage::items(s.staged);
  // The flags of chunk v are bits v*P .. v*P+P-1 of `selected` (P divides 32: no chunk straddles
  // two words); few registers, so more blocks fit per SM.
  std::uint32_t selected[(V * P + 31) / 32] = {};
  lanes counts;
#pragma unroll
  for (int v = 0; v < V; ++v) {
    T items[P];
    memcpy(items, &chunks[v * B + thread], 16);
    const std::uint32_t bits =
        args.source.template chunk_flags<P>(items, staged_items, (v * B + thread) * P, base, valid);
    selected[v * P / 32] |= bits << (v * P % 32);
    counts.lane[v] = __popc(bits);
  }

  // 4. Ranks of the chunks in the tile; the tile's count.
  const block_scan_result<lanes> scanned =
      storage_t::block_scan::scan(counts, s.scan, lanewise<plus_op>{});  // exclusive undefined on thread 0
  const lanes& stripe_counts = storage_t::block_scan::aggregate(s.scan);  // shared memory: no registers
  int tile_count = 0;
#pragma unroll
  for (int v = 0; v < V; ++v) tile_count += stripe_counts.lane[v];
  if (args.tiles > 1 && threadIdx.x == 0) prefix_op().publish_aggregate(static_cast<selection_count>(tile_count));

  // 5. Move the selected items down the shared tile, stripe by stripe (see the top).
  T* const buffer = reinterpret_cast<T*>(s.staged.chunks);
  int stripe_first = 0;  // selected items of the stripes before v
#pragma unroll
  for (int v = 0; v < V; ++v) {
    T items[P];
    memcpy(items, &chunks[v * B + thread], 16);
    const std::uint32_t bits = (selected[v * P / 32] >> (v * P % 32)) & (P == 32 ? ~0u : (1u << P) - 1u);
    const int first = stripe_first + (thread == 0 ? 0 : scanned.exclusive.lane[v]);
    stripe_first += stripe_counts.lane[v];
    workers_barrier::sync();  // every thread has read its chunk of stripe v (and the stripe counts)
    gather_selected(items, bits, first, buffer);
  }

  // 6. The tile's offset (its barrier completes the gather), the stores, the count.
  const selection_count prefix =
      offsets::template tile_offset<look_back_warp, hand_over>(prefix_op(), args.tiles, tile_count, s.offsets_storage);
  args.sink.template store<Policy>(buffer, prefix, tile_count, base, valid, items());
  // The tile id again from shared memory: `tile` kept live to here spills for 8-byte items.
  if (s.offsets_storage.slots.ticket.tile == last_tile() && threadIdx.x == 0) {
    *args.d_count = static_cast<std::int64_t>(prefix + static_cast<unsigned long long>(tile_count));
  }
}

}  // namespace scankit::device_detail
