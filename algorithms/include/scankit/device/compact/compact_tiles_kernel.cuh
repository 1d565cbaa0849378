// Device layer (compaction): the single-pass kernel. One block per tile:
//
//   1. tile id from the ticket (the engine's draw_tile_ticket), so predecessors are running;
//   2. load K items per thread (tile_io: 16-byte vectors, warp transpose; item by item from an
//      input iterator that is not an array), plus the values of unique_by_key; the source turns
//      them into a selection mask per thread;
//   3. block scan of the per-thread counts -> offset in the tile and the tile's count; thread 0
//      publishes the count at once (tile_selection_offsets: the engine's tile_state);
//   4. every thread compacts its items into shared memory, in output order (tile_scatter);
//   5. warp 0 (or the look-back warp, below) looks back (the engine's decoupled_look_back) for the
//      tile's offset and publishes its inclusive prefix; a block barrier hands the offset to everyone;
//   6. coalesced stores of the tile's run; the last tile writes the total count to d_count.
// Step 4 sits between publishing and the look-back so that the shared-memory work overlaps the
// look-back's latency; the items are out of registers by then. A launch with one tile draws no
// ticket, publishes nothing and needs no workspace.
//
// In place (out == in, for select and unique; values_out == values_in for unique_by_key). Tile t
// reads in[base_t, base_t + T) (unique also reads in[base_t - 1]) and writes
// out[offset_t, offset_t + count_t), where offset_t (selected items before tile t) <= base_t
// and offset_t + count_t <= base_t + valid_t. So its writes land only on input of tiles <= t.
//  * Tile t itself loaded all its input into registers before its count scan's barriers, and it
//    writes only after them.
//  * Every earlier tile t' has finished reading its input when t writes: t writes only after its
//    look-back returned, the look-back returns only after reading a prefix published by some
//    tile p < t and the aggregates (or prefixes) of every tile in (p, t), each tile publishes
//    only after reading all its input (step 2 precedes step 3), and p published its prefix only
//    after its own look-back had seen every tile before it (induction down to tile 0). The
//    memory-order side of this chain is in tile_selection_offsets.cuh.
//  * Later tiles never read anything tile t writes: their input starts at base_t + T.
//  * unique's extra read in[base_t - 1] may meet a write by an earlier tile, but only a harmless
//    one: out[p] for p = base_t - 1 is written by a tile < t only if the p-th selected item has an
//    input index i with p <= i <= base_t - 1, i.e. i = p, so the value written is the value read.
// Partition cannot run in place: the rejected items fill the array from the back, over input
// that later tiles have not read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/tile_io.cuh"
#include "scankit/device/compact/selection_sources.cuh"
#include "scankit/device/compact/tile_scatter.cuh"
#include "scankit/device/compact/tile_selection_offsets.cuh"
#include "scankit/device/tile/tile_extent.cuh"
#include "scankit/device/tile/tile_prefix_op.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

template <class Source, class Sink>
struct compact_tiles_args {
  Source source;
  Sink sink;
  long long n;                   // the items, or their bound when n_device is set
  long long tiles;               // tiles of n (of the bound)
  std::int64_t* d_count;
  const std::int64_t* n_device;  // the count in device memory (device_count.cuh), or nullptr
  bool bulk_copy;          // the staged kernel may use the bulk copy (sm_90 and later)
  selection_context pass;  // tiles > 1; fence_other_memory in place (tile_selection_offsets.cuh)
};

// The barrier of the threads that work on the tile: the whole block, or a named barrier that
// leaves the look-back warp out.
template <class Policy>
using compact_workers_barrier =
    std::conditional_t<look_back_warp_of<Policy>, named_block_barrier<Policy::block_threads>, whole_block_barrier>;

// Shared memory of one tile: the item area serves first the tile_io transpose, then the
// compacted tile; the value area likewise for unique_by_key.
template <class Policy, class Source>
struct compact_tile_storage {
  using T = typename Source::item_type;
  using V = typename Source::value_type;
  static constexpr int K = Policy::items_per_thread;
  static constexpr int B = Policy::block_threads;

  template <class U>
  static constexpr std::size_t area_bytes() {
    const std::size_t io = sizeof(typename tile_io<U, K, B>::storage);
    const std::size_t tile = sizeof(U) * static_cast<std::size_t>(Policy::tile_items);
    return io > tile ? io : tile;
  }
  static constexpr std::size_t value_area_bytes() {
    if constexpr (Source::has_values) {
      return area_bytes<V>();
    } else {
      return 16;
    }
  }

  alignas(16) unsigned char item_area[area_bytes<T>()];
  alignas(16) unsigned char value_area[value_area_bytes()];
  typename Source::template storage<Policy> extra;
  typename tile_selection_offsets<B, compact_workers_barrier<Policy>>::storage offsets;
};

// With a look-back warp (look_back_warp_of<Policy>), the block has one warp more than the
// BlockThreads threads that work on the tile. It looks back from the moment the ticket is drawn,
// while they load, flag, count and gather; they publish the count as soon as they have it, meet
// the look-back warp at one barrier (a non-aligned one: the two sides arrive from different
// branches) and publish the inclusive prefix. The workers synchronise among themselves on a
// named barrier. A tile's count never waits for any look-back, so the deadlock argument of the
// ticket is unchanged.
template <class Policy, class Source, class Sink>
__global__ void __launch_bounds__(compact_launch_threads<Policy>)
    compact_tiles_kernel(const compact_tiles_args<Source, Sink> args) {
  constexpr int K = Policy::items_per_thread;
  constexpr int B = Policy::block_threads;
  constexpr int tile_items = Policy::tile_items;
  constexpr bool look_back_warp = look_back_warp_of<Policy>;
  using T = typename Source::item_type;
  using V = typename Source::value_type;
  using storage_t = compact_tile_storage<Policy, Source>;
  using workers_barrier = compact_workers_barrier<Policy>;
  using hand_over = divergent_block_barrier<compact_launch_threads<Policy>, 2>;  // with a look-back warp
  using offsets = tile_selection_offsets<B, workers_barrier>;
  using item_io = tile_io<T, K, B>;
  static_assert(sizeof(storage_t) <= 48 * 1024,
                "compaction tile too large for static shared memory: use a policy with fewer items per tile");
  __shared__ storage_t s;
  __shared__ long long device_n;  // the count read on the device, when there is one

  tile_ticket ticket{0, 0};
  // A device count is loaded before the ticket is drawn (both round trips in flight), and stored
  // after it.
  const long long n_read = threadIdx.x == 0 ? items_to_process(args.n, args.n_device) : 0;
  if (args.tiles > 1) {
    if (threadIdx.x == 0) {
      s.offsets.slots.ticket = args.pass.draw();
      if (args.n_device != nullptr) device_n = n_read;
      // Prefetch a later full tile into L2 (l2_prefetch.cuh): DRAM runs ahead of the tiles that
      // shared memory holds in flight. The last tile may be partial: skipped.
      constexpr long long ahead =
          prefetch_bytes_ahead_of<Policy> / (static_cast<long long>(tile_items) * Source::widest_bytes);
      if constexpr (ahead > 0) {
        const long long later = static_cast<long long>(s.offsets.slots.ticket.tile) + ahead;
        if (later < args.tiles - 1) args.source.prefetch_l2(later * tile_items, tile_items);
      }
    }
    __syncthreads();
    ticket = s.offsets.slots.ticket;
  } else {
    if (threadIdx.x == 0) {
      s.offsets.slots.ticket = ticket;  // read (unused) by prefix_op() after the count scan's barriers
      if (args.n_device != nullptr) device_n = n_read;
    }
    if (args.n_device != nullptr) __syncthreads();
  }
  const long long tile = ticket.tile;
  // Read where used, not kept in registers across the tile.
  const auto items_n = [&]() -> long long { return args.n_device != nullptr ? device_n : args.n; };
  const auto tiles = [&]() -> long long {
    return args.n_device != nullptr ? tiles_of<tile_items>(device_n) : args.tiles;
  };
  if (args.n_device != nullptr && tile >= tiles()) {
    leave_past_count(args.pass, args.tiles > 1, ticket, tile, args.d_count);
    return;
  }
  // The protocol's view of this tile, made where it is used (its epoch from shared memory then).
  const auto prefix_op = [&] { return selection_prefix_op(args.pass, s.offsets.slots.ticket, plus_op{}); };
  if constexpr (look_back_warp) {
    if (threadIdx.x >= B) {
      if (args.tiles > 1) offsets::template look_back_warp<hand_over>(prefix_op(), s.offsets);
      return;
    }
  }
  const long long base = tile * tile_items;
  const long long remaining = items_n() - base;
  const int valid = remaining < tile_items ? static_cast<int>(remaining) : tile_items;
  const bool full = valid == tile_items;

  // 2. Load and flag.
  const auto prefetched = args.source.template prefetch<Policy>(base, valid);
  T items[K];
  load_tile_items<item_io>(args.source.in, base, valid, items,
                           *reinterpret_cast<typename item_io::storage*>(s.item_area));
  [[maybe_unused]] V values[Source::has_values ? K : 1];
  if constexpr (Source::has_values) {
    using value_io = tile_io<V, K, B>;
    if (full) {
      value_io::load_full(args.source.values + base, values,
                          *reinterpret_cast<typename value_io::storage*>(s.value_area),
                          value_io::aligned(args.source.values));
    } else {
      value_io::load_partial(args.source.values + base, values, valid);
    }
  }
  const std::uint32_t mask = args.source.template tile_flags<Policy>(items, prefetched, base, valid, s.extra);

  // 3. Count, scan the counts, publish the tile's count.
  const typename offsets::tile_counts counts = offsets::scan_counts(__popc(mask), s.offsets);
  if (args.tiles > 1 && threadIdx.x == 0) {
    prefix_op().publish_aggregate(static_cast<selection_count>(counts.tile_count));
  }

  // 4. Compact into shared memory (every warp is past its transpose: the count scan's barriers).
  T* const item_buffer = reinterpret_cast<T*>(s.item_area);
  args.sink.template gather<Policy>(items, mask, counts.thread_offset, valid, counts.tile_count, item_buffer);
  if constexpr (Source::has_values) {
    args.sink.template gather<Policy>(values, mask, counts.thread_offset, valid, counts.tile_count,
                                      reinterpret_cast<V*>(s.value_area));
  }

  // 5. The tile's offset.
  const selection_count prefix =
      offsets::template tile_offset<look_back_warp, hand_over>(prefix_op(), args.tiles, counts.tile_count, s.offsets);

  // 6. Store the tile's run(s) and, from the last tile, the count.
  args.sink.template store<Policy>(item_buffer, prefix, counts.tile_count, base, valid, items_n());
  if constexpr (Source::has_values) {
    args.sink.template store_values<Policy>(reinterpret_cast<const V*>(s.value_area), prefix, counts.tile_count);
  }
  if (tile == tiles() - 1 && threadIdx.x == 0) {
    *args.d_count = static_cast<std::int64_t>(prefix + static_cast<unsigned long long>(counts.tile_count));
  }
}

}  // namespace scankit::device_detail
