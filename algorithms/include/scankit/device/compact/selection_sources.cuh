// Block layer (compaction): what decides whether an item is selected. A "source" names the
// arrays a compaction reads and turns a tile's items into a 32-bit selection mask per thread
// (bit k: the thread's item k is selected); it also answers for single items (the three-step
// strategy).
//
//   predicate_source  pred(in[i])                           select_if, partition_if
//   stencil_source    pred(stencil[i])                      select_by_stencil, select_flagged
//   unique_source     i == 0 || !eq(in[i-1], in[i])         unique, unique_by_key (with values)
//
// The kernel loads the items (tile_io, blocked: thread t owns items t*K .. t*K+K-1 of the tile)
// and the values of unique_by_key; a source loads what else it needs.
//
// Each source reads its arrays through input iterators (`In`, `Stencil`): contiguous arrays come
// as `const T*` and keep tile_io's vector loads; other iterators (counting, transforms,
// scankit/device/iterators.cuh) are read item by item (load_tile_items, item_at). The names
// without `_of` are the array forms: types of their own, not aliases, so that the kernels of the
// pointer API (and the precompiled library) keep their names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "scankit/device/block/tile_io.cuh"
#include "scankit/device/util/l2_prefetch.cuh"
#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

// Marks a compaction without values (everything but unique_by_key).
struct no_values {};

// Bits of the items t*K .. t*K+K-1 (first = t*K) that lie inside the tile's `valid` items.
template <int K>
__device__ __forceinline__ std::uint32_t valid_item_mask(int first, int valid) {
  constexpr std::uint32_t all = K == 32 ? 0xffffffffu : ((1u << K) - 1u);
  const int left = valid - first;
  if (left >= K) return all;
  if (left <= 0) return 0u;
  return (1u << left) - 1u;
}

// in[i] as an item: a reference into an array, a converted value from any other iterator.
template <class T, class In>
__device__ __forceinline__ decltype(auto) item_at(const In& in, long long i) {
  if constexpr (std::is_same_v<In, const T*>) {
    return in[i];
  } else {
    return static_cast<T>(in[i]);
  }
}

// items[k] = in[base + threadIdx.x * K + k], blocked as tile_io leaves them. Arrays of T take
// tile_io (16-byte vectors through the warp transpose in `s`); any other iterator is read item
// by item, and items past a partial tile's end repeat its last item (they are never selected:
// valid_item_mask), so a full tile reads each item once.
template <class Io, class In, class T, int K>
__device__ __forceinline__ void load_tile_items(const In& in, long long base, int valid, T (&items)[K],
                                                typename Io::storage& s) {
  if constexpr (std::is_same_v<In, const T*>) {
    if (valid == Io::tile_items) {
      Io::load_full(in + base, items, s, Io::aligned(in));
    } else {
      Io::load_partial(in + base, items, valid);
    }
  } else {
    const int first = static_cast<int>(threadIdx.x) * K;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int index = first + k < valid ? first + k : valid - 1;
      items[k] = static_cast<T>(in[base + index]);
    }
  }
}

// One thread: L2 prefetch of `count` items of an array from `base`. Other iterators compute their
// items or read them where they like: nothing to prefetch.
template <class T, class In>
__device__ __forceinline__ void prefetch_items_l2(const In& in, long long base, long long count) {
  if constexpr (std::is_same_v<In, const T*>) {
    device_detail::prefetch_l2(in + base, static_cast<std::size_t>(count) * sizeof(T));
  }
}

template <class T, class Pred, class In>
struct predicate_source_of {
  using item_type = T;
  using value_type = no_values;
  static constexpr bool has_values = false;
  static constexpr std::size_t widest_bytes = sizeof(T);
  template <class Policy>
  struct storage {};
  struct prefetched {};

  In in;
  Pred pred;

  template <class Policy>
  __device__ __forceinline__ prefetched prefetch(long long, int) const {
    return {};
  }

  template <class Policy>
  __device__ __forceinline__ std::uint32_t tile_flags(const T (&items)[Policy::items_per_thread], const prefetched&,
                                                      long long, int valid, storage<Policy>&) const {
    constexpr int K = Policy::items_per_thread;
    std::uint32_t mask = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (pred(items[k])) mask |= 1u << k;
    }
    return mask & valid_item_mask<K>(static_cast<int>(threadIdx.x) * K, valid);
  }

  // The staged kernel (compact_staged_kernel.cuh): bits of one chunk's P items, items[p] being
  // item index + p of the tile (whose items `tile` holds in shared memory).
  template <int P>
  __device__ __forceinline__ std::uint32_t chunk_flags(const T (&items)[P], const T*, int index, long long,
                                                       int valid) const {
    std::uint32_t bits = 0;
#pragma unroll
    for (int p = 0; p < P; ++p) {
      if (pred(items[p])) bits |= 1u << p;
    }
    return bits & valid_item_mask<P>(index, valid);
  }

  __device__ __forceinline__ bool flag_at(long long i) const { return pred(item_at<T>(in, i)); }

  // One thread: L2 prefetch of everything the tile of `count` items at `base` reads.
  __device__ __forceinline__ void prefetch_l2(long long base, long long count) const {
    prefetch_items_l2<T>(in, base, count);
  }
};

template <class T, class Pred>
struct predicate_source : predicate_source_of<T, Pred, const T*> {};

template <class T, class S, class Pred, class In, class Stencil>
struct stencil_source_of {
  using item_type = T;
  using value_type = no_values;
  static constexpr bool has_values = false;
  static constexpr std::size_t widest_bytes = sizeof(T) > sizeof(S) ? sizeof(T) : sizeof(S);
  template <class Policy>
  struct storage {
    typename tile_io<S, Policy::items_per_thread, Policy::block_threads>::storage io;
  };
  struct prefetched {};

  In in;
  Stencil stencil;
  Pred pred;

  template <class Policy>
  __device__ __forceinline__ prefetched prefetch(long long, int) const {
    return {};
  }

  template <class Policy>
  __device__ __forceinline__ std::uint32_t tile_flags(const T (&)[Policy::items_per_thread], const prefetched&,
                                                      long long base, int valid, storage<Policy>& s) const {
    constexpr int K = Policy::items_per_thread;
    using io = tile_io<S, K, Policy::block_threads>;
    S marks[K];
    load_tile_items<io>(stencil, base, valid, marks, s.io);
    std::uint32_t mask = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (pred(marks[k])) mask |= 1u << k;
    }
    return mask & valid_item_mask<K>(static_cast<int>(threadIdx.x) * K, valid);
  }

  __device__ __forceinline__ bool flag_at(long long i) const { return pred(item_at<S>(stencil, i)); }

  __device__ __forceinline__ void prefetch_l2(long long base, long long count) const {
    prefetch_items_l2<T>(in, base, count);
    prefetch_items_l2<S>(stencil, base, count);
  }
};

template <class T, class S, class Pred>
struct stencil_source : stencil_source_of<T, S, Pred, const T*, const S*> {};

// Keeps the first item of every run of equal items (by `eq`). With V != no_values the kernel
// carries the values along (unique_by_key; values are an array).
template <class T, class Eq, class V, class In>
struct unique_source_of {
  using item_type = T;
  using value_type = V;
  static constexpr bool has_values = !std::is_same_v<V, no_values>;
  static constexpr std::size_t widest_bytes = has_values && sizeof(V) > sizeof(T) ? sizeof(V) : sizeof(T);
  template <class Policy>
  struct storage {};
  // The item just before this warp's first item (lane 0 only; loaded before the tile, so the
  // two loads overlap).
  struct prefetched {
    T before;
  };

  In in;
  const V* values;  // unique_by_key only
  Eq eq;

  template <class Policy>
  __device__ __forceinline__ prefetched prefetch(long long base, int valid) const {
    prefetched p{};
    const int warp_first = warp_id() * 32 * Policy::items_per_thread;
    if (lane_id() == 0 && warp_first < valid && base + warp_first > 0) {
      p.before = item_at<T>(in, base + warp_first - 1);
    }
    return p;
  }

  template <class Policy>
  __device__ __forceinline__ std::uint32_t tile_flags(const T (&items)[Policy::items_per_thread],
                                                      const prefetched& p, long long base, int valid,
                                                      storage<Policy>&) const {
    constexpr int K = Policy::items_per_thread;
    const int first = static_cast<int>(threadIdx.x) * K;
    T previous = shuffle_up(items[K - 1], 1u);  // the last item of the thread before
    if (lane_id() == 0) previous = p.before;
    std::uint32_t mask = (base + first == 0 || !eq(previous, items[0])) ? 1u : 0u;
#pragma unroll
    for (int k = 1; k < K; ++k) {
      if (!eq(items[k - 1], items[k])) mask |= 1u << k;
    }
    return mask & valid_item_mask<K>(first, valid);
  }

  // The staged kernel: as predicate_source::chunk_flags. The item before the chunk is in the
  // shared tile, or, for the tile's first chunk, the last item of the tile before (global memory;
  // in place it may have been overwritten, but only by the same value: compact_tiles_kernel.cuh).
  template <int P>
  __device__ __forceinline__ std::uint32_t chunk_flags(const T (&items)[P], const T* tile, int index, long long base,
                                                       int valid) const {
    bool starts_run = true;
    if (index > 0) {
      starts_run = !eq(tile[index - 1], items[0]);
    } else if (base > 0) {
      starts_run = !eq(item_at<T>(in, base - 1), items[0]);
    }
    std::uint32_t bits = starts_run ? 1u : 0u;
#pragma unroll
    for (int p = 1; p < P; ++p) {
      if (!eq(items[p - 1], items[p])) bits |= 1u << p;
    }
    return bits & valid_item_mask<P>(index, valid);
  }

  __device__ __forceinline__ bool flag_at(long long i) const {
    return i == 0 || !eq(item_at<T>(in, i - 1), item_at<T>(in, i));
  }

  __device__ __forceinline__ void prefetch_l2(long long base, long long count) const {
    prefetch_items_l2<T>(in, base, count);
    if constexpr (has_values) device_detail::prefetch_l2(values + base, static_cast<std::size_t>(count) * sizeof(V));
  }
};

template <class T, class Eq, class V = no_values>
struct unique_source : unique_source_of<T, Eq, V, const T*> {};

// The source of a call that reads `In`: the array form (above) for `const T*`.
template <class T, class Pred, class In>
using predicate_source_for =
    std::conditional_t<std::is_same_v<In, const T*>, predicate_source<T, Pred>, predicate_source_of<T, Pred, In>>;
template <class T, class S, class Pred, class In, class Stencil>
using stencil_source_for =
    std::conditional_t<std::is_same_v<In, const T*> && std::is_same_v<Stencil, const S*>, stencil_source<T, S, Pred>,
                       stencil_source_of<T, S, Pred, In, Stencil>>;
template <class T, class Eq, class In>
using unique_source_for =
    std::conditional_t<std::is_same_v<In, const T*>, unique_source<T, Eq>, unique_source_of<T, Eq, no_values, In>>;

}  // namespace scankit::device_detail
