// Device layer of the graph module: PageRank's kernels that are not scankit primitives (between
// them run scankit::sparse::spmv and scankit::reduce).
//
//   inverse_degrees_kernel    1/outdeg(u), 0 for a vertex without links (dangling)
//   row_lengths_kernel        the in-degrees (row lengths of A^T), the keys of the renumbering
//   renumber_rows_kernel      A^T with the vertices renumbered: new row i is old row order[i], its
//                             columns mapped through `position` (a warp per row)
//   positions_kernel          position[order[i]] = i
//   gather_kernel / scatter_kernel   out[i] = in[order[i]] / out[order[i]] = in[i]
//   pagerank_start_kernel     r_0 = 1/n, its shares r_0(u)/outdeg(u), and the dangling mass
//   pagerank_update_kernel    r_k from the product A^T (r_{k-1}/outdeg), the teleport and the
//                             dangling mass; the shares r_k(u)/outdeg(u) for the next product; each
//                             block's sums of the change |r_k - r_{k-1}| and of r_k over the
//                             dangling vertices, which two scankit::reduce then add up
// The block sums are taken in a fixed order over a fixed grid, so the ranks and the changes are the
// same bits on every run.
#pragma once

#include <cstdint>

#include "scankit/device/kernel/reduce_kernel.cuh"  // block_reduce_present
#include "scankit/operators.hpp"

namespace scankit::device_detail {

// inverse[u] = 1/outdeg(u), or 0 for a vertex without links (a dangling vertex).
template <class Index, class Value>
__global__ void inverse_degrees_kernel(const Index* offsets, long long n, Value* inverse) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long u = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; u < n; u += stride) {
    const long long links = static_cast<long long>(offsets[u + 1]) - static_cast<long long>(offsets[u]);
    inverse[u] = links > 0 ? Value(1) / static_cast<Value>(links) : Value(0);
  }
}

template <class Index>
__global__ void row_lengths_kernel(const Index* offsets, long long n, Index* lengths) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long v = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; v < n; v += stride) {
    lengths[v] = offsets[v + 1] - offsets[v];
  }
}

template <class Index>
__global__ void renumber_rows_kernel(const Index* order, const Index* position, long long n, const Index* offsets,
                                     const Index* columns, const Index* new_offsets, Index* new_columns) {
  const int lane = threadIdx.x % 32;
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
  for (long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < n; i += warps) {
    const Index v = order[i];
    const long long begin = offsets[v], length = static_cast<long long>(offsets[v + 1]) - begin;
    const long long to = new_offsets[i];
    for (long long j = lane; j < length; j += 32) new_columns[to + j] = position[columns[begin + j]];
  }
}

template <class Index>
__global__ void positions_kernel(const Index* order, long long n, Index* position) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    position[order[i]] = static_cast<Index>(i);
  }
}

template <class Index, class T>
__global__ void gather_kernel(const Index* order, long long n, const T* in, T* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = in[order[i]];
  }
}

template <class Index, class T>
__global__ void scatter_kernel(const Index* order, long long n, const T* in, T* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[order[i]] = in[i];
  }
}

// Block sums of a grid-stride loop's two values: thread 0 writes them to sums[blockIdx.x] and
// sums[gridDim.x + blockIdx.x].
template <int Threads, class Value>
__device__ __forceinline__ void write_block_sums(Value first, Value second, Value* sums) {
  __shared__ optional_value<Value> warp_values[Threads / 32];
  const auto a = block_reduce_present<Threads>(optional_value<Value>{true, first}, warp_values, plus_op{});
  __syncthreads();  // warp_values is reused
  const auto b = block_reduce_present<Threads>(optional_value<Value>{true, second}, warp_values, plus_op{});
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = a.value;
    sums[gridDim.x + blockIdx.x] = b.value;
  }
}

// r_0 = 1/n, its shares, and (into sums) the blocks' dangling mass of it.
template <int Threads, class Value>
__global__ void __launch_bounds__(Threads)
    pagerank_start_kernel(long long n, const Value* inverse, Value* rank, Value* shares, Value* sums) {
  const Value uniform = Value(1) / static_cast<Value>(n);
  Value mass = 0;
  const long long stride = static_cast<long long>(gridDim.x) * Threads;
  for (long long v = static_cast<long long>(blockIdx.x) * Threads + threadIdx.x; v < n; v += stride) {
    const Value w = inverse[v];
    rank[v] = uniform;
    shares[v] = uniform * w;
    if (w == Value(0)) mass += uniform;
  }
  write_block_sums<Threads>(Value(0), mass, sums);
}

// spread = A^T shares_{k-1} (each vertex's in-links' shares summed); dangling_mass = the sum of
// r_{k-1} over the dangling vertices (reduced after the previous update). Both were written by
// earlier launches on the stream. Writes r_k, its shares and, into sums, the blocks' L1 change and
// dangling mass of r_k.
template <int Threads, class Value>
__global__ void __launch_bounds__(Threads)
    pagerank_update_kernel(long long n, const Value* inverse, const Value* spread, const Value* previous,
                           const Value* dangling_mass, Value damping, Value* rank, Value* shares, Value* sums) {
  const Value everyone = ((Value(1) - damping) + damping * *dangling_mass) / static_cast<Value>(n);
  Value change = 0, mass = 0;
  const long long stride = static_cast<long long>(gridDim.x) * Threads;
  for (long long v = static_cast<long long>(blockIdx.x) * Threads + threadIdx.x; v < n; v += stride) {
    const Value r = everyone + damping * spread[v];
    const Value d = r - previous[v];
    const Value w = inverse[v];
    rank[v] = r;
    shares[v] = r * w;
    change += d < Value(0) ? -d : d;
    if (w == Value(0)) mass += r;
  }
  write_block_sums<Threads>(change, mass, sums);
}

}  // namespace scankit::device_detail
