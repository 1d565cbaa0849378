// Device layer: the compile-time shape of a scan (block size, coarsening, block algorithm) and
// the tuned shape per value size. Tuning lives here, next to nothing else.
#pragma once

#include "scankit/device/tile/look_back.cuh"
#include "scankit/scan_options.hpp"

namespace scankit::device_detail {

template <int BlockThreads, int ItemsPerThread, block_scan_algorithm Algorithm = block_scan_algorithm::warp_of_warps,
          unsigned BackoffFirstNs = 32, unsigned BackoffMaxNs = 1024>
struct scan_policy {
  static_assert(BlockThreads >= 32 && BlockThreads <= 1024 && (BlockThreads & (BlockThreads - 1)) == 0,
                "block size must be a power of two between 32 and 1024");
  static_assert(ItemsPerThread >= 1, "items per thread must be positive");
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr block_scan_algorithm algorithm = Algorithm;
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
};

template <class T, block_scan_algorithm Algorithm = block_scan_algorithm::warp_of_warps>
using tuned_scan_policy = scan_policy<scan_tuning<T>::block_threads, scan_tuning<T>::items_per_thread, Algorithm>;

}  // namespace scankit::device_detail
