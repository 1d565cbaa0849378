// The scan engine's tuned shapes: the single-pass scan (register and staged kernels), the
// segmented scans by flags, keys and offsets, and reduce. One entry per GPU generation
// (gpu_arch.hpp), numbers only: the shape templates they fill are in device/policy/scan_policy.cuh
// and device/dispatch/reduce_dispatch.cuh. Each entry names the benchmark file it rests on;
// docs/tuning.md tells the measurements behind each number.
#pragma once

#include <cstddef>
#include <type_traits>

#include "scankit/device/tuning/gpu_arch.hpp"

namespace scankit::device_detail::tuning {

template <gpu_arch Arch>
struct scan_entry;

template <>
struct scan_entry<gpu_arch::sm90> {
  static constexpr const char* measured_in = "bench/results/h200-2026-11-30-107d6ce-bench_scan.json";

  // The register kernel (every GPU; the default before sm_90): 256 threads and 16 KiB tiles (at
  // that tile size a plain copy kernel reaches 0.96 of cudaMemcpy), so the coarsening factor
  // follows the value size; 4-byte values capped at 5 blocks per SM.
  template <class T>
  struct register_kernel {
    static constexpr int block_threads = 256;
    static constexpr int tile_bytes = 16384;
    static constexpr int items_per_thread =
        sizeof(T) >= 16 ? 4 : (tile_bytes / block_threads) / static_cast<int>(sizeof(T));
    static constexpr int min_blocks_per_sm = sizeof(T) == 4 ? 5 : 0;
  };

  // The staged kernel (sm_90 and later): tiles of 16 x block_threads x chunks_per_thread bytes,
  // staged by one bulk copy; a look-back warp beside the scanning warps where the block keeps its
  // residency; the deterministic look-back combines groups of tiles.
  struct staged_4_byte {  // 32 KiB tiles
    static constexpr int block_threads = 256;
    static constexpr int chunks_per_thread = 8;
    static constexpr int min_blocks_per_sm = 6;
    static constexpr bool look_back_warp = true;
    static constexpr int look_back_tiles_per_lane = 1;
    static constexpr int deterministic_group_tiles = 128;
  };
  struct staged_8_byte_integer {
    static constexpr int block_threads = 224;
    static constexpr int chunks_per_thread = 8;
    static constexpr int min_blocks_per_sm = 1;
    static constexpr bool look_back_warp = true;
    static constexpr int look_back_tiles_per_lane = 1;
    static constexpr int deterministic_group_tiles = 64;
  };
  struct staged_double {  // 7 chunks keep 4 blocks per SM; 8 leave 3
    static constexpr int block_threads = 224;
    static constexpr int chunks_per_thread = 7;
    static constexpr int min_blocks_per_sm = 4;
    static constexpr bool look_back_warp = true;
    static constexpr int look_back_tiles_per_lane = 1;
    static constexpr int deterministic_group_tiles = 64;
  };
  struct staged_1_byte {
    static constexpr int block_threads = 256;
    static constexpr int chunks_per_thread = 8;
    static constexpr int min_blocks_per_sm = 5;
    static constexpr bool look_back_warp = true;
    static constexpr int look_back_tiles_per_lane = 1;
    static constexpr int deterministic_group_tiles = 64;
  };
  struct staged_2_byte {
    static constexpr int block_threads = 256;
    static constexpr int chunks_per_thread = 8;
    static constexpr int min_blocks_per_sm = 1;
    static constexpr bool look_back_warp = false;
    static constexpr int look_back_tiles_per_lane = 1;
    static constexpr int deterministic_group_tiles = 64;
  };
  struct staged_other {  // 16-byte and other values
    static constexpr int block_threads = 128;
    static constexpr int chunks_per_thread = 4;
    static constexpr int min_blocks_per_sm = 1;
    static constexpr bool look_back_warp = false;
    static constexpr int look_back_tiles_per_lane = 1;
    static constexpr int deterministic_group_tiles = 64;
  };
  template <class T>
  using staged_kernel = std::conditional_t<
      std::is_same_v<T, double>, staged_double,
      std::conditional_t<sizeof(T) == 4, staged_4_byte,
                         std::conditional_t<sizeof(T) == 8, staged_8_byte_integer,
                                            std::conditional_t<sizeof(T) == 1, staged_1_byte,
                                                               std::conditional_t<sizeof(T) == 2, staged_2_byte,
                                                                                  staged_other>>>>>;
  // Every staged tile asks L2 for the tile about 4 MiB ahead of it.
  static constexpr int staged_prefetch_bytes_ahead = 4 << 20;
  // The look-back warp polls at a constant 512 ns (it starts while its own tile still loads, so a
  // doubling back-off from 32 ns spends its first polls, L2 traffic where the L2 binds, before
  // anything can have arrived), and every 128 ns in grids of at most 512 tiles (all resident at
  // once: the L2 is idle, and 512 ns steps quantise the latency of the whole scan).
  static constexpr unsigned look_back_warp_backoff_ns = 512;
  static constexpr long long small_grid_tiles = 512;
  static constexpr unsigned small_grid_look_back_warp_backoff_ns = 128;

  // Segmented scans (register kernel): 256 threads, 16 KiB of the wider of the values and the
  // head items per tile, at most 32 items per thread (a thread's heads are one 32-bit mask);
  // 4-byte items capped at 6 blocks per SM; by offsets, 4-byte values at 8.
  template <std::size_t WidestBytes>
  struct segmented_kernel {
    static constexpr int block_threads = 256;
    static constexpr int items_per_thread =
        WidestBytes >= 64 ? 1 : (64 / WidestBytes > 32 ? 32 : static_cast<int>(64 / WidestBytes));
    static constexpr int min_blocks_per_sm = WidestBytes == 4 ? 6 : 0;
  };
  template <std::size_t ValueBytes>
  struct offsets_kernel {
    static constexpr int min_blocks_per_sm = ValueBytes == 4 ? 8 : 0;
  };

  // reduce: 512 threads, 64 bytes of items per thread and warp tile step.
  template <std::size_t ItemBytes>
  struct reduce_kernel {
    static constexpr int block_threads = 512;
    static constexpr int items_per_thread = ItemBytes >= 64 ? 1 : static_cast<int>(64 / ItemBytes);
  };
};

// The other generations, not measured yet: sm_90's entry.
template <gpu_arch Arch>
struct scan_entry : scan_entry<gpu_arch::sm90> {};

// The entry the library runs.
using scan_tuning_table = scan_entry<tuned_arch>;

}  // namespace scankit::device_detail::tuning
