// Device layer (compaction): the compile-time shape of a compaction tile and its tuning.
#pragma once

#include <cstddef>
#include <type_traits>

#include "scankit/device/tile/look_back.cuh"

namespace scankit::device {
struct tuned;  // the tag "use the tuned shape" (defined in scankit/device/scan.cuh)
}

namespace scankit::device_detail {

// One tile = BlockThreads x ItemsPerThread items. Each thread keeps its items' selection flags in
// one 32-bit mask, hence at most 32 items per thread. Any type with these members (for example
// scankit::device::policy<B, K> of the scan engine) serves as a compaction policy.
// The kernel prefetches into L2 the tile that lies PrefetchBytesAhead bytes (of the widest array)
// after the one it draws (0: none); 4 MiB as for the scan (scan_policy.cuh).
// LookBackWarp: one more warp per block looks back while the BlockThreads threads load, flag,
// count and gather the tile (compact_tiles_kernel.cuh).
template <int BlockThreads, int ItemsPerThread, unsigned BackoffFirstNs = 32, unsigned BackoffMaxNs = 1024,
          int PrefetchBytesAhead = 4 << 20, bool LookBackWarp = false>
struct compact_policy {
  static_assert(BlockThreads >= 32 && BlockThreads % 32 == 0 && BlockThreads + (LookBackWarp ? 32 : 0) <= 1024,
                "the block must be whole warps, at most 1024 threads");
  static_assert(ItemsPerThread >= 1 && ItemsPerThread <= 32, "items per thread must be in 1..32");
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr look_back_backoff backoff{BackoffFirstNs, BackoffMaxNs};
  static constexpr int prefetch_bytes_ahead = PrefetchBytesAhead;
  static constexpr bool look_back_warp = LookBackWarp;
};

// A policy's prefetch distance; policies without the member (a scan policy) prefetch nothing.
template <class Policy, class = void>
constexpr int prefetch_bytes_ahead_of = 0;
template <class Policy>
constexpr int prefetch_bytes_ahead_of<Policy, std::void_t<decltype(Policy::prefetch_bytes_ahead)>> =
    Policy::prefetch_bytes_ahead;

// Whether a policy asks for the look-back warp (policies without the member do not), and the
// threads a block of it is launched with.
template <class Policy, class = void>
constexpr bool look_back_warp_of = false;
template <class Policy>
constexpr bool look_back_warp_of<Policy, std::void_t<decltype(Policy::look_back_warp)>> = Policy::look_back_warp;
template <class Policy>
constexpr int compact_launch_threads = Policy::block_threads + (look_back_warp_of<Policy> ? 32 : 0);

// Tuned for the H200 (sm_90) by bench/tune_compact.cu (bench/results/): 256 threads and tiles of
// 32 KiB of the widest array the pass reads per item (the items, a stencil, or the keys/values of
// unique_by_key), so the scatter buffer in shared memory is 32 KiB too; passes that buffer two
// arrays (unique_by_key: keys and values) take half that each, to stay in static shared memory.
// 32 KiB tiles beat the 16 KiB ones at 2^28: select_if u32 50% 0.570 against 0.596 ms, 1%
// 0.410 against 0.439, unique 0.462 against 0.549, select_if u64 50% 1.024 against 1.180.
// 1-byte items stop at 32 per thread (8 KiB tiles): the selection mask has 32 bits.
template <std::size_t WidestBytes, int BufferedArrays = 1>
struct compact_tuning {
  static constexpr int block_threads = 256;
  static constexpr int tile_bytes = 32768 / BufferedArrays;
  static constexpr int by_size = static_cast<int>(tile_bytes / block_threads / WidestBytes);
  static constexpr int items_per_thread = by_size < 1 ? 1 : (by_size > 32 ? 32 : by_size);
};

template <std::size_t WidestBytes, int BufferedArrays = 1>
using tuned_compact_policy = compact_policy<compact_tuning<WidestBytes, BufferedArrays>::block_threads,
                                            compact_tuning<WidestBytes, BufferedArrays>::items_per_thread>;

// `scankit::device::tuned` becomes the tuned policy for the widest per-item array.
template <class Policy, std::size_t WidestBytes, int BufferedArrays = 1>
using resolved_compact_policy =
    std::conditional_t<std::is_same_v<Policy, scankit::device::tuned>, tuned_compact_policy<WidestBytes, BufferedArrays>,
                       Policy>;

}  // namespace scankit::device_detail
