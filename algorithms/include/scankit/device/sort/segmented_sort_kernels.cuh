// Device layer of the segmented sort: the kernels. Segment s is [offsets[s], offsets[s + 1]).
//
//   segment_count_kernel     checks every segment's bounds and counts the segments of each size
//                            class (segment_classes below)
//   segment_list_kernel      lists each class's segments as (begin, end) ranges
//   segment_thread_kernel    one thread per segment of at most segment_thread_items items: an
//                            insertion sort in registers (0 and 1 items: copied)
//   segment_block_kernel     one block per listed segment: the one-block radix sort's tile
//                            (radix_block_sort.cuh) on that segment
// Segments above the largest block tile go to the device-wide sort, one call each
// (segmented_sort_dispatch.cuh). Every path is stable, so equal keys keep their input order.
#pragma once

#include <climits>
#include <type_traits>

#include "scankit/device/sort/radix_block_sort.cuh"
#include "scankit/device/sort/radix_digits.cuh"
#include "scankit/device/sort/radix_histogram.cuh"

namespace scankit::device_detail {

// Segments of at most this many items are sorted by one thread each.
constexpr int segment_thread_items = 16;

// The size classes: one thread, one block of each of three shapes (their tiles are the limits),
// and the device-wide sort.
constexpr int segment_classes = 5;
constexpr int segment_by_device = segment_classes - 1;

struct segment_class_limits {
  long long block_tiles[3];  // the small, medium and large block shapes' tiles, increasing

  __host__ __device__ int class_of(long long size) const {
    if (size <= segment_thread_items) return 0;
    if (size <= block_tiles[0]) return 1;
    if (size <= block_tiles[1]) return 2;
    if (size <= block_tiles[2]) return 3;
    return segment_by_device;
  }
};

struct segment_range {
  long long begin, end;
};

// What the count kernel hands the host: segments per class, and the first segment whose bounds
// are wrong (begin < 0, end < begin or end > n), ULLONG_MAX when none is.
struct segment_census {
  unsigned long long counts[segment_classes];
  unsigned long long first_bad;
};

__device__ __forceinline__ bool segment_bounds_ok(long long begin, long long end, long long n) {
  return begin >= 0 && end >= begin && end <= n;
}

template <class Offset>
__global__ void segment_count_kernel(const Offset* offsets, long long segments, long long n,
                                     segment_class_limits limits, segment_census* census) {
  __shared__ unsigned long long block_counts[segment_classes];
  if (threadIdx.x < segment_classes) block_counts[threadIdx.x] = 0;
  __syncthreads();
  for (long long s = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; s < segments;
       s += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long begin = static_cast<long long>(offsets[s]);
    const long long end = static_cast<long long>(offsets[s + 1]);
    if (!segment_bounds_ok(begin, end, n)) {
      atomicMin(&census->first_bad, static_cast<unsigned long long>(s));
      continue;
    }
    atomicAdd(&block_counts[limits.class_of(end - begin)], 1ull);
  }
  __syncthreads();
  if (threadIdx.x < segment_classes && block_counts[threadIdx.x] != 0) {
    atomicAdd(&census->counts[threadIdx.x], block_counts[threadIdx.x]);
  }
}

// Where each class's ranges start in the lists (class 0, sorted by threads, is not listed).
struct segment_list_starts {
  long long first[segment_classes];
};

// lists[starts.first[c] + i], i < the census's count of class c: the ranges of class c's segments
// (c >= 1), in no particular order (each segment is sorted on its own, so the order changes no
// result). cursors: one zeroed counter per class.
template <class Offset>
__global__ void segment_list_kernel(const Offset* offsets, long long segments, segment_class_limits limits,
                                    segment_list_starts starts, unsigned long long* cursors, segment_range* lists) {
  for (long long s = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; s < segments;
       s += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long begin = static_cast<long long>(offsets[s]);
    const long long end = static_cast<long long>(offsets[s + 1]);
    const int c = limits.class_of(end - begin);
    if (c == 0) continue;
    const unsigned long long at = atomicAdd(&cursors[c], 1ull);
    lists[starts.first[c] + static_cast<long long>(at)] = segment_range{begin, end};
  }
}

template <class Key, class Value, class BitKey>
struct segment_sort_args {
  const Key* keys_in;
  Key* keys_out;
  const Value* values_in;  // null: keys only
  Value* values_out;
  radix_passes passes;     // the bit range sorted by, as the radix passes see it
  BitKey bit_key;
  bool descending;
};

// The bits a segment's keys are compared by: the bit range of the ordered bits, complemented
// when descending (as the radix passes' digits are).
template <class Key, class BitKey>
__device__ __forceinline__ auto segment_sort_bits(const Key& key, const BitKey& bit_key, const radix_passes& passes,
                                                  bool descending) {
  using bits_type = bit_key_result_t<BitKey, Key>;
  constexpr int width = 8 * static_cast<int>(sizeof(bits_type));
  bits_type bits = bit_key(key);
  if (descending) bits = static_cast<bits_type>(~bits);
  const int range = passes.end_bit - passes.begin_bit;
  bits = static_cast<bits_type>(bits >> passes.begin_bit);
  if (range < width) bits = static_cast<bits_type>(bits & static_cast<bits_type>((bits_type{1} << range) - 1));
  return bits;
}

template <class Offset, class Key, class Value, class BitKey>
__global__ void segment_thread_kernel(const Offset* offsets, long long segments,
                                      const segment_sort_args<Key, Value, BitKey> args) {
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  using bits_type = bit_key_result_t<BitKey, Key>;
  for (long long s = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; s < segments;
       s += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long begin = static_cast<long long>(offsets[s]);
    const int size = static_cast<int>(static_cast<long long>(offsets[s + 1]) - begin);
    if (size > segment_thread_items) continue;
    Key keys[segment_thread_items];
    bits_type bits[segment_thread_items];
    Value values[has_values ? segment_thread_items : 1];
    // Insertion sort, moving an item left past strictly greater ones only: stable.
    for (int i = 0; i < size; ++i) {
      const Key key = args.keys_in[begin + i];
      const bits_type b = segment_sort_bits(key, args.bit_key, args.passes, args.descending);
      Value value{};
      if constexpr (has_values) value = args.values_in[begin + i];
      int j = i;
      while (j > 0 && bits[j - 1] > b) {
        keys[j] = keys[j - 1];
        bits[j] = bits[j - 1];
        if constexpr (has_values) values[j] = values[j - 1];
        --j;
      }
      keys[j] = key;
      bits[j] = b;
      if constexpr (has_values) values[j] = value;
    }
    for (int i = 0; i < size; ++i) {
      args.keys_out[begin + i] = keys[i];
      if constexpr (has_values) args.values_out[begin + i] = values[i];
    }
  }
}

// One block per range of `segments` (a class's list), each at most Policy::tile_items items.
template <class Policy, class Key, class Value, class BitKey>
__global__ void __launch_bounds__(Policy::block_threads)
    segment_block_kernel(const segment_range* segments, const segment_sort_args<Key, Value, BitKey> args) {
  const segment_range r = segments[blockIdx.x];
  radix_block_sort_args<Key, Value, BitKey> tile{};
  tile.keys_in = args.keys_in + r.begin;
  tile.keys_out = args.keys_out + r.begin;
  if constexpr (!std::is_same_v<Value, radix_no_values>) {
    tile.values_in = args.values_in + r.begin;
    tile.values_out = args.values_out + r.begin;
  }
  tile.n = static_cast<int>(r.end - r.begin);
  tile.passes = args.passes;
  tile.bit_key = args.bit_key;
  tile.descending = args.descending;
  radix_block_sort_tile<Policy>(tile);
}

}  // namespace scankit::device_detail
