// Block layer: a tile staged in shared memory by the Hopper bulk-copy engine (TMA).
//
// One thread starts a single cp.async.bulk of the whole tile (global -> shared) that completes on
// an mbarrier; the rest of the block waits on that barrier. Keeping the tile in shared memory
// instead of registers is what lets a single-pass kernel wait for its look-back cheaply: a block
// holds few registers while it waits, so more blocks (and more loads) fit on each SM.
//
// The bulk copy exists from sm_90 on: the kernels that stage tiles compile to nothing for older
// GPUs, and the dispatch runs their register kernels there (device_features.hpp).
//
// Only full tiles of a 16-byte-aligned input use the bulk copy; the partial last tile is copied
// item by item by all threads (items past the end get a copy of the tile's first item: they only
// feed results that are never stored). A caller whose input may be misaligned passes bulk = false
// to issue() and complete(): every tile then takes the item-by-item path.
//
// Memory order: the bulk copy writes shared memory through the async proxy and signals the
// mbarrier with complete_tx; mbarrier.try_wait.parity has acquire semantics at CTA scope, so a
// thread that sees phase 0 complete also sees the copied bytes. The barrier's initialisation is
// made visible to the async proxy with fence.proxy.async before the copy is issued, and to the
// other threads by the __syncthreads() the caller places between issue() and complete().
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda/ptx>

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/util/l2_prefetch.cuh"

namespace scankit::device_detail {

// BlockThreads threads take part in complete(), synchronised by Barrier.
template <class T, int TileItems, int BlockThreads, class Barrier = whole_block_barrier>
struct tile_stage {
  static constexpr int bytes = TileItems * static_cast<int>(sizeof(T));
  static_assert(bytes % 16 == 0, "a staged tile must be whole 16-byte chunks");

  struct storage {
    alignas(128) int4 chunks[bytes / 16];
    std::uint64_t loaded;  // mbarrier
  };

  static __device__ __forceinline__ const T* items(const storage& s) { return reinterpret_cast<const T*>(s.chunks); }

  // Whether tile `tile` is whole: only whole tiles go through the bulk copy (and the prefetch).
  static __device__ __forceinline__ bool full(long long n, long long tile) {
    return n - tile * TileItems >= TileItems;
  }

  // One thread: starts copying tile `tile` if it is full. With bulk, `in` must be 16-byte aligned.
  static __device__ __forceinline__ void issue(storage& s, const T* in, long long n, long long tile,
                                               bool bulk = true) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace ptx = cuda::ptx;
    ptx::mbarrier_init(&s.loaded, 1);
    ptx::fence_proxy_async(ptx::space_shared);
    if (bulk && full(n, tile)) {
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &s.loaded,
                                     static_cast<std::uint32_t>(bytes));
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, s.chunks, in + tile * TileItems,
                         static_cast<std::uint32_t>(bytes), &s.loaded);
    }
#endif
  }

  // One thread: asks L2 to fetch tile `tile` ahead of its copy, if it exists and is full.
  static __device__ __forceinline__ void prefetch_l2(const T* in, long long n, long long tile) {
    if (full(n, tile)) device_detail::prefetch_l2(in + tile * TileItems, static_cast<std::size_t>(bytes));
  }

  // All threads, after a barrier that follows issue(): returns once the tile is in shared memory.
  // `bulk` as given to issue().
  static __device__ __forceinline__ void complete(storage& s, const T* in, long long n, long long tile,
                                                  bool bulk = true) {
    const long long base = tile * TileItems;
    const long long remaining = n - base;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (bulk && remaining >= TileItems) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&s.loaded, 0u)) {
      }
      return;
    }
#endif
    T* staged = reinterpret_cast<T*>(s.chunks);
    const int valid = remaining < TileItems ? static_cast<int>(remaining) : TileItems;
    for (int i = static_cast<int>(threadIdx.x); i < TileItems; i += BlockThreads) {
      staged[i] = in[base + (i < valid ? i : 0)];
    }
    Barrier::sync();
  }
};

}  // namespace scankit::device_detail
