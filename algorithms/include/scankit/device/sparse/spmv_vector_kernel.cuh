// Device layer of the sparse module: the vector SpMV kernel. A group of Width lanes (2..32, a
// power of two, inside one warp) takes a row: the lanes stride through its nonzeros, then the
// group's shuffle reduction gives the sum and its first lane writes y[row]. Rows are taken
// grid-stride, so any number of rows fits one launch. Cheap per row (no shared memory, no
// barriers), but a row costs its own length: for matrices whose rows are about equally long.
#pragma once

#include <type_traits>

#include "scankit/device/sparse/spmv_merge_kernel.cuh"  // spmv_arguments, gather_x, write_row

namespace scankit::device_detail {

template <int Width, int BlockThreads, class Index, class Value>
__global__ void __launch_bounds__(BlockThreads) spmv_vector_kernel(const spmv_arguments<Index, Value> a) {
  static_assert(Width >= 1 && Width <= 32 && (Width & (Width - 1)) == 0, "a row group is a power of two lanes");
  const int lane = static_cast<int>(threadIdx.x) & (Width - 1);
  const long long group = (static_cast<long long>(blockIdx.x) * BlockThreads + threadIdx.x) / Width;
  const long long groups = static_cast<long long>(gridDim.x) * BlockThreads / Width;
  // The group's lanes in its warp, for the shuffles.
  const unsigned group_mask =
      Width == 32 ? 0xffffffffu : ((1u << Width) - 1u) << ((threadIdx.x & 31u) & ~static_cast<unsigned>(Width - 1));
  for (long long row = group; row < a.rows; row += groups) {
    // Offsets outside [0, nnz] are clamped: a bad matrix reads nothing outside its arrays. The
    // row's loop runs in the index type (32-bit arithmetic for int32 matrices).
    Index begin = a.offsets[row];
    Index end = a.offsets[row + 1];
    const auto nnz = static_cast<Index>(a.nnz);
    begin = begin < Index(0) ? Index(0) : (begin > nnz ? nnz : begin);
    end = end < begin ? begin : (end > nnz ? nnz : end);
    Value sum = Value(0);
    using unsigned_index = std::make_unsigned_t<Index>;  // k + Width may pass the largest Index
    for (auto k = static_cast<unsigned_index>(begin) + lane; k < static_cast<unsigned_index>(end); k += Width) {
      sum += a.values[k] * gather_x(a, a.columns[k]);
    }
#pragma unroll
    for (int offset = Width / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(group_mask, sum, offset, Width);
    if (lane == 0) write_row(a, row, sum);
  }
}

}  // namespace scankit::device_detail
