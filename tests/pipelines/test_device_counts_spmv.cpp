// SpMV over a row count held in device memory (scankit::device_n): the merge-path and vector
// kernels give the same bits as a host-count product on the matrix cut to the counted rows, y past
// the count keeps its poison; A^T (atomic additions, so compared within a tolerance) and alpha = 0
// against a host reference. The matrix mixes empty rows, short rows and rows that span several
// merge-path tiles, so counts fall inside long rows' runs of tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/sparse/spmv.hpp"
#include "device_count_support.hpp"
#include "support/gpu_test.hpp"

namespace scankit::testing {
namespace {

template <class Index, class Value>
struct host_csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<Index> offsets{0}, columns;
  std::vector<Value> values;
};

template <class Index, class Value>
host_csr<Index, Value> random_matrix(std::int64_t rows, std::int64_t cols, std::mt19937_64& rng) {
  host_csr<Index, Value> m;
  m.rows = rows;
  m.cols = cols;
  std::uniform_int_distribution<int> kind(0, 99), short_length(1, 24), long_length(3000, 9000);
  std::uniform_int_distribution<std::int64_t> column(0, cols - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const int k = kind(rng);
    const int length = k < 10 ? 0 : (k < 97 ? short_length(rng) : long_length(rng));
    for (int j = 0; j < length; ++j) {
      m.columns.push_back(static_cast<Index>(column(rng)));
      m.values.push_back(static_cast<Value>(value(rng)));
    }
    m.offsets.push_back(static_cast<Index>(m.columns.size()));
  }
  return m;
}

// y = alpha * A x + beta * y0 over the first `count` rows (or A^T x over them), in double.
template <class Index, class Value>
std::vector<double> reference(const host_csr<Index, Value>& m, std::int64_t count, bool transposed,
                              const std::vector<Value>& x, Value alpha, Value beta, const std::vector<Value>& y0) {
  std::vector<double> y(y0.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = double(beta) * double(y0[i]);
  for (std::int64_t r = 0; r < count; ++r) {
    double sum = 0.0;
    for (Index k = m.offsets[r]; k < m.offsets[r + 1]; ++k) {
      if (transposed) {
        y[static_cast<std::size_t>(m.columns[k])] += double(alpha) * double(m.values[k]) * double(x[r]);
      } else {
        sum += double(m.values[k]) * double(x[static_cast<std::size_t>(m.columns[k])]);
      }
    }
    if (!transposed) y[static_cast<std::size_t>(r)] += double(alpha) * sum;
  }
  return y;
}

template <class Index, class Value>
void check_spmv(std::mt19937_64& rng) {
  const std::int64_t rows = 3001, cols = 2500;
  const host_csr<Index, Value> m = random_matrix<Index, Value>(rows, cols, rng);
  SCOPED_TRACE(std::to_string(m.columns.size()) + " nonzeros");
  device_buffer<Index> offsets(m.offsets), columns(m.columns);
  device_buffer<Value> values(m.values);
  const sparse::csr_view<Index, Value> a(static_cast<Index>(rows), static_cast<Index>(cols),
                                         static_cast<std::int64_t>(m.columns.size()), offsets.data(), columns.data(),
                                         values.data());
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Value> x(static_cast<std::size_t>(std::max(rows, cols))), y0(static_cast<std::size_t>(std::max(rows, cols)));
  for (auto& v : x) v = static_cast<Value>(value(rng));
  for (auto& v : y0) v = static_cast<Value>(value(rng));
  device_buffer<Value> d_x(x);
  device_buffer<Value> want(static_cast<std::size_t>(rows)), got(static_cast<std::size_t>(std::max(rows, cols)));
  device_count_cell cell;
  std::vector<std::int64_t> counts = {0, 1, 2, rows / 3, rows - 1, rows, rows + 9, -4};
  for (std::int64_t r = 1; r < rows; ++r) {  // a count inside a long row's run of tiles
    if (m.offsets[r + 1] - m.offsets[r] > 2000) {
      counts.push_back(r);
      counts.push_back(r + 1);
      break;
    }
  }
  const Value alpha = Value(1.5), beta = Value(-0.5);
  for (std::int64_t count : counts) {
    const std::int64_t c = processed(count, rows);
    SCOPED_TRACE("count " + std::to_string(count));
    // A x with both kernels: bit for bit a host-count product of the cut matrix.
    for (sparse::spmv_kernel kernel : {sparse::spmv_kernel::merge_path, sparse::spmv_kernel::vector}) {
      SCOPED_TRACE(sparse::to_string(kernel));
      sparse::spmv_options options;
      options.kernel = kernel;
      options.vector_width = kernel == sparse::spmv_kernel::vector ? 4 : 0;
      std::vector<Value> y_rows(y0.begin(), y0.begin() + rows);
      want.upload(y_rows);
      got.upload(y_rows);
      const sparse::csr_view<Index, Value> cut(static_cast<Index>(c), a.cols, m.offsets[static_cast<std::size_t>(c)],
                                               a.offsets, a.columns, a.values);
      sparse::spmv(alpha, cut, sparse::dense_vector<const Value>{d_x.data(), cols}, beta,
                   sparse::dense_vector<Value>{want.data(), c}, nullptr, nullptr, options);
      sparse::spmv(alpha, a, device_n{cell.set(count), rows}, sparse::dense_vector<const Value>{d_x.data(), cols}, beta,
                   sparse::dense_vector<Value>{got.data(), rows}, nullptr, nullptr, options);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<Value> expected = want.download(), computed = got.download();
      for (std::int64_t r = 0; r < rows; ++r) {
        const auto i = static_cast<std::size_t>(r);
        ASSERT_EQ(computed[i], r < c ? expected[i] : y0[i]) << "row " << r << (r < c ? "" : " past the count");
      }
    }
    // A^T x over the counted rows: every column of y, against the host.
    {
      sparse::spmv_options options;
      options.operation = sparse::spmv_operation::transpose;
      std::vector<Value> y_cols(y0.begin(), y0.begin() + cols);
      got.upload(y_cols);
      sparse::spmv(alpha, a, device_n{cell.set(count), rows}, sparse::dense_vector<const Value>{d_x.data(), rows}, beta,
                   sparse::dense_vector<Value>{got.data(), cols}, nullptr, nullptr, options);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<double> expected = reference(m, c, true, x, alpha, beta, y_cols);
      const std::vector<Value> computed = got.download();
      const double tolerance = sizeof(Value) == 4 ? 2e-3 : 1e-10;
      for (std::int64_t j = 0; j < cols; ++j) {
        const auto i = static_cast<std::size_t>(j);
        ASSERT_NEAR(double(computed[i]), expected[i], tolerance * (1.0 + std::fabs(expected[i]))) << "column " << j;
      }
    }
    // alpha = 0: y = beta * y over the counted rows only.
    {
      std::vector<Value> y_rows(y0.begin(), y0.begin() + rows);
      got.upload(y_rows);
      sparse::spmv(Value(0), a, device_n{cell.set(count), rows}, sparse::dense_vector<const Value>{d_x.data(), cols},
                   beta, sparse::dense_vector<Value>{got.data(), rows});
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<Value> computed = got.download();
      for (std::int64_t r = 0; r < rows; ++r) {
        const auto i = static_cast<std::size_t>(r);
        ASSERT_EQ(computed[i], r < c ? Value(beta * y_rows[i]) : y_rows[i]) << "alpha 0, row " << r;
      }
    }
  }
}

TEST(DeviceCounts, Spmv) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  check_spmv<std::int32_t, float>(rng);
  check_spmv<std::int64_t, double>(rng);
}

TEST(DeviceCounts, SpmvBadArgumentsAreRefused) {
  const auto* offsets = reinterpret_cast<const std::int32_t*>(std::uintptr_t{0x10000});
  const auto* columns = reinterpret_cast<const std::int32_t*>(std::uintptr_t{0x20000});
  const auto* values = reinterpret_cast<const float*>(std::uintptr_t{0x40000});
  const auto* x = reinterpret_cast<const float*>(std::uintptr_t{0x80000});
  auto* y = reinterpret_cast<float*>(std::uintptr_t{0x100000});
  const auto* cell = reinterpret_cast<const std::int64_t*>(std::uintptr_t{0x1000});  // never dereferenced
  const sparse::csr_view<std::int32_t, float> a(10, 20, 30, offsets, columns, values);
  const sparse::dense_vector<const float> xv{x, 20};
  const sparse::dense_vector<float> yv{y, 10};
  EXPECT_THROW(sparse::spmv(1.0f, a, device_n{nullptr, 10}, xv, 0.0f, yv), error);
  EXPECT_THROW(sparse::spmv(1.0f, a, device_n{cell, 9}, xv, 0.0f, yv), error);  // the bound is a.rows
  EXPECT_THROW(sparse::spmv(1.0f, a, device_n{cell, 10}, xv, 0.0f, sparse::dense_vector<float>{y, 9}), error);
  sparse::spmv_options blocks;
  blocks.column_blocks = 4;  // needs a plan
  EXPECT_THROW(sparse::spmv(1.0f, a, device_n{cell, 10}, xv, 0.0f, yv, nullptr, nullptr, blocks), error);
}

}  // namespace
}  // namespace scankit::testing
