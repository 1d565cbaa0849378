// Block layer: warp-of-warps scan. Every warp scans its 32 values with shuffles; the warp
// totals go to shared memory; warp 0 scans them; everybody adds its warp's prefix.
// Exactly two barriers, independent of the block size.
#pragma once

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan_result.cuh"
#include "scankit/device/warp/warp_scan.cuh"

namespace scankit::device_detail {

// Barrier: whole_block_barrier, or a named_block_barrier over the BlockThreads threads that scan.
template <class T, int BlockThreads, class Barrier = whole_block_barrier>
struct block_scan_warp_of_warps {
  static_assert(BlockThreads % 32 == 0 && BlockThreads <= 1024, "block size must be whole warps, at most 1024");
  static constexpr int warps = BlockThreads / 32;
  static constexpr int barriers = 2;
  static constexpr long long operations = static_cast<long long>(BlockThreads) * 5 + 32 * 5 + BlockThreads;

  struct storage {
    T warp_inclusive[warps];
  };

  // The aggregate of the last scan, read again from shared memory (valid until the storage is
  // reused): lets a caller drop it from registers while it waits.
  __device__ __forceinline__ static const T& aggregate(const storage& s) { return s.warp_inclusive[warps - 1]; }

  template <class Op>
  __device__ __forceinline__ static block_scan_result<T> scan(T value, storage& s, Op op) {
    const int lane = lane_id();
    const int warp = warp_id();
    T inclusive;
    T exclusive = warp_exclusive_scan_unseeded(value, op, inclusive);  // undefined on lane 0
    if (lane == 31) s.warp_inclusive[warp] = inclusive;
    Barrier::sync();
    if (warp == 0) {
      // Lanes beyond the warp count repeat the last total; their results are never written.
      T total = s.warp_inclusive[lane < warps ? lane : warps - 1];
      __syncwarp();  // every lane has read before any lane overwrites (lanes past `warps` share a slot)
      T scanned = warp_inclusive_scan(total, op);
      if (lane < warps) s.warp_inclusive[lane] = scanned;
    }
    Barrier::sync();
    block_scan_result<T> result;
    result.aggregate = s.warp_inclusive[warps - 1];
    if (warp > 0) {
      T warp_prefix = s.warp_inclusive[warp - 1];
      result.exclusive = lane == 0 ? warp_prefix : op(warp_prefix, exclusive);
    } else {
      result.exclusive = exclusive;
    }
    return result;
  }
};

}  // namespace scankit::device_detail
