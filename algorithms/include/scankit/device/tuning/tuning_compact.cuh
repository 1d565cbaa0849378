// Compaction's tuned shapes (select, partition, unique): the register kernel and the staged
// kernel. One entry per GPU generation (scankit/device/tuning/gpu_arch.hpp), numbers only: the
// shape templates they fill are in device/compact/compact_policy.cuh. Each entry names the
// benchmark file it rests on; docs/tuning.md ("Compaction") tells the measurements.
#pragma once

#include <cstddef>

#include "scankit/device/tuning/gpu_arch.hpp"

namespace scankit::device_detail::tuning {

template <gpu_arch Arch>
struct compact_entry;

template <>
struct compact_entry<gpu_arch::sm90> {
  static constexpr const char* measured_in = "bench/results/h200-2026-11-30-107d6ce-bench_compact.json";

  // The register kernel: 256 threads and tiles of 32 KiB of the widest array a pass reads per item
  // (the items, a stencil, or unique_by_key's keys and values), so the scatter buffer in shared
  // memory is 32 KiB too; passes that buffer two arrays take half each (static shared memory).
  // 1-byte items stop at 32 per thread (8 KiB tiles): the selection mask has 32 bits.
  template <std::size_t WidestBytes, int BufferedArrays>
  struct register_kernel {
    static constexpr int block_threads = 256;
    static constexpr int tile_bytes = 32768 / BufferedArrays;
    static constexpr int by_size = static_cast<int>(tile_bytes / block_threads / WidestBytes);
    static constexpr int items_per_thread = by_size < 1 ? 1 : (by_size > 32 ? 32 : by_size);
  };

  // The staged kernel (select_if and unique on sm_90 and later): 256 threads x 8 chunks (32 KiB
  // tiles) at 6 blocks per SM; 1-byte items at 5; 4- and 8-byte items 10 chunks (40 KiB tiles)
  // at 5.
  template <std::size_t ItemBytes>
  struct staged_kernel {
    static constexpr bool wide_tiles = ItemBytes == 4 || ItemBytes == 8;
    static constexpr int block_threads = 256;
    static constexpr int chunks_per_thread = wide_tiles ? 10 : 8;
    static constexpr int min_blocks_per_sm = ItemBytes == 1 || wide_tiles ? 5 : 6;
  };

  // Both kernels ask L2 for the tile this many bytes (of the widest array) ahead.
  static constexpr int prefetch_bytes_ahead = 4 << 20;
};

// The other generations, not measured yet: sm_90's entry.
template <gpu_arch Arch>
struct compact_entry : compact_entry<gpu_arch::sm90> {};

using compact_tuning_table = compact_entry<tuned_arch>;

}  // namespace scankit::device_detail::tuning
