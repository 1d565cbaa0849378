// Device layer: the compile-time shape of a scan (block size, coarsening, block algorithm) and
// the tuned shape per value size. Tuning lives here, next to nothing else.
#pragma once

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
  // The deterministic look-back polls with the doubling 32 ns - 1 us on every staged shape: beside
  // the look-back warp, the constant 512 ns that suits the decoupled look-back (below) cost it
  // 0.5% for float and 3% for double (tune_scan --deterministic-backoff-only,
  // bench/results/...-2026-11-30-507df39+tune-tune_scan_det_backoff: float 0.902 / 0.904 of copy
  // against 0.898 / 0.898, double 0.816 / 0.820 against 0.791 / 0.789).
  static constexpr look_back_backoff deterministic_backoff{32, 1024};
  static constexpr int prefetch_tiles_ahead = PrefetchTilesAhead;
  static constexpr bool look_back_warp = LookBackWarp;
  static constexpr int launch_threads = BlockThreads + (LookBackWarp ? 32 : 0);
  static constexpr int deterministic_group_tiles = DeterministicGroupTiles;
};

// Tuned for the H200 (bench/tune_scan.cu sweeps the alternatives; bench/results/ holds the runs,
// all at 2^28):
// * 32 KiB tiles of 256 threads x 8 chunks were the fastest measured for 1-, 4- and 8-byte values
//   (int32 0.775 of copy against 0.758 for 16 KiB tiles); 16-byte values take 128 x 4 to stay
//   near 70 registers.
// * The L2 prefetch runs about 4 MiB ahead of the tile being drawn: int32 0.78 -> 0.87 of copy at
//   2 and 4 MiB ahead (1 MiB: 0.84, 8 MiB: 0.86); 16 and 32 MiB ahead fell to 0.70 and 0.64 (the
//   prefetched lines are evicted before their tile is copied).
// * The look-back warp (scan_staged_kernel.cuh) pays where the block keeps its residency: int32
//   256+32 threads capped at 32 registers (6 blocks/SM) 0.871 -> 0.892; int64 224+32 threads
//   (64 registers, 4 blocks/SM; 256+32 fits only 3) 0.860 -> 0.880; int8 256+32 at 5 blocks/SM
//   0.805 -> 0.830. Forcing 8-byte values to 5 or 6 blocks spilled (0.33 and 0.21); 2- and
//   16-byte values were not measured with it and keep the plain staged kernel.
// * The deterministic look-back's group size (look_back.cuh): 4-byte values 128 tiles (float
//   0.903 and 0.902 of copy against 0.892 and 0.894 at 64, plain look-back 0.893 in the same run),
//   other sizes 64 (double 0.825 against 0.799 at 128; 256 spills or loses residency everywhere).
//   As a look-back for the non-deterministic scans the grouped form measured equal for int64,
//   slower for int8 and int16, codegen-dependent for int32 (one build faster, one slower), and
//   1-1.5% faster for float (0.903 against 0.893) and double (0.825 against 0.813). Those keep
//   the plain look-back: the float/double gain is near run-to-run variation, and it would make
//   the strategy that the lab and benchmark call "decoupled look-back" run another algorithm.
constexpr int staged_prefetch_bytes_ahead = 4 << 20;

// The look-back warp's back-off in the decoupled look-back: a constant 512 ns between polls (the
// deterministic look-back keeps 32 ns - 1 us, staged_scan_policy::deterministic_backoff). That warp
// starts polling while its own tile is still loading (about 4 us before the tile's scan ends, 10 us
// before its look-back does; bench/results/...-2026-11-30-*-trace_int32-*.bin.gz). The doubling
// back-off of the in-block look-back (32 ns up to 1 us) spends its first polls while nothing can
// have arrived, adding L2 traffic where the L2 is the binding resource (docs/scan-engine.md, "Where
// the time goes"), and sleeps up to 1 us once the answer is there. tune_scan --backoff-only, two
// runs of two rounds each, fraction of copy against 32-1024 ns in the same run: int32 0.897 / 0.894
// against 0.888 / 0.889, float 0.903 / 0.899 against 0.886 / 0.892, int64 0.903 / 0.898 against
// 0.877 / 0.878, double 0.857 / 0.857 against 0.812 / 0.813, int8 0.828 / 0.830 against 0.824 /
// 0.815 (run 2); 128-512, 256-256 and 256-512 ns were within a point of 512 ns, spinning (0 ns) was
// slower.
constexpr unsigned look_back_warp_backoff_ns = 512;

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

// double: 224 + 32 threads x 7 chunks (24.5 KiB tiles) at 4 blocks/SM. Its 8-chunk code takes 77
// registers (int64's takes 64), which leaves 3 blocks/SM; at 7 chunks it fits 62 registers (64
// deterministic) without spilling. tune_scan --wide-only, twice in one run
// (bench/results/...-2026-11-30-b9f03cc+wide-tune_scan_wide): double 0.883 / 0.882 of copy against
// 0.846 / 0.851 for 224 x 8 at 3 blocks/SM (256 x 6: 0.874 / 0.882, 224 x 6: 0.855). int64 keeps
// 224 x 8: 0.904 / 0.904 there against 0.884 / 0.889 at 224 x 7.
template <>
struct staged_scan_tuning<double> {
  using policy = prefetching_staged_policy<224, 7, 4, true>;
};

template <class T, block_scan_algorithm Algorithm = block_scan_algorithm::warp_of_warps>
using tuned_scan_policy = scan_policy<scan_tuning<T>::block_threads, scan_tuning<T>::items_per_thread, Algorithm,
                                      32, 1024, scan_tuning<T>::min_blocks_per_sm>;

}  // namespace scankit::device_detail
