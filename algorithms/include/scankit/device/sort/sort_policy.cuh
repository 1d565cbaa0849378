// Device layer of the radix sort: the compile-time shape of a digit pass, and the tuned shapes
// filled from the tuning table (scankit/device/tuning/tuning_sort.cuh).
#pragma once

#include <cstddef>

#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tuning/tuning_sort.cuh"

namespace scankit::device_detail {

// BlockThreads threads each rank ItemsPerThread keys of a tile, RadixBits bits per digit pass.
template <int BlockThreads, int ItemsPerThread, int RadixBits = 8, int MinBlocksPerSm = 0, unsigned BackoffFirstNs = 32,
          unsigned BackoffMaxNs = 1024, int LookBackWindow = 4, bool SmallSortsInOneBlock = true,
          int PrefetchTilesAhead = 0, bool RankByAtomicOr = false>
struct radix_pass_policy {
  static_assert(BlockThreads % 32 == 0 && BlockThreads <= 1024, "the block must be whole warps, at most 1024 threads");
  static_assert(RadixBits >= 5 && RadixBits <= 8, "digits of 5 to 8 bits (the digit scans take whole warps)");
  static constexpr int block_threads = BlockThreads;
  static constexpr int warps = BlockThreads / 32;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr int radix_bits = RadixBits;
  // To __launch_bounds__: caps the registers so that this many blocks fit on a multiprocessor (0:
  // ptxas's own choice; an explicit 1 lets it take far more registers).
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  static constexpr int radix = 1 << RadixBits;
  static_assert(radix <= BlockThreads, "one thread per digit looks back: the block needs at least 2^bits threads");
  static constexpr look_back_backoff backoff{BackoffFirstNs, BackoffMaxNs};
  // Predecessors each digit's look-back reads per step (channel_look_back.cuh).
  static constexpr int look_back_window = LookBackWindow;
  // Small sorts run in one block or one cluster (radix_sort_tuning<...>::block_*; onesweep only).
  static constexpr bool small_sorts_in_one_block = SmallSortsInOneBlock;
  // > 0: the block that draws tile t asks L2 for the keys (and values) of tile t + this many, so
  // that block's loads hit L2 (l2_prefetch.cuh).
  static constexpr int prefetch_tiles_ahead = PrefetchTilesAhead;
  // How the rank finds a row's lanes of one digit (radix_rank.cuh): false, one ballot per digit bit;
  // true, each lane ors its bit into its digit's word of a per-warp mask array in shared memory.
  static constexpr bool rank_by_atomic_or = RankByAtomicOr;
};

// Small sorts in one block or one cluster (radix_block_sort.cuh): BlockThreads threads hold
// ItemsPerThread keys each; 8-bit digits, one thread per digit at least; a cluster sort gives each
// block at least ClusterChunkKeys positions, in at most ClusterMaxBlocks blocks (above 8, the
// non-portable sizes some GPUs allow). RankByAtomicOr: as radix_pass_policy's.
template <int BlockThreads, int ItemsPerThread, bool RankByAtomicOr = false, int ClusterChunkKeys = 2048,
          int ClusterMaxBlocks = 8>
struct radix_block_sort_policy {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 256 && BlockThreads <= 1024,
                "whole warps, at least one thread per 8-bit digit");
  static constexpr int block_threads = BlockThreads;
  static constexpr int warps = BlockThreads / 32;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr int radix_bits = 8;
  static constexpr int radix = 256;
  static constexpr bool rank_by_atomic_or = RankByAtomicOr;
  static constexpr int cluster_chunk_keys = ClusterChunkKeys;
  static_assert(ClusterMaxBlocks >= 1 && ClusterMaxBlocks <= 16, "clusters of at most 16 blocks");
  static constexpr int cluster_max_blocks = ClusterMaxBlocks;
};

// The tuned shapes for keys of KeyBytes and values of ValueBytes (tuning_sort.cuh).
template <std::size_t KeyBytes, std::size_t ValueBytes>
struct radix_sort_tuning {
  using entry = tuning::sort_tuning_table::pass_kernel<KeyBytes, ValueBytes>;
  static constexpr std::size_t item_bytes = entry::item_bytes;
  static constexpr int items_per_thread = entry::items_per_thread;
  static constexpr int min_blocks_per_sm = entry::min_blocks_per_sm;
  static constexpr int prefetch_tiles_ahead = entry::prefetch_tiles_ahead;
  using pass = radix_pass_policy<entry::block_threads, items_per_thread, entry::radix_bits, min_blocks_per_sm, 32, 1024,
                                 entry::look_back_window, entry::small_sorts_in_one_block, prefetch_tiles_ahead,
                                 entry::rank_by_atomic_or>;
  // The pass on GPUs of less memory bandwidth per multiprocessor (lean_pass_preferred); the same
  // type as `pass` where the shapes agree.
  using lean_entry = tuning::sort_tuning_table::lean_pass_kernel<KeyBytes, ValueBytes>;
  using lean_pass = radix_pass_policy<lean_entry::block_threads, lean_entry::items_per_thread, lean_entry::radix_bits,
                                      lean_entry::min_blocks_per_sm, 32, 1024, lean_entry::look_back_window,
                                      lean_entry::small_sorts_in_one_block, lean_entry::prefetch_tiles_ahead,
                                      lean_entry::rank_by_atomic_or>;
  // Small sorts (radix_block_sort.cuh): one block of the smallest shape that holds them, or a
  // cluster of block_cluster blocks (one such block without clusters).
  using block_entry = tuning::sort_tuning_table::block_sort<item_bytes>;
  using block_smallest = radix_block_sort_policy<block_entry::smallest_threads, block_entry::smallest_items,
                                                 block_entry::one_block_rank_by_atomic_or>;
  using block_small = radix_block_sort_policy<block_entry::small_threads, block_entry::small_items,
                                              block_entry::one_block_rank_by_atomic_or>;
  using block_cluster = radix_block_sort_policy<block_entry::cluster_threads, block_entry::cluster_items, false,
                                                block_entry::cluster_chunk_keys, block_entry::cluster_max_blocks>;
};

// The histogram pass (every digit of every pass from one read of the keys; tuning_sort.cuh).
struct radix_histogram_policy {
  static constexpr int block_threads = tuning::sort_tuning_table::histogram::block_threads;
  static constexpr int items_per_thread = tuning::sort_tuning_table::histogram::items_per_thread;
  static constexpr int tile_items = block_threads * items_per_thread;
};

}  // namespace scankit::device_detail
