// Device layer of the sparse module: the merge path of a CSR matrix (Merrill & Garland, "Merge-based
// parallel sparse matrix-vector multiplication", SC'16).
//
// The rows and nonzeros of a CSR matrix form one merged list: row r's nonzeros, then row r's end,
// for every row in order (empty rows are a lone row end). Position d of that list (a "diagonal")
// is the coordinate (row ends consumed, nonzeros consumed) with row + nonzero = d. Splitting the
// list into equal ranges of positions gives every part the same work however long the rows are.
// Ties go to the row end: row r ends before nonzero k when row_ends[r] <= k.
#pragma once

#include <cstdint>

#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

struct merge_coordinate {
  long long row;      // row ends consumed
  long long nonzero;  // nonzeros consumed
};

// The coordinate of `diagonal` over row_ends[0..rows) (offsets + 1) and the nonzeros 0..nnz-1,
// where nonzero j's index is first_nonzero + j. Any row_ends give a coordinate inside the list.
template <class RowEnds>
__device__ __forceinline__ merge_coordinate merge_path_search(long long diagonal, const RowEnds& row_ends,
                                                              long long rows, long long first_nonzero,
                                                              long long nnz) {
  long long lo = diagonal > nnz ? diagonal - nnz : 0;
  long long hi = diagonal < rows ? diagonal : rows;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (static_cast<long long>(row_ends[mid]) <= first_nonzero + diagonal - mid - 1) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return {lo, diagonal - lo};
}

// coordinates[t] = the merge coordinate of diagonal min(t * tile_items, rows + nnz), t in [0, tiles].
// With rows_device (the rows' count in device memory; rows and nnz its bounds), over the first count
// rows and offsets[count] nonzeros (each clamped as spmv_merge_kernel.cuh's resolved()), so that the
// tiles past them are empty.
template <class Index>
__global__ void merge_path_partition_kernel(const Index* offsets, long long rows, long long nnz, long long tiles,
                                            long long tile_items, merge_coordinate* coordinates,
                                            const std::int64_t* rows_device) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  if (rows_device != nullptr) {
    rows = items_to_process(rows, rows_device);
    const auto end = static_cast<long long>(offsets[rows]);
    nnz = end < 0 ? 0 : (end > nnz ? nnz : end);
  }
  const long long total = rows + nnz;
  const long long diagonal = t * tile_items < total ? t * tile_items : total;
  coordinates[t] = merge_path_search(diagonal, offsets + 1, rows, 0, nnz);
}

}  // namespace scankit::device_detail
