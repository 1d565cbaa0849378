// Device layer of the sparse module: the load-balanced (merge-path) SpMV kernel, one pass.
//
// Tile t owns the positions [t * T, (t + 1) * T) of the merged list of row ends and nonzeros
// (merge_path.cuh); its rows [row0, row1) end in it, its nonzeros [nz0, nz1) are summed in it.
//   1. The block loads the tile's row ends and its products a_k * x[column_k] into shared memory,
//      coalesced (each nonzero is read once, by one thread, at consecutive addresses).
//   2. Each thread finds its own K positions of the tile's list (a binary search in shared
//      memory) and walks them: a nonzero adds its product to the running sum, a row end closes the
//      row. A thread closes up to K rows; what it adds after its last row end (or everything, if it
//      closes none) is its carry.
//   3. A row's sum may have begun in earlier threads or tiles. The carries are combined by the
//      scan engine's segmented scan: a thread's (carry, closes-a-row) pair is a segment item, a
//      row end being a segment head, and segmented_prefixes gives each thread the sum of the open
//      row before it, from the block scan and from the tiles before through the decoupled
//      look-back. The first row a thread closes adds that prefix.
//   4. Each closed row is written: y[r] = alpha * sum + beta * y[r] (y not read when beta == 0).
// So a row of any length costs its share, and the association of every sum is fixed by the
// matrix alone: the same bits every run.
//
// Memory order: only the tile carries travel between blocks, each with its status in tile_state;
// x, A and y are read or written by this launch's blocks independently (y[r] by the one thread
// that closes row r).
#pragma once

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/device/segmented_scan_kernel.cuh"
#include "scankit/device/sparse/merge_path.cuh"
#include "scankit/device/tile/tile_prefix_op.cuh"
#include "scankit/operators.hpp"
#include "scankit/segmented_operators.hpp"

namespace scankit::device_detail {

template <int BlockThreads, int ItemsPerThread, int MinBlocksPerSm = 0>
struct spmv_merge_policy {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  static constexpr block_scan_algorithm algorithm = block_scan_algorithm::warp_of_warps;
  static constexpr look_back_backoff backoff{32, 1024};
};

template <class Index, class Value>
struct spmv_arguments {
  const Index* offsets;
  const Index* columns;
  const Value* values;
  long long rows;
  long long cols;
  long long nnz;
  const Value* x;
  Value* y;
  Value alpha;
  Value beta;  // 0: y is not read
};

// x[column], or x[0] for a column outside [0, cols): a bad index gives a wrong product, never a
// read outside x.
template <class Index, class Value>
__device__ __forceinline__ Value gather_x(const spmv_arguments<Index, Value>& a, Index column) {
  const auto c = static_cast<unsigned long long>(static_cast<long long>(column));
  return a.x[c < static_cast<unsigned long long>(a.cols) ? static_cast<long long>(c) : 0];
}

template <class Index, class Value>
__device__ __forceinline__ void write_row(const spmv_arguments<Index, Value>& a, long long row, Value sum) {
  a.y[row] = a.beta == Value(0) ? a.alpha * sum : a.alpha * sum + a.beta * a.y[row];
}

template <class Policy, class Index, class Value>
struct spmv_merge_storage {
  using item_t = segment_item<Value>;
  using block_scan = block_scan_t<Policy::algorithm, item_t, Policy::block_threads>;
  Index row_ends[Policy::tile_items];
  Value products[Policy::tile_items];
  typename block_scan::storage scan;
  item_t tile_prefix;
  tile_ticket ticket;
};

template <class Policy, class Index, class Value>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks_per_sm)
    spmv_merge_kernel(const spmv_arguments<Index, Value> a, const merge_coordinate* coordinates,
                      const single_pass_context<segment_item<Value>> pass) {
  constexpr int K = Policy::items_per_thread;
  constexpr int threads = Policy::block_threads;
  static_assert(K <= 32, "a thread's row ends are one 32-bit mask");
  using item_t = segment_item<Value>;
  using storage_t = spmv_merge_storage<Policy, Index, Value>;
  const segmented_op<plus_op> combine{};
  __shared__ storage_t s;

  const long long tile = segmented_tile_index<Value>(pass, s);
  merge_coordinate begin{0, 0}, end{a.rows, a.nnz};
  if (coordinates != nullptr) {
    begin = coordinates[tile];
    end = coordinates[tile + 1];
  }
  const int tile_rows = static_cast<int>(end.row - begin.row);
  const int tile_nonzeros = static_cast<int>(end.nonzero - begin.nonzero);
  const int tile_items = tile_rows + tile_nonzeros;

  // 1. Row ends and products into shared memory: all loads first, then the gathers, then the stores.
  {
    Index columns[K];
    Value values[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int i = k * threads + static_cast<int>(threadIdx.x);
      if (i < tile_nonzeros) {
        columns[k] = a.columns[begin.nonzero + i];
        values[k] = a.values[begin.nonzero + i];
      }
      if (i < tile_rows) s.row_ends[i] = a.offsets[begin.row + 1 + i];
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int i = k * threads + static_cast<int>(threadIdx.x);
      if (i < tile_nonzeros) s.products[i] = values[k] * gather_x(a, columns[k]);
    }
  }
  __syncthreads();

  // 2. This thread's positions of the tile's list.
  const int first = static_cast<int>(threadIdx.x) * K < tile_items ? static_cast<int>(threadIdx.x) * K : tile_items;
  const merge_coordinate at = merge_path_search(first, s.row_ends, tile_rows, begin.nonzero, tile_nonzeros);
  int row = static_cast<int>(at.row);
  int nonzero = static_cast<int>(at.nonzero);
  const int first_row = row;
  Value running = Value(0);
  Value sums[K];
  unsigned ends = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (first + k < tile_items) {
      const bool row_end = nonzero >= tile_nonzeros ||
                           (row < tile_rows && static_cast<long long>(s.row_ends[row]) <= begin.nonzero + nonzero);
      if (row_end) {
        sums[k] = running;
        running = Value(0);
        ends |= 1u << k;
        ++row;
      } else {
        running += s.products[nonzero];
        ++nonzero;
      }
    }
  }

  // 3. The open row's sum before this thread (block scan and look-back).
  const block_scan_result<item_t> scanned =
      storage_t::block_scan::scan(item_t{running, ends != 0 ? 1u : 0u}, s.scan, combine);
  optional_prefix<item_t> tile_prefix;
  const optional_prefix<item_t> before = segmented_prefixes(pass, scanned, s, combine, tile_prefix);

  // 4. The rows this thread closes.
  bool open_row_continues = before.present;
  int r = first_row;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if ((ends >> k) & 1u) {
      const Value sum = open_row_continues ? before.value.value + sums[k] : sums[k];
      write_row(a, begin.row + r, sum);
      open_row_continues = false;
      ++r;
    }
  }
}

}  // namespace scankit::device_detail
