// Block layer: Kogge-Stone scan over one value per thread in a single shared buffer.
// Each step reads its neighbour, waits at a barrier until everybody has read, then writes and
// waits again: two barriers per step (the textbook's in-place version).
#pragma once

#include "scankit/device/block/block_scan_result.cuh"

namespace scankit::device_detail {

template <class T, int BlockThreads>
struct block_scan_kogge_stone_read_sync_write {
  static_assert((BlockThreads & (BlockThreads - 1)) == 0, "block size must be a power of two");
  static constexpr int log2_threads = __builtin_ctz(BlockThreads);
  static constexpr int barriers = 1 + 2 * log2_threads;
  static constexpr long long operations = static_cast<long long>(BlockThreads) * log2_threads;

  struct storage {
    T buffer[BlockThreads];
  };

  template <class Op>
  __device__ __forceinline__ static block_scan_result<T> scan(T value, storage& s, Op op) {
    const int t = static_cast<int>(threadIdx.x);
    s.buffer[t] = value;
    __syncthreads();
#pragma unroll
    for (int offset = 1; offset < BlockThreads; offset *= 2) {
      T next = value;
      if (t >= offset) next = op(s.buffer[t - offset], value);
      __syncthreads();  // every read of this step is done before anybody writes
      value = next;
      s.buffer[t] = value;
      __syncthreads();  // every write is visible before the next step reads
    }
    block_scan_result<T> result;
    result.exclusive = s.buffer[t > 0 ? t - 1 : 0];
    result.aggregate = s.buffer[BlockThreads - 1];
    return result;
  }
};

}  // namespace scankit::device_detail
