// Block layer: a range of an array copied into shared memory with 16-byte asynchronous copies
// (cp.async, sm_80 on). The data in flight occupies no registers, so a block can have its whole
// range on the way with one instruction per 16 bytes, and more blocks fit on an SM.
//
// The copy starts at the 16-byte boundary at or below the range's first item, so the range begins
// `offset` items into the shared array (issue() returns it). Chunks that would reach past the
// array's end are copied item by item: nothing outside [0, n) is read. An array that is not
// 16-byte aligned, or a GPU before sm_80, takes the item-by-item path for the whole range
// (offset 0).
//
// Memory order: each thread's cp.async writes are complete and visible to that thread after its
// wait(); the caller's __syncthreads() after wait() makes every thread's writes visible to all.
#pragma once

#include <cstdint>

namespace scankit::device_detail {

template <class T, int BlockThreads>
struct range_stage {
  static constexpr int chunk_items = 16 / static_cast<int>(sizeof(T));
  static_assert(sizeof(T) <= 16 && 16 % sizeof(T) == 0, "items must tile 16-byte chunks");

  // Shared items a range of up to max_items needs (16-byte aligned storage).
  static constexpr int capacity(int max_items) { return max_items + chunk_items; }

  // All threads: starts copying in[begin, end) (end - begin <= what dst was sized for) into dst;
  // returns where in[begin] lands in dst.
  static __device__ __forceinline__ int issue(T* dst, const T* in, long long begin, long long end, long long n) {
    const bool aligned = (reinterpret_cast<std::uintptr_t>(in) & 15u) == 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (aligned) {
      const long long first = begin & ~static_cast<long long>(chunk_items - 1);
      const int chunks = static_cast<int>((end - first + chunk_items - 1) / chunk_items);
      for (int c = static_cast<int>(threadIdx.x); c < chunks; c += BlockThreads) {
        const long long at = first + static_cast<long long>(c) * chunk_items;
        T* to = dst + c * chunk_items;
        if (at + chunk_items <= n) {
          const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(in + at) : "memory");
        } else {
          for (int j = 0; j < chunk_items && at + j < n; ++j) to[j] = in[at + j];
        }
      }
      asm volatile("cp.async.commit_group;\n" ::: "memory");
      return static_cast<int>(begin - first);
    }
#endif
    (void)aligned;
    const int items = static_cast<int>(end - begin);
    for (int i = static_cast<int>(threadIdx.x); i < items; i += BlockThreads) dst[i] = in[begin + i];
    return 0;
  }

  // All threads, after their issue() calls: this thread's copies have landed.
  static __device__ __forceinline__ void wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
  }
};

}  // namespace scankit::device_detail
