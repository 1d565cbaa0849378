// Block layer: moving one tile between global memory and registers.
//
// Every thread owns K consecutive items (the "blocked" arrangement the serial scan needs), but
// global memory wants each warp instruction to touch consecutive addresses. So each warp loads
// its 32*K items with coalesced 16-byte vector loads into its own stretch of shared memory and
// reads them back blocked (a warp-private transpose: __syncwarp, no block barrier); stores run the
// same way backwards. Shared memory is addressed in 16-byte chunks with an XOR swizzle
// (chunk c lives at c ^ ((c >> 3) & 7)), which keeps both the striped and the blocked accesses
// free of bank conflicts for the chunk counts used here.
//
// Types or coarsening factors that do not fill whole 16-byte chunks, and unaligned pointers,
// take a plain per-item path.
#pragma once

#include <cstdint>
#include <cstring>

#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

template <class T, int K, int BlockThreads>
struct tile_io {
  static constexpr int tile_items = K * BlockThreads;
  static constexpr bool vectorizable =
      sizeof(T) <= 16 && 16 % sizeof(T) == 0 && (K * sizeof(T)) % 16 == 0;
  static constexpr int items_per_chunk = sizeof(T) <= 16 ? static_cast<int>(16 / sizeof(T)) : 1;
  static constexpr int chunks_per_thread = vectorizable ? static_cast<int>(K * sizeof(T) / 16) : 1;
  static constexpr int chunks_per_warp = 32 * chunks_per_thread;

  struct storage {
    int4 chunks[vectorizable ? (BlockThreads / 32) * chunks_per_warp : 1];
  };

  static __device__ __forceinline__ bool aligned(const void* p) {
    return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
  }

  static __device__ __forceinline__ int swizzle(int chunk) { return chunk ^ ((chunk >> 3) & 7); }

  // items[k] = tile[threadIdx.x * K + k] for a full tile.
  static __device__ __forceinline__ void load_full(const T* tile, T (&items)[K], storage& s, bool vector_ok) {
    if constexpr (vectorizable) {
      if (vector_ok) {
        const int lane = lane_id();
        const int warp = warp_id();
        const int4* source = reinterpret_cast<const int4*>(tile) + warp * chunks_per_warp;
        int4* segment = s.chunks + warp * chunks_per_warp;
        int4 chunk[chunks_per_thread];
#pragma unroll
        for (int q = 0; q < chunks_per_thread; ++q) chunk[q] = source[q * 32 + lane];  // all loads in flight first
#pragma unroll
        for (int q = 0; q < chunks_per_thread; ++q) segment[swizzle(q * 32 + lane)] = chunk[q];
        __syncwarp();
#pragma unroll
        for (int q = 0; q < chunks_per_thread; ++q) {
          int4 mine = segment[swizzle(lane * chunks_per_thread + q)];
          memcpy(&items[q * items_per_chunk], &mine, 16);
        }
        __syncwarp();  // the segment may be reused by this warp's next transpose
        return;
      }
    }
    const T* mine = tile + static_cast<int>(threadIdx.x) * K;
#pragma unroll
    for (int k = 0; k < K; ++k) items[k] = mine[k];
  }

  // Loads the first `valid` items of a partial tile. Items past the end are filled with tile[0]:
  // any value will do, since they only feed results that are never stored.
  static __device__ __forceinline__ void load_partial(const T* tile, T (&items)[K], int valid) {
    const int first = static_cast<int>(threadIdx.x) * K;
    const T filler = tile[0];
#pragma unroll
    for (int k = 0; k < K; ++k) items[k] = first + k < valid ? tile[first + k] : filler;
  }

  // tile[threadIdx.x * K + k] = items[k] for a full tile.
  static __device__ __forceinline__ void store_full(T* tile, const T (&items)[K], storage& s, bool vector_ok) {
    if constexpr (vectorizable) {
      if (vector_ok) {
        const int lane = lane_id();
        const int warp = warp_id();
        int4* target = reinterpret_cast<int4*>(tile) + warp * chunks_per_warp;
        int4* segment = s.chunks + warp * chunks_per_warp;
#pragma unroll
        for (int q = 0; q < chunks_per_thread; ++q) {
          int4 mine;
          memcpy(&mine, &items[q * items_per_chunk], 16);
          segment[swizzle(lane * chunks_per_thread + q)] = mine;
        }
        __syncwarp();
#pragma unroll
        for (int q = 0; q < chunks_per_thread; ++q) target[q * 32 + lane] = segment[swizzle(q * 32 + lane)];
        __syncwarp();
        return;
      }
    }
    T* mine = tile + static_cast<int>(threadIdx.x) * K;
#pragma unroll
    for (int k = 0; k < K; ++k) mine[k] = items[k];
  }

  // Asynchronous form of load_full for the software pipeline of the single-pass kernel: each
  // thread starts copies of its striped chunks straight into the swizzled shared segment
  // (cp.async, no registers held), then commits them as one group. finish_async_load waits for
  // the copies and reads the items back blocked. Only for vectorizable shapes and aligned input.
  static __device__ __forceinline__ void start_async_load(const T* tile, storage& s) {
    if constexpr (vectorizable) {
      const int lane = lane_id();
      const int warp = warp_id();
      const int4* source = reinterpret_cast<const int4*>(tile) + warp * chunks_per_warp;
      int4* segment = s.chunks + warp * chunks_per_warp;
#pragma unroll
      for (int q = 0; q < chunks_per_thread; ++q) {
        const auto shared_address =
            static_cast<unsigned>(__cvta_generic_to_shared(segment + swizzle(q * 32 + lane)));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address), "l"(source + q * 32 + lane)
                     : "memory");
      }
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }

  // `newer_groups_in_flight`: whether this thread has committed a later group (the next tile's
  // copies) that must not be waited for.
  static __device__ __forceinline__ void finish_async_load(T (&items)[K], storage& s, bool newer_groups_in_flight) {
    if (newer_groups_in_flight) {
      asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    }
    __syncwarp();  // the other lanes' copies into this warp's segment are complete and visible
    if constexpr (vectorizable) {
      const int lane = lane_id();
      int4* segment = s.chunks + warp_id() * chunks_per_warp;
#pragma unroll
      for (int q = 0; q < chunks_per_thread; ++q) {
        int4 mine = segment[swizzle(lane * chunks_per_thread + q)];
        memcpy(&items[q * items_per_chunk], &mine, 16);
      }
      __syncwarp();
    }
  }

  static __device__ __forceinline__ void store_partial(T* tile, const T (&items)[K], int valid) {
    const int first = static_cast<int>(threadIdx.x) * K;
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (first + k < valid) tile[first + k] = items[k];
  }
};

}  // namespace scankit::device_detail
