// Candidate SpMV kernels that bench_spmv times beside the library's (rows try_*), so that one GPU
// run says whether they earn a place in the library (docs/notes/2026-12-01-spmv-first-cut.md,
// "Next"). They reuse the library's device pieces; none is called by the library.
//
//   merge_fixup_kernel + carry_fixup_kernel
//       The merge path without the ticket and the look-back: tile = blockIdx.x, so the tile's
//       coordinates are its first load. Each tile writes the rows it closes with what it summed
//       itself, and its carry (the sum after its last row end) to carries[tile]; the fix-up adds,
//       for every row left open at a tile's end, the carries of the tiles it spanned (summed in
//       tile order: deterministic) times alpha to that row's y. Two launches instead of one.
#pragma once

#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/block/range_stage.cuh"
#include "scankit/device/sparse/merge_path.cuh"
#include "scankit/device/sparse/spmv_merge_kernel.cuh"  // spmv_arguments, gather_x, write_row, policies
#include "scankit/operators.hpp"
#include "scankit/segmented_operators.hpp"

namespace scankit_bench {

using scankit::device_detail::gather_x;
using scankit::device_detail::merge_coordinate;
using scankit::device_detail::spmv_arguments;
using scankit::device_detail::write_row;

template <class Policy, class Index, class Value>
struct merge_fixup_storage {
  using item_t = scankit::segment_item<Value>;
  using block_scan = scankit::device_detail::block_scan_t<Policy::algorithm, item_t, Policy::block_threads>;
  using index_stage = scankit::device_detail::range_stage<Index, Policy::block_threads>;
  using value_stage = scankit::device_detail::range_stage<Value, Policy::block_threads>;
  alignas(16) Index columns[index_stage::capacity(Policy::tile_items)];
  alignas(16) Value values[value_stage::capacity(Policy::tile_items)];
  alignas(16) Index row_ends[index_stage::capacity(Policy::tile_items)];
  typename block_scan::storage scan;
};

// carries[tile] = the tile's sum after its last row end (its open row's share).
template <class Policy, class Index, class Value>
__global__ void __launch_bounds__(Policy::block_threads)
    merge_fixup_kernel(const spmv_arguments<Index, Value> a, const merge_coordinate* coordinates, Value* carries) {
  constexpr int K = Policy::items_per_thread;
  constexpr int threads = Policy::block_threads;
  using item_t = scankit::segment_item<Value>;
  using storage_t = merge_fixup_storage<Policy, Index, Value>;
  const scankit::segmented_op<scankit::plus_op> combine{};
  __shared__ storage_t s;
  const long long tile = blockIdx.x;
  const merge_coordinate begin = coordinates[tile], end = coordinates[tile + 1];
  const int tile_rows = static_cast<int>(end.row - begin.row);
  const int tile_nonzeros = static_cast<int>(end.nonzero - begin.nonzero);
  const int tile_items = tile_rows + tile_nonzeros;

  const int column_at = storage_t::index_stage::issue(s.columns, a.columns, begin.nonzero, end.nonzero, a.nnz);
  const int value_at = storage_t::value_stage::issue(s.values, a.values, begin.nonzero, end.nonzero, a.nnz);
  const int end_at = storage_t::index_stage::issue(s.row_ends, a.offsets, begin.row + 1, end.row + 1, a.rows + 1);
  storage_t::index_stage::wait();
  __syncthreads();
  {
    Value x[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = k * threads + static_cast<int>(threadIdx.x);
      if (j < tile_nonzeros) x[k] = gather_x(a, s.columns[column_at + j]);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = k * threads + static_cast<int>(threadIdx.x);
      if (j < tile_nonzeros) s.values[value_at + j] *= x[k];
    }
  }
  __syncthreads();
  const Value* products = s.values + value_at;
  const auto row_end = [&](int r) { return static_cast<int>(s.row_ends[end_at + r] - begin.nonzero); };
  const int first = static_cast<int>(threadIdx.x) * K < tile_items ? static_cast<int>(threadIdx.x) * K : tile_items;
  int lo = first > tile_nonzeros ? first - tile_nonzeros : 0;
  int hi = first < tile_rows ? first : tile_rows;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (row_end(mid) <= first - mid - 1) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  int row = lo, nonzero = first - lo;
  const int first_row = row;
  Value running = Value(0);
  Value sums[K];
  unsigned ends = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (first + k < tile_items) {
      if (nonzero >= tile_nonzeros || (row < tile_rows && row_end(row) <= nonzero)) {
        sums[k] = running;
        running = Value(0);
        ends |= 1u << k;
        ++row;
      } else {
        running += products[nonzero];
        ++nonzero;
      }
    }
  }
  const auto scanned = storage_t::block_scan::scan(item_t{running, ends != 0 ? 1u : 0u}, s.scan, combine);
  if (threadIdx.x == 0) carries[tile] = scanned.aggregate.value;
  bool continues = threadIdx.x > 0;  // the open row's share from earlier threads of this tile
  int r = first_row;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if ((ends >> k) & 1u) {
      write_row(a, begin.row + r, continues ? scanned.exclusive.value + sums[k] : sums[k]);
      continues = false;
      ++r;
    }
  }
}

// One thread per tile: a tile whose open row differs from its predecessor's starts a run; it sums
// the run's carries in tile order and adds alpha times that to the row (closed by a later tile).
template <class Index, class Value>
__global__ void carry_fixup_kernel(const spmv_arguments<Index, Value> a, const merge_coordinate* coordinates,
                                   const Value* carries, long long tiles) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= tiles) return;
  const long long open_row = coordinates[t + 1].row;
  if (open_row >= a.rows || (t > 0 && coordinates[t].row == open_row)) return;
  Value sum = carries[t];
  for (long long u = t + 1; u < tiles && coordinates[u + 1].row == open_row; ++u) sum += carries[u];
  a.y[open_row] += a.alpha * sum;
}

}  // namespace scankit_bench
