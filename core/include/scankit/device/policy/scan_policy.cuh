// Device layer: the compile-time shape of a scan (block size, coarsening, block algorithm), and
// the tuned shapes filled from the tuning table (scankit/device/tuning/tuning_scan.cuh).
#pragma once

#include <cstddef>
#include <type_traits>

#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tuning/tuning_scan.cuh"
#include "scankit/scan_options.hpp"

namespace scankit::device_detail {

template <int BlockThreads, int ItemsPerThread, block_scan_algorithm Algorithm = block_scan_algorithm::warp_of_warps,
          unsigned BackoffFirstNs = 32, unsigned BackoffMaxNs = 1024, int MinBlocksPerSm = 0>
struct scan_policy {
  static_assert(BlockThreads >= 32 && BlockThreads <= 1024 && (BlockThreads & (BlockThreads - 1)) == 0,
                "block size must be a power of two between 32 and 1024");
  static_assert(ItemsPerThread >= 1, "items per thread must be positive");
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr block_scan_algorithm algorithm = Algorithm;
  // Goes to __launch_bounds__: caps registers so that this many blocks fit on an SM. 0 leaves
  // ptxas its own register heuristic (an explicit 1 lets it take far more registers).
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  // Look-back back-off: __nanosleep from the first value, doubling up to the maximum.
  static constexpr look_back_backoff backoff{BackoffFirstNs, BackoffMaxNs};
};

// The register kernel's tuned shape (tuning_scan.cuh).
template <class T>
using scan_tuning = tuning::scan_tuning_table::register_kernel<T>;

// The staged single-pass kernel's shape: BlockThreads threads, each owning ChunksPerThread 16-byte
// chunks of the tile (tile bytes = 16 x BlockThreads x ChunksPerThread, whatever the value type).
// MinBlocksPerSm goes to __launch_bounds__ (it caps registers so that many blocks fit);
// LookBackTilesPerLane widens the look-back window to 32 x that many tiles (look_back.cuh).
// PrefetchTilesAhead > 0: the block that draws tile t also asks L2 to prefetch tile t + that many
// (tile_stage::prefetch_l2), so DRAM reads run ahead of the shared memory that caps the tiles in
// flight. LookBackWarp: the block gets one more warp, which looks back while the BlockThreads
// threads scan the tile (scan_staged_kernel.cuh).
template <int BlockThreads, int ChunksPerThread, int MinBlocksPerSm = 1, int LookBackTilesPerLane = 1,
          unsigned BackoffFirstNs = 32, unsigned BackoffMaxNs = 1024, int PrefetchTilesAhead = 0,
          bool LookBackWarp = false, int DeterministicGroupTiles = deterministic_group_tiles>
struct staged_scan_policy {
  static_assert(BlockThreads >= 32 && BlockThreads + (LookBackWarp ? 32 : 0) <= 1024 && BlockThreads % 32 == 0,
                "the block must be whole warps, at most 1024 threads");
  static_assert(ChunksPerThread >= 1, "chunks per thread must be positive");
  static_assert(BlockThreads * ChunksPerThread * 16 <= 46 * 1024,
                "a staged tile (and the block scan's storage beside it) must fit in 48 KiB of static shared memory");
  static constexpr int block_threads = BlockThreads;
  static constexpr int chunks_per_thread = ChunksPerThread;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  static constexpr int look_back_tiles_per_lane = LookBackTilesPerLane;
  static constexpr int tile_bytes = BlockThreads * ChunksPerThread * 16;
  static constexpr look_back_backoff backoff{BackoffFirstNs, BackoffMaxNs};  // the decoupled look-back's
  // The deterministic look-back polls with the doubling 32 ns - 1 us on every staged shape
  // (docs/tuning.md).
  static constexpr look_back_backoff deterministic_backoff{32, 1024};
  static constexpr int prefetch_tiles_ahead = PrefetchTilesAhead;
  static constexpr bool look_back_warp = LookBackWarp;
  static constexpr int launch_threads = BlockThreads + (LookBackWarp ? 32 : 0);
  static constexpr int deterministic_group_tiles = DeterministicGroupTiles;
};

// The staged kernel's prefetch distance and the look-back warp's back-off (tuning_scan.cuh).
constexpr int staged_prefetch_bytes_ahead = tuning::scan_tuning_table::staged_prefetch_bytes_ahead;
constexpr unsigned look_back_warp_backoff_ns = tuning::scan_tuning_table::look_back_warp_backoff_ns;
constexpr long long small_grid_tiles = tuning::scan_tuning_table::small_grid_tiles;
constexpr unsigned small_grid_look_back_warp_backoff_ns =
    tuning::scan_tuning_table::small_grid_look_back_warp_backoff_ns;

// A staged shape with the tuned prefetch distance (also scankit::device::staged, scan.cuh).
template <int BlockThreads, int ChunksPerThread, int MinBlocksPerSm = 1, bool LookBackWarp = false,
          int LookBackTilesPerLane = 1, int DeterministicGroupTiles = deterministic_group_tiles>
using prefetching_staged_policy =
    staged_scan_policy<BlockThreads, ChunksPerThread, MinBlocksPerSm, LookBackTilesPerLane,
                       LookBackWarp ? look_back_warp_backoff_ns : 32u, LookBackWarp ? look_back_warp_backoff_ns : 1024u,
                       staged_prefetch_bytes_ahead / (BlockThreads * ChunksPerThread * 16), LookBackWarp,
                       DeterministicGroupTiles>;

// The staged kernel's tuned shape (tuning_scan.cuh).
template <class T>
struct staged_scan_tuning {
  using entry = tuning::scan_tuning_table::staged_kernel<T>;
  using policy = prefetching_staged_policy<entry::block_threads, entry::chunks_per_thread, entry::min_blocks_per_sm,
                                           entry::look_back_warp, entry::look_back_tiles_per_lane,
                                           entry::deterministic_group_tiles>;
};

// The segmented scan's register kernel (tuning_scan.cuh): a tile of the wider of the values and
// the head items (flags or keys); the two tile transposes then fit the 48 KiB of static shared
// memory.
template <class T, class HeadItem>
struct segmented_scan_tuning {
  static constexpr std::size_t widest = sizeof(T) > sizeof(HeadItem) ? sizeof(T) : sizeof(HeadItem);
  using entry = tuning::scan_tuning_table::segmented_kernel<widest>;
  static constexpr int items_per_thread = entry::items_per_thread;
  static constexpr int min_blocks_per_sm = entry::min_blocks_per_sm;
  using policy = scan_policy<entry::block_threads, items_per_thread, block_scan_algorithm::warp_of_warps, 32, 1024,
                             min_blocks_per_sm>;
};

// Segments by offsets (the scan and the reduction): the segmented scan's tile, its own register
// cap (tuning_scan.cuh).
template <class T>
struct segmented_offsets_tuning {
  using scan = segmented_scan_tuning<T, unsigned char>;
  static constexpr int min_blocks_per_sm = tuning::scan_tuning_table::offsets_kernel<sizeof(T)>::min_blocks_per_sm;
  using policy = scan_policy<scan::entry::block_threads, scan::items_per_thread, block_scan_algorithm::warp_of_warps,
                             32, 1024, min_blocks_per_sm>;
};

template <class T, block_scan_algorithm Algorithm = block_scan_algorithm::warp_of_warps>
using tuned_scan_policy = scan_policy<scan_tuning<T>::block_threads, scan_tuning<T>::items_per_thread, Algorithm,
                                      32, 1024, scan_tuning<T>::min_blocks_per_sm>;

}  // namespace scankit::device_detail
