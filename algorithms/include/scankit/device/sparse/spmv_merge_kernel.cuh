// Device layer of the sparse module: the load-balanced (merge-path) SpMV kernel.
//
// Tile t (block t) owns the positions [t * T, (t + 1) * T) of the merged list of row ends and
// nonzeros (merge_path.cuh); its rows [row0, row1) end in it, its nonzeros [nz0, nz1) are summed
// in it. Its coordinates come from a partition made before (a plan keeps it).
//   1. Each value becomes its product a_k * x[column_k] in shared memory, while the tile's row ends
//      are copied there (16-byte asynchronous copies, range_stage.cuh). The nonzeros are read
//      either through shared memory (staged) or straight into registers, with the streaming
//      cache hint so that A, read once, leaves x in L2 (the policy says which; docs/tuning.md).
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
// matrix alone: the same bits every run.
//
// Memory order: blocks share nothing within the launch (x, A read; y[r] written by the one thread
// that closes row r; carries[t] by block t); the fix-up reads them after the launch ends.
#pragma once

#include <type_traits>

#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/block/range_stage.cuh"
#include "scankit/device/sparse/merge_path.cuh"
#include "scankit/operators.hpp"
#include "scankit/segmented_operators.hpp"

namespace scankit::device_detail {

// How a tile's columns and values reach the products: staged through shared memory with cp.async;
// loaded into registers (coalesced), plain or with the streaming (evict-first) hint, the products
// going through shared memory; or per thread: each thread reads the nonzeros of its own positions
// (streaming hint) and keeps the products in registers, so the tile needs shared memory for its
// row ends only and more of the SM's unified cache is left to L1 for the gathers of x.
enum class spmv_nonzero_loads { staged, direct, streaming, per_thread };

// Cache hints of the merge kernel, or-ed: y stored with the streaming hint; x gathered with the
// L2 evict-last policy (A streams past x in L2).
enum spmv_cache_hints : int { spmv_no_hints = 0, spmv_stream_y = 1, spmv_keep_x = 2 };

// Carveout values: the driver's choice, or just the shared memory that the register-limited
// occupancy needs, so that the rest of the unified cache serves the gathers of x as L1.
constexpr int spmv_carveout_driver = -1;
constexpr int spmv_carveout_auto = -2;

template <int BlockThreads, int ItemsPerThread, int MinBlocksPerSm = 0,
          spmv_nonzero_loads Loads = spmv_nonzero_loads::streaming, int CarveoutPercent = spmv_carveout_auto,
          int CacheHints = spmv_no_hints>
struct spmv_merge_policy {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  static constexpr spmv_nonzero_loads loads = Loads;
  // The shared-memory carveout asked of the driver (percent of its maximum), or one of the above.
  static constexpr int carveout_percent = CarveoutPercent;
  static constexpr int cache_hints = CacheHints;
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

// The same two operations with the merge kernel's cache hints.
template <int Hints, class Index, class Value>
__device__ __forceinline__ Value gather_x_hinted(const spmv_arguments<Index, Value>& a, Index column,
                                                 unsigned long long keep_policy) {
  if constexpr ((Hints & spmv_keep_x) != 0) {
    using unsigned_index = std::make_unsigned_t<Index>;
    const auto c = static_cast<unsigned_index>(column);
    const Value* p = a.x + (c < static_cast<unsigned_index>(a.cols) ? c : unsigned_index{0});
    Value v;
    if constexpr (sizeof(Value) == 4) {
      float f;
      asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(f) : "l"(p), "l"(keep_policy));
      v = static_cast<Value>(f);
    } else {
      double d;
      asm volatile("ld.global.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(d) : "l"(p), "l"(keep_policy));
      v = static_cast<Value>(d);
    }
    return v;
  } else {
    (void)keep_policy;
    return gather_x(a, column);
  }
}

template <int Hints, class Index, class Value>
__device__ __forceinline__ void write_row_hinted(const spmv_arguments<Index, Value>& a, long long row, Value sum) {
  if constexpr ((Hints & spmv_stream_y) != 0) {
    __stcs(a.y + row, a.beta == Value(0) ? a.alpha * sum : a.alpha * sum + a.beta * a.y[row]);
  } else {
    write_row(a, row, sum);
  }
}

// The L2 policy of the keep-x hint (evict last, the whole access).
template <int Hints>
__device__ __forceinline__ unsigned long long keep_x_policy() {
  unsigned long long policy = 0;
  if constexpr ((Hints & spmv_keep_x) != 0) {
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  }
  return policy;
}

// Where the tiles kernel leaves each tile's carry for the fix-up (both nullptr for a launch of one
// tile, which closes every row itself).
template <class Value>
struct spmv_carries {
  Value* sums;             // carries[t]: tile t's sum after its last row end
  long long* rows;         // carry_rows[t]: the row that sum belongs to (rows for the last tile)
};

template <class Policy, class Index, class Value>
struct spmv_merge_storage {
  static constexpr bool staged = Policy::loads == spmv_nonzero_loads::staged;
  static constexpr bool per_thread = Policy::loads == spmv_nonzero_loads::per_thread;
  static constexpr int tile_items = Policy::tile_items;
  using item_t = segment_item<Value>;
  using block_scan = block_scan_t<Policy::algorithm, item_t, Policy::block_threads>;
  using index_stage = range_stage<Index, Policy::block_threads>;
  using value_stage = range_stage<Value, Policy::block_threads>;
  alignas(16) Index columns[staged ? index_stage::capacity(tile_items) : 1];
  alignas(16) Value values[staged ? value_stage::capacity(tile_items) : (per_thread ? 1 : tile_items)];  // products
  alignas(16) Index row_ends[index_stage::capacity(tile_items)];
  typename block_scan::storage scan;
};

template <spmv_nonzero_loads Loads, class T>
__device__ __forceinline__ T load_nonzero(const T* p) {
  if constexpr (Loads == spmv_nonzero_loads::streaming || Loads == spmv_nonzero_loads::per_thread) {
    return __ldcs(p);
  } else {
    return *p;
  }
}

// Step 1: the tile's products at products[0, tile_nonzeros) of shared memory (returned), its row
// ends at row_ends[end_at, ...); visible to the whole block on return.
template <class Policy, class Index, class Value, class Storage>
__device__ __forceinline__ const Value* tile_products(const spmv_arguments<Index, Value>& a,
                                                      const merge_coordinate& begin, const merge_coordinate& end,
                                                      Storage& s, int& end_at) {
  constexpr int K = Policy::items_per_thread;
  constexpr int threads = Policy::block_threads;
  const int tile_nonzeros = static_cast<int>(end.nonzero - begin.nonzero);
  const unsigned long long keep = keep_x_policy<Policy::cache_hints>();
  end_at = Storage::index_stage::issue(s.row_ends, a.offsets, begin.row + 1, end.row + 1, a.rows + 1);
  if constexpr (Storage::staged) {
    const int column_at = Storage::index_stage::issue(s.columns, a.columns, begin.nonzero, end.nonzero, a.nnz);
    const int value_at = Storage::value_stage::issue(s.values, a.values, begin.nonzero, end.nonzero, a.nnz);
    Storage::index_stage::wait();
    __syncthreads();
    Value x[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = k * threads + static_cast<int>(threadIdx.x);
      if (j < tile_nonzeros) x[k] = gather_x_hinted<Policy::cache_hints>(a, s.columns[column_at + j], keep);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = k * threads + static_cast<int>(threadIdx.x);
      if (j < tile_nonzeros) s.values[value_at + j] *= x[k];
    }
    __syncthreads();
    return s.values + value_at;
  } else {
    // All K columns and values in flight, then all K gathers, then the products.
    Index column[K];
    Value value[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = k * threads + static_cast<int>(threadIdx.x);
      if (j < tile_nonzeros) {
        column[k] = load_nonzero<Policy::loads>(a.columns + begin.nonzero + j);
        value[k] = load_nonzero<Policy::loads>(a.values + begin.nonzero + j);
      }
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int j = k * threads + static_cast<int>(threadIdx.x);
      if (j < tile_nonzeros) s.values[j] = value[k] * gather_x_hinted<Policy::cache_hints>(a, column[k], keep);
    }
    Storage::index_stage::wait();
    __syncthreads();
    return s.values;
  }
}

template <class Policy, class Index, class Value>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks_per_sm)
    spmv_merge_kernel(const spmv_arguments<Index, Value> a, const merge_coordinate* coordinates,
                      const spmv_carries<Value> carries) {
  constexpr int K = Policy::items_per_thread;
  static_assert(K <= 32, "a thread's row ends are one 32-bit mask");
  using item_t = segment_item<Value>;
  using storage_t = spmv_merge_storage<Policy, Index, Value>;
  const segmented_op<plus_op> combine{};
  __shared__ storage_t s;

  merge_coordinate begin{0, 0}, end{a.rows, a.nnz};
  if (coordinates != nullptr) {
    begin = coordinates[blockIdx.x];
    end = coordinates[blockIdx.x + 1];
  }
  const int tile_rows = static_cast<int>(end.row - begin.row);
  const int tile_nonzeros = static_cast<int>(end.nonzero - begin.nonzero);
  const int tile_items = tile_rows + tile_nonzeros;

  // 1. The products (or, per thread, only the row ends) in shared memory.
  int end_at;
  const Value* products = nullptr;
  if constexpr (storage_t::per_thread) {
    end_at = storage_t::index_stage::issue(s.row_ends, a.offsets, begin.row + 1, end.row + 1, a.rows + 1);
    storage_t::index_stage::wait();
    __syncthreads();
  } else {
    products = tile_products<Policy>(a, begin, end, s, end_at);
  }
  // Row r's end as a position among the tile's nonzeros (32-bit from here on).
  const auto row_end = [&](int r) { return static_cast<int>(s.row_ends[end_at + r] - begin.nonzero); };
  // The merge coordinate (rows, nonzeros consumed) of tile position d.
  const auto search = [&](int d) {
    int lo = d > tile_nonzeros ? d - tile_nonzeros : 0;
    int hi = d < tile_rows ? d : tile_rows;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (row_end(mid) <= d - mid - 1) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  };

  // 2. This thread's positions of the tile's list.
  const int first = static_cast<int>(threadIdx.x) * K < tile_items ? static_cast<int>(threadIdx.x) * K : tile_items;
  int row = search(first);
  int nonzero = first - row;
  const int first_row = row;
  Value running = Value(0);
  Value sums[K];
  unsigned ends = 0;
  if constexpr (storage_t::per_thread) {
    // This thread's nonzeros [nonzero, last): read and multiplied in registers, then consumed in
    // order from the front of the queue (fixed register moves, no local memory).
    const int stop = first + K < tile_items ? first + K : tile_items;
    const int count = (stop - search(stop)) - nonzero;
    const unsigned long long keep = keep_x_policy<Policy::cache_hints>();
    Index column[K];
    Value queue[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k < count) {
        column[k] = load_nonzero<Policy::loads>(a.columns + begin.nonzero + nonzero + k);
        queue[k] = load_nonzero<Policy::loads>(a.values + begin.nonzero + nonzero + k);
      }
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k < count) queue[k] *= gather_x_hinted<Policy::cache_hints>(a, column[k], keep);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (first + k < tile_items) {
        if (nonzero >= tile_nonzeros || (row < tile_rows && row_end(row) <= nonzero)) {
          sums[k] = running;
          running = Value(0);
          ends |= 1u << k;
          ++row;
        } else {
          running += queue[0];
#pragma unroll
          for (int q = 0; q + 1 < K; ++q) queue[q] = queue[q + 1];
          ++nonzero;
        }
      }
    }
  } else {
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
      write_row_hinted<Policy::cache_hints>(a, begin.row + r,
                                            open_row_continues ? scanned.exclusive.value + sums[k] : sums[k]);
      open_row_continues = false;
      ++r;
    }
  }
}

}  // namespace scankit::device_detail
