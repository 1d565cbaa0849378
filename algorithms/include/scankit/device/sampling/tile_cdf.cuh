// The CDF of one tile of weights, computed the same way by every sampling kernel.
//
// A tile is 4096 weights: four sub-tiles of 256 threads x 4 consecutive items (so loads and the
// double stores of the CDF are coalesced without a shared-memory transpose). Sums accumulate in
// double: a bin is lost only below 2^-53 of the sum before it (with at most 2^31 bins, never above
// 2^-22 of the largest weight), while a compensated float sum would still leave the CDF itself in
// float, which cannot tell 2^24 bins apart near 1.
//
// Why the CDF is repaired with a running maximum: a parallel sum adds in a tree order, so the
// value at item i + 1 is not fl(value at i + w[i + 1]) and may come out an ulp below it. The
// sampling kernels therefore define
//   cdf[i] = max over k <= i with w[k] > 0 of fl(P + L[k])     (0 when there is none)
// where L[k] is the tile-local sum below and P the tile's prefix. A maximum is exact and
// associative, so cdf is non-decreasing whatever the sum order, and a zero-weight bin repeats the
// value before it exactly: its interval [cdf[i - 1], cdf[i]) is empty and it is never drawn.
// Every kernel computes L with this one function, so the tile totals of the first pass (reduce)
// and the CDF of the second pass (rescan) agree bit for bit.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace scankit::device_detail::sampling {

constexpr int tile_threads = 256;
constexpr int items_per_thread = 4;
constexpr int subtiles = 4;
constexpr int subtile_items = tile_threads * items_per_thread;
constexpr int tile_items = subtile_items * subtiles;

// Exclusive scans of one double per thread over a block, in a fixed order (bit-identical on every
// run and in every kernel that calls them). Threads must be a multiple of 32, at most 1024.
template <int Threads>
struct block_double_scan {
  static constexpr int warps = Threads / 32;
  struct storage {
    double warp[warps];
  };

  template <class Op>
  __device__ static double exclusive(double x, double identity, storage& s, double& total, Op op) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double inclusive = x;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const double y = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive = op(y, inclusive);
    }
    if (lane == 31) s.warp[warp] = inclusive;
    __syncthreads();
    // Every thread folds the warp totals left to right itself (at most 32 broadcast reads): the
    // same order, so the same bits, in every thread and every kernel, and no second barrier.
    double before_warp = identity, all = identity;
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      const double t = s.warp[w];
      if (w == warp) before_warp = all;
      all = w == 0 ? t : op(all, t);
    }
    const double before_lane = __shfl_up_sync(0xffffffffu, inclusive, 1);
    const double result = lane == 0 ? before_warp : (warp == 0 ? before_lane : op(before_warp, before_lane));
    total = all;
    __syncthreads();  // the storage may be reused right after
    return result;
  }

  __device__ static double exclusive_sum(double x, storage& s, double& total) {
    return exclusive(x, 0.0, s, total, [](double a, double b) { return a + b; });
  }
  // The values are >= 0, so 0 is the identity.
  __device__ static double exclusive_max(double x, storage& s, double& total) {
    return exclusive(x, 0.0, s, total, [](double a, double b) { return fmax(a, b); });
  }
};

template <class T>
__device__ __forceinline__ bool bad_weight(T w) {
  return !(w >= T(0)) || isinf(w);
}

// Loads this thread's 4 consecutive weights of a sub-tile (zeros past `end`).
template <class T>
__device__ __forceinline__ void load_items(const T* w, std::int64_t first, std::int64_t end, T (&v)[items_per_thread]) {
  const bool aligned = (reinterpret_cast<std::uintptr_t>(w + first) & 15u) == 0;
  if (first + items_per_thread <= end && aligned) {
    if constexpr (sizeof(T) == 4) {
      const float4 q = __ldg(reinterpret_cast<const float4*>(w + first));
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
      const double2 a = __ldg(reinterpret_cast<const double2*>(w + first));
      const double2 b = __ldg(reinterpret_cast<const double2*>(w + first) + 1);
      v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
    }
  } else {
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) v[k] = first + k < end ? w[first + k] : T(0);
  }
}

// Where a walker's weights come from: an array here; the top-k / top-p sampler derives them from
// logits (top_select.cuh). A source yields value_type items by absolute index, zeros past `end`.
template <class T>
struct array_source {
  using value_type = T;
  const T* w;
  __device__ __forceinline__ void load(std::int64_t first, std::int64_t end, T (&v)[items_per_thread]) const {
    load_items(w, first, end, v);
  }
};

// Walks the sub-tiles of one tile: L[k] = carry + (E + r[k]), r the thread's running sum, E the
// block's exclusive sum of thread totals, carry the sum of the earlier sub-tiles.
template <class Source>
struct tile_walker {
  using T = typename Source::value_type;
  using scan = block_double_scan<tile_threads>;
  double carry = 0.0;

  // All of the tile's items, loaded at the first sub-tile: one block of 256 threads then has 16 KiB
  // (32 KiB for double) of loads in flight instead of a sub-tile's 4 KiB between barriers, which is
  // what it takes to cover the memory latency at full bandwidth. Callers unroll the sub-tile loop
  // so that this stays in registers.
  T loaded[subtiles][items_per_thread];

  // Sub-tile `sub` of the tile whose first item is `tile_begin` (items up to `end`).
  __device__ __forceinline__ void step(const Source& src, std::int64_t tile_begin, std::int64_t end, int sub,
                                       typename scan::storage& s, T (&v)[items_per_thread], double (&L)[items_per_thread],
                                       bool& bad) {
    if (sub == 0) {
#pragma unroll
      for (int k = 0; k < subtiles; ++k)
        src.load(tile_begin + std::int64_t(k) * subtile_items + threadIdx.x * items_per_thread, end, loaded[k]);
    }
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) v[k] = loaded[sub][k];
    double r[items_per_thread];
    double run = 0.0;
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) {
      bad = bad || bad_weight(v[k]);
      run = k == 0 ? double(v[k]) : run + double(v[k]);
      r[k] = run;
    }
    double total = 0.0;
    const double e = scan::exclusive_sum(run, s, total);
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) L[k] = carry + (e + r[k]);
    carry = carry + total;
  }
};

// One sub-tile of final CDF values (see the top of this file): value[k] = max(carry, the largest
// fl(base + L) of a non-zero weight up to item k). `carry` is the CDF value before the sub-tile and
// becomes the one after it; the return value is the CDF value of the item before this thread's first.
template <class Source>
__device__ __forceinline__ double cdf_step(tile_walker<Source>& walker, const Source& src, std::int64_t tile_begin, std::int64_t end,
                           int sub, double base, double& carry, typename block_double_scan<tile_threads>::storage& s,
                           typename Source::value_type (&v)[items_per_thread], double (&value)[items_per_thread]) {
  using T = typename Source::value_type;
  double L[items_per_thread];
  bool bad = false;
  walker.step(src, tile_begin, end, sub, s, v, L, bad);
  double m[items_per_thread];
  double run = 0.0;
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    if (v[k] > T(0)) run = fmax(run, base + L[k]);
    m[k] = run;
  }
  double sub_max = 0.0;
  const double before = fmax(carry, block_double_scan<tile_threads>::exclusive_max(run, s, sub_max));
  carry = fmax(carry, sub_max);
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) value[k] = fmax(before, m[k]);
  return before;
}

// What the first pass records per tile.
struct tile_summary {
  double sum;   // the tile's total in the walker's order (the base of the next tile)
  double lmax;  // max of L over non-zero items, -1 when the tile has none
  int bad;      // a negative, NaN or infinite weight
};

}  // namespace scankit::device_detail::sampling
