// A hint to L2: fetch a range of global memory now, so that a later load of it hits in L2.
//
// Why: a single-pass kernel can only keep as many tiles in flight as its shared memory (or
// registers) hold, and each of them waits for its look-back as well as for DRAM. Prefetching a
// tile that another block will draw a few MiB later keeps DRAM busy beyond that limit, and the
// tile's own load then has L2 latency. Measured in bench/results (tune_scan --prefetch-only).
#pragma once

#include <cstddef>
#include <cstdint>

namespace scankit::device_detail {

// One thread: cp.async.bulk.prefetch.L2 (sm_90) of the 16-byte-aligned part of
// [first, first + bytes). Rounding inwards keeps the request inside the range the caller owns.
// No completion, no effect on results; nothing on GPUs before sm_90.
__device__ __forceinline__ void prefetch_l2(const void* first, std::size_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const auto begin = (reinterpret_cast<std::uintptr_t>(first) + 15) & ~std::uintptr_t{15};
  const auto end = (reinterpret_cast<std::uintptr_t>(first) + bytes) & ~std::uintptr_t{15};
  if (end <= begin) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin), "r"(static_cast<std::uint32_t>(end - begin))
               : "memory");
#else
  (void)first;
  (void)bytes;
#endif
}

}  // namespace scankit::device_detail
