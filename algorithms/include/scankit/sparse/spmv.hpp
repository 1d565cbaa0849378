// Sparse matrix times dense vector: y = alpha * op(A) * x + beta * y for a CSR matrix A in device
// memory, op(A) = A or A^T. Precompiled host API (callable from g++-compiled code) for indices
// std::int32_t / std::int64_t and values float / double; device pointers; work enqueued on `stream`.
//
//   spmv(alpha, a, x, beta, y, stream, ws, options)
//       One call. It first checks a's offsets on the GPU (offsets[0] = 0, non-decreasing,
//       offsets[rows] = nonzeros), waits for that check, and rejects a bad matrix with
//       scankit::error before anything is written; then picks a kernel from the row lengths.
//
//   spmv_plan plan(a, options, stream);  spmv(plan, alpha, x, beta, y, stream, ws)
//       The analysis done once and kept (as cusparseSpMV_preprocess): the offsets check, the
//       row-length statistics, the kernel chosen, the merge-path partition of the rows and
//       nonzeros among tiles, and for A^T the transposed matrix. A call with a plan neither waits
//       for the device nor allocates (with a warmed workspace), so it can be captured in a CUDA
//       graph. The plan keeps a's pointers: the arrays must stay alive and their structure
//       unchanged; a's values may change between calls, except where the plan holds a copy of
//       them (a transposed plan, or one with column blocks): then call plan.update_values().
//
//   spmv(alpha, a, rows, x, beta, y, stream, ws, options)
//       The product over A's first *rows.count rows, the count in device memory (scankit::device_n,
//       device_n.hpp), as an earlier step on the GPU left it (a frontier, a filtered row set): for
//       A x, y[r] = alpha * (row r of A) x + beta * y[r] for r below the count, y past it untouched;
//       for A^T x, y = alpha * (A's counted rows)^T x + beta * y. a.rows is the count's bound and
//       a.nonzeros the nonzeros' bound (the arrays hold that many); the product reads offsets
//       [0, count] and the nonzeros below offsets[count] (clamped to the bound). It neither checks
//       the offsets nor analyses the rows (both would wait), so the kernel is the options' one:
//       automatic means merge_path; vector takes options.vector_width, or one from the bounds' mean
//       row length. Invalid offsets give a wrong product, never an access outside the arrays.
//       Capturable in a CUDA graph (with a warmed workspace, it allocates nothing).
//
// Column blocks (plans only): when x is larger than the GPU's L2 cache and its gathers are
// scattered, a merge-path plan cuts A into column blocks (a copy of A's columns and values, in
// block order) and runs one product per block, each gathering from a slice of x that stays in
// the L2; the passes after the first add to y. spmv_options::column_blocks chooses.
//
// Pattern matrices: a.values == nullptr stands for every stored entry being 1 (a graph's adjacency
// matrix). The product then reads no values, only the columns; plans, column blocks and A^T take
// it too (the copies they make hold ones).
//
// Kernels (spmv_kernel):
//   merge_path  load-balanced: tiles take equal shares of the merged list of row ends and
//               nonzeros, threads equal shares of their tile's, so a row of any length costs its
//               share; a row that crosses threads or tiles is completed through the scan engine's
//               segmented scan and decoupled look-back (deterministic: the same bits every run)
//   vector      a group of 2..32 lanes per row, the width from the mean row length: for matrices
//               whose rows are all about equally long
//   automatic   the vector kernel when the row lengths are even enough, else merge_path
// A^T without a plan adds each product into y[column] with atomics (the order of the additions,
// and so the rounding, may vary from run to run); a transposed plan is deterministic.
//
// Accuracy: values are accumulated in the value type. Each y[r] is computed as
// alpha * (sum of a_rk * x_k in some association) + beta * y[r]; with column blocks, as
// (alpha * s_0 + beta * y[r]) + alpha * s_1 + ... over the blocks' sums s_b. beta == 0 ignores
// y's old contents (NaN included), alpha == 0 ignores A and x.
//
// Bad input throws scankit::error before any launch: x or y null while the matrix is not empty,
// sizes that do not match op(A), x overlapping y, a matrix with columns but no column count,
// negative sizes; and from the offsets check, invalid offsets. Column indices are not checked by
// spmv (that takes another pass over the nonzeros: use validate_csr); a column outside [0, cols)
// reads x[0] instead, so it gives a wrong result but never a read outside x.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/sparse/csr.hpp"
#include "scankit/workspace.hpp"

namespace scankit::sparse {

enum class spmv_operation { non_transpose, transpose };
enum class spmv_kernel { automatic, merge_path, vector };

const char* to_string(spmv_kernel kernel);

struct spmv_options {
  spmv_operation operation = spmv_operation::non_transpose;
  spmv_kernel kernel = spmv_kernel::automatic;
  int vector_width = 0;  // lanes per row for the vector kernel: 0 = from the mean row length, else 2..32
  // Column blocks of a plan (non-transposed, merge path): 0 = automatic (x larger than the L2, at
  // least 4 nonzeros per row on average, and most sampled columns far from the diagonal), 1 =
  // none, 2..64 = that many (the kernel is then merge_path). Calls without a plan cut no blocks but
  // check it as a plan would: outside 0..64, or above 1 with A^T or the vector kernel, throws.
  int column_blocks = 0;
};

// A dense vector in device memory: its first element and its length.
template <class T>
struct dense_vector {
  T* data = nullptr;
  std::int64_t size = 0;
};

// Row lengths of a CSR matrix, from one pass over its offsets on the GPU.
struct csr_row_statistics {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nonzeros = 0;
  std::int64_t max_row_length = 0;
  std::int64_t empty_rows = 0;
  double mean_row_length() const { return rows == 0 ? 0.0 : static_cast<double>(nonzeros) / static_cast<double>(rows); }
};

// The offsets check and the statistics, as used by spmv (waits for the device). Throws
// scankit::error naming the first bad offset.
template <class Index, class Value>
csr_row_statistics analyse_rows(const csr_view<Index, Value>& a, cudaStream_t stream = nullptr);

// The full check of a CSR matrix: the offsets as above, every column in [0, cols), and with
// `sorted_columns` also columns strictly increasing within each row. Waits for the device.
struct csr_validation {
  bool valid = true;
  std::string problem;         // empty when valid
  std::int64_t first_bad_row = -1;
};
template <class Index, class Value>
csr_validation validate_csr(const csr_view<Index, Value>& a, bool sorted_columns = false, cudaStream_t stream = nullptr);

template <class Index, class Value>
class spmv_plan {
 public:
  // Analyses `a` on `stream` and waits for it. Throws scankit::error for an invalid matrix. The
  // plan's device memory comes from `resource` (nullptr: the default resource) and is returned on
  // `stream` when the plan is destroyed, without waiting for the device: that stream must still
  // exist then, and products on other streams must be ordered before it.
  explicit spmv_plan(const csr_view<Index, Value>& a, const spmv_options& options = {}, cudaStream_t stream = nullptr,
                     workspace* ws = nullptr, device_memory_resource* resource = nullptr);
  ~spmv_plan();
  spmv_plan(const spmv_plan&) = delete;
  spmv_plan& operator=(const spmv_plan&) = delete;
  spmv_plan(spmv_plan&& other) noexcept;
  spmv_plan& operator=(spmv_plan&& other) noexcept;

  const csr_view<Index, Value>& matrix() const noexcept { return matrix_; }
  spmv_operation operation() const noexcept { return operation_; }
  // A's statistics (for a transposed plan the kernel runs on A^T, whose statistics these are not).
  const csr_row_statistics& statistics() const noexcept { return statistics_; }
  spmv_kernel kernel() const noexcept { return kernel_; }  // never automatic
  int vector_width() const noexcept { return vector_width_; }
  // Device memory the plan holds (partition, transposed copy, column blocks).
  std::size_t device_bytes() const noexcept { return device_bytes_; }
  // 1, or the number of column blocks the product runs over.
  int column_blocks() const noexcept { return column_blocks_; }

  // Copies a's current values into the plan's copy of them (a transposed plan, or one with column
  // blocks; nothing to do for the others). Stream-ordered on `stream`, before the next product.
  void update_values(cudaStream_t stream = nullptr, workspace* ws = nullptr);

  // What the kernels run on: A, or the transposed copy; and the merge-path partition (nullptr for
  // the vector kernel). With column blocks, block b's matrix and partition.
  const csr_view<Index, Value>& operand() const noexcept { return operand_; }
  const void* partition() const noexcept { return partition_.data(); }
  const csr_view<Index, Value>& block(int b) const noexcept { return blocks_[b].matrix; }
  const void* block_partition(int b) const noexcept { return blocks_[b].partition; }

 private:
  void release() noexcept;
  void make_column_blocks(cudaStream_t stream, workspace* ws);
  csr_view<Index, Value> matrix_;
  csr_view<Index, Value> operand_;
  spmv_operation operation_ = spmv_operation::non_transpose;
  csr_row_statistics statistics_;
  spmv_kernel kernel_ = spmv_kernel::merge_path;
  int vector_width_ = 0;
  std::size_t device_bytes_ = 0;
  device_memory_resource* resource_ = nullptr;
  device_buffer partition_;
  device_csr<Index, Value>* transposed_ = nullptr;
  struct column_block {
    csr_view<Index, Value> matrix;
    const void* partition = nullptr;  // inside partition_; nullptr for a block of one tile
  };
  int column_blocks_ = 1;
  column_block* blocks_ = nullptr;  // column_blocks_ of them when more than one
  device_buffer block_storage_;     // the blocks' offsets, then their columns, then their values
};

#define SCANKIT_DECLARE_SPMV(I, V)                                                                            \
  void spmv(V alpha, const csr_view<I, V>& a, dense_vector<const V> x, V beta, dense_vector<V> y,             \
            cudaStream_t stream = nullptr, workspace* ws = nullptr, const spmv_options& options = {});        \
  void spmv(const spmv_plan<I, V>& plan, V alpha, dense_vector<const V> x, V beta, dense_vector<V> y,         \
            cudaStream_t stream = nullptr, workspace* ws = nullptr);                                               \
  void spmv(V alpha, const csr_view<I, V>& a, device_n rows, dense_vector<const V> x, V beta, dense_vector<V> y, \
            cudaStream_t stream = nullptr, workspace* ws = nullptr, const spmv_options& options = {});
SCANKIT_DECLARE_SPMV(std::int32_t, float)
SCANKIT_DECLARE_SPMV(std::int32_t, double)
SCANKIT_DECLARE_SPMV(std::int64_t, float)
SCANKIT_DECLARE_SPMV(std::int64_t, double)
#undef SCANKIT_DECLARE_SPMV

// Device workspace bytes a call on this plan needs (the merge-path kernel's tile carries and the
// state of their fix-up); wrapped caller memory of this size serves every call on the plan.
template <class Index, class Value>
std::size_t spmv_workspace_bytes(const spmv_plan<Index, Value>& plan);

}  // namespace scankit::sparse
