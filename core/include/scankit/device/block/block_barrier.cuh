// Block layer: which threads a block-level primitive synchronises.
//
// Most primitives use the whole block (__syncthreads). A kernel that gives one warp another job
// (the staged scan's look-back warp) runs its block primitives on a named barrier that counts
// only the threads taking part, so the other warp never has to arrive.
#pragma once

namespace scankit::device_detail {

struct whole_block_barrier {
  static __device__ __forceinline__ void sync() { __syncthreads(); }
};

// Hardware barrier `Id` (1..15; 0 is __syncthreads') that completes when `Threads` threads (whole
// warps: a multiple of 32) have arrived; only the warps taking part may use this id. Like __syncthreads, bar.sync orders the shared-memory accesses of the
// participating threads before and after it.
template <int Threads, int Id = 1>
struct named_block_barrier {
  static_assert(Threads % 32 == 0 && Id >= 1 && Id <= 15, "whole warps, barrier ids 1..15");
  static __device__ __forceinline__ void sync() { asm volatile("bar.sync %0, %1;" ::"n"(Id), "n"(Threads) : "memory"); }
};

// Hardware barrier `Id` over `Threads` threads that may arrive from different places in the code
// (barrier.sync without .aligned). __syncthreads and bar.sync are the .aligned form, which
// requires every thread to execute the same barrier instruction; a warp that arrives from its own
// branch (the staged scan's look-back warp) needs this one.
template <int Threads, int Id>
struct divergent_block_barrier {
  static_assert(Threads % 32 == 0 && Id >= 1 && Id <= 15, "whole warps, barrier ids 1..15");
  static __device__ __forceinline__ void sync() { asm volatile("barrier.sync %0, %1;" ::"n"(Id), "n"(Threads) : "memory"); }
};

}  // namespace scankit::device_detail
