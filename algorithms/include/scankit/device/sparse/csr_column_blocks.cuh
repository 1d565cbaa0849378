// Device layer of the sparse module: a CSR matrix cut into column blocks, each a CSR matrix of its
// own over the same rows and columns (an SpMV plan runs one merge-path product per block, so each
// product gathers from a slice of x that fits the L2; docs/spmv.md).
//   column_block_member       the 0/1 flag of a nonzero in block b, for the engine's scan: its
//                             inclusive scan gives each member's place in the block, in A's order
//   column_block_scatter_kernel   copies block b's columns and values to their places
//   column_block_offsets_kernel   block b's row offsets, read from the scan at A's row ends
//   column_spread_kernel      how far sampled nonzeros lie from the diagonal (the plan's choice)
// A nonzero belongs to exactly one block: block 0 also takes columns below 0, the last block
// columns from `cols` up, so an invalid column is still multiplied (by x[0], as without blocks).
#pragma once

#include <cstdint>

namespace scankit::device_detail {

// The first column of block b of `blocks` over `cols` columns (equal widths, the last shorter).
__host__ __device__ inline long long column_block_begin(long long cols, int blocks, int b) {
  const long long width = (cols + blocks - 1) / blocks;
  const long long begin = width * b;
  return begin < cols ? begin : cols;
}

template <class Index>
struct column_block_member {
  long long lo, hi;  // the block's columns [lo, hi)
  bool first, last;
  __host__ __device__ Index operator()(Index column) const {
    const auto c = static_cast<long long>(column);
    return static_cast<Index>((first || c >= lo) && (last || c < hi));
  }
};

// `place` is the inclusive scan of block b's member flags over A's nonzeros, so member j goes to
// place[j] - 1 of the block.
template <class Index, class Value>
__global__ void column_block_scatter_kernel(const Index* columns, const Value* values, long long nnz,
                                            column_block_member<Index> member, const Index* place,
                                            Index* block_columns, Value* block_values) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j < nnz; j += stride) {
    const Index c = columns[j];
    if (member(c) == 0) continue;
    const long long to = static_cast<long long>(place[j]) - 1;
    if (block_columns != nullptr) block_columns[to] = c;
    block_values[to] = values != nullptr ? values[j] : Value(1);  // null: a pattern matrix
  }
}

// Row r of the block starts after the members among A's nonzeros before offsets[r].
template <class Index>
__global__ void column_block_offsets_kernel(const Index* offsets, long long rows, const Index* place,
                                            Index* block_offsets) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r <= rows; r += stride) {
    const long long at = static_cast<long long>(offsets[r]);
    block_offsets[r] = at == 0 ? Index(0) : place[at - 1];
  }
}

// Counts, over up to `per_row` nonzeros of each of `samples` rows spread evenly over the matrix,
// the nonzeros and those whose column lies more than `window` from the row's diagonal position
// (r * cols / rows). counts[0] += sampled, counts[1] += far.
template <class Index>
__global__ void column_spread_kernel(const Index* offsets, const Index* columns, long long rows, long long cols,
                                     long long samples, int per_row, long long window,
                                     unsigned long long* counts) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long sampled = 0, far = 0;
  if (i < samples) {
    const long long r = i * rows / samples;
    const long long begin = static_cast<long long>(offsets[r]);
    const long long end = static_cast<long long>(offsets[r + 1]);
    const double diagonal = static_cast<double>(r) * static_cast<double>(cols) / static_cast<double>(rows);
    for (long long k = begin; k < end && k < begin + per_row; ++k) {
      const double distance = static_cast<double>(columns[k]) - diagonal;
      ++sampled;
      far += (distance > window || distance < -window) ? 1 : 0;
    }
  }
  if (sampled != 0) {
    atomicAdd(&counts[0], sampled);
    atomicAdd(&counts[1], far);
  }
}

}  // namespace scankit::device_detail
