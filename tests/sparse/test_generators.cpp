// The host generators: Poisson stencils against their closed forms (sizes, symmetry, row sums,
// sorted order) and R-MAT's determinism, range and skew.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/sparse/csr.hpp"
#include "scankit/sparse/generators.hpp"

namespace {

using namespace scankit::sparse;

template <class M>
void expect_sorted_symmetric_with_row_sums(const M& m, double diagonal, bool interior) {
  std::map<std::pair<std::int64_t, std::int64_t>, double> entries;
  std::vector<double> row_sum(static_cast<std::size_t>(m.rows), 0.0);
  for (std::size_t k = 0; k < m.nonzeros(); ++k) {
    entries[{m.row[k], m.col[k]}] = m.value[k];
    row_sum[static_cast<std::size_t>(m.row[k])] += m.value[k];
    if (k > 0) {
      EXPECT_LT(std::make_tuple(m.row[k - 1], m.col[k - 1]), std::make_tuple(m.row[k], m.col[k]));
    }
    if (m.row[k] == m.col[k]) {
      EXPECT_EQ(m.value[k], diagonal);
    }
  }
  for (const auto& [rc, v] : entries) {
    const auto mirror = entries.find({rc.second, rc.first});
    ASSERT_NE(mirror, entries.end());
    EXPECT_EQ(mirror->second, v);
  }
  // Interior rows sum to 0 (there are some from n = 3 on); a boundary row keeps one unit per
  // missing neighbour.
  for (double s : row_sum) EXPECT_GE(s, 0.0);
  if (interior) {
    EXPECT_EQ(*std::min_element(row_sum.begin(), row_sum.end()), 0.0);
  }
}

TEST(Poisson, TwoDimensional) {
  for (std::int64_t n : {0, 1, 2, 5, 33}) {
    SCOPED_TRACE(n);
    const auto m = poisson_2d<std::int32_t, double>(n);
    EXPECT_EQ(m.rows, n * n);
    EXPECT_EQ(static_cast<std::int64_t>(m.nonzeros()), 5 * n * n - 4 * n);
    expect_sorted_symmetric_with_row_sums(m, 4.0, n >= 3);
  }
}

TEST(Poisson, ThreeDimensional) {
  for (std::int64_t n : {0, 1, 2, 7}) {
    SCOPED_TRACE(n);
    const auto m = poisson_3d<std::int64_t, float>(n);
    EXPECT_EQ(m.rows, n * n * n);
    EXPECT_EQ(static_cast<std::int64_t>(m.nonzeros()), 7 * n * n * n - 6 * n * n);
    expect_sorted_symmetric_with_row_sums(m, 6.0, n >= 3);
  }
}

TEST(Poisson, RejectsSizesBeyondTheIndexType) {
  EXPECT_THROW((poisson_2d<std::int32_t, float>(50000)), scankit::error);
  EXPECT_THROW((poisson_2d<std::int32_t, float>(-1)), scankit::error);
  EXPECT_THROW((poisson_3d<std::int64_t, float>(std::int64_t{1} << 40)), scankit::error);  // n^3 overflows
}

TEST(Rmat, DeterministicInRangeAndSkewed) {
  rmat_parameters p;
  p.scale = 12;
  p.edge_factor = 8;
  p.seed = 42;
  const auto a = rmat<std::int32_t, float>(p);
  const auto b = rmat<std::int32_t, float>(p);
  ASSERT_EQ(a.nonzeros(), static_cast<std::size_t>(8 << 12));
  EXPECT_EQ(a.row, b.row);
  EXPECT_EQ(a.col, b.col);
  p.seed = 43;
  const auto c = rmat<std::int32_t, float>(p);
  EXPECT_NE(a.row, c.row);
  std::vector<int> degree(static_cast<std::size_t>(a.rows), 0);
  for (std::size_t k = 0; k < a.nonzeros(); ++k) {
    ASSERT_GE(a.row[k], 0);
    ASSERT_LT(a.row[k], a.rows);
    ASSERT_GE(a.col[k], 0);
    ASSERT_LT(a.col[k], a.cols);
    ++degree[static_cast<std::size_t>(a.row[k])];
  }
  // Quadrant a (0.57) at every level: vertex 0 collects far more than the mean degree of 8.
  EXPECT_GT(degree[0], 100);
  EXPECT_EQ(*std::max_element(degree.begin(), degree.end()), degree[0]);
}

TEST(Rmat, RejectsBadParameters) {
  rmat_parameters p;
  p.a = 0.9;  // a + b + c > 1
  EXPECT_THROW((rmat<std::int32_t, float>(p)), scankit::error);
  p = {};
  p.scale = 41;
  EXPECT_THROW((rmat<std::int64_t, float>(p)), scankit::error);
}

// The host CSR of sorted triplets: Poisson 2D of a 3 x 3 grid (rows of 3, 4 and 5 entries).
TEST(CsrFromSortedCoo, PoissonAndBadOrder) {
  const auto coo = poisson_2d<std::int32_t, double>(3);
  const auto a = scankit::sparse::csr_from_sorted_coo(coo);
  EXPECT_EQ(a.offsets, (std::vector<std::int32_t>{0, 3, 7, 10, 14, 19, 23, 26, 30, 33}));
  EXPECT_EQ(a.columns, coo.col);
  EXPECT_EQ(a.values, coo.value);
  auto unsorted = coo;
  std::swap(unsorted.row[0], unsorted.row[5]);
  EXPECT_THROW(scankit::sparse::csr_from_sorted_coo(unsorted), scankit::error);
  auto outside = coo;
  outside.row.back() = 9;
  EXPECT_THROW(scankit::sparse::csr_from_sorted_coo(outside), scankit::error);
}

}  // namespace
