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

// target[j] = buffer[j] for j < count, consecutive threads on consecutive items. The run starts
// anywhere, so the threads are shifted back to the 32-item boundary before `target`: every warp
// store then covers one aligned 32-item window, i.e. whole 32-byte sectors (unshifted, a store
// that starts mid-sector touches one sector more; ncu counted 17% excess store sectors).
template <class Policy, class U>
__device__ __forceinline__ void store_run(U* target, const U* buffer, int count) {
  int shift = 0;
  if constexpr ((sizeof(U) & (sizeof(U) - 1)) == 0) {
    shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(target) / sizeof(U) % 32);
  }
#pragma unroll
  for (int i = 0; i <= Policy::items_per_thread; ++i) {  // one round more for the shift
    const int j = i * Policy::block_threads + static_cast<int>(threadIdx.x) - shift;
    if (j >= 0 && j < count) target[j] = buffer[j];
  }
}

template <class T, class V = no_values>
struct select_sink {
  static constexpr bool has_values = !std::is_same_v<V, no_values>;
  T* out;
  V* values_out;  // unique_by_key only

  template <class Policy, class U>
  __device__ __forceinline__ void gather(const U (&items)[Policy::items_per_thread], std::uint32_t mask,
                                         int thread_offset, int, int, U* buffer) const {
    gather_selected(items, mask, thread_offset, buffer);
  }

  template <class Policy>
  __device__ __forceinline__ void store(const T* buffer, unsigned long long prefix, int tile_count, long long,
                                        int, long long) const {
    store_run<Policy>(out + prefix, buffer, tile_count);
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
      out[offset] = source.in[i];
      if constexpr (has_values) values_out[offset] = source.values[i];
    }
  }
};

template <class T>
struct partition_sink {
  static constexpr bool has_values = false;
  T* out;

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
    T* const selected = out + prefix;
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
    out[selected ? offset : n - 1 - (i - offset)] = source.in[i];
  }
};

template <class T>
struct partition_copy_sink {
  static constexpr bool has_values = false;
  T* out_selected;
  T* out_rejected;

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
    T* const selected = out_selected + prefix;
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
      out_selected[offset] = source.in[i];
    } else {
      out_rejected[i - offset] = source.in[i];
    }
  }
};

}  // namespace scankit::device_detail
