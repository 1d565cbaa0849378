// device_csr: allocation, moves and download (host code).
#include "scankit/sparse/csr.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "scankit/error.hpp"

namespace scankit::sparse {

template <class Index, class Value>
device_csr<Index, Value>::device_csr(Index rows, Index cols, std::int64_t nonzeros, cudaStream_t stream,
                                     device_memory_resource* resource)
    : rows_(rows), cols_(cols), nonzeros_(nonzeros) {
  if (rows < 0 || cols < 0 || nonzeros < 0) {
    throw error("scankit::sparse::device_csr: negative size (" + std::to_string(rows) + " x " + std::to_string(cols) +
                ", " + std::to_string(nonzeros) + " nonzeros)");
  }
  if (resource == nullptr) resource = default_resource();
  offsets_ = device_buffer((static_cast<std::size_t>(rows) + 1) * sizeof(Index), stream, resource);
  columns_ = device_buffer(static_cast<std::size_t>(nonzeros) * sizeof(Index), stream, resource);
  values_ = device_buffer(static_cast<std::size_t>(nonzeros) * sizeof(Value), stream, resource);
}

template <class Index, class Value>
csr_matrix_host<Index, Value> device_csr<Index, Value>::download() const {
  csr_matrix_host<Index, Value> host;
  host.rows = rows_;
  host.cols = cols_;
  host.offsets.resize(static_cast<std::size_t>(rows_) + 1);
  host.columns.resize(static_cast<std::size_t>(nonzeros_));
  host.values.resize(static_cast<std::size_t>(nonzeros_));
  if (offsets() != nullptr) {
    SCANKIT_CUDA_CHECK(cudaMemcpy(host.offsets.data(), offsets(), host.offsets.size() * sizeof(Index), cudaMemcpyDeviceToHost));
  }
  if (nonzeros_ > 0) {
    SCANKIT_CUDA_CHECK(cudaMemcpy(host.columns.data(), columns(), host.columns.size() * sizeof(Index), cudaMemcpyDeviceToHost));
    SCANKIT_CUDA_CHECK(cudaMemcpy(host.values.data(), values(), host.values.size() * sizeof(Value), cudaMemcpyDeviceToHost));
  }
  return host;
}

template <class Index, class Value>
csr_matrix_host<Index, Value> csr_from_sorted_coo(const coo_matrix_host<Index, Value>& coo) {
  csr_matrix_host<Index, Value> a;
  a.rows = coo.rows;
  a.cols = coo.cols;
  a.offsets.assign(static_cast<std::size_t>(coo.rows < 0 ? 0 : coo.rows) + 1, 0);
  Index previous = 0;
  for (std::size_t k = 0; k < coo.row.size(); ++k) {
    const Index r = coo.row[k];
    if (r < previous || r >= coo.rows) {
      throw error("scankit::sparse::csr_from_sorted_coo: triplet " + std::to_string(k) + " has row " +
                  std::to_string(r) + (r < previous ? " after row " + std::to_string(previous) : " outside the matrix"));
    }
    previous = r;
    ++a.offsets[static_cast<std::size_t>(r) + 1];
  }
  for (std::size_t r = 1; r < a.offsets.size(); ++r) a.offsets[r] += a.offsets[r - 1];
  a.columns = coo.col;
  a.values = coo.value;
  return a;
}

template csr_matrix_host<std::int32_t, float> csr_from_sorted_coo(const coo_matrix_host<std::int32_t, float>&);
template csr_matrix_host<std::int32_t, double> csr_from_sorted_coo(const coo_matrix_host<std::int32_t, double>&);
template csr_matrix_host<std::int64_t, float> csr_from_sorted_coo(const coo_matrix_host<std::int64_t, float>&);
template csr_matrix_host<std::int64_t, double> csr_from_sorted_coo(const coo_matrix_host<std::int64_t, double>&);

template class device_csr<std::int32_t, float>;
template class device_csr<std::int32_t, double>;
template class device_csr<std::int64_t, float>;
template class device_csr<std::int64_t, double>;

}  // namespace scankit::sparse
