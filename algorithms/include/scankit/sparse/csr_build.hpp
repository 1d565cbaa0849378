// Building CSR matrices on the GPU: the precompiled host API (callable from g++-compiled code).
// Indices std::int32_t or std::int64_t, values float or double; device pointers; work enqueued
// on `stream`.
//
//   row_offsets_from_sorted_rows(rows, nnz, n_rows, offsets, stream)
//       offsets[r] = the number of entries in rows before row r, r in [0, n_rows]: one pass over
//       row indices sorted ascending (a CSR's offsets from its COO rows), empty rows included.
//       Rows out of order or outside [0, n_rows) give wrong offsets, never a write outside them.
//
//   coo_to_csr(rows, cols, values, nnz, n_rows, n_cols, stream, ws) -> device_csr
//       Triplets in any order: sorted by (row, column) with the toolkit's radix sort, duplicates
//       summed (as Eigen's setFromTriplets does), row offsets built. An entry outside the matrix
//       throws scankit::error naming it, and nothing is returned; the inputs are only read. The
//       call waits for the device once (for the number of distinct entries).
//
//   With the triplets' count in device memory (scankit::device_n, e.g. the count an earlier select
//   or unique wrote), nothing waits, and the matrix goes into the caller's arrays:
//   row_offsets_from_sorted_rows(rows, device_n nnz, n_rows, offsets, stream)
//   coo_to_csr(rows, cols, values, device_n nnz, n_rows, n_cols, offsets, columns, out_values,
//              entries, first_bad, stream, ws)
//       offsets: n_rows + 1; columns and out_values: nnz.bound entries. *entries (device memory)
//       gets the number of distinct entries. A triplet outside the matrix is left out, and
//       *first_bad (device memory; may be null) gets the index of the first such triplet, or -1.
//       Columns and values past *entries are not written.
//
//   csr_to_coo_rows(a, rows, stream)       (a: a device_csr or a csr_view)
//       CSR to COO: rows[k] = the row of entry k (a's columns and values are the COO's others).
//
//   transpose(a, stream, ws) -> device_csr
//       A^T as a CSR matrix (the CSC form of A): the entries stably sorted by column with the
//       radix sort, so each row of A^T keeps A's row order. A pattern `a` (values null) gives values of 1.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/sparse/csr.hpp"
#include "scankit/workspace.hpp"

namespace scankit::sparse {

void row_offsets_from_sorted_rows(const std::int32_t* rows, std::int64_t nnz, std::int32_t n_rows,
                                  std::int32_t* offsets, cudaStream_t stream = nullptr);
void row_offsets_from_sorted_rows(const std::int64_t* rows, std::int64_t nnz, std::int64_t n_rows,
                                  std::int64_t* offsets, cudaStream_t stream = nullptr);
void row_offsets_from_sorted_rows(const std::int32_t* rows, device_n nnz, std::int32_t n_rows, std::int32_t* offsets,
                                  cudaStream_t stream = nullptr);
void row_offsets_from_sorted_rows(const std::int64_t* rows, device_n nnz, std::int64_t n_rows, std::int64_t* offsets,
                                  cudaStream_t stream = nullptr);

#define SCANKIT_DECLARE_COO_TO_CSR(I, V)                                                                   \
  device_csr<I, V> coo_to_csr(const I* rows, const I* cols, const V* values, std::int64_t nnz, I n_rows,   \
                              I n_cols, cudaStream_t stream = nullptr, workspace* ws = nullptr,               \
                              device_memory_resource* resource = nullptr);                                    \
  void coo_to_csr(const I* rows, const I* cols, const V* values, device_n nnz, I n_rows, I n_cols, I* offsets,  \
                  I* columns, V* out_values, std::int64_t* entries, std::int64_t* first_bad = nullptr,          \
                  cudaStream_t stream = nullptr, workspace* ws = nullptr);
template <class Index, class Value>
void csr_to_coo_rows(const csr_view<Index, Value>& a, Index* rows, cudaStream_t stream = nullptr);
template <class Index, class Value>
device_csr<Index, Value> transpose(const csr_view<Index, Value>& a, cudaStream_t stream = nullptr,
                                   workspace* ws = nullptr, device_memory_resource* resource = nullptr);
template <class Index, class Value>
void csr_to_coo_rows(const device_csr<Index, Value>& a, Index* rows, cudaStream_t stream = nullptr) {
  csr_to_coo_rows(csr_view<Index, Value>(a), rows, stream);
}
template <class Index, class Value>
device_csr<Index, Value> transpose(const device_csr<Index, Value>& a, cudaStream_t stream = nullptr,
                                   workspace* ws = nullptr, device_memory_resource* resource = nullptr) {
  return transpose(csr_view<Index, Value>(a), stream, ws, resource);
}

SCANKIT_DECLARE_COO_TO_CSR(std::int32_t, float)
SCANKIT_DECLARE_COO_TO_CSR(std::int32_t, double)
SCANKIT_DECLARE_COO_TO_CSR(std::int64_t, float)
SCANKIT_DECLARE_COO_TO_CSR(std::int64_t, double)
#undef SCANKIT_DECLARE_COO_TO_CSR

// csr_to_coo_rows and transpose are compiled for these.
extern template void csr_to_coo_rows(const csr_view<std::int32_t, float>&, std::int32_t*, cudaStream_t);
extern template void csr_to_coo_rows(const csr_view<std::int32_t, double>&, std::int32_t*, cudaStream_t);
extern template void csr_to_coo_rows(const csr_view<std::int64_t, float>&, std::int64_t*, cudaStream_t);
extern template void csr_to_coo_rows(const csr_view<std::int64_t, double>&, std::int64_t*, cudaStream_t);
extern template device_csr<std::int32_t, float> transpose(const csr_view<std::int32_t, float>&, cudaStream_t, workspace*, device_memory_resource*);
extern template device_csr<std::int32_t, double> transpose(const csr_view<std::int32_t, double>&, cudaStream_t, workspace*, device_memory_resource*);
extern template device_csr<std::int64_t, float> transpose(const csr_view<std::int64_t, float>&, cudaStream_t, workspace*, device_memory_resource*);
extern template device_csr<std::int64_t, double> transpose(const csr_view<std::int64_t, double>&, cudaStream_t, workspace*, device_memory_resource*);

}  // namespace scankit::sparse
