// SpMV host side (scankit/sparse/spmv.hpp): argument checks, the offsets check and statistics,
// the kernel choice, the plan, and the launches. Included by one translation unit per (index,
// value) pair, spmv_<index>_<value>.cu, which instantiates it.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/sparse/csr_check_kernels.cuh"
#include "scankit/device/sparse/spmv_dispatch.cuh"
#include "scankit/device/sparse/spmv_transpose_kernel.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/tuning/tuning_spmv.cuh"
#include "scankit/error.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/spmv.hpp"
#include "spmv_column_blocks.cuh"
#include "stream_scratch.hpp"

namespace scankit::sparse {
namespace precompiled {

namespace dd = scankit::device_detail;

// The tuned shapes (scankit/device/tuning/tuning_spmv.cuh).
using spmv_table = dd::tuning::spmv_tuning_table;
template <class Index, class Value>
using merge_policy =
    dd::spmv_merge_policy<spmv_table::merge_path::block_threads, spmv_table::merge_path::items_per_thread>;
constexpr int vector_block_threads = spmv_table::vector::block_threads;
constexpr int vector_rows_in_flight = spmv_table::vector::rows_in_flight;
constexpr int vector_chunks = spmv_table::vector::chunks;
constexpr int transpose_items_per_thread = spmv_table::transpose::items_per_thread;

template <class Index, class Value>
long long merge_tiles(const csr_view<Index, Value>& m) {
  return dd::spmv_merge_tiles<merge_policy<Index, Value>>(m.rows, m.nonzeros);
}

template <class Index, class Value>
void check_matrix(const char* function, const csr_view<Index, Value>& a) {
  if (a.rows < 0 || a.cols < 0 || a.nonzeros < 0) {
    throw error(std::string(function) + ": negative size " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                " with " + std::to_string(a.nonzeros) + " nonzeros");
  }
  if (a.nonzeros > 0 && (a.rows == 0 || a.cols == 0)) {
    throw error(std::string(function) + ": " + std::to_string(a.nonzeros) + " nonzeros in a " +
                std::to_string(a.rows) + " x " + std::to_string(a.cols) + " matrix");
  }
  scankit::detail::check_pointer(function, "a.offsets", a.offsets, static_cast<std::int64_t>(a.rows) + 1);
  scankit::detail::check_pointer(function, "a.columns", a.columns, a.nonzeros);
  // a.values may be null: a pattern matrix, every stored entry 1
  if (merge_tiles(a) > INT_MAX) {
    throw error(std::string(function) + ": " + std::to_string(a.rows) + " rows and " + std::to_string(a.nonzeros) +
                " nonzeros need more than 2^31 - 1 tiles");
  }
}

template <class Index, class Value>
void check_vectors(const char* function, const csr_view<Index, Value>& a, spmv_operation operation,
                   dense_vector<const Value> x, dense_vector<Value> y) {
  const bool transposed = operation == spmv_operation::transpose;
  const std::int64_t x_needed = transposed ? a.rows : a.cols;
  const std::int64_t y_needed = transposed ? a.cols : a.rows;
  const char* shape = transposed ? "A^T" : "A";
  if (x.size != x_needed || y.size != y_needed) {
    throw error(std::string(function) + ": y (" + std::to_string(y.size) + ") = " + shape + " (" +
                std::to_string(y_needed) + " x " + std::to_string(x_needed) + ") * x (" + std::to_string(x.size) +
                "): sizes do not match");
  }
  scankit::detail::check_pointer(function, "x", x.data, x.size);
  scankit::detail::check_pointer(function, "y", y.data, y.size);
  const auto* xb = reinterpret_cast<const char*>(x.data);
  const auto* yb = reinterpret_cast<const char*>(y.data);
  if (x.size > 0 && y.size > 0 && xb < yb + y.size * sizeof(Value) && yb < xb + x.size * sizeof(Value)) {
    throw error(std::string(function) + ": x and y overlap");
  }
}

// The offsets check and the statistics (waits for the device).
template <class Index, class Value>
dd::csr_report report_rows(const csr_view<Index, Value>& a, cudaStream_t stream) {
  dd::csr_report report{LLONG_MAX, 0, 0};
  if (a.offsets == nullptr) return report;  // rows == 0 and no nonzeros: nothing to check
  precompiled::stream_scratch<dd::csr_report> device_report(1, stream);
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(device_report.get(), &report, sizeof(report), cudaMemcpyHostToDevice, stream));
  dd::launch_kernel("csr_offsets_kernel", dd::csr_offsets_kernel<Index>, precompiled::grid_for(a.rows + 1LL), 256, stream,
                    a.offsets, static_cast<long long>(a.rows), static_cast<long long>(a.nonzeros),
                    device_report.get());
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&report, device_report.get(), sizeof(report), cudaMemcpyDeviceToHost, stream));
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return report;
}

template <class Index, class Value>
std::string describe_bad_offset(const csr_view<Index, Value>& a, long long r) {
  Index here = 0, next = 0;
  SCANKIT_CUDA_CHECK(cudaMemcpy(&here, a.offsets + r, sizeof(Index), cudaMemcpyDeviceToHost));
  std::string text = "offsets[" + std::to_string(r) + "] = " + std::to_string(here);
  if (r < static_cast<long long>(a.rows)) {
    SCANKIT_CUDA_CHECK(cudaMemcpy(&next, a.offsets + r + 1, sizeof(Index), cudaMemcpyDeviceToHost));
    text += ", offsets[" + std::to_string(r + 1) + "] = " + std::to_string(next);
  }
  return text + " (offsets must start at 0, never decrease and end at the " + std::to_string(a.nonzeros) +
         " nonzeros)";
}

template <class Index, class Value>
csr_row_statistics statistics_of(const csr_view<Index, Value>& a, const dd::csr_report& report) {
  csr_row_statistics s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.nonzeros = a.nonzeros;
  s.max_row_length = static_cast<std::int64_t>(report.max_row_length);
  s.empty_rows = static_cast<std::int64_t>(report.empty_rows);
  return s;
}

template <class Index, class Value>
csr_row_statistics checked_statistics(const char* function, const csr_view<Index, Value>& a, cudaStream_t stream) {
  check_matrix(function, a);
  const dd::csr_report report = report_rows(a, stream);
  if (report.first_bad != LLONG_MAX) {
    throw error(std::string(function) + ": invalid CSR matrix: " + describe_bad_offset(a, report.first_bad));
  }
  return statistics_of(a, report);
}

// Lanes per row for the vector kernel: about three nonzeros per lane (the two chunks loaded ahead
// cover rows of up to 2 x width).
inline int vector_width_for(const csr_row_statistics& s) {
  const double third = s.mean_row_length() / 3.0;
  int width = 2;
  while (width < 32 && width < third) width *= 2;
  return width;
}

// The automatic choice: rows about equally long and none empty go to the vector kernel, the rest
// to merge_path (docs/spmv.md has the measurements behind it).
inline spmv_kernel choose_kernel(const csr_row_statistics& s) {
  const double mean = s.mean_row_length();
  const bool even_rows = s.rows > 0 && static_cast<double>(s.max_row_length) <= 2.0 * mean + 8.0 && s.empty_rows == 0;
  return even_rows ? spmv_kernel::vector : spmv_kernel::merge_path;
}

template <class Index, class Value>
dd::spmv_arguments<Index, Value> arguments_of(const csr_view<Index, Value>& m, const Value* x, Value* y, Value alpha,
                                              Value beta) {
  return {m.offsets, m.columns, m.values, static_cast<long long>(m.rows), static_cast<long long>(m.cols),
          static_cast<long long>(m.nonzeros), x, y, alpha, beta};
}

// n_device: y's count in device memory (n is then its bound), or null.
template <class Value>
void scale(Value* y, long long n, Value beta, cudaStream_t stream, const std::int64_t* n_device = nullptr) {
  if (n == 0) return;
  dd::launch_kernel("spmv_scale_kernel", dd::spmv_scale_kernel<Value>, precompiled::grid_for(n), 256, stream, y, n, beta,
                    n_device);
}

template <class Index, class Value>
void run_merge(const dd::spmv_arguments<Index, Value>& args, const dd::merge_coordinate* partition,
               cudaStream_t stream, workspace* ws) {
  dd::run_spmv_merge<merge_policy<Index, Value>>(args, partition, stream, ws);
}

template <class Index, class Value>
void run_vector(const dd::spmv_arguments<Index, Value>& args, int width, cudaStream_t stream) {
  dd::run_spmv_vector<vector_rows_in_flight, vector_chunks, vector_block_threads>(args, width, stream);
}

// y = alpha * A^T x + beta * y; with args.rows_device, over A's counted rows (every column of y is
// scaled either way).
template <class Index, class Value>
void run_transpose_atomic(const dd::spmv_arguments<Index, Value>& args, cudaStream_t stream) {
  scale(args.y, args.cols, args.beta, stream);
  if (args.nnz == 0) return;
  constexpr int K = transpose_items_per_thread;
  const long long threads = (args.rows + args.nnz + K - 1) / K;
  const auto blocks = static_cast<unsigned>((threads + 255) / 256);
  dd::launch_kernel("spmv_transpose_atomic_kernel", dd::spmv_transpose_atomic_kernel<K, Index, Value>, blocks, 256,
                    stream, args);
}

inline void check_options(const char* function, const spmv_options& options) {
  const int w = options.vector_width;
  if (w != 0 && (w < 2 || w > 32 || (w & (w - 1)) != 0)) {
    throw error(std::string(function) + ": vector_width = " + std::to_string(w) + " is not 0 or a power of two in 2..32");
  }
  const int blocks = options.column_blocks;
  if (blocks < 0 || blocks > max_column_blocks) {
    throw error(std::string(function) + ": column_blocks = " + std::to_string(blocks) + " is not in 0.." +
                std::to_string(max_column_blocks));
  }
  if (blocks > 1 && options.operation == spmv_operation::transpose) {
    throw error(std::string(function) + ": column_blocks = " + std::to_string(blocks) + " with A^T (blocks are for y = A x)");
  }
  if (blocks > 1 && options.kernel == spmv_kernel::vector) {
    throw error(std::string(function) + ": column_blocks = " + std::to_string(blocks) + " needs the merge-path kernel");
  }
}

inline spmv_kernel resolved_kernel(const spmv_options& options, const csr_row_statistics& s) {
  return options.kernel == spmv_kernel::automatic ? choose_kernel(s) : options.kernel;
}

inline int resolved_width(const spmv_options& options, const csr_row_statistics& s) {
  return options.vector_width != 0 ? options.vector_width : vector_width_for(s);
}

template <class Index, class Value>
void spmv_once(Value alpha, const csr_view<Index, Value>& a, dense_vector<const Value> x, Value beta,
               dense_vector<Value> y, cudaStream_t stream, workspace* ws, const spmv_options& options) {
  const char* function = "scankit::sparse::spmv";
  const ::scankit::detail::nvtx_range nvtx(function);
  check_options(function, options);
  check_matrix(function, a);
  check_vectors(function, a, options.operation, x, y);
  const csr_row_statistics s = checked_statistics(function, a, stream);
  if (y.size == 0) return;
  if (alpha == Value(0)) return scale(y.data, y.size, beta, stream);
  if (options.operation == spmv_operation::transpose) {
    return run_transpose_atomic(arguments_of(a, x.data, y.data, alpha, beta), stream);
  }
  const auto args = arguments_of(a, x.data, y.data, alpha, beta);
  if (resolved_kernel(options, s) == spmv_kernel::vector) return run_vector(args, resolved_width(options, s), stream);
  run_merge(args, static_cast<const dd::merge_coordinate*>(nullptr), stream, ws);
}

// The rows' count in device memory: no analysis and no wait, so the kernel comes from the options
// (automatic: merge_path, which costs every row its share whatever the lengths; vector: its width,
// or one from the bounds' mean row length) and the launches are sized for the bounds.
template <class Index, class Value>
void spmv_counted(Value alpha, const csr_view<Index, Value>& a, device_n rows, dense_vector<const Value> x, Value beta,
                  dense_vector<Value> y, cudaStream_t stream, workspace* ws, const spmv_options& options) {
  const char* function = "scankit::sparse::spmv";
  const ::scankit::detail::nvtx_range nvtx(function);
  ::scankit::detail::check_device_n(function, rows);
  if (rows.bound != static_cast<std::int64_t>(a.rows)) {
    throw error(std::string(function) + ": device_n.bound (" + std::to_string(rows.bound) + ") is not a.rows (" +
                std::to_string(a.rows) + "): the matrix's rows are the count's bound");
  }
  check_options(function, options);
  if (options.column_blocks > 1) {
    throw error(std::string(function) + ": column_blocks = " + std::to_string(options.column_blocks) +
                " needs a plan, which a row count in device memory cannot have");
  }
  check_matrix(function, a);
  check_vectors(function, a, options.operation, x, y);
  if (y.size == 0) return;
  const bool transposed = options.operation == spmv_operation::transpose;
  // y's count: the counted rows of A x; every column of A^T x.
  const std::int64_t* y_device = transposed ? nullptr : rows.count;
  if (alpha == Value(0)) return scale(y.data, y.size, beta, stream, y_device);
  auto args = arguments_of(a, x.data, y.data, alpha, beta);
  args.rows_device = rows.count;
  if (transposed) return run_transpose_atomic(args, stream);
  if (options.kernel == spmv_kernel::vector) {
    csr_row_statistics bounds;
    bounds.rows = a.rows;
    bounds.nonzeros = a.nonzeros;
    return run_vector(args, resolved_width(options, bounds), stream);
  }
  run_merge(args, static_cast<const dd::merge_coordinate*>(nullptr), stream, ws);
}

template <class Index, class Value>
void spmv_planned(const spmv_plan<Index, Value>& plan, Value alpha, dense_vector<const Value> x, Value beta,
                  dense_vector<Value> y, cudaStream_t stream, workspace* ws) {
  check_vectors("scankit::sparse::spmv", plan.matrix(), plan.operation(), x, y);
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::spmv");
  if (y.size == 0) return;
  if (alpha == Value(0)) return scale(y.data, y.size, beta, stream);
  if (plan.column_blocks() > 1) {  // the first block applies beta; the others add to y
    for (int b = 0; b < plan.column_blocks(); ++b) {
      run_merge(arguments_of(plan.block(b), x.data, y.data, alpha, b == 0 ? beta : Value(1)),
                static_cast<const dd::merge_coordinate*>(plan.block_partition(b)), stream, ws);
    }
    return;
  }
  const csr_view<Index, Value>& m = plan.operand();
  const auto args = arguments_of(m, x.data, y.data, alpha, beta);
  if (plan.kernel() == spmv_kernel::vector) return run_vector(args, plan.vector_width(), stream);
  run_merge(args, static_cast<const dd::merge_coordinate*>(plan.partition()), stream, ws);
}

}  // namespace precompiled

template <class Index, class Value>
csr_row_statistics analyse_rows(const csr_view<Index, Value>& a, cudaStream_t stream) {
  return precompiled::checked_statistics("scankit::sparse::analyse_rows", a, stream);
}

template <class Index, class Value>
csr_validation validate_csr(const csr_view<Index, Value>& a, bool sorted_columns, cudaStream_t stream) {
  namespace dd = scankit::device_detail;
  precompiled::check_matrix("scankit::sparse::validate_csr", a);
  csr_validation result;
  dd::csr_report report = precompiled::report_rows(a, stream);
  if (report.first_bad != LLONG_MAX) {
    result.valid = false;
    result.first_bad_row = report.first_bad;
    result.problem = precompiled::describe_bad_offset(a, report.first_bad);
    return result;
  }
  if (a.nonzeros == 0) return result;
  report = dd::csr_report{LLONG_MAX, 0, 0};
  precompiled::stream_scratch<dd::csr_report> device_report(1, stream);
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(device_report.get(), &report, sizeof(report), cudaMemcpyHostToDevice, stream));
  dd::launch_kernel("csr_columns_kernel", dd::csr_columns_kernel<Index>, precompiled::grid_for(a.rows * 32LL), 256, stream,
                    a.offsets, a.columns, static_cast<long long>(a.rows), static_cast<long long>(a.cols),
                    sorted_columns, device_report.get());
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&report, device_report.get(), sizeof(report), cudaMemcpyDeviceToHost, stream));
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (report.first_bad != LLONG_MAX) {
    result.valid = false;
    result.first_bad_row = report.first_bad;
    result.problem = "row " + std::to_string(report.first_bad) + " has a column outside [0, " + std::to_string(a.cols) +
                     ")" + (sorted_columns ? " or columns not strictly increasing" : "");
  }
  return result;
}

template <class Index, class Value>
spmv_plan<Index, Value>::spmv_plan(const csr_view<Index, Value>& a, const spmv_options& options, cudaStream_t stream,
                                   workspace* ws, device_memory_resource* resource)
    : matrix_(a),
      operand_(a),
      operation_(options.operation),
      resource_(resource != nullptr ? resource : default_resource()) {
  const char* function = "scankit::sparse::spmv_plan";
  const ::scankit::detail::nvtx_range nvtx(function);
  precompiled::check_options(function, options);
  statistics_ = precompiled::checked_statistics(function, a, stream);
  csr_row_statistics operand_statistics = statistics_;
  if (operation_ == spmv_operation::transpose) {
    transposed_ = new device_csr<Index, Value>(transpose(a, stream, ws, resource_));
    operand_ = csr_view<Index, Value>(*transposed_);
    operand_statistics = precompiled::statistics_of(operand_, precompiled::report_rows(operand_, stream));
    device_bytes_ += (static_cast<std::size_t>(a.cols) + 1) * sizeof(Index) +
                     static_cast<std::size_t>(a.nonzeros) * (sizeof(Index) + sizeof(Value));
  }
  kernel_ = precompiled::resolved_kernel(options, operand_statistics);
  vector_width_ = precompiled::resolved_width(options, operand_statistics);
  if (operation_ == spmv_operation::non_transpose) {
    column_blocks_ = options.column_blocks;
    if (column_blocks_ == 0) {
      column_blocks_ = kernel_ == spmv_kernel::merge_path ? precompiled::automatic_column_blocks(a, statistics_, stream) : 1;
    }
  }
  if (column_blocks_ > 1) {
    kernel_ = spmv_kernel::merge_path;
    make_column_blocks(stream, ws);
    return;
  }
  const long long tiles = precompiled::merge_tiles(operand_);
  if (kernel_ == spmv_kernel::merge_path && tiles > 1) {
    const std::size_t bytes = static_cast<std::size_t>(tiles + 1) * sizeof(device_detail::merge_coordinate);
    partition_ = device_buffer(bytes, stream, resource_);
    device_bytes_ += bytes;
    device_detail::launch_merge_partition<precompiled::merge_policy<Index, Value>>(
        operand_.offsets, static_cast<long long>(operand_.rows), static_cast<long long>(operand_.nonzeros),
        partition_.data_as<device_detail::merge_coordinate>(), stream);
  }
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// The blocks of A's columns (spmv_column_blocks.cuh), each with its merge-path partition.
template <class Index, class Value>
void spmv_plan<Index, Value>::make_column_blocks(cudaStream_t stream, workspace* ws) {
  namespace dd = scankit::device_detail;
  using policy = precompiled::merge_policy<Index, Value>;
  const auto layout = precompiled::column_block_layout<Index, Value>::of(matrix_, column_blocks_);
  block_storage_ = device_buffer(layout.bytes, stream, resource_);
  device_bytes_ += layout.bytes;
  const std::vector<long long> sizes =
      precompiled::cut_column_blocks(matrix_, column_blocks_, block_storage_.data(), nullptr, stream, ws);
  blocks_ = new column_block[static_cast<std::size_t>(column_blocks_)];
  auto* base = block_storage_.data_as<char>();
  long long before = 0, coordinates = 0;
  for (int b = 0; b < column_blocks_; ++b) {
    const auto* offsets = reinterpret_cast<const Index*>(base) + static_cast<std::size_t>(b) * (matrix_.rows + 1LL);
    blocks_[b].matrix = csr_view<Index, Value>(
        matrix_.rows, matrix_.cols, sizes[static_cast<std::size_t>(b)], offsets,
        reinterpret_cast<const Index*>(base + layout.columns_at) + before,
        reinterpret_cast<const Value*>(base + layout.values_at) + before);
    before += sizes[static_cast<std::size_t>(b)];
    const long long tiles = precompiled::merge_tiles(blocks_[b].matrix);
    if (tiles > 1) coordinates += tiles + 1;
  }
  if (coordinates > 0) {
    const std::size_t bytes = static_cast<std::size_t>(coordinates) * sizeof(dd::merge_coordinate);
    partition_ = device_buffer(bytes, stream, resource_);
    device_bytes_ += bytes;
  }
  auto* coordinate = partition_.data_as<dd::merge_coordinate>();
  for (int b = 0; b < column_blocks_; ++b) {
    const csr_view<Index, Value>& m = blocks_[b].matrix;
    const long long tiles = precompiled::merge_tiles(m);
    if (tiles <= 1) continue;
    dd::launch_merge_partition<policy>(m.offsets, static_cast<long long>(m.rows), static_cast<long long>(m.nonzeros),
                                       coordinate, stream);
    blocks_[b].partition = coordinate;
    coordinate += tiles + 1;
  }
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class Index, class Value>
void spmv_plan<Index, Value>::update_values(cudaStream_t stream, workspace* ws) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sparse::spmv_plan::update_values");
  if (column_blocks_ > 1) {
    std::vector<long long> sizes;
    for (int b = 0; b < column_blocks_; ++b) sizes.push_back(blocks_[b].matrix.nonzeros);
    precompiled::cut_column_blocks(matrix_, column_blocks_, block_storage_.data(), &sizes, stream, ws);
  } else if (transposed_ != nullptr) {
    *transposed_ = transpose(matrix_, stream, ws, resource_);
    operand_ = csr_view<Index, Value>(*transposed_);
  }
}

template <class Index, class Value>
void spmv_plan<Index, Value>::release() noexcept {
  partition_.reset();
  block_storage_.reset();
  delete transposed_;
  delete[] blocks_;
  transposed_ = nullptr;
  blocks_ = nullptr;
}

template <class Index, class Value>
spmv_plan<Index, Value>::~spmv_plan() {
  release();
}

template <class Index, class Value>
spmv_plan<Index, Value>::spmv_plan(spmv_plan&& other) noexcept {
  *this = std::move(other);
}

template <class Index, class Value>
spmv_plan<Index, Value>& spmv_plan<Index, Value>::operator=(spmv_plan&& other) noexcept {
  if (this != &other) {
    release();
    matrix_ = other.matrix_;
    operand_ = other.operand_;
    operation_ = other.operation_;
    statistics_ = other.statistics_;
    kernel_ = other.kernel_;
    vector_width_ = other.vector_width_;
    device_bytes_ = other.device_bytes_;
    resource_ = other.resource_;
    partition_ = std::move(other.partition_);
    transposed_ = std::exchange(other.transposed_, nullptr);
    column_blocks_ = std::exchange(other.column_blocks_, 1);
    blocks_ = std::exchange(other.blocks_, nullptr);
    block_storage_ = std::move(other.block_storage_);
    other.device_bytes_ = 0;
  }
  return *this;
}

template <class Index, class Value>
std::size_t spmv_workspace_bytes(const spmv_plan<Index, Value>& plan) {
  namespace dd = scankit::device_detail;
  long long tiles = precompiled::merge_tiles(plan.operand());
  if (plan.column_blocks() > 1) {  // the blocks' products run one after another in one workspace
    tiles = 0;
    for (int b = 0; b < plan.column_blocks(); ++b) tiles = std::max(tiles, precompiled::merge_tiles(plan.block(b)));
  }
  if (plan.kernel() != spmv_kernel::merge_path || tiles <= 1) return 0;
  const dd::spmv_merge_layout layout = dd::spmv_merge_workspace<Value>(tiles, false);  // the plan keeps the partition
  return workspace::bytes_needed(layout.state_slots, layout.scratch_bytes);
}

}  // namespace scankit::sparse

// The public overloads and the templates for one (index, value) pair.
#define SCANKIT_INSTANTIATE_SPMV(I, V)                                                                            \
  namespace scankit::sparse {                                                                                     \
  void spmv(V alpha, const csr_view<I, V>& a, dense_vector<const V> x, V beta, dense_vector<V> y,                 \
            cudaStream_t stream, workspace* ws, const spmv_options& options) {                                    \
    precompiled::spmv_once(alpha, a, x, beta, y, stream, ws, options);                                              \
  }                                                                                                               \
  void spmv(const spmv_plan<I, V>& plan, V alpha, dense_vector<const V> x, V beta, dense_vector<V> y,             \
            cudaStream_t stream, workspace* ws) {                                                                 \
    precompiled::spmv_planned(plan, alpha, x, beta, y, stream, ws);                                                 \
  }                                                                                                               \
  void spmv(V alpha, const csr_view<I, V>& a, device_n rows, dense_vector<const V> x, V beta, dense_vector<V> y,  \
            cudaStream_t stream, workspace* ws, const spmv_options& options) {                                    \
    precompiled::spmv_counted(alpha, a, rows, x, beta, y, stream, ws, options);                                     \
  }                                                                                                               \
  template class spmv_plan<I, V>;                                                                                 \
  template csr_row_statistics analyse_rows(const csr_view<I, V>&, cudaStream_t);                                  \
  template csr_validation validate_csr(const csr_view<I, V>&, bool, cudaStream_t);                                \
  template std::size_t spmv_workspace_bytes(const spmv_plan<I, V>&);                                              \
  }
