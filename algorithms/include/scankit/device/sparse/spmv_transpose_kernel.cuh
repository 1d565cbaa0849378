// Device layer of the sparse module: y = alpha * A^T * x + beta * y without a transposed copy.
//   spmv_scale_kernel             y = beta * y (0 when beta == 0, NaN in y included)
//   spmv_transpose_atomic_kernel  each thread takes K positions of the merged list of row ends
//                                 and nonzeros (merge_path.cuh, searched in the offsets) and adds
//                                 alpha * a_rk * x[r] into y[k's column] with an atomic add
// The additions into one y[c] come in no fixed order, so the rounding may differ between runs.
#pragma once

#include "scankit/device/sparse/merge_path.cuh"
#include "scankit/device/sparse/spmv_merge_kernel.cuh"  // spmv_arguments

namespace scankit::device_detail {

// n_device: y's count in device memory (n its bound), or null.
template <class Value>
__global__ void spmv_scale_kernel(Value* y, long long n_bound, Value beta, const std::int64_t* n_device) {
  const long long n = items_to_process(n_bound, n_device);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = beta == Value(0) ? Value(0) : beta * y[i];
  }
}

// `a` is A (rows x cols, resolved: with a device count, its first count rows); x has a.rows
// items, y a.cols (already scaled by beta).
template <int K, class Index, class Value>
__global__ void spmv_transpose_atomic_kernel(const spmv_arguments<Index, Value> args) {
  const spmv_arguments<Index, Value> a = resolved(args);
  const long long total = a.rows + a.nnz;
  const long long first = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * K;
  if (first >= total) return;
  const merge_coordinate at = merge_path_search(first, a.offsets + 1, a.rows, 0, a.nnz);
  long long row = at.row, nonzero = at.nonzero;
  Value xr = row < a.rows ? a.alpha * a.x[row] : Value(0);
  for (int k = 0; k < K && row + nonzero < total; ++k) {
    if (nonzero >= a.nnz || (row < a.rows && static_cast<long long>(a.offsets[row + 1]) <= nonzero)) {
      ++row;
      if (row < a.rows) xr = a.alpha * a.x[row];
    } else {
      const auto c = static_cast<unsigned long long>(static_cast<long long>(a.columns[nonzero]));
      if (c < static_cast<unsigned long long>(a.cols)) atomicAdd(&a.y[c], (a.values != nullptr ? a.values[nonzero] : Value(1)) * xr);
      ++nonzero;
    }
  }
}

}  // namespace scankit::device_detail
