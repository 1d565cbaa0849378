// Device layer of the sparse module: the load-balanced (merge-path) SpMV kernel.
//
// Tile t (block t) owns the positions [t * T, (t + 1) * T) of the merged list of row ends and
// nonzeros (merge_path.cuh); its rows [row0, row1) end in it, its nonzeros [nz0, nz1) are summed
// in it. Its coordinates come from a partition made before (a plan keeps it), which with a row
// count in device memory covers the counted rows: the tiles past them are empty.
//   1. The tile's row ends are copied into shared memory (16-byte asynchronous copies,
//      range_stage.cuh) while its columns and values are read into registers, coalesced and with
//      the streaming hint (A is read once; its lines should not push x out of L2 and L1), and
//      each product a_k * x[column_k] goes to shared memory.
//   2. Each thread finds its own K positions of the tile's list (a binary search in shared
//      memory) and walks them: a nonzero adds its product to the running sum, a row end closes the
//      row. A thread closes up to K rows; what it adds after its last row end (or everything, if it
//      closes none) is its carry.
//   3. The carries are combined across the block by the engine's block scan of segment items (a
//      row end is a segment head): each thread gets the sum of the open row before it. The
//      tile's own total after its last row end, its carry, goes to carries[t], with the row it
//      belongs to (row1, the tile's open row) in carry_rows[t].
//   4. Each closed row is written: y[r] = alpha * sum + beta * y[r] (y not read when beta == 0),
//      where a row begun in earlier tiles has only this tile's part; the carry fix-up
//      (spmv_carry_fixup.cuh), a second launch, adds alpha times the earlier tiles' carries.
// So a row of any length costs its share, and the association of every sum is fixed by the
// matrix alone: the same bits every run. The gathers of x dominate on irregular matrices, so the
// launch asks for no more shared memory than its occupancy needs (spmv_dispatch.cuh): the rest of
// the SM's unified cache is L1 for them.
//
// Memory order: blocks share nothing within the launch (x, A read; y[r] written by the one thread
// that closes row r; carries[t] by block t); the fix-up reads them after the launch ends.
#pragma once

#include <type_traits>

#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/block/range_stage.cuh"
#include "scankit/device/sparse/merge_path.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/operators.hpp"
#include "scankit/segmented_operators.hpp"

namespace scankit::device_detail {

// Carveout values: the driver's choice, or just the shared memory that the register-limited
// occupancy needs, so that the rest of the unified cache serves the gathers of x as L1.
constexpr int spmv_carveout_driver = -1;
constexpr int spmv_carveout_auto = -2;

template <int BlockThreads, int ItemsPerThread, int CarveoutPercent = spmv_carveout_auto>
struct spmv_merge_policy {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  // The shared-memory carveout asked of the driver (percent of its maximum), or one of the above.
  static constexpr int carveout_percent = CarveoutPercent;
  static constexpr block_scan_algorithm algorithm = block_scan_algorithm::warp_of_warps;
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
  // The rows' count in device memory, or null. With it, `rows` and `nnz` are bounds, and each
  // kernel works on resolved(): the first count rows and their offsets[count] nonzeros.
  const std::int64_t* rows_device = nullptr;
};

// The rows and nonzeros a launch works on: the arguments' own, or with a count in device memory,
// the count clamped to [0, rows] and offsets[count] clamped to [0, nnz] (unchecked offsets give a
// wrong product, never an access outside the arrays). The count and the offsets were written
// before this launch in stream order, so plain loads see them.
template <class Index, class Value>
__device__ __forceinline__ spmv_arguments<Index, Value> resolved(spmv_arguments<Index, Value> a) {
  if (a.rows_device != nullptr) {
    a.rows = items_to_process(a.rows, a.rows_device);
    const auto end = static_cast<long long>(a.offsets[a.rows]);
    a.nnz = end < 0 ? 0 : (end > a.nnz ? a.nnz : end);
    a.rows_device = nullptr;
  }
  return a;
}

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

// Where the tiles kernel leaves each tile's carry for the fix-up (both nullptr for a launch of one
// tile, which closes every row itself).
template <class Value>
struct spmv_carries {
  Value* sums;      // carries[t]: tile t's sum after its last row end
  long long* rows;  // carry_rows[t]: the row that sum belongs to (rows for the last tile)
};

template <class Policy, class Index, class Value>
struct spmv_merge_storage {
  using item_t = segment_item<Value>;
  using block_scan = block_scan_t<Policy::algorithm, item_t, Policy::block_threads>;
  using index_stage = range_stage<Index, Policy::block_threads>;
  alignas(16) Value products[Policy::tile_items];
  alignas(16) Index row_ends[index_stage::capacity(Policy::tile_items)];
  typename block_scan::storage scan;
};

template <class Policy, class Index, class Value>
__global__ void __launch_bounds__(Policy::block_threads)
    spmv_merge_kernel(const spmv_arguments<Index, Value> a, const merge_coordinate* coordinates,
                      const spmv_carries<Value> carries) {
  constexpr int K = Policy::items_per_thread;
  constexpr int threads = Policy::block_threads;
  static_assert(K <= 32, "a thread's row ends are one 32-bit mask");
  using item_t = segment_item<Value>;
  using storage_t = spmv_merge_storage<Policy, Index, Value>;
  const segmented_op<plus_op> combine{};
  __shared__ storage_t s;

  merge_coordinate begin{0, 0}, end{0, 0};
  if (coordinates != nullptr) {
    begin = coordinates[blockIdx.x];
    end = coordinates[blockIdx.x + 1];
  } else {  // one tile: the whole (resolved) matrix
    const spmv_arguments<Index, Value> whole = resolved(a);
    end = merge_coordinate{whole.rows, whole.nnz};
  }
  const int tile_rows = static_cast<int>(end.row - begin.row);
  const int tile_nonzeros = static_cast<int>(end.nonzero - begin.nonzero);
  const int tile_items = tile_rows + tile_nonzeros;

  // 1. Row ends on their way to shared memory; all K columns and values in flight, then all K
  //    gathers, then the products.
  const int end_at = storage_t::index_stage::issue(s.row_ends, a.offsets, begin.row + 1, end.row + 1, a.rows + 1);
  {
    Index column[K];
    Value value[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = k * threads + static_cast<int>(threadIdx.x);
      if (j < tile_nonzeros) {
        column[k] = __ldcs(a.columns + begin.nonzero + j);
        value[k] = a.values != nullptr ? __ldcs(a.values + begin.nonzero + j) : Value(1);  // null: a pattern
      }
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = k * threads + static_cast<int>(threadIdx.x);
      if (j < tile_nonzeros) s.products[j] = value[k] * gather_x(a, column[k]);
    }
  }
  storage_t::index_stage::wait();
  __syncthreads();
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
        running += s.products[nonzero];
        ++nonzero;
      }
    }
  }

  // 3. The open row's sum before this thread within the tile; the tile's carry.
  const block_scan_result<item_t> scanned =
      storage_t::block_scan::scan(item_t{running, ends != 0 ? 1u : 0u}, s.scan, combine);
  if (carries.sums != nullptr && threadIdx.x == 0) {
    carries.sums[blockIdx.x] = scanned.aggregate.value;
    carries.rows[blockIdx.x] = end.row;
  }

  // 4. The rows this thread closes.
  bool open_row_continues = threadIdx.x > 0;
  int r = first_row;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if ((ends >> k) & 1u) {
      write_row(a, begin.row + r, open_row_continues ? scanned.exclusive.value + sums[k] : sums[k]);
      open_row_continues = false;
      ++r;
    }
  }
}

}  // namespace scankit::device_detail
