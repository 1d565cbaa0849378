// Compressed sparse row (CSR) matrices on the host and in device memory. Plain C++ (g++).
//
// Row r's entries are columns[offsets[r] .. offsets[r + 1]) and values[...] at the same places;
// offsets has rows + 1 items, offsets[0] = 0 and offsets[rows] = nonzeros. Indices are
// std::int32_t or std::int64_t; values float or double.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/device_buffer.hpp"
#include "scankit/sparse/matrix_market.hpp"  // coo_matrix_host

namespace scankit::sparse {

template <class Index, class Value>
struct csr_matrix_host {
  Index rows = 0;
  Index cols = 0;
  std::vector<Index> offsets;  // rows + 1
  std::vector<Index> columns;
  std::vector<Value> values;

  std::size_t nonzeros() const { return values.size(); }
};

// The host CSR form of triplets already sorted by row (as the generators and the Matrix Market and
// METIS readers give them): row offsets by counting, columns and values as they are (duplicates
// kept). Throws scankit::error if a row is outside [0, rows) or the rows are not in order.
template <class Index, class Value>
csr_matrix_host<Index, Value> csr_from_sorted_coo(const coo_matrix_host<Index, Value>& coo);

// A CSR matrix whose arrays live in device memory and belong to it (movable, not copyable). The
// arrays come from a memory resource (the default one unless given), allocated stream-ordered on
// `stream` and returned on that stream when the matrix is destroyed, without waiting for the
// device: that stream must still exist then, and work on other streams that used the matrix must
// be ordered before it. Allocation failures throw scankit::cuda_error.
template <class Index, class Value>
class device_csr {
 public:
  device_csr() = default;
  device_csr(Index rows, Index cols, std::int64_t nonzeros, cudaStream_t stream = nullptr,
             device_memory_resource* resource = nullptr);

  Index rows() const noexcept { return rows_; }
  Index cols() const noexcept { return cols_; }
  std::int64_t nonzeros() const noexcept { return nonzeros_; }
  Index* offsets() noexcept { return offsets_.data_as<Index>(); }
  const Index* offsets() const noexcept { return offsets_.data_as<Index>(); }
  Index* columns() noexcept { return columns_.data_as<Index>(); }
  const Index* columns() const noexcept { return columns_.data_as<Index>(); }
  Value* values() noexcept { return values_.data_as<Value>(); }
  const Value* values() const noexcept { return values_.data_as<Value>(); }
  device_memory_resource* resource() const noexcept { return offsets_.resource(); }

  // The arrays copied to the host (waits for the device).
  csr_matrix_host<Index, Value> download() const;

 private:
  Index rows_ = 0;
  Index cols_ = 0;
  std::int64_t nonzeros_ = 0;
  device_buffer offsets_;
  device_buffer columns_;
  device_buffer values_;
};

// A CSR matrix in device memory that someone else owns (a device_csr, or the caller's own three
// arrays): what the sparse kernels take. Copying it copies the pointers.
template <class Index, class Value>
struct csr_view {
  Index rows = 0;
  Index cols = 0;
  std::int64_t nonzeros = 0;
  const Index* offsets = nullptr;  // rows + 1
  const Index* columns = nullptr;  // nonzeros
  const Value* values = nullptr;   // nonzeros; nullptr: a pattern matrix (every entry 1) for spmv and transpose

  csr_view() = default;
  csr_view(Index rows_, Index cols_, std::int64_t nonzeros_, const Index* offsets_, const Index* columns_,
           const Value* values_)
      : rows(rows_), cols(cols_), nonzeros(nonzeros_), offsets(offsets_), columns(columns_), values(values_) {}
  csr_view(const device_csr<Index, Value>& a)  // NOLINT: a device_csr is usable wherever a view is
      : csr_view(a.rows(), a.cols(), a.nonzeros(), a.offsets(), a.columns(), a.values()) {}
};

}  // namespace scankit::sparse
