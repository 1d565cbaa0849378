// Device layer: reduce-by-key's tile kernel. One pass over keys and values: the segmented scan of
// the values over runs of equal keys (segmented_scan_kernel.cuh) with the heads counted
// (counting_segmented_op), so that a run's number is the count of heads up to its first item;
// each tile then writes, compacted in output order,
//   the key of every head it holds:                  unique_keys[run] = keys[head]
//   the aggregate of every run that ends before one:  aggregates[run - 1] = inclusive value at head - 1
// and the thread that holds the last item writes the last run's aggregate and the number of runs.
// The keys and aggregates of a tile go through shared memory (gather_selected) and leave with
// consecutive threads on consecutive slots (store_run_through).
//
// Memory order: as in the segmented scan, only tile aggregates and prefixes travel between blocks,
// each with its status (tile_state.cuh); the outputs are read by later launches only.
#pragma once

#include <cstdint>

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/block/tile_io.cuh"
#include "scankit/device/compact/tile_scatter.cuh"
#include "scankit/device/kernel/scan_kernels.cuh"
#include "scankit/device/kernel/segment_heads.cuh"
#include "scankit/device/kernel/segmented_scan_kernel.cuh"
#include "scankit/device/tile/tile_extent.cuh"
#include "scankit/device/tile/tile_prefix_op.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/segmented_operators.hpp"

namespace scankit::device_detail {

template <class T, class ValuesIn, class Heads, class KeysOut, class ValuesOut>
struct reduce_by_key_args {
  ValuesIn values;
  Heads heads;  // key_change_source over the keys
  KeysOut unique_keys;
  ValuesOut aggregates;
  std::int64_t* runs;  // the number of runs (one item, device memory)
  long long n;                   // the items, or their bound when n_device is set
  const std::int64_t* n_device;  // the count in device memory (device_count.cuh), or nullptr
  single_pass_context<segment_item<T>> pass;  // header == nullptr: one tile, no look-back
};

template <class Policy, class T, class Heads>
struct reduce_by_key_storage {
  using key_type = typename Heads::key_type;
  using io = tile_io<T, Policy::items_per_thread, Policy::block_threads>;
  using block_scan = block_scan_t<Policy::algorithm, segment_item<T>, Policy::block_threads>;
  // The transposes, then (after the block scan's barriers) the tile's outputs in order.
  union alignas(16) {
    typename io::storage transpose;
    T gathered[Policy::tile_items];
  } values;
  union alignas(16) {
    typename Heads::storage transpose;
    key_type gathered[Policy::tile_items];
  } keys;
  typename block_scan::storage scan;
  tile_prefix_slots<segment_item<T>> slots;
};

template <class Policy, class T, class ValuesIn, class Heads, class KeysOut, class ValuesOut, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    reduce_by_key_kernel(const reduce_by_key_args<T, ValuesIn, Heads, KeysOut, ValuesOut> args, Op op) {
  constexpr int K = Policy::items_per_thread;
  static_assert(K <= 32, "a thread's heads are one 32-bit mask");
  using item_t = segment_item<T>;
  using pair_op = counting_segmented_op<Op>;
  using storage_t = reduce_by_key_storage<Policy, T, Heads>;
  using key_type = typename storage_t::key_type;
  __shared__ storage_t s;
  const pair_op combine{op};
  const long long tile = segmented_tile_index<T>(args.pass, s);
  // Every thread reads a device count itself (one load per warp; nothing in this launch writes it).
  const long long n = items_to_process(args.n, args.n_device);
  if (args.n_device != nullptr && tile >= tiles_of<Policy::tile_items>(n)) {
    leave_past_count(args.pass, args.pass.header != nullptr, s.slots.ticket, tile, args.runs);
    return;
  }
  const auto [base, valid] = tile_extent_of<Policy::tile_items>(tile, n);
  const int first = static_cast<int>(threadIdx.x) * K;  // tile index of this thread's item 0

  T values[K];
  load_tile<typename storage_t::io>(args.values, base, valid, values, s.values.transpose);
  key_type keys[K];
  // Heads inside the tile only: items past a partial tile's end must not count as runs.
  const unsigned heads = args.heads.load(base, valid, s.keys.transpose, keys) & valid_item_mask<K>(first, valid) |
                         (base + first == 0 ? 1u : 0u);

  item_t aggregate{values[0], heads & 1u};
#pragma unroll
  for (int k = 1; k < K; ++k) aggregate = combine(aggregate, item_t{values[k], (heads >> k) & 1u});
  const block_scan_result<item_t> scanned = storage_t::block_scan::scan(aggregate, s.scan, combine);

  optional_prefix<item_t> tile_prefix;
  const optional_prefix<item_t> before = segmented_prefixes(args.pass, scanned, s, combine, tile_prefix);
  const std::uint32_t runs_before_tile = tile_prefix.present ? tile_prefix.value.head : 0u;
  const std::uint32_t heads_before_thread = threadIdx.x == 0 ? 0u : scanned.exclusive.head;  // within the tile
  const std::uint32_t heads_in_tile = scanned.aggregate.head;

  // values[k] becomes the inclusive value of the item before k (what a head at k closes).
  bool has_running = before.present;
  T running = before.value.value;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const bool head = ((heads >> k) & 1u) != 0;
    const T inclusive = head || !has_running ? values[k] : static_cast<T>(op(running, values[k]));
    values[k] = running;
    running = inclusive;
    has_running = true;
  }

  // The tile's heads, in order, in shared memory (the transposes are done: the block scan's
  // barriers came after them), then out.
  gather_selected(keys, heads, static_cast<int>(heads_before_thread), s.keys.gathered);
  gather_selected(values, heads, static_cast<int>(heads_before_thread), s.values.gathered);
  __syncthreads();
  store_run_through<Policy>(args.unique_keys, runs_before_tile, s.keys.gathered, static_cast<int>(heads_in_tile));
  // Aggregates: a head closes the run before it, slot run - 1; the array's first item closes none.
  const int skip = tile == 0 ? 1 : 0;
  store_run_through<Policy>(args.aggregates, static_cast<long long>(runs_before_tile) + skip - 1,
                            s.values.gathered + skip, static_cast<int>(heads_in_tile) - skip);
  // The last item closes the last run.
  const long long last = n - 1 - (base + first);  // the last item's index in this thread
  if (0 <= last && last < K) {
    T closing = running;  // the inclusive value of item `last` (values[k + 1] holds item k's)
#pragma unroll
    for (int k = 0; k + 1 < K; ++k) {
      if (k == last) closing = values[k + 1];
    }
    const std::uint32_t runs = runs_before_tile + heads_in_tile;
    args.aggregates[static_cast<long long>(runs) - 1] = closing;
    *args.runs = runs;
  }
}

}  // namespace scankit::device_detail
