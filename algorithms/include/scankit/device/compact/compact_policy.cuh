// Device layer (compaction): the compile-time shape of a compaction tile, and the tuned shapes
// filled from the tuning table (scankit/device/tuning/tuning_compact.cuh).
#pragma once

#include <cstddef>
#include <type_traits>

#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tuning/tuning_compact.cuh"

namespace scankit::device {
struct tuned;  // the tag "use the tuned shape" (defined in scankit/device/scan.cuh)
}

namespace scankit::device_detail {

// One tile = BlockThreads x ItemsPerThread items. Each thread keeps its items' selection flags in
// one 32-bit mask, hence at most 32 items per thread. Any type with these members (for example
// scankit::device::policy<B, K> of the scan engine) serves as a compaction policy.
// The kernel prefetches into L2 the tile that lies PrefetchBytesAhead bytes (of the widest array)
// after the one it draws (0: none); by default the tuned distance (tuning_compact.cuh).
// LookBackWarp: one more warp per block looks back while the BlockThreads threads load, flag,
// count and gather the tile (compact_tiles_kernel.cuh).
template <int BlockThreads, int ItemsPerThread, unsigned BackoffFirstNs = 32, unsigned BackoffMaxNs = 1024,
          int PrefetchBytesAhead = tuning::compact_tuning_table::prefetch_bytes_ahead,
          bool LookBackWarp = false>
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
          int PrefetchBytesAhead = tuning::compact_tuning_table::prefetch_bytes_ahead, bool LookBackWarp = false,
          unsigned BackoffFirstNs = 32, unsigned BackoffMaxNs = 1024>
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
          int PrefetchBytesAhead = tuning::compact_tuning_table::prefetch_bytes_ahead>
struct staged_compact_shape {
  template <std::size_t ItemBytes>
  using policy = staged_compact_policy<BlockThreads, ChunksPerThread, static_cast<int>(ItemBytes), MinBlocksPerSm,
                                       PrefetchBytesAhead, LookBackWarp>;
};

// The register kernel's tuned shape for the widest per-item array (tuning_compact.cuh).
template <std::size_t WidestBytes, int BufferedArrays = 1>
using compact_tuning = tuning::compact_tuning_table::register_kernel<WidestBytes, BufferedArrays>;

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

// The staged kernel's tuned shape (tuning_compact.cuh).
template <std::size_t ItemBytes>
using staged_compact_tuning = tuning::compact_tuning_table::staged_kernel<ItemBytes>;

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
