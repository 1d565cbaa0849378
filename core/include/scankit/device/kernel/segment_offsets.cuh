// Device layer: segments given by an offsets array (CSR row offsets), for the segmented scan and
// the segmented reduction.
//
// `offsets` holds num_offsets = segments + 1 non-decreasing positions in [0, n]; segment s is
// [offsets[s], offsets[s + 1]). An item starts a segment when its index equals some offset (item 0
// always does). Positions outside [0, n] are clamped, so malformed offsets give wrong segments,
// never an access out of bounds.
//
// Tile t (items [base, base + T)) owns the offsets k with base < offsets[k] <= base + T (tile 0
// also those equal to 0): they close the segments k - 1 that end in the tile, and those below
// base + T open segments in it. A tile's offsets are found once per launch by
// segment_offsets_partition_kernel (one binary search per tile boundary, into workspace scratch);
// a launch of one tile needs no partition.
//
// Counts in device memory (scankit::device_n): `n` and `num_offsets` are then host bounds, and
// every kernel first takes resolved(), the counts it reads on the device (clamped to the bounds).
// Positions clamp to the real n, so a segment that ends past it ends at it, in a tile that runs.
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/device/iterators.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/launch.cuh"

namespace scankit::device_detail {

template <class OffsetsIn>
struct segment_offsets {
  OffsetsIn offsets;
  long long num_offsets;  // segments + 1 (their bound + 1 when segments_device is set)
  long long n;            // items (their bound when n_device is set)
  const std::int64_t* n_device = nullptr;         // the items in device memory, or nullptr
  const std::int64_t* segments_device = nullptr;  // the segments in device memory, or nullptr

  // The same segments with the counts this launch reads on the device (device_count.cuh).
  __device__ __forceinline__ segment_offsets resolved() const {
    segment_offsets r = *this;
    r.n = items_to_process(n, n_device);
    r.num_offsets = items_to_process(num_offsets - 1, segments_device) + 1;
    r.n_device = nullptr;
    r.segments_device = nullptr;
    return r;
  }

  // offsets[k] clamped to [0, n].
  __host__ __device__ __forceinline__ long long position(long long k) const {
    const long long p = static_cast<long long>(offsets[k]);
    return p < 0 ? 0 : (p > n ? n : p);
  }

  // The first k whose position is above `base` (num_offsets when none is).
  __device__ __forceinline__ long long first_above(long long base) const {
    long long lo = 0, hi = num_offsets;
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      if (position(mid) > base) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }
};

// partition[t] = the first offset tile t owns, for t in [0, tiles]; partition[tiles] = num_offsets.
template <class OffsetsIn>
__global__ void segment_offsets_partition_kernel(const segment_offsets<OffsetsIn> given, long long tiles,
                                                 long long tile_items, long long* partition) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const segment_offsets<OffsetsIn> segments = given.resolved();
  partition[t] = t == 0 ? 0 : (t == tiles ? segments.num_offsets : segments.first_above(t * tile_items));
}

template <class OffsetsIn>
void partition_segment_offsets(const segment_offsets<OffsetsIn>& segments, long long tiles, long long tile_items,
                               long long* partition, cudaStream_t stream) {
  constexpr int threads = 256;
  const auto blocks = static_cast<unsigned>((tiles + 1 + threads - 1) / threads);
  launch_kernel("segment_offsets_partition_kernel", segment_offsets_partition_kernel<OffsetsIn>, blocks, threads,
                stream, segments, tiles, tile_items, partition);
}

// Head source (segment_heads.cuh) over an offsets array: each tile marks its segment starts in a
// shared bit map, then each thread takes its K bits. All threads of the block must call load().
template <class OffsetsIn, int K, int BlockThreads>
struct offsets_head_source {
  static_assert(K <= 32, "a thread's heads are one 32-bit mask");
  static constexpr int tile_items = K * BlockThreads;
  struct storage {
    unsigned words[tile_items / 32 + 2];  // one spare word: a thread's bits may straddle two
  };

  segment_offsets<OffsetsIn> segments;  // counts possibly in device memory: use a plan's
  const long long* partition;  // nullptr: the launch is one tile

  // The offsets [begin, end) that the tile at `base` owns, and the segments with their counts
  // resolved (device counts read once per tile).
  struct plan {
    long long begin, end;
    segment_offsets<OffsetsIn> segments;
  };
  __device__ __forceinline__ plan prepare(long long base) const {
    const segment_offsets<OffsetsIn> resolved = segments.resolved();
    if (partition == nullptr) return {0, resolved.num_offsets, resolved};
    const long long tile = base / tile_items;
    return {partition[tile], partition[tile + 1], resolved};
  }

  __device__ __forceinline__ unsigned load(long long base, int valid, storage& s, const plan& owned) const {
    constexpr int words = tile_items / 32 + 2;
    for (int w = threadIdx.x; w < words; w += BlockThreads) s.words[w] = 0u;
    __syncthreads();
    const long long begin = owned.begin, end = owned.end;
    for (long long k = begin + threadIdx.x; k < end; k += BlockThreads) {
      const long long at = owned.segments.position(k) - base;
      if (0 <= at && at < valid) atomicOr(&s.words[at >> 5], 1u << (at & 31));
    }
    // An offset equal to base belongs to the tile before (it closes a segment there).
    if (threadIdx.x == 0 && begin > 0 && owned.segments.position(begin - 1) == base) atomicOr(&s.words[0], 1u);
    __syncthreads();
    const int first = static_cast<int>(threadIdx.x) * K;
    const unsigned long long pair =
        static_cast<unsigned long long>(s.words[first >> 5]) | static_cast<unsigned long long>(s.words[(first >> 5) + 1]) << 32;
    const unsigned bits = static_cast<unsigned>(pair >> (first & 31));
    if constexpr (K == 32) {
      return bits;
    } else {
      return bits & ((1u << K) - 1u);
    }
  }
};

template <class Heads>
struct is_offsets_head_source : std::false_type {};
template <class OffsetsIn, int K, int BlockThreads>
struct is_offsets_head_source<offsets_head_source<OffsetsIn, K, BlockThreads>> : std::true_type {};

// Scratch bytes a launch of `tiles` tiles needs for its partition (none for one tile).
inline std::size_t segment_partition_bytes(long long tiles) {
  return tiles > 1 ? static_cast<std::size_t>(tiles + 1) * sizeof(long long) : 0;
}

}  // namespace scankit::device_detail
