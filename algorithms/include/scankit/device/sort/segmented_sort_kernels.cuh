// Device layer of the segmented sort: the kernels. Segment s is [offsets[s], offsets[s + 1]).
//
//   segment_count_kernel     checks every segment's bounds and counts the segments of each size
//                            class (segment_classes below)
//   segment_small_kernel     one pass over the segments: sorts those of up to two items on the
//                            way, and lists the others as (begin, end) ranges of their class
//   segment_thread_kernel    one thread per listed segment of up to segment_thread_items items:
//                            an insertion sort in registers
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
#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

// Segments of at most this many items are sorted by the pass that lists the others (their
// items are loaded beside the offsets, in few registers).
constexpr int segment_pass_items = 2;
// Segments of at most this many items are sorted by one thread each.
constexpr int segment_thread_items = 16;

// The size classes: sorted by the listing pass, by one thread, by one block of each of three
// shapes (their tiles are the limits), and by the device-wide sort. The thread class has a kernel
// of its own because its registers (16 keys, bits and values) would cut the listing pass's
// occupancy, and with it the loads in flight, to a quarter.
constexpr int segment_by_pass = 0;
constexpr int segment_by_thread = 1;
constexpr int segment_first_block_class = 2;
constexpr int segment_classes = 6;
constexpr int segment_by_device = segment_classes - 1;

struct segment_class_limits {
  long long block_tiles[3];  // the small, medium and large block shapes' tiles, increasing

  __host__ __device__ int class_of(long long size) const {
    if (size <= segment_pass_items) return segment_by_pass;
    if (size <= segment_thread_items) return segment_by_thread;
    if (size <= block_tiles[0]) return segment_first_block_class;
    if (size <= block_tiles[1]) return segment_first_block_class + 1;
    if (size <= block_tiles[2]) return segment_first_block_class + 2;
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

// The census and the small-segment pass run 256-thread blocks, at least segment_pass_min_blocks of
// them on each SM (their registers capped to fit, without spills): both are bound by loads in
// flight. With values the pass holds twice the items, and four blocks fit.
constexpr int segment_pass_threads = 256;
constexpr int segment_pass_min_blocks = 5;
constexpr int segment_pass_min_blocks_with_values = 4;

// Each thread counts its segments' classes in registers over a grid-stride loop (the grid is what
// the GPU holds at once, and a thread reads segment_pass_per_thread offsets at a time, a block's
// width apart, to keep loads in flight); the block sums the counts (shuffles, then one shared
// slot per warp) and adds each class once. An atomic per segment would serialise on six addresses.
constexpr int segment_pass_per_thread = 4;
constexpr long long segment_pass_tile = static_cast<long long>(segment_pass_threads) * segment_pass_per_thread;

template <class Offset>
__global__ void __launch_bounds__(segment_pass_threads, segment_pass_min_blocks)
    segment_count_kernel(const Offset* offsets, long long segments, long long n, segment_class_limits limits,
                         segment_census* census) {
  constexpr int per = segment_pass_per_thread;
  // A thread's own counts fit 32 bits: it sees one segment in (resident threads) of them.
  unsigned counts[segment_classes] = {};
  for (long long tile = blockIdx.x; tile * segment_pass_tile < segments; tile += gridDim.x) {
    long long begin[per], end[per];
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const long long s = tile * segment_pass_tile + j * segment_pass_threads + threadIdx.x;
      begin[j] = end[j] = -1;
      if (s < segments) {
        begin[j] = static_cast<long long>(offsets[s]);
        end[j] = static_cast<long long>(offsets[s + 1]);
      }
    }
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const long long s = tile * segment_pass_tile + j * segment_pass_threads + threadIdx.x;
      if (s >= segments) continue;
      if (!segment_bounds_ok(begin[j], end[j], n)) {
        atomicMin(&census->first_bad, static_cast<unsigned long long>(s));
        continue;
      }
      const int c = limits.class_of(end[j] - begin[j]);
#pragma unroll
      for (int k = 0; k < segment_classes; ++k) counts[k] += c == k ? 1 : 0;
    }
  }
  constexpr int warps = segment_pass_threads / 32;
  __shared__ unsigned long long warp_counts[segment_classes][warps];
#pragma unroll
  for (int k = 0; k < segment_classes; ++k) {
    unsigned long long sum = counts[k];
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) sum += shuffle_down(sum, static_cast<unsigned>(offset));
    if (lane_id() == 0) warp_counts[k][warp_id()] = sum;
  }
  __syncthreads();
  if (threadIdx.x < segment_classes) {
    unsigned long long sum = 0;
    for (int w = 0; w < warps; ++w) sum += warp_counts[threadIdx.x][w];
    if (sum != 0) atomicAdd(&census->counts[threadIdx.x], sum);
  }
}

// Where each class's ranges start in the lists (the listing pass's own class is not listed).
struct segment_list_starts {
  long long first[segment_classes];
};

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

// Sorts segment [begin, begin + size), size <= segment_thread_items, in one thread's registers:
// an insertion sort whose indices are all known at compile time (so the arrays stay in
// registers), moving an item left past strictly greater ones only: stable.
template <class Key, class Value, class BitKey>
__device__ __forceinline__ void sort_segment_in_thread(const segment_sort_args<Key, Value, BitKey>& args, long long begin,
                                                       int size) {
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  using bits_type = bit_key_result_t<BitKey, Key>;
  Key keys[segment_thread_items];
  bits_type bits[segment_thread_items];
  Value values[has_values ? segment_thread_items : 1];
#pragma unroll
  for (int i = 0; i < segment_thread_items; ++i) {
    if (i < size) {
      keys[i] = args.keys_in[begin + i];
      bits[i] = segment_sort_bits(keys[i], args.bit_key, args.passes, args.descending);
      if constexpr (has_values) values[i] = args.values_in[begin + i];
    }
  }
#pragma unroll
  for (int i = 1; i < segment_thread_items; ++i) {
    if (i < size) {
#pragma unroll
      for (int j = i; j > 0; --j) {
        if (bits[j - 1] > bits[j]) {
          const Key key = keys[j];
          keys[j] = keys[j - 1];
          keys[j - 1] = key;
          const bits_type b = bits[j];
          bits[j] = bits[j - 1];
          bits[j - 1] = b;
          if constexpr (has_values) {
            const Value value = values[j];
            values[j] = values[j - 1];
            values[j - 1] = value;
          }
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < segment_thread_items; ++i) {
    if (i < size) {
      args.keys_out[begin + i] = keys[i];
      if constexpr (has_values) args.values_out[begin + i] = values[i];
    }
  }
}

// One thread per range of `segments` (the thread class's list: count ranges, each of at most
// segment_thread_items items).
template <class Key, class Value, class BitKey>
__global__ void __launch_bounds__(segment_pass_threads)
    segment_thread_kernel(const segment_range* segments, unsigned long long count,
                          const segment_sort_args<Key, Value, BitKey> args) {
  for (unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; t < count;
       t += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const segment_range r = segments[t];
    sort_segment_in_thread(args, r.begin, static_cast<int>(r.end - r.begin));
  }
}

// One pass over the segments. Segments of one or two items (the common tiny case) are sorted on
// the way, all of a thread's items loaded before any is stored so that each thread keeps several
// loads in flight; the others are listed: lists[starts.first[c] + i], i < the census's count of
// class c, in no particular order (each segment is sorted on its own). cursors: one zeroed
// counter per class, null when no segment is listed. Bounds were checked by the census.
template <class Offset, class Key, class Value, class BitKey>
__global__ void __launch_bounds__(segment_pass_threads, std::is_same_v<Value, radix_no_values>
                                                            ? segment_pass_min_blocks
                                                            : segment_pass_min_blocks_with_values)
    segment_small_kernel(const Offset* offsets, long long segments, segment_class_limits limits,
                         segment_list_starts starts, unsigned long long* cursors, segment_range* lists,
                         const segment_sort_args<Key, Value, BitKey> args) {
  static_assert(segment_pass_items == 2, "the pass sorts segments of one and two items");
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  constexpr int per = segment_pass_per_thread;
  // The loop's bound is the same for the whole block, so every lane reaches the ballots below.
  for (long long tile = blockIdx.x; tile * segment_pass_tile < segments; tile += gridDim.x) {
    long long begin[per], end[per];
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const long long s = tile * segment_pass_tile + j * segment_pass_threads + threadIdx.x;
      begin[j] = end[j] = 0;
      if (s < segments) {
        begin[j] = static_cast<long long>(offsets[s]);
        end[j] = static_cast<long long>(offsets[s + 1]);
      }
    }
    Key first[per], second[per];
    Value first_value[has_values ? per : 1], second_value[has_values ? per : 1];
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const long long size = end[j] - begin[j];
      if (size == 1 || size == 2) {
        first[j] = args.keys_in[begin[j]];
        if constexpr (has_values) first_value[j] = args.values_in[begin[j]];
      }
      if (size == 2) {
        second[j] = args.keys_in[begin[j] + 1];
        if constexpr (has_values) second_value[j] = args.values_in[begin[j] + 1];
      }
    }
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const long long size = end[j] - begin[j];
      if (size == 1 || size == 2) {
        // Two items swap only when the first's bits are strictly greater: stable.
        const bool swap = size == 2 && segment_sort_bits(first[j], args.bit_key, args.passes, args.descending) >
                                           segment_sort_bits(second[j], args.bit_key, args.passes, args.descending);
        args.keys_out[begin[j]] = swap ? second[j] : first[j];
        if (size == 2) args.keys_out[begin[j] + 1] = swap ? first[j] : second[j];
        if constexpr (has_values) {
          args.values_out[begin[j]] = swap ? second_value[j] : first_value[j];
          if (size == 2) args.values_out[begin[j] + 1] = swap ? first_value[j] : second_value[j];
        }
      }
    }
    if (cursors == nullptr) continue;
    // The larger segments, appended with one atomic per warp and class.
    const unsigned lanes_below = (1u << lane_id()) - 1u;
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const int c = limits.class_of(end[j] - begin[j]);
#pragma unroll
      for (int k = segment_by_pass + 1; k < segment_classes; ++k) {
        const unsigned members = __ballot_sync(full_warp_mask, c == k);
        if (members == 0) continue;
        const int leader = __ffs(members) - 1;
        unsigned long long at = 0;
        if (lane_id() == leader) at = atomicAdd(&cursors[k], static_cast<unsigned long long>(__popc(members)));
        at = shuffle_index(at, leader);
        if (c == k) {
          lists[starts.first[k] + static_cast<long long>(at) + __popc(members & lanes_below)] =
              segment_range{begin[j], end[j]};
        }
      }
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
