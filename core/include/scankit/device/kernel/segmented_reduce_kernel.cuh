// Device layer: the segmented reduction by offsets (CSR rows), one pass. Each tile runs the
// segmented scan of its items (scan_tile_segments, with the tile's heads from the offsets and its
// prefix from the decoupled look-back, so a segment may span any number of tiles), keeps the
// inclusive results in shared memory, and then writes, for every offset k the tile owns
// (segment_offsets.cuh), the segment k - 1 that ends in it: the inclusive result of its last
// item, or `empty_value` when it is empty. With counts in device memory, blocks past the items'
// count leave at once (positions clamp to that count, so no segment ends in their tiles).
//
// Memory order: as in the segmented scan, only tile aggregates and prefixes travel between blocks,
// each with its status (tile_state.cuh); the outputs are read by later launches only.
#pragma once

#include "scankit/device/kernel/segment_offsets.cuh"
#include "scankit/device/kernel/segmented_scan_kernel.cuh"
#include "scankit/device/tile/tile_extent.cuh"

namespace scankit::device_detail {

template <class T, class In, class OffsetsIn, int K, int BlockThreads, class Out>
struct segmented_reduce_args {
  In values;
  offsets_head_source<OffsetsIn, K, BlockThreads> heads;
  Out out;  // one result per segment
  long long n;                   // the items, or their bound when n_device is set
  const std::int64_t* n_device;  // the count in device memory (device_count.cuh), or nullptr
  T empty_value;
  single_pass_context<segment_item<T>> pass;  // header == nullptr: one tile, no look-back
};

// The segmented scan's storage, with the tile's inclusive results over the values' transpose
// (free once the block scan's barriers are passed: every warp has finished its loads), so that
// the reduction takes no more shared memory than the scan. One word of padding per 32 items keeps
// the threads' blocked writes in distinct banks.
template <class Policy, class T, class Heads>
struct segmented_reduce_storage {
  using io = tile_io<T, Policy::items_per_thread, Policy::block_threads>;
  using block_scan = block_scan_t<Policy::algorithm, segment_item<T>, Policy::block_threads>;
  static constexpr int result_slots = Policy::tile_items + Policy::tile_items / 32;
  union alignas(16) {
    typename io::storage values;
    unsigned char result_bytes[result_slots * sizeof(T)];
  };
  typename Heads::storage heads;
  typename block_scan::storage scan;
  tile_prefix_slots<segment_item<T>> slots;

  static __device__ __forceinline__ int slot(int item) { return item + (item >> 5); }
  __device__ __forceinline__ T* results() { return reinterpret_cast<T*>(result_bytes); }
};

template <class Policy, class T, class In, class OffsetsIn, class Out, class Op>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks_per_sm)
    segmented_reduce_kernel(
        const segmented_reduce_args<T, In, OffsetsIn, Policy::items_per_thread, Policy::block_threads, Out> args,
        Op op) {
  constexpr int K = Policy::items_per_thread;
  using heads_t = offsets_head_source<OffsetsIn, K, Policy::block_threads>;
  using storage_t = segmented_reduce_storage<Policy, T, heads_t>;
  __shared__ storage_t s;
  const long long tile = segmented_tile_index<T>(args.pass, s);
  const long long n = items_to_process(args.n, args.n_device);
  // Tile 0 always runs: with no items it still writes every (empty) segment.
  if (args.n_device != nullptr && tile > 0 && tile >= tiles_of<Policy::tile_items>(n)) {
    leave_past_count(args.pass, args.pass.header != nullptr, s.slots.ticket);
    return;
  }
  const auto [base, valid] = tile_extent_of<Policy::tile_items>(tile, n);

  const auto owned = args.heads.prepare(base);  // before the values' loads, to overlap them
  T values[K];
  scan_tile_segments<Policy, T>(args.values, args.heads, base, valid, args.pass, false, T{}, s, op, values, owned);
  const int first = static_cast<int>(threadIdx.x) * K;
#pragma unroll
  for (int k = 0; k < K; ++k) s.results()[storage_t::slot(first + k)] = values[k];
  __syncthreads();

  const segment_offsets<OffsetsIn>& segments = owned.segments;
  for (long long k = owned.begin + threadIdx.x; k < owned.end; k += Policy::block_threads) {
    if (k == 0) continue;  // the first offset closes no segment
    const long long stop = segments.position(k);
    const bool empty = segments.position(k - 1) >= stop;
    // Non-empty: the last item, stop - 1, lies in this tile (base < stop <= base + valid).
    args.out[k - 1] = empty ? args.empty_value : s.results()[storage_t::slot(static_cast<int>(stop - 1 - base))];
  }
}

}  // namespace scankit::device_detail
