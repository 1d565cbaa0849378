// Device layer: the whole-array reduction, in one launch.
//
// Every warp of the grid owns a contiguous run of "warp tiles" (32 x K items), read with
// coalesced 16-byte loads. With a commutative operator (is_commutative) each thread folds what it
// loads and the warp combines its lanes at the end. Otherwise the warp folds its run in order: a
// warp tile is transposed through the warp's own stretch of shared memory (tile_io::load_warp) so
// that each thread folds K consecutive items, and the warp combines its lanes per warp tile
// (warp_reduce_present), earlier items on the left. No block barrier inside the loop. Then each
// block combines its warps in order and writes one partial per block; the last block to finish
// (the one that draws the last ticket, tile_ticket.cuh) combines the partials in order and writes
// the result. The grouping depends only on n and the grid: equal inputs give equal bits
// (floating-point sums included) on a given GPU.
//
// Memory order: each block's thread 0 stores its partial, then fences (release pattern) before
// drawing its ticket; the block that draws the last ticket has seen every other draw (they all
// come before its own in the ticket word's modification order), fences (acquire pattern), and
// only then do its threads read the partials, bypassing L1 (__ldcg).
#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "scankit/device/block/tile_io.cuh"
#include "scankit/device/tile/tile_ticket.cuh"
#include "scankit/device/util/shuffle.cuh"
#include "scankit/device/warp/warp_reduce.cuh"
#include "scankit/operators.hpp"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

// Accumulators are made from the items by `map(item, index)` (the identity for a reduction, the
// (index, value) pair for arg-min and arg-max).
template <class T, class In, class Out, class Map>
struct reduce_args {
  In in;
  long long n;
  Out out;         // one item: [init op] the combination of map(in[i], i) over [0, n); init if n == 0
  Map map;
  bool has_init;
  T init;
  long long warp_tiles_per_warp;     // the contiguous run of warp tiles each warp owns
  optional_value<T>* partials;       // one per block (grids of more than one block)
  single_pass_header* header;        // the ticket that finds the last block
  const std::int64_t* n_device = nullptr;  // the count in device memory (n its bound), or nullptr
};

// MinBlocksPerSm goes to __launch_bounds__ (0: no minimum). Interleaved: with a commutative
// operator and an aligned array, the grid's warps take warp tiles in turn (warp w of the grid
// reads tiles w, w + warps, ...), so that the whole grid streams through one window of memory at a
// time, instead of each warp through its own run.
template <int BlockThreads, int ItemsPerThread, int MinBlocksPerSm = 0, bool Interleaved = true>
struct reduce_policy {
  static constexpr bool interleaved = Interleaved;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  static constexpr int block_threads = BlockThreads;
  static constexpr int warps = BlockThreads / 32;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int warp_tile_items = 32 * ItemsPerThread;
};

// Combines one item per thread of the block in thread order; the result is on thread 0. Ends
// with the block's warps' values read (the storage may be reused after a barrier).
template <int BlockThreads, class T, class Op>
__device__ __forceinline__ optional_value<T> block_reduce_present(optional_value<T> item, optional_value<T>* warp_values,
                                                                  Op op) {
  constexpr int warps = BlockThreads / 32;
  item = warp_reduce_present(item, op);
  if (lane_id() == 0) warp_values[warp_id()] = item;
  __syncthreads();
  if (warp_id() == 0) {
    item = lane_id() < warps ? warp_values[lane_id()] : optional_value<T>{false, T{}};
    item = warp_reduce_present(item, op);
  }
  return item;
}

// The result of the whole reduction (thread 0 of the block that has it).
template <class T, class In, class Out, class Map, class Op>
__device__ __forceinline__ void write_reduction(const reduce_args<T, In, Out, Map>& args, const optional_value<T>& total,
                                                Op op) {
  if (!total.present) {
    *args.out = args.init;
  } else {
    *args.out = args.has_init ? static_cast<T>(op(args.init, total.value)) : total.value;
  }
}

// A block's partial, read past L1 (another block of this multiprocessor may have left a stale line).
template <class T>
__device__ __forceinline__ optional_value<T> load_partial(const optional_value<T>* slot) {
  using word = std::conditional_t<sizeof(optional_value<T>) % 4 == 0, unsigned, unsigned char>;
  word words[sizeof(optional_value<T>) / sizeof(word)];
#pragma unroll
  for (unsigned w = 0; w < sizeof(optional_value<T>) / sizeof(word); ++w) {
    words[w] = __ldcg(reinterpret_cast<const word*>(slot) + w);
  }
  optional_value<T> partial;
  memcpy(&partial, words, sizeof(partial));
  return partial;
}

// One whole, aligned warp tile folded by a commutative operator: coalesced 16-byte loads straight
// to registers, all in flight before the first use; each thread returns the fold of its items.
template <class Policy, class T, class Item, class Map, class Op>
__device__ __forceinline__ T fold_warp_tile(const Item* tile, long long base, const Map& map, Op op) {
  using io = tile_io<Item, Policy::items_per_thread, Policy::block_threads>;
  constexpr int per_chunk = io::items_per_chunk;
  int4 chunks[io::chunks_per_thread];
#pragma unroll
  for (int q = 0; q < io::chunks_per_thread; ++q) {
    chunks[q] = reinterpret_cast<const int4*>(tile)[q * 32 + lane_id()];
  }
  T value{};
#pragma unroll
  for (int q = 0; q < io::chunks_per_thread; ++q) {
    Item items[per_chunk];
    memcpy(items, &chunks[q], 16);
    const long long index = base + static_cast<long long>(q * 32 + lane_id()) * per_chunk;
#pragma unroll
    for (int e = 0; e < per_chunk; ++e) {
      const T item = static_cast<T>(map(items[e], index + e));
      value = q == 0 && e == 0 ? item : static_cast<T>(op(value, item));
    }
  }
  return value;
}

template <class Policy, class T, class In, class Out, class Map, class Op>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks_per_sm)
    reduce_kernel(const reduce_args<T, In, Out, Map> args, Op op) {
  constexpr int K = Policy::items_per_thread;
  using item_t = std::remove_cv_t<typename std::iterator_traits<In>::value_type>;
  using io = tile_io<item_t, K, Policy::block_threads>;
  __shared__ typename io::storage transpose;
  __shared__ optional_value<T> warp_values[Policy::warps];
  __shared__ bool last_block;

  // This warp's run of warp tiles. A commutative operator: each thread folds the items it loads,
  // whichever they are, and the warp combines its lanes once at the end. Otherwise the run is
  // folded in order: each warp tile transposed so that a thread holds K consecutive items, and
  // the warp's lanes combined per warp tile.
  constexpr bool commutative = is_commutative<Op>::value;
  // The grid was planned for n (the bound of a device count); warps whose runs lie past the count
  // find nothing to do. Every thread reads a device count (one load per warp).
  const long long n = items_to_process(args.n, args.n_device);
  optional_value<T> mine{false, T{}};  // commutative: this thread's; otherwise lane 0's is the warp's
  const long long warp = static_cast<long long>(blockIdx.x) * Policy::warps + warp_id();
  long long first = warp * args.warp_tiles_per_warp * Policy::warp_tile_items;
  long long end_of_run = first + args.warp_tiles_per_warp * Policy::warp_tile_items;
  if constexpr (Policy::interleaved && commutative && std::is_pointer_v<In> && io::vectorizable) {
    if (io::aligned(args.in)) {
      // Whole warp tiles in turn across the grid; the items past the last whole one go to the
      // last warp of the grid, item by item below.
      const long long whole = n / Policy::warp_tile_items;
      const long long grid_warps = static_cast<long long>(gridDim.x) * Policy::warps;
      for (long long t = warp; t < whole; t += grid_warps) {
        const long long base = t * Policy::warp_tile_items;
        const T tile_value = fold_warp_tile<Policy, T>(args.in + base, base, args.map, op);
        mine = {true, mine.present ? static_cast<T>(op(mine.value, tile_value)) : tile_value};
      }
      first = warp == grid_warps - 1 ? whole * Policy::warp_tile_items : n;
      end_of_run = n;
    }
  }
  const long long end = end_of_run < n ? end_of_run : n;
  for (long long base = first; base < end; base += Policy::warp_tile_items) {
    const long long valid = end - base;
    if constexpr (std::is_pointer_v<In> && io::vectorizable) {
      if (valid >= Policy::warp_tile_items && io::aligned(args.in + base)) {
        if constexpr (commutative) {
          const T tile_value = fold_warp_tile<Policy, T>(args.in + base, base, args.map, op);
          mine = {true, mine.present ? static_cast<T>(op(mine.value, tile_value)) : tile_value};
        } else {
          item_t items[K];
          const long long mine_first = base + lane_id() * K;
          io::load_warp(args.in + base, items, transpose, true);
          optional_value<T> thread_value{true, static_cast<T>(args.map(items[0], mine_first))};
#pragma unroll
          for (int k = 1; k < K; ++k) {
            thread_value.value = static_cast<T>(op(thread_value.value, args.map(items[k], mine_first + k)));
          }
          mine = combine_present(mine, warp_reduce_present(thread_value, op), op);
        }
        continue;
      }
    }
    // A partial or unaligned warp tile, or an iterator: item by item, K consecutive per thread.
    const long long mine_first = base + lane_id() * K;
    optional_value<T> thread_value{false, T{}};
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (mine_first + k < end) {
        const T item = static_cast<T>(args.map(static_cast<item_t>(args.in[mine_first + k]), mine_first + k));
        thread_value = {true, thread_value.present ? static_cast<T>(op(thread_value.value, item)) : item};
      }
    }
    if constexpr (commutative) {
      mine = combine_present(mine, thread_value, op);
    } else {
      mine = combine_present(mine, warp_reduce_present(thread_value, op), op);
    }
  }
  if constexpr (commutative) mine = warp_reduce_present(mine, op);

  // The block's warps in order (lane 0 of each holds its warp's value).
  const optional_value<T> block_value =
      block_reduce_present<Policy::block_threads>(lane_id() == 0 ? mine : optional_value<T>{false, T{}}, warp_values, op);

  if (gridDim.x == 1) {
    if (threadIdx.x == 0) write_reduction(args, block_value, op);
    return;
  }
  if (threadIdx.x == 0) {
    args.partials[blockIdx.x] = block_value;
    __threadfence();  // release: the partial before the ticket
    last_block = draw_tile_ticket(args.header, gridDim.x).tile == gridDim.x - 1;
    if (last_block) __threadfence();  // acquire: every block's partial before the reads below
  }
  __syncthreads();
  if (!last_block) return;

  // The last block: thread t folds a contiguous run of the partials, then the block in order.
  const unsigned per_thread = (gridDim.x + Policy::block_threads - 1) / Policy::block_threads;
  optional_value<T> run{false, T{}};
  for (unsigned b = threadIdx.x * per_thread; b < (threadIdx.x + 1) * per_thread && b < gridDim.x; ++b) {
    run = combine_present(run, load_partial(args.partials + b), op);
  }
  __syncthreads();  // warp_values is reused
  const optional_value<T> total = block_reduce_present<Policy::block_threads>(run, warp_values, op);
  if (threadIdx.x == 0) write_reduction(args, total, op);
}

}  // namespace scankit::device_detail
