// SpMV on the GPU (precompiled API, g++): y = alpha * op(A) * x + beta * y for every kernel,
// against Eigen's sparse product (in double) where Eigen is installed, else a host loop.
//
// Error bound: any association of a row's n products has |error| <= (n - 1) u sum |a_rk x_k|
// (u the unit roundoff of the value type); alpha and beta add a few roundings more. A result
// passes when |y - y_ref| <= (n + 4) u (|alpha| sum |a_rk x_k| + |beta y_r|).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/sparse/generators.hpp"
#include "scankit/sparse/matrix_market.hpp"
#include "scankit/sparse/spmv.hpp"
#include "support/gpu_test.hpp"

#if SCANKIT_TEST_WITH_EIGEN
#include <Eigen/SparseCore>
#endif

namespace scankit::testing {
namespace {

using sparse::csr_matrix_host;
using sparse::csr_view;
using sparse::dense_vector;
using sparse::spmv_kernel;
using sparse::spmv_operation;
using sparse::spmv_options;

// A host CSR matrix with the given row lengths, random sorted distinct columns, random values.
template <class Index, class Value>
csr_matrix_host<Index, Value> random_csr(const std::vector<std::int64_t>& lengths, Index cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  csr_matrix_host<Index, Value> a;
  a.rows = static_cast<Index>(lengths.size());
  a.cols = cols;
  a.offsets.assign(lengths.size() + 1, 0);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    const std::int64_t n = std::min<std::int64_t>(lengths[r], cols);
    std::vector<Index> picked;
    if (n * 4 > cols) {  // dense-ish row: a random subset in order
      for (Index c = 0; c < cols; ++c) {
        if (static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(cols)) < n) picked.push_back(c);
      }
    } else {  // exactly n distinct columns
      std::set<Index> distinct;
      while (static_cast<std::int64_t>(distinct.size()) < n) distinct.insert(static_cast<Index>(rng() % cols));
      picked.assign(distinct.begin(), distinct.end());
    }
    for (Index c : picked) {
      a.columns.push_back(c);
      a.values.push_back(static_cast<Value>(value(rng)));
    }
    a.offsets[r + 1] = static_cast<Index>(a.columns.size());
  }
  return a;
}

template <class Index, class Value>
struct device_matrix {
  device_buffer<Index> offsets, columns;
  device_buffer<Value> values;
  csr_view<Index, Value> view;
  explicit device_matrix(const csr_matrix_host<Index, Value>& a)
      : offsets(a.offsets), columns(a.columns), values(a.values),
        view(a.rows, a.cols, static_cast<std::int64_t>(a.values.size()), offsets.data(), columns.data(),
             values.data()) {}
};

// y_ref and the per-row error bound for y = alpha op(A) x + beta y0.
template <class Index, class Value>
void reference(const csr_matrix_host<Index, Value>& a, bool transposed, Value alpha, const std::vector<Value>& x,
               Value beta, const std::vector<Value>& y0, std::vector<double>& y_ref, std::vector<double>& bound,
               int extra_roundings = 0) {
  const std::size_t out = transposed ? static_cast<std::size_t>(a.cols) : static_cast<std::size_t>(a.rows);
  std::vector<double> magnitude(out, 0.0), products(out, 0.0);
  std::vector<std::int64_t> count(out, 0);
  for (std::size_t r = 0; r < static_cast<std::size_t>(a.rows); ++r) {
    for (auto k = static_cast<std::size_t>(a.offsets[r]); k < static_cast<std::size_t>(a.offsets[r + 1]); ++k) {
      const auto c = static_cast<std::size_t>(a.columns[k]);
      const std::size_t i = transposed ? c : r, j = transposed ? r : c;
      const double p = static_cast<double>(a.values[k]) * static_cast<double>(x[j]);
      products[i] += p;
      magnitude[i] += std::fabs(p);
      ++count[i];
    }
  }
#if SCANKIT_TEST_WITH_EIGEN
  {  // Eigen's product for the value; the loop above for the bound
    using matrix = Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>;
    std::vector<Eigen::Triplet<double, std::int64_t>> triplets;
    for (std::size_t r = 0; r < static_cast<std::size_t>(a.rows); ++r) {
      for (auto k = static_cast<std::size_t>(a.offsets[r]); k < static_cast<std::size_t>(a.offsets[r + 1]); ++k) {
        triplets.emplace_back(static_cast<std::int64_t>(r), static_cast<std::int64_t>(a.columns[k]),
                              static_cast<double>(a.values[k]));
      }
    }
    matrix m(static_cast<std::int64_t>(a.rows), static_cast<std::int64_t>(a.cols));
    m.setFromTriplets(triplets.begin(), triplets.end());
    Eigen::VectorXd ex(static_cast<Eigen::Index>(x.size()));
    for (std::size_t j = 0; j < x.size(); ++j) ex[static_cast<Eigen::Index>(j)] = static_cast<double>(x[j]);
    const Eigen::VectorXd ey = transposed ? Eigen::VectorXd(m.transpose() * ex) : Eigen::VectorXd(m * ex);
    for (std::size_t i = 0; i < out; ++i) products[i] = ey[static_cast<Eigen::Index>(i)];
  }
#endif
  const double u = std::numeric_limits<Value>::epsilon() / 2;
  y_ref.assign(out, 0.0);
  bound.assign(out, 0.0);
  for (std::size_t i = 0; i < out; ++i) {
    const double b = beta == Value(0) ? 0.0 : static_cast<double>(beta) * static_cast<double>(y0[i]);
    y_ref[i] = static_cast<double>(alpha) * products[i] + b;
    bound[i] = static_cast<double>(count[i] + 4 + extra_roundings) * u *
               (std::fabs(static_cast<double>(alpha)) * magnitude[i] + std::fabs(b));
  }
}

template <class Index, class Value>
std::vector<Value> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-2.0, 2.0);
  std::vector<Value> v(n);
  for (auto& e : v) e = static_cast<Value>(d(rng));
  return v;
}

// Runs one product (with or without a plan) and checks it, including the guard items past y's end.
template <class Index, class Value>
void check_spmv(const csr_matrix_host<Index, Value>& a, const spmv_options& options, bool with_plan, Value alpha,
                Value beta, std::uint64_t seed, const std::string& what, bool nan_in_y = false,
                bool pattern = false) {
  SCOPED_TRACE(what + (with_plan ? " (plan)" : " (one call)") + " kernel " + sparse::to_string(options.kernel) +
               " width " + std::to_string(options.vector_width) + " alpha " + std::to_string(alpha) + " beta " +
               std::to_string(beta));
  const bool transposed = options.operation == spmv_operation::transpose;
  const std::size_t n_x = transposed ? static_cast<std::size_t>(a.rows) : static_cast<std::size_t>(a.cols);
  const std::size_t n_y = transposed ? static_cast<std::size_t>(a.cols) : static_cast<std::size_t>(a.rows);
  const auto x = random_vector<Index, Value>(n_x, seed);
  auto y0 = random_vector<Index, Value>(n_y, seed + 1);
  if (nan_in_y) std::fill(y0.begin(), y0.end(), std::numeric_limits<Value>::quiet_NaN());
  std::vector<double> y_ref, bound;
  // Column blocks add each block's sum to y: one rounding more per block.
  reference(a, transposed, alpha, x, beta, y0, y_ref, bound, options.column_blocks > 1 ? options.column_blocks : 0);

  device_matrix<Index, Value> d(a);
  if (pattern) d.view.values = nullptr;  // a's values are all 1: the same product from no values
  device_buffer<Value> dx(x), dy(n_y + 16);
  dy.poison();
  if (n_y > 0) SCANKIT_CUDA_CHECK(cudaMemcpy(dy.data(), y0.data(), n_y * sizeof(Value), cudaMemcpyHostToDevice));
  workspace ws;
  if (with_plan) {
    const sparse::spmv_plan<Index, Value> plan(d.view, options);
    if (options.column_blocks > 1) {
      EXPECT_EQ(plan.column_blocks(), options.column_blocks);
      EXPECT_EQ(plan.kernel(), spmv_kernel::merge_path);
    }
    sparse::spmv(plan, alpha, {dx.data(), static_cast<std::int64_t>(n_x)}, beta,
                 {dy.data(), static_cast<std::int64_t>(n_y)}, nullptr, &ws);
  } else {
    sparse::spmv(alpha, d.view, {dx.data(), static_cast<std::int64_t>(n_x)}, beta,
                 {dy.data(), static_cast<std::int64_t>(n_y)}, nullptr, &ws, options);
  }
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = dy.download();
  int reported = 0;
  for (std::size_t i = 0; i < n_y && reported < 5; ++i) {
    const double g = static_cast<double>(got[i]);
    if (!(std::fabs(g - y_ref[i]) <= bound[i])) {
      ADD_FAILURE() << "y[" << i << "] = " << g << ", expected " << y_ref[i] << " (bound " << bound[i] << ")";
      ++reported;
    }
  }
  const auto* guard = reinterpret_cast<const unsigned char*>(got.data() + n_y);
  EXPECT_TRUE(std::all_of(guard, guard + 16 * sizeof(Value), [](unsigned char b) { return b == 0xA5; }))
      << "written past y's end";
}

const spmv_options merge{spmv_operation::non_transpose, spmv_kernel::merge_path, 0};
const spmv_options automatic{spmv_operation::non_transpose, spmv_kernel::automatic, 0};
spmv_options vector_of(int width) { return {spmv_operation::non_transpose, spmv_kernel::vector, width}; }
const spmv_options transposed{spmv_operation::transpose, spmv_kernel::automatic, 0};

// Row lengths of several shapes, n rows.
std::vector<std::int64_t> lengths_of(const std::string& shape, std::int64_t n, std::mt19937_64& rng) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(n));
  for (auto& l : lengths) {
    if (shape == "uniform") l = 1 + static_cast<std::int64_t>(rng() % 12);
    if (shape == "half_empty") l = rng() % 2 == 0 ? 0 : 1 + static_cast<std::int64_t>(rng() % 3);
    if (shape == "power_law") {
      const double u = 1.0 - std::uniform_real_distribution<double>(0, 1)(rng);  // (0, 1]
      l = static_cast<std::int64_t>(std::min(std::pow(u, -1.0 / 1.2), 1e6)) - 1;  // Pareto, mean ~ 5
    }
    if (shape == "ones") l = 1;
  }
  if (shape == "one_dense_row" && n > 0) lengths[static_cast<std::size_t>(n / 3)] = 50'000;  // many tiles long
  return lengths;
}

// Calls check(a, what, seed) on a random matrix of every shape and several sizes.
template <class Index, class Value, class Check>
void for_each_shape(Check&& check) {
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (const std::string shape : {"uniform", "half_empty", "power_law", "ones", "one_dense_row"}) {
    for (std::int64_t rows : {1LL, 37LL, 4099LL, 200'003LL}) {
      const auto lengths = lengths_of(shape, rows, rng);
      const Index cols = static_cast<Index>(shape == "one_dense_row" ? 60'000 : 1 + rows + static_cast<std::int64_t>(rng() % 97));
      const auto a = random_csr<Index, Value>(lengths, cols, seed + static_cast<std::uint64_t>(rows));
      check(a, shape + " rows " + std::to_string(rows) + " nnz " + std::to_string(a.values.size()), seed);
    }
  }
}

template <class Index, class Value>
void run_shapes() {
  for_each_shape<Index, Value>([](const csr_matrix_host<Index, Value>& a, const std::string& what, std::uint64_t seed) {
    check_spmv(a, merge, false, Value(1), Value(0), seed, what);
    check_spmv(a, merge, true, Value(-1.5), Value(0.5), seed, what);
    check_spmv(a, automatic, false, Value(2), Value(1), seed, what);
    for (int width : {0, 2, 32}) check_spmv(a, vector_of(width), width == 2, Value(1), Value(-1), seed, what);
    check_spmv(a, transposed, false, Value(0.75), Value(2), seed, what);
    check_spmv(a, transposed, true, Value(1), Value(0), seed, what);
  });
}

TEST(Spmv, ShapesInt32Float) {
  SCANKIT_REQUIRE_GPU();
  run_shapes<std::int32_t, float>();
}
TEST(Spmv, ShapesInt32Double) {
  SCANKIT_REQUIRE_GPU();
  run_shapes<std::int32_t, double>();
}
TEST(Spmv, ShapesInt64Float) {
  SCANKIT_REQUIRE_GPU();
  run_shapes<std::int64_t, float>();
}
TEST(Spmv, ShapesInt64Double) {
  SCANKIT_REQUIRE_GPU();
  run_shapes<std::int64_t, double>();
}

spmv_options column_blocks_of(int blocks) {
  spmv_options o;
  o.column_blocks = blocks;
  return o;
}

// Column blocks (forced: the automatic choice needs x larger than the L2) on every shape, with
// more blocks than columns too, and beta = 0 over a y of NaN.
template <class Index, class Value>
void run_column_block_shapes() {
  for_each_shape<Index, Value>([](const csr_matrix_host<Index, Value>& a, const std::string& what, std::uint64_t seed) {
    check_spmv(a, column_blocks_of(2), true, Value(1), Value(0), seed, what, true);
    check_spmv(a, column_blocks_of(3), true, Value(-1.5), Value(0.5), seed, what);
    check_spmv(a, column_blocks_of(64), true, Value(2), Value(1), seed, what);
  });
}

TEST(Spmv, ColumnBlocksInt32Float) {
  SCANKIT_REQUIRE_GPU();
  run_column_block_shapes<std::int32_t, float>();
}

TEST(Spmv, ColumnBlocksInt64Double) {
  SCANKIT_REQUIRE_GPU();
  run_column_block_shapes<std::int64_t, double>();
}

// A plan holding a copy of the values (column blocks, or A^T) follows new values after
// update_values().
// A pattern matrix (values == nullptr: every stored entry 1, a graph's adjacency) gives the
// product of the same matrix with values of 1, on every kernel, plan and column block.
template <class Index, class Value>
void run_pattern_shapes() {
  for_each_shape<Index, Value>([](csr_matrix_host<Index, Value> a, const std::string& what, std::uint64_t seed) {
    std::fill(a.values.begin(), a.values.end(), Value(1));
    const auto pattern = [&](const spmv_options& o, bool plan, Value alpha, Value beta) {
      check_spmv(a, o, plan, alpha, beta, seed, what + " pattern", false, true);
    };
    pattern(merge, false, Value(1), Value(0));
    pattern(merge, true, Value(-1.5), Value(0.5));
    for (int width : {0, 32}) pattern(vector_of(width), width == 32, Value(1), Value(-1));
    pattern(transposed, false, Value(0.75), Value(2));
    pattern(transposed, true, Value(1), Value(0));
    if (a.rows > 1000) pattern(column_blocks_of(3), true, Value(1), Value(0));
  });
}

TEST(Spmv, PatternMatricesInt32Float) {
  SCANKIT_REQUIRE_GPU();
  run_pattern_shapes<std::int32_t, float>();
}

TEST(Spmv, PatternMatricesInt64Double) {
  SCANKIT_REQUIRE_GPU();
  run_pattern_shapes<std::int64_t, double>();
}

TEST(Spmv, UpdateValuesRefreshesThePlansCopy) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  auto a = random_csr<std::int32_t, double>(lengths_of("power_law", 30'000, rng), 50'000, seed);
  device_matrix<std::int32_t, double> d(a);
  spmv_options transposed_plan;
  transposed_plan.operation = spmv_operation::transpose;
  for (const auto& options : {column_blocks_of(5), transposed_plan}) {
    const bool t = options.operation == spmv_operation::transpose;
    sparse::spmv_plan<std::int32_t, double> plan(d.view, options);
    const std::size_t n_x = t ? static_cast<std::size_t>(a.rows) : static_cast<std::size_t>(a.cols);
    const std::size_t n_y = t ? static_cast<std::size_t>(a.cols) : static_cast<std::size_t>(a.rows);
    const auto x = random_vector<std::int32_t, double>(n_x, seed + 7);
    device_buffer<double> dx(x), dy(n_y);
    workspace ws;
    for (int round = 0; round < 2; ++round) {
      for (auto& v : a.values) v = -2.0 * v + 0.25;
      d.values.upload(a.values);
      plan.update_values(nullptr, &ws);
      dy.poison();
      sparse::spmv(plan, 1.0, {dx.data(), static_cast<std::int64_t>(n_x)}, 0.0,
                   {dy.data(), static_cast<std::int64_t>(n_y)}, nullptr, &ws);
      std::vector<double> y_ref, bound;
      reference(a, t, 1.0, x, 0.0, std::vector<double>(n_y), y_ref, bound, plan.column_blocks());
      const auto got = dy.download();
      int wrong = 0;
      for (std::size_t i = 0; i < n_y; ++i) wrong += std::fabs(got[i] - y_ref[i]) <= bound[i] ? 0 : 1;
      EXPECT_EQ(wrong, 0) << (t ? "transposed" : "column blocks") << " round " << round;
    }
  }
}

// The automatic choice: a scattered matrix whose x is larger than the L2 gets column blocks, a
// banded one of the same size does not; both products are right.
TEST(Spmv, AutomaticColumnBlocks) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  int device = 0, l2 = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  const auto cols = static_cast<std::int32_t>(static_cast<std::int64_t>(l2) * 5 / 4 / sizeof(float));  // x: 1.25 L2
  const std::int64_t rows = 1 << 19;
  const auto scattered = random_csr<std::int32_t, float>(std::vector<std::int64_t>(rows, 6), cols, seed);
  csr_matrix_host<std::int32_t, float> banded = scattered;  // the same rows, columns near the diagonal
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t diagonal = r * cols / rows;
    for (auto k = banded.offsets[r]; k < banded.offsets[r + 1]; ++k) {
      banded.columns[k] = static_cast<std::int32_t>(std::min<std::int64_t>(diagonal + (k - banded.offsets[r]), cols - 1));
    }
  }
  const csr_matrix_host<std::int32_t, float>* const matrices[] = {&scattered, &banded};
  for (const auto* a : matrices) {
    device_matrix<std::int32_t, float> d(*a);
    const sparse::spmv_plan<std::int32_t, float> plan(d.view, merge);
    if (a == &scattered) {
      EXPECT_GE(plan.column_blocks(), 2);
    } else {
      EXPECT_EQ(plan.column_blocks(), 1);
    }
    spmv_options forced = merge;
    forced.column_blocks = plan.column_blocks();
    check_spmv(*a, forced, true, 1.0f, 0.0f, seed, a == &scattered ? "scattered" : "banded");
  }
}

TEST(Spmv, EdgeMatrices) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::pair<std::string, csr_matrix_host<std::int32_t, float>>> cases = {
      {"0 x 0", random_csr<std::int32_t, float>({}, 0, seed)},
      {"5 x 0", random_csr<std::int32_t, float>({0, 0, 0, 0, 0}, 0, seed)},
      {"no nonzeros", random_csr<std::int32_t, float>(std::vector<std::int64_t>(10'000, 0), 7, seed)},
      {"one row", random_csr<std::int32_t, float>({40'000}, 100'000, seed)},
      {"one column", random_csr<std::int32_t, float>(std::vector<std::int64_t>(100'000, 1), 1, seed)},
      {"dense row longer than a tile among short ones",
       random_csr<std::int32_t, float>(lengths_of("one_dense_row", 30'000, rng), 60'000, seed)},
  };
  for (const auto& [what, a] : cases) {
    for (const auto& options : {merge, automatic, vector_of(8), transposed}) {
      check_spmv(a, options, false, 1.0f, 0.0f, seed, what);
      check_spmv(a, options, true, 1.0f, 2.0f, seed, what);
    }
  }
}

// A row so long that the merge path's carries of its tiles fill several tiles of the fix-up scan
// (more than 2^22 positions), between short and empty rows. Ones times ones: every partial sum is
// an integer below 2^24, so each row must come out exact whatever the association, and a carry
// lost or added twice shows.
TEST(Spmv, RowSpanningManyFixupTiles) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  constexpr std::int32_t long_row = 7'777, long_length = 9'000'000;
  csr_matrix_host<std::int32_t, float> a;
  a.rows = 30'001;
  a.cols = long_length;
  a.offsets.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (std::int32_t r = 0; r < a.rows; ++r) {
    const std::int32_t n = r == long_row ? long_length : static_cast<std::int32_t>(rng() % 3);
    for (std::int32_t k = 0; k < n; ++k) {
      a.columns.push_back(r == long_row ? k : static_cast<std::int32_t>(rng() % a.cols));
    }
    a.offsets[static_cast<std::size_t>(r) + 1] = static_cast<std::int32_t>(a.columns.size());
  }
  a.values.assign(a.columns.size(), 1.0f);
  const device_matrix<std::int32_t, float> d(a);
  const std::vector<float> ones(static_cast<std::size_t>(a.cols), 1.0f);
  device_buffer<float> dx(ones);
  for (const auto& [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{-0.5f, 1.5f}}) {
    device_buffer<float> dy(std::vector<float>(static_cast<std::size_t>(a.rows), 2.0f));
    sparse::spmv(alpha, d.view, {dx.data(), a.cols}, beta, {dy.data(), a.rows}, nullptr, nullptr, merge);
    const auto y = dy.download();
    int wrong = 0;
    for (std::int32_t r = 0; r < a.rows && wrong < 5; ++r) {
      const float length = static_cast<float>(a.offsets[r + 1] - a.offsets[r]);
      const float expected = alpha * length + (beta == 0.0f ? 0.0f : beta * 2.0f);
      if (y[static_cast<std::size_t>(r)] != expected) {
        ADD_FAILURE() << "alpha " << alpha << " beta " << beta << ": y[" << r << "] = " << y[static_cast<std::size_t>(r)]
                      << ", expected " << expected;
        ++wrong;
      }
    }
  }
}

TEST(Spmv, AlphaBetaEdgeValues) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const auto a = random_csr<std::int32_t, double>(lengths_of("power_law", 50'000, rng), 40'000, seed);
  for (const auto& options : {merge, vector_of(0), transposed}) {
    check_spmv(a, options, false, 1.0, 0.0, seed, "beta = 0 ignores NaN in y", true);
    check_spmv(a, options, true, -3.0, 0.0, seed, "beta = 0 ignores NaN in y", true);
    check_spmv(a, options, false, 0.0, 2.0, seed, "alpha = 0 scales y");
    check_spmv(a, options, true, 0.0, 0.0, seed, "alpha = 0 and beta = 0 zero y", true);
    check_spmv(a, options, false, 1.0, 1.0, seed, "beta = 1");
  }
}

TEST(Spmv, PoissonAndRmatFromGenerators) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const auto p2 = sparse::csr_from_sorted_coo(sparse::poisson_2d<std::int32_t, float>(300));
  const auto p3 = sparse::csr_from_sorted_coo(sparse::poisson_3d<std::int64_t, double>(40));
  sparse::rmat_parameters rp;
  rp.scale = 15;
  rp.seed = seed;
  auto rmat_coo = sparse::rmat<std::int32_t, float>(rp);
  // R-MAT edges come in generation order: sort them into CSR order (duplicates kept).
  std::vector<std::size_t> order(rmat_coo.value.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    return std::pair(rmat_coo.row[i], rmat_coo.col[i]) < std::pair(rmat_coo.row[j], rmat_coo.col[j]);
  });
  sparse::coo_matrix_host<std::int32_t, float> sorted;
  sorted.rows = rmat_coo.rows;
  sorted.cols = rmat_coo.cols;
  for (std::size_t i : order) {
    sorted.row.push_back(rmat_coo.row[i]);
    sorted.col.push_back(rmat_coo.col[i]);
    sorted.value.push_back(rmat_coo.value[i]);
  }
  const auto rmat = sparse::csr_from_sorted_coo(sorted);
  for (const auto& options : {merge, automatic, vector_of(0), transposed}) {
    check_spmv(p2, options, true, 1.0f, 0.0f, seed, "poisson 2d 300");
    check_spmv(p3, options, true, 1.0, 0.0, seed, "poisson 3d 40 (int64, double)");
    check_spmv(rmat, options, true, 1.0f, 0.0f, seed, "rmat 15");
  }
}

TEST(Spmv, MetisGraphMdual) {
  SCANKIT_REQUIRE_GPU();
  const std::filesystem::path file = "/usr/share/doc/libmetis-dev/examples/graphs/mdual.graph";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "libmetis-doc is not installed";
  const auto g = sparse::read_metis_graph<std::int32_t, float>(file.string());
  const auto a = sparse::csr_from_sorted_coo(g);
  for (const auto& options : {merge, automatic, vector_of(0)}) check_spmv(a, options, true, 1.0f, 0.0f, 7, "mdual");
}

// The merge-path kernel's sums have an association fixed by the matrix: the same bits every run.
TEST(Spmv, MergePathIsDeterministic) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const auto a = random_csr<std::int32_t, float>(lengths_of("power_law", 300'000, rng), 300'000, seed);
  device_matrix<std::int32_t, float> d(a);
  const auto x = random_vector<std::int32_t, float>(static_cast<std::size_t>(a.cols), seed);
  device_buffer<float> dx(x), y1(static_cast<std::size_t>(a.rows)), y2(static_cast<std::size_t>(a.rows));
  const sparse::spmv_plan<std::int32_t, float> plan(d.view, merge);
  for (auto* y : {&y1, &y2}) {
    sparse::spmv(plan, 1.0f, {dx.data(), a.cols}, 0.0f, {y->data(), a.rows});
  }
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto h1 = y1.download(), h2 = y2.download();
  EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float)));
}

// A planned product captured once into a CUDA graph and replayed with new x.
TEST(Spmv, PlannedProductReplaysInAGraph) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const auto a = random_csr<std::int32_t, float>(lengths_of("power_law", 100'000, rng), 100'000, seed);
  device_matrix<std::int32_t, float> d(a);
  for (const auto& options : {merge, vector_of(0), column_blocks_of(3)}) {
    const sparse::spmv_plan<std::int32_t, float> plan(d.view, options);
    device_buffer<float> dx(static_cast<std::size_t>(a.cols)), dy(static_cast<std::size_t>(a.rows));
    workspace ws;
    cudaStream_t stream;
    SCANKIT_CUDA_CHECK(cudaStreamCreate(&stream));
    sparse::spmv(plan, 1.0f, {dx.data(), a.cols}, 0.0f, {dy.data(), a.rows}, stream, &ws);  // warms ws
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    SCANKIT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    sparse::spmv(plan, 1.0f, {dx.data(), a.cols}, 0.0f, {dy.data(), a.rows}, stream, &ws);
    SCANKIT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    SCANKIT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 5; ++replay) {
      const auto x = random_vector<std::int32_t, float>(static_cast<std::size_t>(a.cols), seed + replay);
      dx.upload(x);
      dy.poison();
      SCANKIT_CUDA_CHECK(cudaGraphLaunch(exec, stream));
      SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
      std::vector<double> y_ref, bound;
      reference(a, false, 1.0f, x, 0.0f, std::vector<float>(static_cast<std::size_t>(a.rows)), y_ref, bound,
                plan.column_blocks());
      const auto got = dy.download();
      int wrong = 0;
      for (std::size_t i = 0; i < got.size(); ++i) wrong += std::fabs(got[i] - y_ref[i]) <= bound[i] ? 0 : 1;
      EXPECT_EQ(wrong, 0) << "replay " << replay << " kernel " << sparse::to_string(plan.kernel());
    }
    SCANKIT_CUDA_CHECK(cudaGraphExecDestroy(exec));
    SCANKIT_CUDA_CHECK(cudaGraphDestroy(graph));
    ws.release();  // returned on `stream`, which must still exist
    SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
  }
}

TEST(Spmv, StatisticsAndKernelChoice) {
  SCANKIT_REQUIRE_GPU();
  const auto a = random_csr<std::int32_t, float>({3, 0, 0, 7, 1, 0}, 20, 1);
  device_matrix<std::int32_t, float> d(a);
  const auto s = sparse::analyse_rows(d.view);
  EXPECT_EQ(s.rows, 6);
  EXPECT_EQ(s.nonzeros, static_cast<std::int64_t>(a.values.size()));
  EXPECT_EQ(s.max_row_length, a.offsets[4] - a.offsets[3]);
  EXPECT_EQ(s.empty_rows, 3);
  const sparse::spmv_plan<std::int32_t, float> plan(d.view);
  EXPECT_EQ(plan.kernel(), spmv_kernel::merge_path);  // empty rows: uneven
  const auto even = random_csr<std::int32_t, float>(std::vector<std::int64_t>(1000, 5), 100, 2);
  device_matrix<std::int32_t, float> de(even);
  const sparse::spmv_plan<std::int32_t, float> alike(de.view);
  EXPECT_EQ(alike.kernel(), spmv_kernel::vector);  // rows all alike
  const sparse::spmv_plan<std::int32_t, float> forced(d.view, vector_of(16));
  EXPECT_EQ(forced.kernel(), spmv_kernel::vector);
  EXPECT_EQ(forced.vector_width(), 16);
}

// Bad input throws before any launch and leaves y as it was.
TEST(Spmv, BadInputThrowsAndLeavesYIntact) {
  SCANKIT_REQUIRE_GPU();
  auto a = random_csr<std::int32_t, float>(std::vector<std::int64_t>(1000, 5), 500, 3);
  device_matrix<std::int32_t, float> d(a);
  device_buffer<float> dx(std::vector<float>(500, 1.0f)), dy(1000);
  dy.poison();
  const auto expect_throw = [&](auto&& call, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_THROW(call(), scankit::error);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    const auto y = dy.download();
    const auto* bytes = reinterpret_cast<const unsigned char*>(y.data());
    EXPECT_TRUE(std::all_of(bytes, bytes + y.size() * sizeof(float), [](unsigned char b) { return b == 0xA5; }));
  };
  const dense_vector<const float> x{dx.data(), 500};
  const dense_vector<float> y{dy.data(), 1000};
  expect_throw([&] { sparse::spmv(1.0f, d.view, {dx.data(), 499}, 0.0f, y); }, "x too short");
  expect_throw([&] { sparse::spmv(1.0f, d.view, x, 0.0f, {dy.data(), 1001}); }, "y too long");
  expect_throw([&] { sparse::spmv(1.0f, d.view, {nullptr, 500}, 0.0f, y); }, "x null");
  expect_throw([&] { sparse::spmv(1.0f, d.view, x, 0.0f, {nullptr, 1000}); }, "y null");
  expect_throw([&] { sparse::spmv(1.0f, d.view, {reinterpret_cast<const float*>(dy.data()) + 10, 500}, 0.0f, y); },
               "x overlaps y");
  expect_throw([&] { sparse::spmv(1.0f, d.view, x, 0.0f, y, nullptr, nullptr, vector_of(3)); }, "vector width 3");
  expect_throw([&] { sparse::spmv(1.0f, d.view, x, 0.0f, y, nullptr, nullptr, transposed); },
               "A's sizes for A^T");
  {
    auto bad = a;
    std::swap(bad.offsets[10], bad.offsets[11]);  // decreasing
    device_matrix<std::int32_t, float> db(bad);
    expect_throw([&] { sparse::spmv(1.0f, db.view, x, 0.0f, y); }, "offsets decrease");
    expect_throw([&] { sparse::spmv_plan<std::int32_t, float> p(db.view); }, "plan of bad offsets");
    EXPECT_FALSE(sparse::validate_csr(db.view).valid);
  }
  {
    auto bad = a;
    bad.offsets.back() -= 1;  // does not end at nnz
    device_matrix<std::int32_t, float> db(bad);
    expect_throw([&] { sparse::spmv(1.0f, db.view, x, 0.0f, y); }, "offsets end short");
    const auto v = sparse::validate_csr(db.view);
    EXPECT_FALSE(v.valid);
    EXPECT_EQ(v.first_bad_row, 1000);
  }
  {
    auto bad = a;
    bad.offsets[0] = 1;
    device_matrix<std::int32_t, float> db(bad);
    expect_throw([&] { sparse::spmv(1.0f, db.view, x, 0.0f, y); }, "offsets start at 1");
  }
  {
    csr_view<std::int32_t, float> v = d.view;
    v.cols = 0;
    expect_throw([&] { sparse::spmv(1.0f, v, {dx.data(), 0}, 0.0f, y); }, "nonzeros without columns");
    v = d.view;
    v.rows = -1;
    expect_throw([&] { sparse::spmv(1.0f, v, x, 0.0f, y); }, "negative rows");
  }
  // Columns: validate_csr finds them; spmv does not read outside x.
  EXPECT_TRUE(sparse::validate_csr(d.view, true).valid);
  {
    auto bad = a;
    bad.columns[2 * 5 + 1] = 500;  // row 2
    device_matrix<std::int32_t, float> db(bad);
    const auto v = sparse::validate_csr(db.view);
    EXPECT_FALSE(v.valid);
    EXPECT_EQ(v.first_bad_row, 2);
    sparse::spmv(1.0f, db.view, x, 0.0f, y);  // a wrong row 2, no fault
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  {
    auto bad = a;
    std::swap(bad.columns[3 * 5], bad.columns[3 * 5 + 1]);  // row 3 unsorted
    device_matrix<std::int32_t, float> db(bad);
    EXPECT_TRUE(sparse::validate_csr(db.view, false).valid);
    const auto v = sparse::validate_csr(db.view, true);
    EXPECT_FALSE(v.valid);
    EXPECT_EQ(v.first_bad_row, 3);
  }
}

}  // namespace
}  // namespace scankit::testing
