// Device layer: the segmented scan's tile kernel. One tile per block, as the register scan
// kernel (scan_kernels.cuh), over (value, head) pairs combined by segmented_op
// (scankit/segmented_operators.hpp):
//   1. load the tile's values and its heads (segment_heads.cuh); each thread folds its K pairs;
//   2. a block scan of the thread aggregates, and the tile's prefix from the engine's single-pass
//      protocol (tile_prefix_op, decoupled look-back): a pair aggregate says both what the tile
//      adds and whether a segment starts in it, so a look-back stops counting at a head;
//   3. each thread rescans its items from its prefix, restarting at each head, and stores.
// A launch without a workspace (args.pass.header == nullptr) is a single tile: no look-back.
//
// Memory order: only the tile aggregates and prefixes travel between blocks, each with its status
// in tile_state (the 16-byte packed form for 4-byte values, the release/acquire split form for
// wider ones); see tile_state.cuh.
#pragma once

#include <cstdint>
#include <utility>

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/block/tile_io.cuh"
#include "scankit/device/kernel/scan_kernels.cuh"
#include "scankit/device/tile/tile_extent.cuh"
#include "scankit/device/tile/tile_prefix_op.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/segmented_operators.hpp"

namespace scankit::device_detail {

template <class T, class In, class Heads, class Out>
struct segmented_scan_args {
  In values;
  Heads heads;
  Out out;
  long long n;                   // the items, or their bound when n_device is set
  const std::int64_t* n_device;  // the count in device memory (device_count.cuh), or nullptr
  bool exclusive;  // each segment starts from `init` (out at a head = init)
  T init;
  single_pass_context<segment_item<T>> pass;  // header == nullptr: one tile, no look-back
};

template <class Policy, class T, class Heads>
struct segmented_scan_storage {
  using io = tile_io<T, Policy::items_per_thread, Policy::block_threads>;
  using block_scan = block_scan_t<Policy::algorithm, segment_item<T>, Policy::block_threads>;
  typename io::storage values;
  typename Heads::storage heads;
  typename block_scan::storage scan;
  tile_prefix_slots<segment_item<T>> slots;
};

// Step 2's second half, shared with reduce-by-key: the tile's prefix from the single-pass protocol
// (none for a launch of one tile), and from it the inclusive result of the item before this
// thread's first (absent only before item 0 of the input). Item and PairOp: (value, head) pairs
// and their segmented operator (heads or-ed, or counted).
template <class Item, class PairOp, class Storage>
__device__ __forceinline__ optional_prefix<Item> segmented_prefixes(const single_pass_context<Item>& pass,
                                                                    const block_scan_result<Item>& scanned,
                                                                    Storage& s, PairOp combine,
                                                                    optional_prefix<Item>& tile_prefix) {
  tile_prefix = {false, Item{}};
  if (pass.header != nullptr) {
    const tile_prefix_op<Item, PairOp, look_back_shape<>, false> prefix(pass, s.slots.ticket, combine);
    tile_prefix = prefix.template resolve<whole_block_barrier>(scanned.aggregate, s.slots.prefix);
  }
  if (threadIdx.x == 0) return tile_prefix;
  return {true, tile_prefix.present ? combine(tile_prefix.value, scanned.exclusive) : scanned.exclusive};
}

// The tile `tile` of a segmented scan, steps 1-3 (all threads of the block): values[] end as this
// thread's K results, inclusive or (exclusive) from `init`. Items past `valid` are not read.
template <class Policy, class T, class In, class Heads, class Storage, class Op>
__device__ __forceinline__ void scan_tile_segments(const In& values_in, const Heads& heads_in, long long base,
                                                   int valid, const single_pass_context<segment_item<T>>& pass,
                                                   bool exclusive, const T& init, Storage& s, Op op,
                                                   T (&values)[Policy::items_per_thread],
                                                   const decltype(std::declval<const Heads&>().prepare(0))& head_plan) {
  constexpr int K = Policy::items_per_thread;
  static_assert(K <= 32, "a thread's heads are one 32-bit mask");
  using item_t = segment_item<T>;
  using pair_op = segmented_op<Op>;
  const pair_op combine{op};

  if (valid > 0) load_tile<typename Storage::io>(values_in, base, valid, values, s.values);
  const unsigned heads = heads_in.load(base, valid, s.heads, head_plan);

  item_t aggregate{values[0], heads & 1u};
#pragma unroll
  for (int k = 1; k < K; ++k) aggregate = combine(aggregate, item_t{values[k], (heads >> k) & 1u});
  const block_scan_result<item_t> scanned = Storage::block_scan::scan(aggregate, s.scan, combine);

  optional_prefix<item_t> tile_prefix;
  const optional_prefix<item_t> before = segmented_prefixes(pass, scanned, s, combine, tile_prefix);
  bool has_running = before.present;
  T running = before.value.value;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const bool head = ((heads >> k) & 1u) != 0 || !has_running;  // item 0 of the input has nothing before it
    const T inclusive = head ? values[k] : static_cast<T>(op(running, values[k]));
    values[k] = exclusive ? (head ? init : static_cast<T>(op(init, running))) : inclusive;
    running = inclusive;
    has_running = true;
  }
}

// The tile this block works on: its ticket, or tile 0 for a launch of one tile.
template <class T, class Storage>
__device__ __forceinline__ long long segmented_tile_index(const single_pass_context<segment_item<T>>& pass,
                                                          Storage& s) {
  if (pass.header == nullptr) return 0;
  if (threadIdx.x == 0) s.slots.ticket = pass.draw();
  __syncthreads();
  return s.slots.ticket.tile;
}

template <class Policy, class T, class In, class Heads, class Out, class Op>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks_per_sm)
    segmented_scan_kernel(const segmented_scan_args<T, In, Heads, Out> args, Op op) {
  using storage_t = segmented_scan_storage<Policy, T, Heads>;
  __shared__ storage_t s;
  const long long tile = segmented_tile_index<T>(args.pass, s);
  // Every thread reads a device count itself (one load per warp; nothing in this launch writes it).
  const long long n = items_to_process(args.n, args.n_device);
  if (args.n_device != nullptr && tile >= tiles_of<Policy::tile_items>(n)) {
    leave_past_count(args.pass, args.pass.header != nullptr, s.slots.ticket);
    return;
  }
  const auto [base, valid] = tile_extent_of<Policy::tile_items>(tile, n);

  const auto head_plan = args.heads.prepare(base);  // before the values' loads, to overlap them
  T values[Policy::items_per_thread];
  scan_tile_segments<Policy, T>(args.values, args.heads, base, valid, args.pass, args.exclusive, args.init, s, op,
                                values, head_plan);
  store_tile<typename storage_t::io>(args.out, base, valid, values, s.values);
}

}  // namespace scankit::device_detail
