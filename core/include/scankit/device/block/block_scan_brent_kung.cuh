// Block layer: Brent-Kung scan (work-efficient): an up-sweep builds a reduction tree in place,
// a down-sweep distributes the partial sums. 2 log2(B) - 1 steps, about 2B operations.
#pragma once

#include "scankit/device/block/block_scan_result.cuh"

namespace scankit::device_detail {

template <class T, int BlockThreads>
struct block_scan_brent_kung {
  static_assert((BlockThreads & (BlockThreads - 1)) == 0, "block size must be a power of two");
  static constexpr int log2_threads = __builtin_ctz(BlockThreads);
  static constexpr int barriers = 1 + log2_threads + (log2_threads - 1);
  static constexpr long long operations = 2LL * BlockThreads - 2 - log2_threads;

  struct storage {
    T buffer[BlockThreads];
  };

  template <class Op>
  __device__ __forceinline__ static block_scan_result<T> scan(T value, storage& s, Op op) {
    const int t = static_cast<int>(threadIdx.x);
    s.buffer[t] = value;
    __syncthreads();
    // Up-sweep: after the step with `stride`, buffer[i] for i = k*2*stride - 1 holds the
    // reduction of the 2*stride values ending at i.
#pragma unroll
    for (int stride = 1; stride < BlockThreads; stride *= 2) {
      const int i = (t + 1) * 2 * stride - 1;
      if (i < BlockThreads) s.buffer[i] = op(s.buffer[i - stride], s.buffer[i]);
      __syncthreads();
    }
    // Down-sweep: push each completed prefix one half-stride to the right.
#pragma unroll
    for (int stride = BlockThreads / 4; stride > 0; stride /= 2) {
      const int i = (t + 1) * 2 * stride - 1;
      if (i + stride < BlockThreads) s.buffer[i + stride] = op(s.buffer[i], s.buffer[i + stride]);
      __syncthreads();
    }
    block_scan_result<T> result;
    result.exclusive = s.buffer[t > 0 ? t - 1 : 0];
    result.aggregate = s.buffer[BlockThreads - 1];
    return result;
  }
};

}  // namespace scankit::device_detail
