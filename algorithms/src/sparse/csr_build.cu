// CSR construction on the GPU (scankit/sparse/csr_build.hpp): the row-offsets kernel, and COO to
// CSR as pack -> radix sort (scankit::sort_pairs) -> duplicates summed (scankit::reduce_by_key)
// -> unpack -> row offsets, with the entries' count read back to size a device_csr, or kept on the
// device (counts in device memory, caller's arrays).
#include "scankit/sparse/csr_build.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/sparse/csr_build_kernels.cuh"
#include "scankit/device/util/copy_items.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"
#include "scankit/sort.hpp"
#include "scankit/reduce_by_key.hpp"
#include "stream_scratch.hpp"

namespace scankit::sparse {
namespace {

using precompiled::grid_for;
template <class T>
using scratch = precompiled::stream_scratch<T>;

// Bits that hold every index below `count` (0 for count <= 1).
template <class Index>
int index_bits(Index count) {
  int bits = 0;
  for (auto largest = static_cast<std::uint64_t>(count <= 1 ? 0 : count - 1); largest != 0; largest >>= 1) ++bits;
  return bits;
}

template <class Index>
void row_offsets(const char* function, const Index* rows, device_detail::item_count nnz, Index n_rows, Index* offsets,
                 cudaStream_t stream) {
  detail::check_count(function, nnz);
  if (n_rows < 0) throw error(std::string(function) + ": n_rows = " + std::to_string(n_rows) + " is negative");
  detail::check_pointer(function, "rows", rows, nnz);
  detail::check_pointer(function, "offsets", offsets, static_cast<std::int64_t>(n_rows) + 1);
  device_detail::launch_kernel("row_offsets_kernel", device_detail::row_offsets_kernel<Index>, grid_for(nnz + 1), 256,
                               stream, rows, static_cast<long long>(nnz.bound), nnz.device, n_rows, offsets);
}

// The front of both COO-to-CSR forms: pack each triplet's (row, column) into a key (outside_key
// for one out of range, whose index goes to first_bad), sort the keys with their values by the
// low key_bits, and sum the duplicates: the distinct keys end in `keys`, their sums in `sums`, and
// their number in *runs (device memory).
template <class Index, class Value>
void sort_and_sum_entries(const Index* rows, const Index* cols, const Value* values, device_detail::item_count nnz,
                          Index n_rows, Index n_cols, int col_bits, int key_bits, std::uint64_t outside_key,
                          std::uint64_t* keys, std::uint64_t* sorted_keys, Value* sorted_values, Value* sums,
                          std::int64_t* runs, std::uint64_t* first_bad, cudaStream_t stream, workspace* ws) {
  device_detail::launch_kernel("pack_coordinates_kernel", device_detail::pack_coordinates_kernel<Index>,
                               grid_for(nnz.bound), 256, stream, rows, cols, static_cast<long long>(nnz.bound),
                               nnz.device, n_rows, n_cols, col_bits, static_cast<unsigned long long>(outside_key),
                               reinterpret_cast<unsigned long long*>(keys),
                               reinterpret_cast<unsigned long long*>(first_bad));
  sort_options by_position;
  by_position.end_bit = key_bits;
  const auto sort_and_sum = [&](auto count) {
    scankit::sort_pairs(keys, sorted_keys, values, sorted_values, count, stream, ws, by_position);
    scankit::reduce_by_key(sorted_keys, sorted_values, keys, sums, runs, count, scan_op::plus, stream, ws);
  };
  if (nnz.device != nullptr) {
    sort_and_sum(device_n{nnz.device, nnz.bound});
  } else {
    sort_and_sum(nnz.bound);
  }
}

template <class Index, class Value>
device_csr<Index, Value> coo_to_csr(const Index* rows, const Index* cols, const Value* values, std::int64_t nnz,
                                    Index n_rows, Index n_cols, cudaStream_t stream, workspace* ws,
                                    device_memory_resource* resource) {
  const char* function = "scankit::sparse::coo_to_csr";
  const ::scankit::detail::nvtx_range nvtx(function);
  detail::check_count(function, nnz);
  if (n_rows < 0 || n_cols < 0) {
    throw error(std::string(function) + ": negative size " + std::to_string(n_rows) + " x " + std::to_string(n_cols));
  }
  detail::check_pointer(function, "rows", rows, nnz);
  detail::check_pointer(function, "cols", cols, nnz);
  detail::check_pointer(function, "values", values, nnz);
  const int col_bits = index_bits(n_cols);
  const int key_bits = index_bits(n_rows) + col_bits;
  if (key_bits > 64) {
    throw error(std::string(function) + ": a " + std::to_string(n_rows) + " x " + std::to_string(n_cols) +
                " matrix needs " + std::to_string(key_bits) + " bits per (row, column) key, more than 64");
  }
  if (nnz > 0 && (n_rows == 0 || n_cols == 0)) {
    throw error(std::string(function) + ": entries in a matrix of size " + std::to_string(n_rows) + " x " +
                std::to_string(n_cols));
  }
  const auto count = static_cast<std::size_t>(nnz);
  scratch<std::uint64_t> keys(count, stream), sorted_keys(count, stream), bad(1, stream);
  scratch<Value> sorted_values(count, stream), sums(count, stream);
  scratch<std::int64_t> runs(1, stream);
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(bad.get(), 0xff, sizeof(unsigned long long), stream));
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(runs.get(), 0, sizeof(std::int64_t), stream));
  if (nnz > 0) {
    sort_and_sum_entries(rows, cols, values, nnz, n_rows, n_cols, col_bits, key_bits, 0, keys.get(), sorted_keys.get(),
                         sorted_values.get(), sums.get(), runs.get(), bad.get(), stream, ws);
  }
  std::uint64_t first_bad = 0;
  std::int64_t entries = 0;
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&first_bad, bad.get(), sizeof(first_bad), cudaMemcpyDeviceToHost, stream));
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&entries, runs.get(), sizeof(entries), cudaMemcpyDeviceToHost, stream));
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (first_bad != ~std::uint64_t{0}) {
    Index r = 0, c = 0;
    SCANKIT_CUDA_CHECK(cudaMemcpy(&r, rows + first_bad, sizeof(Index), cudaMemcpyDeviceToHost));
    SCANKIT_CUDA_CHECK(cudaMemcpy(&c, cols + first_bad, sizeof(Index), cudaMemcpyDeviceToHost));
    throw error(std::string(function) + ": entry " + std::to_string(first_bad) + " at (" + std::to_string(r) + ", " +
                std::to_string(c) + ") lies outside the " + std::to_string(n_rows) + " x " + std::to_string(n_cols) +
                " matrix");
  }
  device_csr<Index, Value> csr(n_rows, n_cols, entries, stream, resource);
  if (entries > 0) {
    auto* sorted_rows = reinterpret_cast<Index*>(sorted_keys.get());  // free again: the keys are in `keys`
    device_detail::launch_kernel("unpack_coordinates_kernel", device_detail::unpack_coordinates_kernel<Index>,
                                 grid_for(entries), 256, stream, reinterpret_cast<const unsigned long long*>(keys.get()),
                                 static_cast<const std::int64_t*>(runs.get()), col_bits, sorted_rows, csr.columns());
    SCANKIT_CUDA_CHECK(
        cudaMemcpyAsync(csr.values(), sums.get(), entries * sizeof(Value), cudaMemcpyDeviceToDevice, stream));
    row_offsets(function, static_cast<const Index*>(sorted_rows), entries, n_rows, csr.offsets(), stream);
  } else {
    row_offsets(function, static_cast<const Index*>(nullptr), 0, n_rows, csr.offsets(), stream);
  }
  return csr;
}

// The same steps with every count on the device, into the caller's arrays: triplets out of range
// take the key of row n_rows, which sorts after every entry, and their run is then dropped.
template <class Index, class Value>
void coo_to_csr_device(const Index* rows, const Index* cols, const Value* values, device_n nnz, Index n_rows,
                       Index n_cols, Index* offsets, Index* columns, Value* out_values, std::int64_t* entries,
                       std::int64_t* first_bad, cudaStream_t stream, workspace* ws) {
  const char* function = "scankit::sparse::coo_to_csr";
  const ::scankit::detail::nvtx_range nvtx(function);
  detail::check_device_n(function, nnz);
  if (n_rows < 0 || n_cols < 0) {
    throw error(std::string(function) + ": negative size " + std::to_string(n_rows) + " x " + std::to_string(n_cols));
  }
  detail::check_pointer(function, "rows", rows, nnz.bound);
  detail::check_pointer(function, "cols", cols, nnz.bound);
  detail::check_pointer(function, "values", values, nnz.bound);
  detail::check_pointer(function, "columns", columns, nnz.bound);
  detail::check_pointer(function, "out_values", out_values, nnz.bound);
  detail::check_pointer(function, "offsets", offsets, static_cast<std::int64_t>(n_rows) + 1);
  detail::check_pointer(function, "entries", entries, 1);
  detail::check_count_not_written(function, nnz, entries);
  detail::check_count_not_written(function, nnz, first_bad);
  if (first_bad != nullptr && first_bad == entries) throw error(std::string(function) + ": first_bad is entries");
  const int col_bits = index_bits(n_cols);
  const int key_bits = index_bits<std::int64_t>(static_cast<std::int64_t>(n_rows) + 1) + col_bits;
  if (key_bits > 64) {
    throw error(std::string(function) + ": a " + std::to_string(n_rows) + " x " + std::to_string(n_cols) +
                " matrix needs " + std::to_string(key_bits) + " bits per (row, column) key, more than 64");
  }
  const std::uint64_t outside_key = static_cast<std::uint64_t>(n_rows) << col_bits;
  const auto count = static_cast<std::size_t>(nnz.bound);
  scratch<std::uint64_t> keys(count, stream), sorted_keys(count, stream), bad(first_bad == nullptr ? 1 : 0, stream);
  scratch<Value> sorted_values(count, stream), sums(count, stream);
  auto* first_outside = first_bad != nullptr ? reinterpret_cast<std::uint64_t*>(first_bad) : bad.get();
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(first_outside, 0xff, sizeof(std::uint64_t), stream));  // -1: none
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(entries, 0, sizeof(std::int64_t), stream));
  if (nnz.bound > 0) {
    sort_and_sum_entries(rows, cols, values, device_detail::item_count(nnz), n_rows, n_cols, col_bits, key_bits,
                         outside_key, keys.get(), sorted_keys.get(), sorted_values.get(), sums.get(), entries,
                         first_outside, stream, ws);
    device_detail::launch_kernel("drop_outside_run_kernel", device_detail::drop_outside_run_kernel<std::uint64_t>, 1, 1,
                                 stream, static_cast<const std::uint64_t*>(keys.get()), entries, outside_key);
    auto* sorted_rows = reinterpret_cast<Index*>(sorted_keys.get());  // free again: the keys are in `keys`
    device_detail::launch_kernel("unpack_coordinates_kernel", device_detail::unpack_coordinates_kernel<Index>,
                                 grid_for(nnz.bound), 256, stream,
                                 reinterpret_cast<const unsigned long long*>(keys.get()),
                                 static_cast<const std::int64_t*>(entries), col_bits, sorted_rows, columns);
    const device_n distinct{entries, nnz.bound};
    device_detail::copy_items(static_cast<const Value*>(sums.get()), out_values, distinct, stream);
    row_offsets(function, static_cast<const Index*>(sorted_rows), distinct, n_rows, offsets, stream);
  } else {
    row_offsets(function, static_cast<const Index*>(nullptr), 0, n_rows, offsets, stream);
  }
}

}  // namespace

template <class Index, class Value>
void csr_to_coo_rows(const csr_view<Index, Value>& a, Index* rows, cudaStream_t stream) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::csr_to_coo_rows");
  detail::check_pointer("scankit::sparse::csr_to_coo_rows", "rows", rows, a.nonzeros);
  if (a.nonzeros == 0) return;
  device_detail::launch_kernel("expand_rows_kernel", device_detail::expand_rows_kernel<Index>, grid_for(a.rows), 256,
                               stream, a.offsets, a.rows, rows);
}

template <class Index, class Value>
device_csr<Index, Value> transpose(const csr_view<Index, Value>& a, cudaStream_t stream, workspace* ws,
                                   device_memory_resource* resource) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::transpose");
  const auto nnz = a.nonzeros;
  device_csr<Index, Value> t(a.cols, a.rows, nnz, stream, resource);
  if (nnz == 0) {
    row_offsets("scankit::sparse::transpose", static_cast<const Index*>(nullptr), 0, a.cols, t.offsets(), stream);
    return t;
  }
  const auto count = static_cast<std::size_t>(nnz);
  scratch<Index> rows(count, stream), sorted_columns(count, stream), order(count, stream);
  csr_to_coo_rows(a, rows.get(), stream);
  sort_options by_column;
  by_column.end_bit = std::max(index_bits(a.cols), 1);
  scankit::argsort(a.columns, sorted_columns.get(), order.get(), nnz, stream, ws, by_column);  // stable
  device_detail::launch_kernel("gather_entries_kernel", device_detail::gather_entries_kernel<Index, Value>,
                               grid_for(nnz), 256, stream, static_cast<const Index*>(order.get()),
                               static_cast<long long>(nnz), static_cast<const Index*>(rows.get()), a.values,
                               t.columns(), t.values());
  row_offsets("scankit::sparse::transpose", static_cast<const Index*>(sorted_columns.get()), nnz, a.cols, t.offsets(),
              stream);
  return t;
}

template void csr_to_coo_rows(const csr_view<std::int32_t, float>&, std::int32_t*, cudaStream_t);
template void csr_to_coo_rows(const csr_view<std::int32_t, double>&, std::int32_t*, cudaStream_t);
template void csr_to_coo_rows(const csr_view<std::int64_t, float>&, std::int64_t*, cudaStream_t);
template void csr_to_coo_rows(const csr_view<std::int64_t, double>&, std::int64_t*, cudaStream_t);
template device_csr<std::int32_t, float> transpose(const csr_view<std::int32_t, float>&, cudaStream_t, workspace*, device_memory_resource*);
template device_csr<std::int32_t, double> transpose(const csr_view<std::int32_t, double>&, cudaStream_t, workspace*, device_memory_resource*);
template device_csr<std::int64_t, float> transpose(const csr_view<std::int64_t, float>&, cudaStream_t, workspace*, device_memory_resource*);
template device_csr<std::int64_t, double> transpose(const csr_view<std::int64_t, double>&, cudaStream_t, workspace*, device_memory_resource*);

void row_offsets_from_sorted_rows(const std::int32_t* rows, std::int64_t nnz, std::int32_t n_rows,
                                  std::int32_t* offsets, cudaStream_t stream) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::row_offsets_from_sorted_rows");
  row_offsets("scankit::sparse::row_offsets_from_sorted_rows", rows, nnz, n_rows, offsets, stream);
}
void row_offsets_from_sorted_rows(const std::int64_t* rows, std::int64_t nnz, std::int64_t n_rows,
                                  std::int64_t* offsets, cudaStream_t stream) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::row_offsets_from_sorted_rows");
  row_offsets("scankit::sparse::row_offsets_from_sorted_rows", rows, nnz, n_rows, offsets, stream);
}
void row_offsets_from_sorted_rows(const std::int32_t* rows, device_n nnz, std::int32_t n_rows, std::int32_t* offsets,
                                  cudaStream_t stream) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::row_offsets_from_sorted_rows");
  detail::check_device_n("scankit::sparse::row_offsets_from_sorted_rows", nnz);
  row_offsets("scankit::sparse::row_offsets_from_sorted_rows", rows, nnz, n_rows, offsets, stream);
}
void row_offsets_from_sorted_rows(const std::int64_t* rows, device_n nnz, std::int64_t n_rows, std::int64_t* offsets,
                                  cudaStream_t stream) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::row_offsets_from_sorted_rows");
  detail::check_device_n("scankit::sparse::row_offsets_from_sorted_rows", nnz);
  row_offsets("scankit::sparse::row_offsets_from_sorted_rows", rows, nnz, n_rows, offsets, stream);
}

#define SCANKIT_DEFINE_COO_TO_CSR(I, V)                                                                    \
  device_csr<I, V> coo_to_csr(const I* rows, const I* cols, const V* values, std::int64_t nnz, I n_rows,   \
                              I n_cols, cudaStream_t stream, workspace* ws,                                \
                              device_memory_resource* resource) {                                          \
    return coo_to_csr<I, V>(rows, cols, values, nnz, n_rows, n_cols, stream, ws, resource);                \
  }                                                                                                        \
  void coo_to_csr(const I* rows, const I* cols, const V* values, device_n nnz, I n_rows, I n_cols,         \
                  I* offsets, I* columns, V* out_values, std::int64_t* entries, std::int64_t* first_bad,   \
                  cudaStream_t stream, workspace* ws) {                                                    \
    coo_to_csr_device<I, V>(rows, cols, values, nnz, n_rows, n_cols, offsets, columns, out_values, entries, \
                            first_bad, stream, ws);                                                        \
  }
SCANKIT_DEFINE_COO_TO_CSR(std::int32_t, float)
SCANKIT_DEFINE_COO_TO_CSR(std::int32_t, double)
SCANKIT_DEFINE_COO_TO_CSR(std::int64_t, float)
SCANKIT_DEFINE_COO_TO_CSR(std::int64_t, double)
#undef SCANKIT_DEFINE_COO_TO_CSR

}  // namespace scankit::sparse
