// Block layer: Kogge-Stone (Hillis-Steele) scan over one value per thread, double-buffered.
// log2(B) steps; each step reads one buffer and writes the other, so one barrier per step
// suffices (nobody overwrites what a neighbour still has to read). Work: B log2 B operations.
#pragma once

#include "scankit/device/block/block_scan_result.cuh"

namespace scankit::device_detail {

template <class T, int BlockThreads>
struct block_scan_kogge_stone_double_buffer {
  static_assert((BlockThreads & (BlockThreads - 1)) == 0, "block size must be a power of two");
  static constexpr int log2_threads = __builtin_ctz(BlockThreads);
  static constexpr int barriers = 1 + log2_threads;
  static constexpr long long operations = static_cast<long long>(BlockThreads) * log2_threads;

  struct storage {
    T buffer[2][BlockThreads];
  };

  template <class Op>
  __device__ __forceinline__ static block_scan_result<T> scan(T value, storage& s, Op op) {
    const int t = static_cast<int>(threadIdx.x);
    s.buffer[0][t] = value;
    __syncthreads();
    int source = 0;
#pragma unroll
    for (int offset = 1; offset < BlockThreads; offset *= 2) {
      T mine = s.buffer[source][t];
      s.buffer[source ^ 1][t] = t >= offset ? op(s.buffer[source][t - offset], mine) : mine;
      source ^= 1;
      __syncthreads();
    }
    block_scan_result<T> result;
    result.exclusive = s.buffer[source][t > 0 ? t - 1 : 0];
    result.aggregate = s.buffer[source][BlockThreads - 1];
    return result;
  }
};

}  // namespace scankit::device_detail
