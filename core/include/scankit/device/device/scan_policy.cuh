// Device layer: the compile-time shape of a scan (block size, coarsening, block algorithm) and
// the tuned shape per value size. Tuning lives here, next to nothing else.
#pragma once

#include <cstddef>
#include <type_traits>

#include "scankit/device/tile/look_back.cuh"
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

// Tuned for the H200 (sm_90): 256 threads and 16 KiB tiles (at that tile size a plain copy
// kernel reaches 0.96 of cudaMemcpy on this GPU), so the coarsening factor follows the value size.
template <class T>
struct scan_tuning {
  static constexpr int block_threads = 256;
  static constexpr int tile_bytes = 16384;
  static constexpr int items_per_thread =
      sizeof(T) >= 16 ? 4 : (tile_bytes / block_threads) / static_cast<int>(sizeof(T));
  // 4-byte values: 5 blocks of 256 per SM (docs/tuning.md). Wider coarsening is not capped.
  static constexpr int min_blocks_per_sm = sizeof(T) == 4 ? 5 : 0;
};

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

// Tuned staged shapes for the H200: 32 KiB tiles, an L2 prefetch about 4 MiB ahead, a look-back
// warp where the block keeps its residency, deterministic groups of 128 tiles for 4-byte values
// (docs/tuning.md, "Scan: staged kernel").
constexpr int staged_prefetch_bytes_ahead = 4 << 20;

// The look-back warp's back-off in the decoupled look-back: a constant 512 ns between polls. The
// warp starts polling while its own tile is still loading, so a doubling back-off from 32 ns would
// spend its first polls (L2 traffic, where the L2 binds) before anything can have arrived
// (docs/tuning.md).
constexpr unsigned look_back_warp_backoff_ns = 512;

// In a small grid (every tile resident at once) the look-back warp polls every 128 ns instead:
// there the L2 is idle, and 512 ns steps quantise the latency of the whole scan, whose tiles all
// publish at about the same moment (docs/tuning.md).
constexpr long long small_grid_tiles = 512;
constexpr unsigned small_grid_look_back_warp_backoff_ns = 128;

// A staged shape with the tuned prefetch distance (also scankit::device::staged, scan.cuh).
template <int BlockThreads, int ChunksPerThread, int MinBlocksPerSm = 1, bool LookBackWarp = false,
          int LookBackTilesPerLane = 1, int DeterministicGroupTiles = deterministic_group_tiles>
using prefetching_staged_policy =
    staged_scan_policy<BlockThreads, ChunksPerThread, MinBlocksPerSm, LookBackTilesPerLane,
                       LookBackWarp ? look_back_warp_backoff_ns : 32u, LookBackWarp ? look_back_warp_backoff_ns : 1024u,
                       staged_prefetch_bytes_ahead / (BlockThreads * ChunksPerThread * 16), LookBackWarp,
                       DeterministicGroupTiles>;

template <class T>
struct staged_scan_tuning {
  using policy = std::conditional_t<
      sizeof(T) == 4, prefetching_staged_policy<256, 8, 6, true, 1, 128>,
      std::conditional_t<
          sizeof(T) == 8, prefetching_staged_policy<224, 8, 1, true>,
          std::conditional_t<sizeof(T) == 1, prefetching_staged_policy<256, 8, 5, true>,
                             std::conditional_t<sizeof(T) == 2, prefetching_staged_policy<256, 8>,
                                                prefetching_staged_policy<128, 4>>>>>;
};

// double: 224 + 32 threads x 7 chunks at 4 blocks/SM; its 8-chunk code leaves 3 (docs/tuning.md).
template <>
struct staged_scan_tuning<double> {
  using policy = prefetching_staged_policy<224, 7, 4, true>;
};

// The segmented scan's register kernel: 256 threads, 16 KiB of the wider of the values and the
// head items (flags or keys) per tile, at most 32 items per thread (a thread's segment heads are
// one 32-bit mask); the two tile transposes then fit the 48 KiB of static shared memory.
// With 4-byte items, registers are capped for 6 blocks per SM (docs/tuning.md).
template <class T, class HeadItem>
struct segmented_scan_tuning {
  static constexpr std::size_t widest = sizeof(T) > sizeof(HeadItem) ? sizeof(T) : sizeof(HeadItem);
  static constexpr int items_per_thread = widest >= 64 ? 1 : (64 / widest > 32 ? 32 : static_cast<int>(64 / widest));
  static constexpr int min_blocks_per_sm = widest == 4 ? 6 : 0;
  using policy = scan_policy<256, items_per_thread, block_scan_algorithm::warp_of_warps, 32, 1024, min_blocks_per_sm>;
};

// Segments by offsets (the scan and the reduction): the segmented scan's tile; with 4-byte values,
// registers are capped for 8 blocks per SM (docs/tuning.md).
template <class T>
struct segmented_offsets_tuning {
  using scan = segmented_scan_tuning<T, unsigned char>;
  static constexpr int min_blocks_per_sm = sizeof(T) == 4 ? 8 : 0;
  using policy =
      scan_policy<256, scan::items_per_thread, block_scan_algorithm::warp_of_warps, 32, 1024, min_blocks_per_sm>;
};

template <class T, block_scan_algorithm Algorithm = block_scan_algorithm::warp_of_warps>
using tuned_scan_policy = scan_policy<scan_tuning<T>::block_threads, scan_tuning<T>::items_per_thread, Algorithm,
                                      32, 1024, scan_tuning<T>::min_blocks_per_sm>;

}  // namespace scankit::device_detail
