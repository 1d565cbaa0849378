// CSR construction on the GPU (precompiled API, g++): row offsets from sorted rows, and COO to
// CSR from shuffled triplets with duplicates, against a host reference and, where Eigen is
// installed, Eigen's setFromTriplets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/scan.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "support/gpu_test.hpp"

#if SCANKIT_TEST_WITH_EIGEN
#include <Eigen/SparseCore>
#endif

namespace scankit::testing {
namespace {

template <class Index>
std::vector<Index> host_row_offsets(const std::vector<Index>& rows, Index n_rows) {
  std::vector<Index> offsets(static_cast<std::size_t>(n_rows) + 1, 0);
  for (Index r : rows) ++offsets[static_cast<std::size_t>(r) + 1];
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  return offsets;
}

template <class Index>
void check_row_offsets(const std::vector<Index>& rows, Index n_rows, const std::string& what) {
  SCOPED_TRACE(what);
  device_buffer<Index> d_rows(rows), offsets(static_cast<std::size_t>(n_rows) + 1 + 8);
  offsets.poison();
  sparse::row_offsets_from_sorted_rows(d_rows.data(), static_cast<std::int64_t>(rows.size()), n_rows, offsets.data());
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  auto got = offsets.download();
  const auto* bytes = reinterpret_cast<const unsigned char*>(got.data() + n_rows + 1);
  EXPECT_TRUE(std::all_of(bytes, bytes + 8 * sizeof(Index), [](unsigned char b) { return b == 0xA5; }))
      << "written past offsets[n_rows]";
  got.resize(static_cast<std::size_t>(n_rows) + 1);
  EXPECT_EQ(host_row_offsets(rows, n_rows), got);
}

TEST(RowOffsets, SortedRowsWithEmptyRows) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (std::int32_t n_rows : {1, 7, 1000, 300'001}) {
    for (double fill : {0.05, 1.0, 6.0}) {
      std::vector<std::int32_t> rows;
      for (std::int32_t r = 0; r < n_rows; ++r) {
        const int entries = std::poisson_distribution<int>(fill)(rng);
        rows.insert(rows.end(), entries, r);
      }
      check_row_offsets(rows, n_rows, "n_rows " + std::to_string(n_rows) + ", mean " + std::to_string(fill));
    }
  }
  check_row_offsets(std::vector<std::int32_t>{}, std::int32_t{5}, "no entries");
  check_row_offsets(std::vector<std::int32_t>(1000, 999), std::int32_t{1000}, "only the last row");
  check_row_offsets(std::vector<std::int64_t>{0, 0, 3, 3, 3, 9}, std::int64_t{12}, "int64");
}

TEST(RowOffsets, BadArgumentsThrow) {
  SCANKIT_REQUIRE_GPU();
  device_buffer<std::int32_t> rows(std::vector<std::int32_t>{0, 1}), offsets(3);
  EXPECT_THROW(sparse::row_offsets_from_sorted_rows(rows.data(), -1, 2, offsets.data()), error);
  EXPECT_THROW(sparse::row_offsets_from_sorted_rows(rows.data(), 2, -1, offsets.data()), error);
  EXPECT_THROW(sparse::row_offsets_from_sorted_rows(rows.data(), 2, 2, static_cast<std::int32_t*>(nullptr)), error);
}

// The reference: entries sorted by (row, column), duplicates summed in input order.
template <class Index, class Value>
sparse::csr_matrix_host<Index, Value> host_coo_to_csr(const sparse::coo_matrix_host<Index, Value>& coo) {
  std::map<std::pair<Index, Index>, Value> entries;
  for (std::size_t k = 0; k < coo.nonzeros(); ++k) entries[{coo.row[k], coo.col[k]}] += coo.value[k];
  sparse::csr_matrix_host<Index, Value> csr;
  csr.rows = coo.rows;
  csr.cols = coo.cols;
  std::vector<Index> rows;
  for (const auto& [position, value] : entries) {
    rows.push_back(position.first);
    csr.columns.push_back(position.second);
    csr.values.push_back(value);
  }
  csr.offsets = host_row_offsets(rows, coo.rows);
  return csr;
}

// Shuffles the triplets and repeats a fraction of them (with other values) as duplicates.
template <class Index, class Value>
sparse::coo_matrix_host<Index, Value> shuffled_with_duplicates(sparse::coo_matrix_host<Index, Value> coo,
                                                                double duplicates, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::size_t n = coo.nonzeros();
  for (std::size_t k = 0; k < n; ++k) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) < duplicates) {
      coo.row.push_back(coo.row[k]);
      coo.col.push_back(coo.col[k]);
      coo.value.push_back(static_cast<Value>(rng() % 8));  // small integers: every sum exact
    }
  }
  std::vector<std::size_t> order(coo.nonzeros());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  sparse::coo_matrix_host<Index, Value> out;
  out.rows = coo.rows;
  out.cols = coo.cols;
  for (std::size_t k : order) {
    out.row.push_back(coo.row[k]);
    out.col.push_back(coo.col[k]);
    out.value.push_back(coo.value[k]);
  }
  return out;
}

template <class Index, class Value>
void check_coo_to_csr(const sparse::coo_matrix_host<Index, Value>& coo, const std::string& what) {
  SCOPED_TRACE(what + ", " + std::to_string(coo.nonzeros()) + " triplets");
  device_buffer<Index> rows(coo.row), cols(coo.col);
  device_buffer<Value> values(coo.value);
  workspace ws;
  const auto csr = sparse::coo_to_csr(rows.data(), cols.data(), values.data(), static_cast<std::int64_t>(coo.nonzeros()),
                                      coo.rows, coo.cols, nullptr, &ws);
  const auto got = csr.download();
  const auto expected = host_coo_to_csr(coo);
  EXPECT_EQ(expected.rows, got.rows);
  EXPECT_EQ(expected.cols, got.cols);
  EXPECT_EQ(expected.offsets, got.offsets);
  EXPECT_EQ(expected.columns, got.columns);
  EXPECT_EQ(expected.values, got.values);
#if SCANKIT_TEST_WITH_EIGEN
  std::vector<Eigen::Triplet<Value, Index>> triplets;
  for (std::size_t k = 0; k < coo.nonzeros(); ++k) triplets.emplace_back(coo.row[k], coo.col[k], coo.value[k]);
  Eigen::SparseMatrix<Value, Eigen::RowMajor, Index> eigen(coo.rows, coo.cols);
  eigen.setFromTriplets(triplets.begin(), triplets.end());
  eigen.makeCompressed();
  EXPECT_TRUE(std::equal(got.offsets.begin(), got.offsets.end(), eigen.outerIndexPtr())) << "offsets vs Eigen";
  ASSERT_EQ(static_cast<std::size_t>(eigen.nonZeros()), got.nonzeros());
  EXPECT_TRUE(std::equal(got.columns.begin(), got.columns.end(), eigen.innerIndexPtr())) << "columns vs Eigen";
  EXPECT_TRUE(std::equal(got.values.begin(), got.values.end(), eigen.valuePtr())) << "values vs Eigen";
#endif
}

TEST(CooToCsr, ShuffledPoissonWithDuplicates) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_coo_to_csr(shuffled_with_duplicates(sparse::poisson_2d<std::int32_t, double>(120), 0.1, seed), "Poisson 2D 120^2");
  check_coo_to_csr(shuffled_with_duplicates(sparse::poisson_3d<std::int32_t, float>(30), 0.3, seed), "Poisson 3D 30^3");
  check_coo_to_csr(shuffled_with_duplicates(sparse::poisson_2d<std::int64_t, float>(64), 0.1, seed), "int64 indices");
}

TEST(CooToCsr, RmatGraphWithRepeatedEdgesAndEmptyRows) {
  SCANKIT_REQUIRE_GPU();
  sparse::rmat_parameters p;
  p.scale = 14;
  p.edge_factor = 8;
  check_coo_to_csr(sparse::rmat<std::int32_t, float>(p), "R-MAT scale 14");
  p.scale = 10;
  check_coo_to_csr(sparse::rmat<std::int64_t, double>(p), "R-MAT scale 10, int64");
}

TEST(CooToCsr, EdgeCases) {
  SCANKIT_REQUIRE_GPU();
  sparse::coo_matrix_host<std::int32_t, float> empty;
  empty.rows = 4;
  empty.cols = 3;
  check_coo_to_csr(empty, "no entries");
  sparse::coo_matrix_host<std::int32_t, float> one{1, 1, {0, 0, 0}, {0, 0, 0}, {1.0f, 2.0f, 4.0f}};
  check_coo_to_csr(one, "1 x 1, three duplicates");
}

// Host transpose of a CSR: entries re-sorted by (column, row).
template <class Index, class Value>
sparse::csr_matrix_host<Index, Value> host_transpose(const sparse::csr_matrix_host<Index, Value>& a) {
  sparse::coo_matrix_host<Index, Value> t;
  t.rows = a.cols;
  t.cols = a.rows;
  for (Index r = 0; r < a.rows; ++r) {
    for (Index k = a.offsets[r]; k < a.offsets[r + 1]; ++k) {
      t.row.push_back(a.columns[k]);
      t.col.push_back(r);
      t.value.push_back(a.values[k]);
    }
  }
  return host_coo_to_csr(t);
}

TEST(CsrTranspose, MatchesTheHostAndRoundTrips) {
  SCANKIT_REQUIRE_GPU();
  sparse::rmat_parameters p;
  p.scale = 13;
  p.edge_factor = 6;
  auto coo = sparse::rmat<std::int32_t, double>(p);
  coo.cols = coo.rows + 77;  // not square: the transpose swaps the sizes
  device_buffer<std::int32_t> rows(coo.row), cols(coo.col);
  device_buffer<double> values(coo.value);
  workspace ws;
  const auto a = sparse::coo_to_csr(rows.data(), cols.data(), values.data(), static_cast<std::int64_t>(coo.nonzeros()),
                                    coo.rows, coo.cols, nullptr, &ws);
  const auto t = sparse::transpose(a, nullptr, &ws);
  const auto host_a = a.download();
  const auto got = t.download();
  const auto expected = host_transpose(host_a);
  EXPECT_EQ(expected.rows, got.rows);
  EXPECT_EQ(expected.cols, got.cols);
  EXPECT_EQ(expected.offsets, got.offsets);
  EXPECT_EQ(expected.columns, got.columns);
  EXPECT_EQ(expected.values, got.values);
  const auto back = sparse::transpose(t, nullptr, &ws).download();
  EXPECT_EQ(host_a.offsets, back.offsets);
  EXPECT_EQ(host_a.columns, back.columns);
  EXPECT_EQ(host_a.values, back.values);
#if SCANKIT_TEST_WITH_EIGEN
  Eigen::SparseMatrix<double, Eigen::RowMajor, std::int32_t> eigen(coo.rows, coo.cols);
  std::vector<Eigen::Triplet<double, std::int32_t>> triplets;
  for (std::size_t k = 0; k < coo.nonzeros(); ++k) triplets.emplace_back(coo.row[k], coo.col[k], coo.value[k]);
  eigen.setFromTriplets(triplets.begin(), triplets.end());
  Eigen::SparseMatrix<double, Eigen::RowMajor, std::int32_t> eigen_t = eigen.transpose();
  eigen_t.makeCompressed();
  EXPECT_TRUE(std::equal(got.offsets.begin(), got.offsets.end(), eigen_t.outerIndexPtr())) << "offsets vs Eigen";
  EXPECT_TRUE(std::equal(got.columns.begin(), got.columns.end(), eigen_t.innerIndexPtr())) << "columns vs Eigen";
#endif
}

TEST(CsrToCoo, RowOfEveryEntry) {
  SCANKIT_REQUIRE_GPU();
  const auto coo = sparse::poisson_3d<std::int64_t, float>(12);  // sorted by row already
  device_buffer<std::int64_t> rows(coo.row), cols(coo.col), expanded(coo.nonzeros());
  device_buffer<float> values(coo.value);
  const auto a = sparse::coo_to_csr(rows.data(), cols.data(), values.data(), static_cast<std::int64_t>(coo.nonzeros()),
                                    coo.rows, coo.cols);
  expanded.poison();
  sparse::csr_to_coo_rows(a, expanded.data());
  EXPECT_EQ(coo.row, expanded.download());
}

TEST(CooToCsr, OutOfRangeEntriesThrowAndNameTheEntry) {
  SCANKIT_REQUIRE_GPU();
  const std::vector<std::int32_t> rows{0, 1, 2, 5, 1}, cols{0, 1, 2, 0, 3};
  const std::vector<float> values{1, 2, 3, 4, 5};
  device_buffer<std::int32_t> d_rows(rows), d_cols(cols);
  device_buffer<float> d_values(values);
  try {
    (void)sparse::coo_to_csr(d_rows.data(), d_cols.data(), d_values.data(), 5, 3, 4);
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("entry 3 at (5, 0)"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)sparse::coo_to_csr(d_rows.data(), d_cols.data(), d_values.data(), -1, 3, 4), error);
  EXPECT_THROW((void)sparse::coo_to_csr(d_rows.data(), d_cols.data(), static_cast<const float*>(nullptr), 5, 6, 4),
               error);
  EXPECT_EQ(rows, d_rows.download());  // the inputs are only read
  EXPECT_EQ(values, d_values.download());
}

}  // namespace
}  // namespace scankit::testing
