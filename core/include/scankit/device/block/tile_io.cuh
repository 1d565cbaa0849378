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
    load_warp(tile + warp_id() * 32 * K, items, s, vector_ok);
  }

  // items[k] = warp_items[lane * K + k]: one warp's 32 * K items, through its own stretch of s
  // (vector_ok: warp_items is 16-byte aligned).
  static __device__ __forceinline__ void load_warp(const T* warp_items, T (&items)[K], storage& s, bool vector_ok) {
    if constexpr (vectorizable) {
      if (vector_ok) {
        const int lane = lane_id();
        const int warp = warp_id();
        const int4* source = reinterpret_cast<const int4*>(warp_items);
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
    const T* mine = warp_items + lane_id() * K;
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

  static __device__ __forceinline__ void store_partial(T* tile, const T (&items)[K], int valid) {
    const int first = static_cast<int>(threadIdx.x) * K;
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (first + k < valid) tile[first + k] = items[k];
  }
};

}  // namespace scankit::device_detail
