// The radix sort's tuned shapes: the onesweep digit pass, the one-block sort of small inputs and
// the histogram pass. One entry per GPU generation (scankit/device/tuning/gpu_arch.hpp), numbers
// only: the shape templates they fill are in device/sort/sort_policy.cuh. Each entry names the
// benchmark file it rests on; docs/tuning.md ("Radix sort") tells the measurements.
#pragma once

#include <cstddef>

#include "scankit/device/tuning/gpu_arch.hpp"

namespace scankit::device_detail::tuning {

template <gpu_arch Arch>
struct sort_entry;

template <>
struct sort_entry<gpu_arch::sm90> {
  static constexpr const char* measured_in = "bench/results/h200-2026-12-01-a334719-bench_sort-shapes.json";

  // The digit pass: 384 threads ranking 8-bit digits; 24 keys per thread for items of up to 4
  // bytes, 18 for 4-byte keys with 4-byte values, 16 above; registers capped for 3 blocks per SM
  // up to 8 bytes per item, 2 above; each digit's look-back reads 4 predecessors a step;
  // keys-only sorts ask L2 for the keys of the tile 32 tickets ahead, pairs for nothing.
  template <std::size_t KeyBytes, std::size_t ValueBytes>
  struct pass_kernel {
    static constexpr std::size_t item_bytes = KeyBytes + ValueBytes;
    static constexpr int block_threads = 384;
    static constexpr int items_per_thread = item_bytes <= 4 ? 24 : KeyBytes == 4 && ValueBytes == 4 ? 18 : 16;
    static constexpr int radix_bits = 8;
    static constexpr int min_blocks_per_sm = item_bytes <= 8 ? 3 : 2;
    static constexpr int look_back_window = 4;
    static constexpr bool small_sorts_in_one_block = true;
    static constexpr int prefetch_tiles_ahead = ValueBytes == 0 ? 32 : 0;
    static constexpr bool rank_by_atomic_or = false;  // the ballot match (tune_sort compares the two)
  };

  // The digit pass on GPUs with less peak memory bandwidth per multiprocessor than
  // lean_pass_below_gbps_per_sm (the H100 at 25, against the H200's 37): 8-byte keys alone and
  // 4-byte keys with 4-byte values take longer tiles at 2 blocks per SM (80 registers); the other
  // shapes as pass_kernel (docs/tuning.md, "Radix sort").
  static constexpr double lean_pass_below_gbps_per_sm = 30.0;
  template <std::size_t KeyBytes, std::size_t ValueBytes>
  struct lean_pass_kernel : pass_kernel<KeyBytes, ValueBytes> {
    static constexpr bool u64_keys = KeyBytes == 8 && ValueBytes == 0;
    static constexpr bool u32_pairs = KeyBytes == 4 && ValueBytes == 4;
    static constexpr int items_per_thread =
        u64_keys ? 20 : u32_pairs ? 24 : pass_kernel<KeyBytes, ValueBytes>::items_per_thread;
    static constexpr int min_blocks_per_sm =
        u64_keys || u32_pairs ? 2 : pass_kernel<KeyBytes, ValueBytes>::min_blocks_per_sm;
  };

  // Small sorts run in one launch, the shape chosen by the count: up to 1024 keys one block of
  // 256 x 4, up to 4096 one of 512 x 8, both ranking by atomic or; up to 2^16 one cluster of up
  // to 16 blocks of 256 x 16 ranking by ballots, each holding at least 1024 positions (sm_90 and
  // later; 8 blocks where 16 do not fit; before sm_90, one such block up to its tile).
  template <std::size_t ItemBytes>
  struct block_sort {
    static constexpr int smallest_threads = 256, smallest_items = 4;
    static constexpr int small_threads = 512, small_items = 8;
    static constexpr bool one_block_rank_by_atomic_or = true;
    static constexpr int cluster_threads = 256, cluster_items = 16;
    static constexpr int cluster_chunk_keys = 1024;
    static constexpr int cluster_max_blocks = 16;
  };

  // The segmented sort's block shapes, one block per segment, tiles increasing: each segment goes
  // to the smallest tile that holds it, so a tile is never much more than twice its segment (not
  // measured yet: 1024 threads for the largest, 256 for the others).
  template <std::size_t ItemBytes>
  struct segmented_blocks {
    static constexpr int count = 5;
    static constexpr int large_items = ItemBytes <= 4 ? 16 : ItemBytes <= 8 ? 12 : ItemBytes <= 16 ? 8 : 6;
    static constexpr int block_threads[count] = {256, 256, 256, 256, 1024};
    static constexpr int items_per_thread[count] = {2, large_items > 8 ? 4 : 3, large_items > 8 ? 8 : 4,
                                                    large_items, large_items};
  };

  // The histogram pass (every digit of every pass from one read of the keys): 256 x 16.
  struct histogram {
    static constexpr int block_threads = 256;
    static constexpr int items_per_thread = 16;
  };
};

// The other generations, not measured yet: sm_90's entry.
template <gpu_arch Arch>
struct sort_entry : sort_entry<gpu_arch::sm90> {};

using sort_tuning_table = sort_entry<tuned_arch>;

}  // namespace scankit::device_detail::tuning
