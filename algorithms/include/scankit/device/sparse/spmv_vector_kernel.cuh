// Device layer of the sparse module: the vector SpMV kernel. A group of Width lanes (a power of
// two, inside one warp) takes Rows consecutive rows at once: it loads their Rows + 1 offsets, then
// the first Chunks x Width nonzeros of every row (columns and values), then all their x, so one
// chain of dependent loads carries Rows rows' bytes; longer rows finish in a strided loop. Each
// row's sum is a shuffle reduction over the group, and the group's first lane writes the Rows
// results. Groups take rows grid-stride, so any number of rows fits one launch. Cheap per row (no
// shared memory, no barriers), but a row costs its own length: for matrices whose rows are about
// equally long. Tuned shapes: docs/tuning.md.
#pragma once

#include <type_traits>

#include "scankit/device/sparse/spmv_merge_kernel.cuh"  // spmv_arguments, gather_x, write_row

namespace scankit::device_detail {

// Counted: the rows' count is in device memory (args.rows_device). A kernel of its own, so that
// the host-count launch keeps its registers: the resolved rows and nonzeros cost a few more,
// which for some widths would cost a block per multiprocessor.
template <int Width, int Rows, int Chunks, int BlockThreads, class Index, class Value, bool Counted = false>
__global__ void __launch_bounds__(BlockThreads) spmv_vector_kernel(const spmv_arguments<Index, Value> args) {
  const spmv_arguments<Index, Value> a = Counted ? resolved(args) : args;
  static_assert((Width & (Width - 1)) == 0 && Width <= 32, "a group is a power of two lanes of one warp");
  using unsigned_index = std::make_unsigned_t<Index>;
  const int lane = static_cast<int>(threadIdx.x) & (Width - 1);
  const unsigned group_mask =
      Width == 32 ? 0xffffffffu : ((1u << Width) - 1u) << ((threadIdx.x & 31u) & ~static_cast<unsigned>(Width - 1));
  const long long groups = static_cast<long long>(gridDim.x) * BlockThreads / Width;
  const long long first_group = (static_cast<long long>(blockIdx.x) * BlockThreads + threadIdx.x) / Width;
  const auto nnz = static_cast<Index>(a.nnz);
  for (long long r0 = first_group * Rows; r0 < a.rows; r0 += groups * Rows) {
    // The Rows + 1 offsets: one load per lane and shuffles when the group has enough lanes, else
    // every lane loads them all (the same addresses: broadcast). Rows past the end are empty.
    Index begin[Rows], end[Rows];
    if constexpr (Rows + 1 <= Width) {
      const long long r = r0 + lane < a.rows ? r0 + lane : a.rows;
      const Index offset = lane <= Rows ? a.offsets[r] : Index(0);
#pragma unroll
      for (int i = 0; i < Rows; ++i) {
        begin[i] = __shfl_sync(group_mask, offset, i, Width);
        end[i] = __shfl_sync(group_mask, offset, i + 1, Width);
      }
    } else {
#pragma unroll
      for (int i = 0; i < Rows; ++i) {
        begin[i] = a.offsets[r0 + i < a.rows ? r0 + i : a.rows];
        end[i] = a.offsets[r0 + i + 1 < a.rows ? r0 + i + 1 : a.rows];
      }
    }
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
      begin[i] = begin[i] < Index(0) ? Index(0) : (begin[i] > nnz ? nnz : begin[i]);
      end[i] = end[i] < begin[i] ? begin[i] : (end[i] > nnz ? nnz : end[i]);
    }
    Index columns[Rows][Chunks];
    Value values[Rows][Chunks];
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
#pragma unroll
      for (int c = 0; c < Chunks; ++c) {
        const auto k = static_cast<unsigned_index>(begin[i]) + lane + c * Width;
        const bool valid = k < static_cast<unsigned_index>(end[i]);
        columns[i][c] = valid ? a.columns[k] : Index(0);
        values[i][c] = valid ? (a.values != nullptr ? a.values[k] : Value(1)) : Value(0);  // null: a pattern
      }
    }
    Value sums[Rows];
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
      sums[i] = Value(0);
#pragma unroll
      for (int c = 0; c < Chunks; ++c) {
        // Only a loaded nonzero gathers its x: a matrix without columns may have no x at all.
        if (static_cast<unsigned_index>(begin[i]) + lane + c * Width < static_cast<unsigned_index>(end[i])) {
          sums[i] += values[i][c] * gather_x(a, columns[i][c]);
        }
      }
      for (auto k = static_cast<unsigned_index>(begin[i]) + lane + Chunks * Width; k < static_cast<unsigned_index>(end[i]);
           k += Width) {
        sums[i] += (a.values != nullptr ? a.values[k] : Value(1)) * gather_x(a, a.columns[k]);
      }
    }
#pragma unroll
    for (int i = 0; i < Rows; ++i) {
#pragma unroll
      for (int offset_lanes = Width / 2; offset_lanes > 0; offset_lanes /= 2) {
        sums[i] += __shfl_down_sync(group_mask, sums[i], offset_lanes, Width);
      }
    }
    if (lane == 0) {
#pragma unroll
      for (int i = 0; i < Rows; ++i) {
        if (r0 + i < a.rows) write_row(a, r0 + i, sums[i]);
      }
    }
  }
}

}  // namespace scankit::device_detail
