// Device layer of the graph module: the kernels of one breadth-first-search level that are not
// scankit primitives (the primitives between them are an inclusive scan and select_flagged).
//
//   bfs_start_kernel    every level -1, the source's 0; the first frontier is the source when it
//                       has out-edges
//   bfs_degrees_kernel  the out-degree of each frontier vertex (the scan's input)
//   bfs_expand_kernel   edge slot e of the level -> its frontier vertex (a search over the scanned
//                       degrees) -> the neighbour, claimed with a compare-and-swap on its level
//   bfs_summary_kernel  the depth and the number of vertices reached
//
// Frontiers hold only vertices with out-edges, so every frontier vertex owns at least one edge
// slot and a tile of T slots meets at most T frontier vertices: the expansion's shared memory
// holds them all.
#pragma once

#include <cstdint>

#include <cuda/atomic>

#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

template <class Index>
__global__ void bfs_start_kernel(std::int32_t* levels, long long n, Index source, const Index* offsets,
                                 Index* frontier, std::int64_t* frontier_count) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; v < n; v += stride) {
    levels[v] = v == static_cast<long long>(source) ? 0 : -1;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    frontier[0] = source;
    *frontier_count = offsets[source + 1] > offsets[source] ? 1 : 0;
  }
}

template <class Index>
__global__ void bfs_degrees_kernel(const Index* frontier, const std::int64_t* frontier_count, long long bound,
                                   const Index* offsets, Index* degrees) {
  const long long count = items_to_process(bound, frontier_count);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const Index v = frontier[i];
    degrees[i] = offsets[v + 1] - offsets[v];
  }
}

// The first position in sorted[0, count) whose value exceeds `key` (count when none), found by all
// of the block's threads together: each round samples Threads positions and keeps the gap between
// the last sample <= key and the first one above, so a frontier of 2^24 vertices takes 3 rounds of
// one global load each instead of 24 dependent loads on one thread.
template <int Threads, class Index>
__device__ long long block_upper_bound(const Index* sorted, long long count, long long key) {
  __shared__ long long s_bounds[2];
  long long low = 0, high = count;  // the answer lies in [low, high]
  while (low < high) {
    const long long step = (high - low + Threads - 1) / Threads;
    const long long at = low + static_cast<long long>(threadIdx.x) * step;
    const bool at_or_below = at < high && static_cast<long long>(sorted[at]) <= key;
    const int below = __syncthreads_count(at_or_below);  // samples 0 .. below-1 are <= key
    if (below == 0) return low;  // the same for every thread
    if (threadIdx.x == 0) {
      const long long last_low = low + static_cast<long long>(below - 1) * step;
      s_bounds[0] = last_low + 1;
      const long long next = last_low + step;
      s_bounds[1] = next < high ? next : high;
    }
    __syncthreads();
    low = s_bounds[0];
    high = s_bounds[1];
    __syncthreads();  // s_bounds is rewritten by the next round
  }
  return low;
}

template <class Index>
__device__ __forceinline__ int upper_bound_in(const Index* sorted, int count, long long key) {
  int low = 0, high = count;
  while (low < high) {
    const int mid = (low + high) / 2;
    if (static_cast<long long>(sorted[mid]) <= key) low = mid + 1; else high = mid;
  }
  return low;
}

// One level's expansion. edge_ends is the inclusive scan of the frontier's degrees, so frontier
// vertex i owns slots [edge_ends[i - 1], edge_ends[i]) of the level's edge list. Each tile of
// Threads * ItemsPerThread slots finds its first vertex with a block-wide search, stages the
// vertices it meets in shared memory (where their slots end, and where they start in `columns`),
// and maps each slot to its vertex by a binary search there; slots are taken Threads apart, so the
// writes of neighbours and flags are coalesced.
//
// Claiming: a neighbour w still at level -1 gets next_level by atomicCAS; the one slot whose CAS
// succeeds flags w (if w has out-edges: only those enter the next frontier). The level word carries
// nothing but "claimed", so relaxed atomics suffice; the next level's kernels see every claim
// through the kernel boundary. The preliminary relaxed load skips the CAS for vertices already
// visited, the common case after the first levels.
template <class Index, int Threads, int ItemsPerThread>
__global__ void __launch_bounds__(Threads)
    bfs_expand_kernel(const Index* frontier, const std::int64_t* frontier_count, long long frontier_bound,
                      const Index* edge_ends, const Index* offsets, const Index* columns, long long n,
                      std::int32_t* levels, std::int32_t next_level, Index* neighbours, std::uint8_t* claimed,
                      std::int64_t* edge_count, std::int64_t* edges_scanned) {
  constexpr int tile_slots = Threads * ItemsPerThread;
  __shared__ Index s_end[tile_slots];              // one past the vertex's last slot
  __shared__ long long s_column_base[tile_slots];  // slot e of the vertex reads columns[base + e]
  const long long count = items_to_process(frontier_bound, frontier_count);
  const long long total = count == 0 ? 0 : static_cast<long long>(edge_ends[count - 1]);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *edge_count = total;
    *edges_scanned += total;  // this launch's only writer; stream order separates the levels
  }
  const long long tiles = (total + tile_slots - 1) / tile_slots;
  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const long long first_slot = tile * tile_slots;
    const long long slots = total - first_slot < tile_slots ? total - first_slot : tile_slots;
    const long long first = block_upper_bound<Threads>(edge_ends, count, first_slot);
    const long long left = count - first;
    const int staged = static_cast<int>(left < tile_slots ? left : tile_slots);
    for (int j = threadIdx.x; j < staged; j += Threads) {
      const long long i = first + j;
      const Index v = frontier[i];
      const long long start = i == 0 ? 0 : static_cast<long long>(edge_ends[i - 1]);
      s_end[j] = edge_ends[i];
      s_column_base[j] = static_cast<long long>(offsets[v]) - start;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ItemsPerThread; ++k) {
      const long long local = static_cast<long long>(k) * Threads + threadIdx.x;
      if (local >= slots) break;
      const long long e = first_slot + local;
      int j = upper_bound_in(s_end, staged, e);
      j = j < staged ? j : staged - 1;  // only if a frontier vertex had no out-edges: never read past
      const Index w = columns[s_column_base[j] + e];
      bool flag = false;
      if (w >= 0 && static_cast<long long>(w) < n) {
        cuda::atomic_ref<std::int32_t, cuda::thread_scope_device> level(levels[w]);
        if (level.load(cuda::memory_order_relaxed) < 0) {
          std::int32_t expected = -1;
          if (level.compare_exchange_strong(expected, next_level, cuda::memory_order_relaxed)) {
            flag = offsets[w + 1] > offsets[w];
          }
        }
      }
      neighbours[e] = w;
      claimed[e] = flag;
    }
    __syncthreads();  // the next tile restages s_end and s_column_base
  }
}

// depth = 1 + the largest level, reached = the vertices with a level: block sums, then one atomic
// per block (integers, so the order of the atomics does not change the result).
template <int Threads>
__global__ void __launch_bounds__(Threads)
    bfs_summary_kernel(const std::int32_t* levels, long long n, unsigned long long* reached, int* largest_level) {
  long long mine = 0;
  int deepest = -1;
  const long long stride = static_cast<long long>(gridDim.x) * Threads;
  for (long long v = static_cast<long long>(blockIdx.x) * Threads + threadIdx.x; v < n; v += stride) {
    const std::int32_t level = levels[v];
    mine += level >= 0;
    deepest = level > deepest ? level : deepest;
  }
  __shared__ unsigned long long s_reached;
  __shared__ int s_deepest;
  if (threadIdx.x == 0) {
    s_reached = 0;
    s_deepest = -1;
  }
  __syncthreads();
  atomicAdd(&s_reached, static_cast<unsigned long long>(mine));
  atomicMax(&s_deepest, deepest);
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(reached, s_reached);
    atomicMax(largest_level, s_deepest);
  }
}

}  // namespace scankit::device_detail
