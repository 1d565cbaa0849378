// Device layer of the sparse module: the load-balanced (merge-path) SpMV kernel, one pass.
//
// Tile t owns the positions [t * T, (t + 1) * T) of the merged list of row ends and nonzeros
// (merge_path.cuh); its rows [row0, row1) end in it, its nonzeros [nz0, nz1) are summed in it.
//   1. The block copies the tile's columns, values and row ends into shared memory (16-byte
//      asynchronous copies, range_stage.cuh), then turns each value into its product a_k * x[column_k].
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

#include <type_traits>

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/block/range_stage.cuh"
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
// read outside x. (One unsigned compare in the index's own width.)
template <class Index, class Value>
__device__ __forceinline__ Value gather_x(const spmv_arguments<Index, Value>& a, Index column) {
  using unsigned_index = std::make_unsigned_t<Index>;
  const auto c = static_cast<unsigned_index>(column);
  return a.x[c < static_cast<unsigned_index>(a.cols) ? c : unsigned_index{0}];
}

template <class Index, class Value>
__device__ __forceinline__ void write_row(const spmv_arguments<Index, Value>& a, long long row, Value sum) {
  a.y[row] = a.beta == Value(0) ? a.alpha * sum : a.alpha * sum + a.beta * a.y[row];
}

template <class Policy, class Index, class Value>
struct spmv_merge_storage {
  using item_t = segment_item<Value>;
  using block_scan = block_scan_t<Policy::algorithm, item_t, Policy::block_threads>;
  using index_stage = range_stage<Index, Policy::block_threads>;
  using value_stage = range_stage<Value, Policy::block_threads>;
  alignas(16) Index columns[index_stage::capacity(Policy::tile_items)];
  alignas(16) Value values[value_stage::capacity(Policy::tile_items)];  // the products after step 1
  alignas(16) Index row_ends[index_stage::capacity(Policy::tile_items)];
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

  // 1. Columns, values and row ends into shared memory (asynchronous 16-byte copies), then each
  //    value times its x, in place.
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
  // Row r's end as a position among the tile's nonzeros (32-bit from here on).
  const auto row_end = [&](int r) { return static_cast<int>(s.row_ends[end_at + r] - begin.nonzero); };

  // 2. This thread's positions of the tile's list.
  const int first = static_cast<int>(threadIdx.x) * K < tile_items ? static_cast<int>(threadIdx.x) * K : tile_items;
  int row, nonzero;
  {
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
    row = lo;
    nonzero = first - lo;
  }
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
