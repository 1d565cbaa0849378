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
// (segmented_sort_dispatch.cuh), or with counts in device memory all at once
// (segmented_sort_large.cuh). Every path is stable, so equal keys keep their input order.
//
// Counts in device memory (segment_device_counts): the kernels read the segments' and the items'
// counts when they run, clamp each segment into [0, items] instead of checking it (nothing can be
// reported to the host before the outputs are written), and find where each class's list starts
// from the census in device memory; the block kernels then loop over their class's list.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <type_traits>

#include "scankit/device/sort/radix_block_sort.cuh"
#include "scankit/device/sort/radix_digits.cuh"
#include "scankit/device/sort/radix_histogram.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

// Segments of at most this many items are sorted by the pass that lists the others (their
// items are loaded beside the offsets, in few registers).
constexpr int segment_pass_items = 2;
// Segments of at most this many items are sorted by one thread each.
constexpr int segment_thread_items = 16;

// The size classes: sorted by the listing pass, by one thread, by one block of each of
// segment_block_classes shapes (their tiles are the limits), and by the device-wide sort. The thread class has a kernel
// of its own because its registers (16 keys, bits and values) would cut the listing pass's
// occupancy, and with it the loads in flight, to a quarter.
constexpr int segment_by_pass = 0;
constexpr int segment_by_thread = 1;
constexpr int segment_first_block_class = 2;
constexpr int segment_block_classes = 5;
constexpr int segment_classes = segment_first_block_class + segment_block_classes + 1;
constexpr int segment_by_device = segment_classes - 1;

struct segment_class_limits {
  int block_tiles[segment_block_classes];  // the block shapes' tiles, increasing

  // A count of the limits below `size`, without branches, in the offsets' width: the census
  // classifies every segment.
  template <class Size>
  __host__ __device__ int class_of(Size size) const {
    int c = static_cast<int>(size > Size{segment_pass_items}) + static_cast<int>(size > Size{segment_thread_items});
#pragma unroll
    for (int b = 0; b < segment_block_classes; ++b) c += static_cast<int>(size > static_cast<Size>(block_tiles[b]));
    return c;
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

template <class Offset>
__device__ __forceinline__ bool segment_bounds_ok(Offset begin, Offset end, Offset n) {
  return begin >= 0 && end >= begin && end <= n;
}

// A segment moved into [0, n] and made non-decreasing: the bounds of a call that cannot check its
// offsets (the counts in device memory). Valid bounds are unchanged.
template <class Offset>
__device__ __forceinline__ void clamp_segment(Offset& begin, Offset& end, Offset n) {
  begin = begin < Offset{0} ? Offset{0} : (begin > n ? n : begin);
  end = end < begin ? begin : (end > n ? n : end);
}

// The counts of a call that holds them in device memory (both set), or none (both null: the
// launch's host counts). Kernels resolve them once, before their loops.
struct segment_device_counts {
  const std::int64_t* segments = nullptr;
  const std::int64_t* items = nullptr;

  __device__ __forceinline__ bool counted() const { return segments != nullptr; }
  // The count clamped to [0, bound] (device_count.cuh), or the bound itself.
  __device__ __forceinline__ long long segments_or(long long bound) const { return items_to_process(bound, segments); }
  __device__ __forceinline__ long long items_or(long long bound) const { return items_to_process(bound, items); }
};

// The census and the small-segment pass run 256-thread blocks, at least segment_pass_min_blocks of
// them on each SM (their registers capped to fit, without spills): both are bound by loads in
// flight, which a thread's several segments provide.
constexpr int segment_pass_threads = 256;
constexpr int segment_pass_min_blocks = 4;

// The census and the listing pass take segments in tiles: each thread takes Per segments of a
// tile, a block's width apart, so a warp reads consecutive offsets. The listing pass holds items
// as well as bounds, so it takes fewer (more would spill).
constexpr int segment_count_per_thread = 8;
constexpr int segment_list_per_thread = 4;
template <int Per>
constexpr long long segment_pass_tile = static_cast<long long>(segment_pass_threads) * Per;

// The bounds of a thread's segments in the tile that starts at segment `first`: segment
// first + j * segment_pass_threads + threadIdx.x is [begin[j], end[j]) when it is below
// `segments` (empty otherwise). A segment's end is the next one's begin, which the next lane
// loads, so each offset is loaded once (the warp's last lane also loads its segments' ends), and
// every load is issued before any is used: the passes are bound by loads in flight.
template <int Per, class Offset>
__device__ __forceinline__ void load_segment_bounds(const Offset* offsets, long long segments, long long first,
                                                    Offset (&begin)[Per], Offset (&end)[Per]) {
  const bool last_lane = lane_id() == 31;
#pragma unroll
  for (int j = 0; j < Per; ++j) {
    const long long s = first + j * segment_pass_threads + threadIdx.x;
    // offsets holds segments + 1 entries: the lane just past the last segment loads its end.
    begin[j] = s <= segments ? offsets[s] : Offset{0};
    end[j] = last_lane && s < segments ? offsets[s + 1] : Offset{0};
  }
#pragma unroll
  for (int j = 0; j < Per; ++j) {
    const long long s = first + j * segment_pass_threads + threadIdx.x;
    const Offset next = shuffle_down(begin[j], 1u);
    if (!last_lane) end[j] = next;
    if (s >= segments) begin[j] = end[j] = Offset{0};
  }
}

// Each thread counts its segments' classes in registers over a grid-stride loop (the grid is what
// the GPU holds at once); the block sums the counts (shuffles, then one shared slot per warp) and
// adds each class once. An atomic per segment would serialise on six addresses.
// With counts in device memory, segments and n are their bounds, and bounds are clamped, not checked.
template <class Offset>
__global__ void __launch_bounds__(segment_pass_threads, segment_pass_min_blocks)
    segment_count_kernel(const Offset* offsets, long long segments, long long n, segment_class_limits limits,
                         segment_census* census, segment_device_counts device_counts) {
  segments = device_counts.segments_or(segments);
  n = device_counts.items_or(n);
  constexpr int per = segment_count_per_thread;
  constexpr long long tile = segment_pass_tile<per>;
  // A thread's own counts fit 32 bits: it sees one segment in (resident threads) of them.
  unsigned counts[segment_classes] = {};
  static_assert(segment_classes <= 8 && per < 256, "a tile's counts fit two words of four 8-bit fields");
  // The loop's bound is the same for the whole block, so every lane reaches the shuffles.
  for (long long first = blockIdx.x * tile; first < segments; first += static_cast<long long>(gridDim.x) * tile) {
    Offset begin[per], end[per];
    load_segment_bounds(offsets, segments, first, begin, end);
    // The tile's counts, packed (one add per segment instead of one per class), then unpacked.
    unsigned packed_low = 0, packed_high = 0;
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const long long s = first + j * segment_pass_threads + threadIdx.x;
      if (s >= segments) continue;
      // n fits Offset (int32 offsets are refused for larger n before any launch).
      if (device_counts.counted()) {
        clamp_segment(begin[j], end[j], static_cast<Offset>(n));
      } else if (!segment_bounds_ok(begin[j], end[j], static_cast<Offset>(n))) {
        atomicMin(&census->first_bad, static_cast<unsigned long long>(s));
        continue;
      }
      const int c = limits.class_of(static_cast<Offset>(end[j] - begin[j]));
      const unsigned one = 1u << (8 * (c & 3));
      if (c < 4) {
        packed_low += one;
      } else {
        packed_high += one;
      }
    }
#pragma unroll
    for (int k = 0; k < segment_classes; ++k) counts[k] += ((k < 4 ? packed_low : packed_high) >> (8 * (k & 3))) & 0xffu;
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

// The lists' starts from the census: the classes one after another.
__host__ __device__ __forceinline__ segment_list_starts list_starts_of(const segment_census& census) {
  segment_list_starts starts{};
  long long listed = 0;
  for (int c = segment_by_pass + 1; c < segment_classes; ++c) {
    starts.first[c] = listed;
    listed += static_cast<long long>(census.counts[c]);
  }
  return starts;
}

// A class's list: the host's pointer and count, or with the census in device memory (a call with
// counts there) the lists' base and the class, resolved when the kernel runs.
struct segment_class_list {
  const segment_range* ranges;          // the class's first range, or the lists' base
  unsigned long long count;             // the class's ranges (unused with the census)
  const segment_census* census;         // null: ranges and count are the host's
  int segment_class;

  // The start is summed here rather than taken from list_starts_of: its array indexed by the
  // run-time class would live in local memory (a stack frame in every kernel that takes a list).
  __device__ __forceinline__ void resolve(const segment_range*& first, unsigned long long& n) const {
    first = ranges;
    n = count;
    if (census != nullptr) {
      long long start = 0;
      for (int c = segment_by_pass + 1; c < segment_class; ++c) start += static_cast<long long>(census->counts[c]);
      first += start;
      n = census->counts[segment_class];
    }
  }
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
      bits[i] = sort_bits_in_range(keys[i], args.bit_key, args.passes, args.descending);
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

// One thread per range of the thread class's list (each of at most segment_thread_items items).
// Counted (the list resolved from the census in device memory): a kernel of its own, as for the
// block kernel below.
template <class Key, class Value, class BitKey, bool Counted = false>
__global__ void __launch_bounds__(segment_pass_threads)
    segment_thread_kernel(const segment_class_list list, const segment_sort_args<Key, Value, BitKey> args) {
  const segment_range* segments = list.ranges;
  unsigned long long count = list.count;
  if constexpr (Counted) list.resolve(segments, count);
  for (unsigned long long t = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; t < count;
       t += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const segment_range r = segments[t];
    sort_segment_in_thread(args, r.begin, static_cast<int>(r.end - r.begin));
  }
}

// Items the listing pass stages in shared memory per tile: two per segment, within 32 KiB.
template <std::size_t ItemBytes>
constexpr int segment_stage_items =
    static_cast<int>(std::min<std::size_t>(2 * segment_pass_tile<segment_list_per_thread>, 32768 / ItemBytes));

// One pass over the segments. Segments of one or two items (the common tiny case) are sorted on
// the way; the others are listed: lists[starts.first[c] + i], i < the census's count of class c,
// in no particular order (each segment is sorted on its own). cursors: one zeroed counter per
// class, null when no segment is listed. Bounds were checked by the census. With counts in device
// memory, bounds are clamped as the census clamped them, the starts come from `census` (in device
// memory), and no tile is staged: staging trusts the tile's offsets to be one increasing run.
//
// A tile whose segments hold at most segment_stage_items items in all is staged: the block copies
// the tile's items into shared memory with coalesced loads (all issued before any is used), each
// thread orders its two-item segments there, and the block writes the items back coalesced.
// Items of the listed segments are written back unsorted; the kernels that sort them run later
// in the stream and overwrite them. Other tiles' one- and two-item segments are sorted by their
// threads straight from global memory.
// Counted: a kernel of its own, so that the host-count launch keeps its registers (the clamps and
// the census's starts would raise them past the launch bounds' 64).
template <class Offset, class Key, class Value, class BitKey, bool Counted = false>
__global__ void __launch_bounds__(segment_pass_threads, segment_pass_min_blocks)
    segment_small_kernel(const Offset* offsets, long long segments, long long n, segment_class_limits limits,
                         segment_list_starts starts, unsigned long long* cursors, segment_range* lists,
                         const segment_sort_args<Key, Value, BitKey> args, const segment_census* census,
                         segment_device_counts device_counts) {
  static_assert(segment_pass_items == 2, "the pass sorts segments of one and two items");
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  constexpr std::size_t value_bytes = has_values ? sizeof(Value) : 0;
  constexpr int stage_items = segment_stage_items<sizeof(Key) + value_bytes>;
  constexpr int per = segment_list_per_thread;
  constexpr long long tile = segment_pass_tile<per>;
  // Raw storage: key and value types need not be default-constructible in shared memory.
  __shared__ alignas(16) unsigned char stage_keys_bytes[stage_items * sizeof(Key)];
  __shared__ alignas(16) unsigned char stage_values_bytes[has_values ? stage_items * value_bytes : 1];
  Key* stage_keys = reinterpret_cast<Key*>(stage_keys_bytes);
  Value* stage_values = reinterpret_cast<Value*>(stage_values_bytes);
  const auto in_order = [&args](const Key& a, const Key& b) {  // false: b goes first (stable)
    return !(sort_bits_in_range(a, args.bit_key, args.passes, args.descending) >
             sort_bits_in_range(b, args.bit_key, args.passes, args.descending));
  };

  if constexpr (Counted) {
    segments = device_counts.segments_or(segments);
    n = device_counts.items_or(n);
    starts = list_starts_of(*census);
  }

  // The loop's bound is the same for the whole block, so every lane reaches the barriers and
  // ballots below.
  for (long long first = blockIdx.x * tile; first < segments; first += static_cast<long long>(gridDim.x) * tile) {
    Offset begin[per], end[per];
    load_segment_bounds(offsets, segments, first, begin, end);
    if constexpr (Counted) {
#pragma unroll
      for (int j = 0; j < per; ++j) clamp_segment(begin[j], end[j], static_cast<Offset>(n));
    }
    const long long last = first + tile < segments ? first + tile : segments;
    const long long lo = static_cast<long long>(offsets[first]);
    const long long items = static_cast<long long>(offsets[last]) - lo;
    if (!Counted && items <= stage_items) {
      // Staged. The barrier at the end keeps the next tile's copy-in off this tile's copy-out.
#pragma unroll
      for (int k = 0; k < (stage_items + segment_pass_threads - 1) / segment_pass_threads; ++k) {
        const int i = k * segment_pass_threads + static_cast<int>(threadIdx.x);
        if (i < items) {
          stage_keys[i] = args.keys_in[lo + i];
          if constexpr (has_values) stage_values[i] = args.values_in[lo + i];
        }
      }
      __syncthreads();
#pragma unroll
      for (int j = 0; j < per; ++j) {
        if (end[j] - begin[j] != 2) continue;
        const int i = static_cast<int>(static_cast<long long>(begin[j]) - lo);
        const Key a = stage_keys[i], b = stage_keys[i + 1];
        if (in_order(a, b)) continue;
        stage_keys[i] = b;
        stage_keys[i + 1] = a;
        if constexpr (has_values) {
          const Value v = stage_values[i];
          stage_values[i] = stage_values[i + 1];
          stage_values[i + 1] = v;
        }
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < (stage_items + segment_pass_threads - 1) / segment_pass_threads; ++k) {
        const int i = k * segment_pass_threads + static_cast<int>(threadIdx.x);
        if (i < items) {
          args.keys_out[lo + i] = stage_keys[i];
          if constexpr (has_values) args.values_out[lo + i] = stage_values[i];
        }
      }
      __syncthreads();
    } else {
#pragma unroll
      for (int j = 0; j < per; ++j) {
        const auto b = static_cast<long long>(begin[j]), size = static_cast<long long>(end[j]) - b;
        if (size != 1 && size != 2) continue;
        const Key key_a = args.keys_in[b];
        if (size == 1) {
          args.keys_out[b] = key_a;
          if constexpr (has_values) args.values_out[b] = args.values_in[b];
          continue;
        }
        const Key key_b = args.keys_in[b + 1];
        const bool keep = in_order(key_a, key_b);
        args.keys_out[b] = keep ? key_a : key_b;
        args.keys_out[b + 1] = keep ? key_b : key_a;
        if constexpr (has_values) {
          const Value value_a = args.values_in[b], value_b = args.values_in[b + 1];
          args.values_out[b] = keep ? value_a : value_b;
          args.values_out[b + 1] = keep ? value_b : value_a;
        }
      }
    }
    if (cursors == nullptr) continue;
    // The larger segments, appended with one atomic per warp and class.
    const unsigned lanes_below = (1u << lane_id()) - 1u;
#pragma unroll
    for (int j = 0; j < per; ++j) {
      const int c = limits.class_of(static_cast<Offset>(end[j] - begin[j]));
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
              segment_range{static_cast<long long>(begin[j]), static_cast<long long>(end[j])};
        }
      }
    }
  }
}

// Sorts one range of a class's list in one block.
template <class Policy, class Key, class Value, class BitKey>
__device__ __forceinline__ void sort_segment_in_block(const segment_range r,
                                                      const segment_sort_args<Key, Value, BitKey>& args) {
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

// The ranges of a class's list (each at most Policy::tile_items items), one block each: the host
// launches a block per range. Counted (the list resolved from the census in device memory): the
// grid is what the GPU holds, and each block takes ranges a grid apart. A kernel of its own: the
// loop changes the register allocation of the sort inside it (spills in some shapes), which the
// host-count launch need not pay.
template <class Policy, class Key, class Value, class BitKey, bool Counted = false>
__global__ void __launch_bounds__(Policy::block_threads)
    segment_block_kernel(const segment_class_list list, const segment_sort_args<Key, Value, BitKey> args) {
  if constexpr (Counted) {
    const segment_range* segments = nullptr;
    unsigned long long count = 0;
    list.resolve(segments, count);
    for (unsigned long long i = blockIdx.x; i < count; i += gridDim.x) {
      sort_segment_in_block<Policy>(segments[i], args);
      __syncthreads();  // the next range's tile reuses the shared memory
    }
  } else {
    sort_segment_in_block<Policy>(list.ranges[blockIdx.x], args);
  }
}

}  // namespace scankit::device_detail
