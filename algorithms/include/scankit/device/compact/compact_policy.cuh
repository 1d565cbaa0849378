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

// The staged kernel (compact_staged_kernel.cuh) of select_if and unique, for items of ItemBytes
// bytes: the tile is ChunksPerThread stripes of BlockThreads 16-byte chunks, staged in shared
// memory by one bulk copy; MinBlocksPerSm goes to __launch_bounds__ (it caps registers).
// items_per_thread (the tile's items per thread) serves the sinks' coalesced stores.
template <int BlockThreads, int ChunksPerThread, int ItemBytes, int MinBlocksPerSm = 1,
          int PrefetchBytesAhead = 4 << 20, bool LookBackWarp = false, unsigned BackoffFirstNs = 32,
          unsigned BackoffMaxNs = 1024>
struct staged_compact_policy {
  static_assert(ItemBytes >= 1 && ItemBytes <= 16 && 16 % ItemBytes == 0,
                "the staged kernel needs an item size that divides 16 bytes");
  static_assert(BlockThreads >= 32 && BlockThreads % 32 == 0 && BlockThreads + (LookBackWarp ? 32 : 0) <= 1024,
                "the block must be whole warps, at most 1024 threads");
  static_assert(ChunksPerThread >= 1 && ChunksPerThread <= 16, "chunks per thread must be in 1..16");
  static constexpr int block_threads = BlockThreads;
  static constexpr int chunks_per_thread = ChunksPerThread;
  static constexpr int items_per_chunk = 16 / ItemBytes;
  static constexpr int items_per_thread = ChunksPerThread * items_per_chunk;
  static constexpr int tile_items = BlockThreads * items_per_thread;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  static constexpr look_back_backoff backoff{BackoffFirstNs, BackoffMaxNs};
  static constexpr int prefetch_bytes_ahead = PrefetchBytesAhead;
  static constexpr bool look_back_warp = LookBackWarp;
  static constexpr bool staged = true;
};

template <class Policy, class = void>
constexpr bool is_staged_compact_policy = false;
template <class Policy>
constexpr bool is_staged_compact_policy<Policy, std::void_t<decltype(Policy::staged)>> = Policy::staged;

// The public form (scankit::device::staged_compact): the shape without the item size, which the
// call supplies (resolved_selection_policy, below).
template <int BlockThreads, int ChunksPerThread, int MinBlocksPerSm = 1, bool LookBackWarp = false,
          int PrefetchBytesAhead = 4 << 20>
struct staged_compact_shape {
  template <std::size_t ItemBytes>
  using policy = staged_compact_policy<BlockThreads, ChunksPerThread, static_cast<int>(ItemBytes), MinBlocksPerSm,
                                       PrefetchBytesAhead, LookBackWarp>;
};

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

// select_if and unique (items only): `tuned` takes the staged kernel for item sizes that divide
// 16 bytes, the register kernel otherwise; a staged_compact_shape gets the item size; any other
// policy stays as it is.
template <std::size_t ItemBytes>
constexpr bool compact_stageable = ItemBytes <= 16 && 16 % ItemBytes == 0;

// Tuned on the H200 by bench/tune_compact.cu at 2^28 (bench/results/...-tune_compact): 256
// threads x 8 chunks (32 KiB tiles) with registers capped for 6 blocks per SM. select_if u32 50%:
// 0.460 ms against 0.466 uncapped (5 blocks per SM: registers and the shared-memory carveout),
// 1% 0.343 against 0.351, u64 50% 0.890 against 0.905 (commit 38e6a02). 512 x 4 (0.486 ms) and
// 16 KiB tiles (0.503) were slower. The look-back warp gained on some workloads and lost on others
// (b2b1f22, 224 + 32 threads: u32 99% 0.553 against 0.565 ms, u64 0.871 against 0.882, 1% 0.354
// against 0.344, 50% 0.452 against 0.454): not taken.
// 1-byte items: 5 blocks per SM (select_if u8 50%: 0.234 ms against 0.241 at 6, where unique
// spills 8 bytes).
// 4- and 8-byte items: 10 chunks (40 KiB tiles) at 5 blocks per SM, 200 KiB of tiles per SM
// against 192 (tune_compact --tiles-only, two runs, `...-2026-11-30-0561425-tune_compact_tiles`
// and its run 2): faster than 256 x 8 by 0.5-1.5% on every workload in both runs except select
// u32 99% in the first (0.570 ms between 0.572 and 0.566): select u32 50% 0.448 / 0.449 ms against
// 0.450-0.454, 1% 0.338 / 0.339 against 0.343-0.344, u64 50% 0.869 against 0.881-0.883, unique
// 0.395 / 0.398 against 0.400-0.403. 36 KiB tiles (256 x 9 at 6 blocks) and
// 44 KiB tiles (256 x 11 at 5) were slower; 2- and 16-byte items were not measured and keep 8.
template <std::size_t ItemBytes>
struct staged_compact_tuning {
  static constexpr bool wide_tiles = ItemBytes == 4 || ItemBytes == 8;
  static constexpr int block_threads = 256;
  static constexpr int chunks_per_thread = wide_tiles ? 10 : 8;
  static constexpr int min_blocks_per_sm = ItemBytes == 1 || wide_tiles ? 5 : 6;
};

template <std::size_t ItemBytes>
using tuned_staged_compact_policy =
    staged_compact_policy<staged_compact_tuning<ItemBytes>::block_threads,
                          staged_compact_tuning<ItemBytes>::chunks_per_thread, static_cast<int>(ItemBytes),
                          staged_compact_tuning<ItemBytes>::min_blocks_per_sm>;

template <class Policy, std::size_t ItemBytes, class = void>
struct selection_policy_of {
  using type = resolved_compact_policy<Policy, ItemBytes>;
};
template <std::size_t ItemBytes>
struct selection_policy_of<scankit::device::tuned, ItemBytes, std::enable_if_t<compact_stageable<ItemBytes>>> {
  using type = tuned_staged_compact_policy<ItemBytes>;
};
template <class Policy, std::size_t ItemBytes>
struct selection_policy_of<Policy, ItemBytes, std::void_t<typename Policy::template policy<ItemBytes>>> {
  using type = typename Policy::template policy<ItemBytes>;
};
template <class Policy, std::size_t ItemBytes>
using resolved_selection_policy = typename selection_policy_of<Policy, ItemBytes>::type;

}  // namespace scankit::device_detail
