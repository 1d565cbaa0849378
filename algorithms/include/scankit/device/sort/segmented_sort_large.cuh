// Device layer of the segmented sort: the segments above the block tiles, for a call whose counts
// are in device memory (segmented_sort_counted.cuh). The host does not know how many there are or
// where, so they are sorted all at once, in one buffer:
//
//   1. segment_large_layout_kernel   one block: the inclusive sums of the large segments' sizes in
//                                    list order (where each one's items go in the buffer), and the
//                                    total
//   2. segment_large_gather_kernel   each buffered item's key, and its buffer position
//   3. a stable device-wide sort of the (key, position) pairs, counted by the total (the caller's)
//   4. segment_large_rank_kernel     each sorted pair's segment: its rank in the list, from the
//                                    position it came from
//   5. a stable device-wide sort of the (rank, position) pairs: each segment's items together,
//                                    still in key order
//   6. segment_large_scatter_kernel  the result's item j goes to its segment's place j - start; its
//                                    key and value are read from the input where it came from
//
// Positions and ranks are 32-bit: such a call has fewer than 2^32 items. The list holds few ranges
// (each more items than a block's tile), so a binary search over the sums finds an item's segment.
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/sort/segmented_sort_kernels.cuh"
#include "scankit/operators.hpp"

namespace scankit::device_detail {

constexpr int segment_large_layout_threads = 1024;
constexpr int segment_large_threads = 256;

// The large segments' list and count, from the census in device memory. The count is at most
// `capacity`, the most that the bounds allow (items / (largest tile + 1)): only overlapping
// segments (offsets that are not a CSR's) could make more, and those are left unsorted rather than
// written past the buffers.
struct segment_large_list {
  const segment_range* ranges;
  long long count;
};

__device__ __forceinline__ segment_large_list large_list_of(const segment_range* lists, const segment_census& census,
                                                            long long capacity) {
  const auto count = static_cast<long long>(census.counts[segment_by_device]);
  return {lists + list_starts_of(census).first[segment_by_device], count < capacity ? count : capacity};
}

// The segment (its rank in the list) that holds buffer position j < the total: the first whose
// inclusive end lies above j.
__device__ __forceinline__ long long large_rank_of(const long long* ends, long long count, long long j) {
  long long lo = 0, hi = count - 1;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (ends[mid] > j) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

__device__ __forceinline__ long long large_start_of(const long long* ends, long long rank) {
  return rank == 0 ? 0 : ends[rank - 1];
}

// ends[i] = the items of large segments 0..i (ends holds `capacity`); *total = all of them (0
// without large segments), at most the items' bound n (again only overlapping segments could
// make more). (A template, as every kernel in a header: each translation unit gets its own.)
template <int Threads = segment_large_layout_threads>
__global__ void __launch_bounds__(Threads)
    segment_large_layout_kernel(const segment_range* lists, const segment_census* census, long long capacity,
                                long long n, long long* ends, std::int64_t* total) {
  using scan = block_scan_warp_of_warps<long long, Threads>;
  __shared__ typename scan::storage storage;
  const segment_large_list large = large_list_of(lists, *census, capacity);
  long long carry = 0;
  // The loop's bound is the same for the whole block, so every thread reaches the scan's barriers.
  for (long long base = 0; base < large.count; base += Threads) {
    const long long i = base + threadIdx.x;
    const long long size = i < large.count ? large.ranges[i].end - large.ranges[i].begin : 0;
    const block_scan_result<long long> r = scan::scan(size, storage, plus_op{});
    const long long before = threadIdx.x == 0 ? 0 : r.exclusive;  // undefined for thread 0
    if (i < large.count) ends[i] = carry + before + size;
    carry += r.aggregate;
    __syncthreads();  // the aggregate is read before the next round's scan overwrites it
  }
  if (threadIdx.x == 0) *total = carry < n ? carry : n;
}

// Buffer position j holds item (start of its segment's range) + (j - the segment's buffer start).
template <class Key>
__global__ void __launch_bounds__(segment_large_threads)
    segment_large_gather_kernel(const segment_range* lists, const segment_census* census, long long capacity,
                                const long long* ends, const std::int64_t* total, const Key* keys_in, Key* keys,
                                std::uint32_t* positions) {
  const segment_large_list large = large_list_of(lists, *census, capacity);
  const long long items = *total;
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < items;
       j += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long rank = large_rank_of(ends, large.count, j);
    keys[j] = keys_in[large.ranges[rank].begin + (j - large_start_of(ends, rank))];
    positions[j] = static_cast<std::uint32_t>(j);
  }
}

// The segment of each sorted pair, from the buffer position it came from.
template <int Threads = segment_large_threads>
__global__ void __launch_bounds__(Threads)
    segment_large_rank_kernel(const segment_census* census, long long capacity, const long long* ends,
                              const std::int64_t* total, const std::uint32_t* positions, std::uint32_t* ranks) {
  const long long count = large_list_of(nullptr, *census, capacity).count;
  const long long items = *total;
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < items;
       j += static_cast<long long>(gridDim.x) * blockDim.x) {
    ranks[j] = static_cast<std::uint32_t>(large_rank_of(ends, count, positions[j]));
  }
}

// After the second sort, slot j holds an item of the segment whose buffer range contains j (the
// sort by rank keeps every segment's size and order), in key order: it goes to that segment's
// range at j - start, read from the input at its own position's place.
template <class Key, class Value>
__global__ void __launch_bounds__(segment_large_threads)
    segment_large_scatter_kernel(const segment_range* lists, const segment_census* census, long long capacity,
                                 const long long* ends, const std::int64_t* total, const std::uint32_t* positions,
                                 const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out) {
  const segment_large_list large = large_list_of(lists, *census, capacity);
  const long long items = *total;
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < items;
       j += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long rank = large_rank_of(ends, large.count, j);
    const long long begin = large.ranges[rank].begin - large_start_of(ends, rank);  // item of buffer position 0
    const long long from = begin + static_cast<long long>(positions[j]);
    keys_out[begin + j] = keys_in[from];
    if constexpr (!std::is_same_v<Value, radix_no_values>) values_out[begin + j] = values_in[from];
  }
}

}  // namespace scankit::device_detail
