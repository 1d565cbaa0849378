// Block layer (compaction): moving a tile's selected (and rejected) items to their places.
//
// Each thread holds K items and their selection mask. Writing them straight to global memory
// would scatter single items all over the tile's output run; instead the block first compacts
// the tile in shared memory, in output order, and then stores the run with consecutive threads
// on consecutive addresses (coalesced). The shared buffer reuses the tile_io transpose area,
// which every warp has finished with once the block scan of the counts has passed its barriers.
//
// A "sink" says where the items go:
//   select_sink          selected items, in input order, to out[offset ...] (+ values)
//   partition_sink       one array: selected from the front in input order, rejected from the
//                        back, i.e. after the selected ones in REVERSE input order (the single
//                        pass cannot know where the selected part ends before it has finished)
//   partition_copy_sink  selected to one array, rejected to another, both in input order
// Tile layout in shared memory: selected items at [0, tile_count); the partition sinks put the
// rejected items after them, at [tile_count, valid), in input order.
//
// Each sink writes through output iterators (`Out`): arrays of the item type (T*) get the aligned
// run stores; any other output (a transform_output_iterator, a discard_iterator, an array of
// another type) is written item by item, out[i] = item, consecutive threads on consecutive items.
// The names without `_to` are the array forms: types of their own, not aliases, so that the
// kernels of the pointer API (and the precompiled library) keep their names.
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/device/compact/selection_sources.cuh"

namespace scankit::device_detail {

// buffer[thread_offset + j] = the thread's j-th selected item.
template <int K, class U>
__device__ __forceinline__ void gather_selected(const U (&items)[K], std::uint32_t mask, int thread_offset,
                                                U* buffer) {
  int rank = thread_offset;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if ((mask >> k) & 1u) buffer[rank++] = items[k];
  }
}

// Selected items as above; the thread's rejected items at tile_count + (rejected items of the
// tile before them). `first` is the tile index of the thread's item 0.
template <int K, class U>
__device__ __forceinline__ void gather_partitioned(const U (&items)[K], std::uint32_t mask, int thread_offset,
                                                   int first, int valid, int tile_count, U* buffer) {
  const std::uint32_t in_tile = valid_item_mask<K>(first, valid);
  int selected = thread_offset;
  int rejected = tile_count + (first - thread_offset);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if ((in_tile >> k) & 1u) {
      if ((mask >> k) & 1u) {
        buffer[selected++] = items[k];
      } else {
        buffer[rejected++] = items[k];
      }
    }
  }
}

// The 16 bytes that start `shift` bytes (0..15) into the 32 bytes lo:hi.
__device__ __forceinline__ int4 bytes_from(const int4& lo, const int4& hi, unsigned shift) {
  const unsigned words[8] = {static_cast<unsigned>(lo.x), static_cast<unsigned>(lo.y), static_cast<unsigned>(lo.z),
                             static_cast<unsigned>(lo.w), static_cast<unsigned>(hi.x), static_cast<unsigned>(hi.y),
                             static_cast<unsigned>(hi.z), static_cast<unsigned>(hi.w)};
  // The five words that hold the result, picked by a uniform branch (an indexed array would go
  // to local memory), then joined pairwise.
  unsigned w[5];
#pragma unroll
  for (int k = 0; k < 5; ++k) {
    const int first = static_cast<int>(shift / 4);
    w[k] = first == 0 ? words[k] : first == 1 ? words[k + 1] : first == 2 ? words[k + 2] : words[k + 3];
  }
  const unsigned bits = (shift % 4) * 8;
  return make_int4(static_cast<int>(__funnelshift_r(w[0], w[1], bits)), static_cast<int>(__funnelshift_r(w[1], w[2], bits)),
                   static_cast<int>(__funnelshift_r(w[2], w[3], bits)), static_cast<int>(__funnelshift_r(w[3], w[4], bits)));
}

// target[j] = buffer[j] for j < count, consecutive threads on consecutive items. The run starts
// anywhere in global memory.
// Items of 1 and 2 bytes go out as 16-byte stores: the few items before target's first 16-byte
// boundary and after its last one one by one, the rest one aligned 16-byte vector per thread, cut
// from two aligned 16-byte reads of the shared buffer (the run's offset within 16 bytes is the
// same for every vector of it). One item per thread would take 16 or 8 times as many stores;
// wider items keep one item per thread, where the vector form gained nothing (docs/tuning.md).
// One item per thread: the threads are shifted back to the 32-item boundary before `target`, so
// that every warp store covers one aligned 32-item window, i.e. whole 32-byte sectors (unshifted,
// a store that starts mid-sector touches one sector more; ncu counted 17% excess store sectors).
// The buffer is 16-byte aligned.
template <class Policy, class U>
__device__ __forceinline__ void store_run(U* target, const U* buffer, int count) {
  const auto address = reinterpret_cast<std::uintptr_t>(target);
  const int thread = static_cast<int>(threadIdx.x);
  if constexpr (sizeof(U) <= 2) {
    if (address % sizeof(U) == 0) {
      constexpr int per_vector = 16 / static_cast<int>(sizeof(U));
      int head = static_cast<int>((16 - address % 16) % 16 / sizeof(U));
      head = head < count ? head : count;
      const int vectors = (count - head) / per_vector;
      const int tail = head + vectors * per_vector;
      if (thread < head) target[thread] = buffer[thread];
      if (thread < count - tail) target[tail + thread] = buffer[tail + thread];
      const int4* source = reinterpret_cast<const int4*>(buffer) + head * sizeof(U) / 16;
      const unsigned shift = head * sizeof(U) % 16;
      int4* vector_target = reinterpret_cast<int4*>(target + head);
      constexpr int rounds = (Policy::items_per_thread + per_vector - 1) / per_vector;
#pragma unroll
      for (int i = 0; i < rounds; ++i) {
        const int q = i * Policy::block_threads + thread;
        if (q < vectors) {
          // With shift > 0 the vector ends in source[q + 1], inside the run, hence inside the buffer.
          vector_target[q] = shift == 0 ? source[q] : bytes_from(source[q], source[q + 1], shift);
        }
      }
      return;
    }
  }
  int shift = 0;
  if constexpr ((sizeof(U) & (sizeof(U) - 1)) == 0) {
    shift = static_cast<int>(address / sizeof(U) % 32);
  }
#pragma unroll
  for (int i = 0; i <= Policy::items_per_thread; ++i) {  // one round more for the shift
    const int j = i * Policy::block_threads + thread - shift;
    if (j >= 0 && j < count) target[j] = buffer[j];
  }
}

// out[offset + j] = buffer[j] for j < count (count <= the policy's tile), consecutive threads on
// consecutive items, through any output iterator.
template <class Policy, class Out, class U>
__device__ __forceinline__ void store_run_through(const Out& out, long long offset, const U* buffer, int count) {
#pragma unroll
  for (int i = 0; i < Policy::items_per_thread; ++i) {
    const int j = i * Policy::block_threads + static_cast<int>(threadIdx.x);
    if (j < count) out[offset + j] = buffer[j];
  }
}

template <class T, class V, class Out>
struct select_sink_to {
  static constexpr bool has_values = !std::is_same_v<V, no_values>;
  Out out;
  V* values_out;  // unique_by_key only (arrays)

  template <class Policy, class U>
  __device__ __forceinline__ void gather(const U (&items)[Policy::items_per_thread], std::uint32_t mask,
                                         int thread_offset, int, int, U* buffer) const {
    gather_selected(items, mask, thread_offset, buffer);
  }

  template <class Policy>
  __device__ __forceinline__ void store(const T* buffer, unsigned long long prefix, int tile_count, long long,
                                        int, long long) const {
    if constexpr (std::is_same_v<Out, T*>) {
      store_run<Policy>(out + prefix, buffer, tile_count);
    } else {
      store_run_through<Policy>(out, static_cast<long long>(prefix), buffer, tile_count);
    }
  }

  template <class Policy>
  __device__ __forceinline__ void store_values(const V* buffer, unsigned long long prefix, int tile_count) const {
    store_run<Policy>(values_out + prefix, buffer, tile_count);
  }

  // Three-step scatter of item i (selected or not; `offset` = selected items before i).
  template <class Source>
  __device__ __forceinline__ void scatter_one(const Source& source, long long i, long long offset, bool selected,
                                              long long) const {
    if (selected) {
      out[offset] = item_at<T>(source.in, i);
      if constexpr (has_values) values_out[offset] = source.values[i];
    }
  }
};

template <class T, class V = no_values>
struct select_sink : select_sink_to<T, V, T*> {};

template <class T, class Out>
struct partition_sink_to {
  static constexpr bool has_values = false;
  Out out;

  template <class Policy, class U>
  __device__ __forceinline__ void gather(const U (&items)[Policy::items_per_thread], std::uint32_t mask,
                                         int thread_offset, int valid, int tile_count, U* buffer) const {
    gather_partitioned(items, mask, thread_offset, static_cast<int>(threadIdx.x) * Policy::items_per_thread, valid,
                       tile_count, buffer);
  }

  // Selected: out[prefix + j]. Rejected (tile rank r, rejected_before = base - prefix of them in
  // earlier tiles): out[n - 1 - (rejected_before + r)].
  template <class Policy>
  __device__ __forceinline__ void store(const T* buffer, unsigned long long prefix, int tile_count, long long base,
                                        int valid, long long n) const {
    const Out selected = out + prefix;
    // Rejected item j (j >= tile_count) has tile rank j - tile_count: it goes to
    // n - 1 - (rejected_before + j - tile_count) = last - j.
    const long long last = n - 1 - (base - static_cast<long long>(prefix)) + tile_count;
#pragma unroll
    for (int i = 0; i < Policy::items_per_thread; ++i) {
      const int j = i * Policy::block_threads + static_cast<int>(threadIdx.x);
      if (j < valid) {
        if (j < tile_count) {
          selected[j] = buffer[j];
        } else {
          out[last - j] = buffer[j];
        }
      }
    }
  }

  template <class Source>
  __device__ __forceinline__ void scatter_one(const Source& source, long long i, long long offset, bool selected,
                                              long long n) const {
    out[selected ? offset : n - 1 - (i - offset)] = item_at<T>(source.in, i);
  }
};

template <class T>
struct partition_sink : partition_sink_to<T, T*> {};

template <class T, class OutSelected, class OutRejected>
struct partition_copy_sink_to {
  static constexpr bool has_values = false;
  OutSelected out_selected;
  OutRejected out_rejected;

  template <class Policy, class U>
  __device__ __forceinline__ void gather(const U (&items)[Policy::items_per_thread], std::uint32_t mask,
                                         int thread_offset, int valid, int tile_count, U* buffer) const {
    gather_partitioned(items, mask, thread_offset, static_cast<int>(threadIdx.x) * Policy::items_per_thread, valid,
                       tile_count, buffer);
  }

  // Selected: out_selected[prefix + j]; rejected: out_rejected[(base - prefix) + (j - tile_count)].
  template <class Policy>
  __device__ __forceinline__ void store(const T* buffer, unsigned long long prefix, int tile_count, long long base,
                                        int valid, long long) const {
    const OutSelected selected = out_selected + prefix;
    // Rejected item j (j >= tile_count) goes to rejected_before + (j - tile_count) = first + j.
    const long long first = base - static_cast<long long>(prefix) - tile_count;
#pragma unroll
    for (int i = 0; i < Policy::items_per_thread; ++i) {
      const int j = i * Policy::block_threads + static_cast<int>(threadIdx.x);
      if (j < valid) {
        if (j < tile_count) {
          selected[j] = buffer[j];
        } else {
          out_rejected[first + j] = buffer[j];
        }
      }
    }
  }

  template <class Source>
  __device__ __forceinline__ void scatter_one(const Source& source, long long i, long long offset, bool selected,
                                              long long) const {
    if (selected) {
      out_selected[offset] = item_at<T>(source.in, i);
    } else {
      out_rejected[i - offset] = item_at<T>(source.in, i);
    }
  }
};

template <class T>
struct partition_copy_sink : partition_copy_sink_to<T, T*, T*> {};

// The sinks of a call that writes `Out`: the array forms (above) for T*.
template <class T, class Out>
using select_sink_for = std::conditional_t<std::is_same_v<Out, T*>, select_sink<T>, select_sink_to<T, no_values, Out>>;
template <class T, class Out>
using partition_sink_for = std::conditional_t<std::is_same_v<Out, T*>, partition_sink<T>, partition_sink_to<T, Out>>;
template <class T, class OutSelected, class OutRejected>
using partition_copy_sink_for =
    std::conditional_t<std::is_same_v<OutSelected, T*> && std::is_same_v<OutRejected, T*>, partition_copy_sink<T>,
                       partition_copy_sink_to<T, OutSelected, OutRejected>>;

}  // namespace scankit::device_detail
