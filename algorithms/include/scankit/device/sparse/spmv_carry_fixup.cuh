// Device layer of the sparse module: the merge-path SpMV's second launch, which adds to each row
// that crosses tile boundaries the carries of the tiles it spans.
//
// The tiles kernel leaves, per tile t, its carry (its sum after its last row end) and the row it
// belongs to. Consecutive tiles with the same open row form a run (a row of 10 M nonzeros is a run
// of thousands of tiles). The engine's segmented scan by key over (row, carry) sums each run in
// tile order, so the result is deterministic and a long run costs its share; its store goes
// through open_row_sink, which at the last tile of each run adds alpha * (run sum) to y[row]. The
// row's closing tile has already written alpha * (its part) + beta * y[row] there.
//
// Memory order: the tiles kernel's stores of carries and y are complete at the end of its launch,
// before this one starts (stream order); each row gets one add, from the one run that ends on it.
#pragma once

#include "scankit/device/kernel/segment_heads.cuh"
#include "scankit/device/kernel/segmented_scan_kernel.cuh"
#include "scankit/device/policy/scan_policy.cuh"
#include "scankit/device/sparse/spmv_merge_kernel.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/operators.hpp"

namespace scankit::device_detail {

// The segmented scan's output: out[t] = run sum up to tile t; only a run's last tile acts.
// Rows at or past the row count (rows, or the count in device memory when rows_device is set) are
// the last tile's and the empty tiles' carry rows: they exist in no y.
template <class Value>
struct open_row_sink {
  const long long* carry_rows;
  long long tiles;
  long long rows;
  const std::int64_t* rows_device;
  Value* y;
  Value alpha;

  struct slot {
    const long long* carry_rows;
    long long tiles, rows, t;
    const std::int64_t* rows_device;
    Value* y;
    Value alpha;
    __device__ __forceinline__ void operator=(Value run_sum) const {
      const long long row = carry_rows[t];
      if (row < items_to_process(rows, rows_device) && (t + 1 == tiles || carry_rows[t + 1] != row)) {
        y[row] += alpha * run_sum;
      }
    }
  };
  __device__ __forceinline__ slot operator[](long long t) const {
    return {carry_rows, tiles, rows, t, rows_device, y, alpha};
  }
};

// The fix-up's segmented scan: tuned for (Value, 8-byte row keys).
template <class Value>
using carry_scan_policy = typename segmented_scan_tuning<Value, long long>::policy;

template <class Value>
using carry_heads = key_change_source<const long long*, equal_to_op, carry_scan_policy<Value>::items_per_thread,
                                      carry_scan_policy<Value>::block_threads>;

template <class Value>
using carry_scan_args = segmented_scan_args<Value, const Value*, carry_heads<Value>, open_row_sink<Value>>;

template <class Value>
long long carry_scan_tiles(long long tiles) {
  return (tiles + carry_scan_policy<Value>::tile_items - 1) / carry_scan_policy<Value>::tile_items;
}

// Enqueues the fix-up of `tiles` carries; `pass` is the context of carry_scan_tiles(tiles) tiles
// (unused when they fit one).
template <class Index, class Value>
void launch_carry_fixup(const spmv_arguments<Index, Value>& a, const spmv_carries<Value>& carries, long long tiles,
                        const single_pass_context<segment_item<Value>>& pass, cudaStream_t stream) {
  using policy = carry_scan_policy<Value>;
  carry_scan_args<Value> args{};
  args.values = carries.sums;
  args.heads = carry_heads<Value>{carries.rows, tiles, equal_to_op{}};
  args.out = open_row_sink<Value>{carries.rows, tiles, a.rows, a.rows_device, a.y, a.alpha};
  args.n = tiles;
  args.exclusive = false;
  args.init = Value(0);
  const long long scan_tiles = carry_scan_tiles<Value>(tiles);
  if (scan_tiles > 1) args.pass = pass;
  launch_kernel("spmv_carry_fixup (segmented_scan_kernel)",
                segmented_scan_kernel<policy, Value, const Value*, carry_heads<Value>, open_row_sink<Value>, plus_op>,
                static_cast<unsigned>(scan_tiles), policy::block_threads, stream, args, plus_op{});
}

}  // namespace scankit::device_detail
