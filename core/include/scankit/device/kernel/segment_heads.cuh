// Device layer of the segmented scan: where segments start, one tile at a time. A head source
// gives each thread a bit mask of its K items that start a segment (bit k: item
// threadIdx.x * K + k of the tile, K <= 32). Items past the end of a partial tile get arbitrary
// bits: they only feed results that are never stored.
//
//   head_flags_source    an array (or iterator) of flags: item i starts a segment when flags[i] != 0
//   key_change_source    runs of equal keys (scan-by-key): item i starts a segment when its key
//                        differs from item i - 1's under the caller's equality
// Item 0 of the whole input always starts a segment, whatever its flag (the kernel sees to it).
// prepare(base) runs before the tile's values are loaded and returns what load() needs (a source
// that reads an index first issues that read there, so that it overlaps the values' loads).
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/device/block/tile_io.cuh"
#include "scankit/device/kernel/scan_kernels.cuh"
#include "scankit/device/iterators.cuh"
#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

struct no_head_plan {};

template <class FlagsIn, int K, int BlockThreads>
struct head_flags_source {
  static_assert(K <= 32, "a thread's heads are one 32-bit mask");
  using flag_type = std::remove_cv_t<iterator_item_t<FlagsIn>>;
  using io = tile_io<flag_type, K, BlockThreads>;
  using storage = typename io::storage;

  FlagsIn flags;
  long long n;

  __device__ __forceinline__ no_head_plan prepare(long long) const { return {}; }
  __device__ __forceinline__ unsigned load(long long base, int valid, storage& s, no_head_plan = {}) const {
    flag_type items[K];
    load_tile<io>(flags, base, valid, items, s);
    unsigned heads = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) heads |= (items[k] != flag_type{} ? 1u : 0u) << k;
    return heads;
  }
};

template <class KeysIn, class KeyEqual, int K, int BlockThreads>
struct key_change_source {
  static_assert(K <= 32, "a thread's heads are one 32-bit mask");
  using key_type = std::remove_cv_t<iterator_item_t<KeysIn>>;
  using io = tile_io<key_type, K, BlockThreads>;
  using storage = typename io::storage;

  KeysIn keys;
  long long n;
  KeyEqual equal;

  __device__ __forceinline__ no_head_plan prepare(long long) const { return {}; }
  __device__ __forceinline__ unsigned load(long long base, int valid, storage& s, no_head_plan = {}) const {
    key_type items[K];
    return load(base, valid, s, items);
  }

  // The same, keeping the keys (reduce-by-key writes the first key of each run).
  __device__ __forceinline__ unsigned load(long long base, int valid, storage& s, key_type (&items)[K]) const {
    load_tile<io>(keys, base, valid, items, s);
    // The key before this thread's first: the previous lane's last, or (lane 0) read again.
    key_type before = shuffle_up(items[K - 1], 1);
    const int first = static_cast<int>(threadIdx.x) * K;
    if (lane_id() == 0 && base + first > 0 && first < valid) before = keys[base + first - 1];
    unsigned heads = equal(before, items[0]) ? 0u : 1u;
#pragma unroll
    for (int k = 1; k < K; ++k) heads |= (equal(items[k - 1], items[k]) ? 0u : 1u) << k;
    return heads;
  }
};

}  // namespace scankit::device_detail
