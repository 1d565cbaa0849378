// SpMV's argument checks, which run before anything touches the GPU: no device is needed (the
// pointers are host addresses that the checks compare but never dereference). Each bad call must
// throw scankit::error with a message that names the problem.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scankit/error.hpp"
#include "scankit/sparse/spmv.hpp"

namespace {

using scankit::sparse::csr_view;
using scankit::sparse::dense_vector;
using scankit::sparse::spmv_kernel;
using scankit::sparse::spmv_operation;
using scankit::sparse::spmv_options;

// A 4 x 3 matrix's arrays, never read by the calls below.
struct fake_matrix {
  std::vector<std::int32_t> offsets = {0, 1, 2, 3, 4};
  std::vector<std::int32_t> columns = {0, 1, 2, 0};
  std::vector<float> values = {1, 2, 3, 4};
  csr_view<std::int32_t, float> view() const {
    return {4, 3, 4, offsets.data(), columns.data(), values.data()};
  }
};

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const scankit::error& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_error(const std::function<void()>& call, const std::string& fragment) {
  const std::string message = error_of(call);
  EXPECT_NE(message.find(fragment), std::string::npos) << "got: " << message << "\nwanted: " << fragment;
}

TEST(SpmvArguments, SizesPointersAndOverlapAreCheckedFirst) {
  const fake_matrix m;
  std::vector<float> x(3), y(4), big(16);
  const dense_vector<const float> vx{x.data(), 3};
  const dense_vector<float> vy{y.data(), 4};
  expect_error([&] { scankit::sparse::spmv(1.0f, m.view(), {x.data(), 2}, 0.0f, vy); }, "sizes do not match");
  expect_error([&] { scankit::sparse::spmv(1.0f, m.view(), vx, 0.0f, {y.data(), 5}); }, "sizes do not match");
  expect_error([&] { scankit::sparse::spmv(1.0f, m.view(), {nullptr, 3}, 0.0f, vy); }, "x is null");
  expect_error([&] { scankit::sparse::spmv(1.0f, m.view(), vx, 0.0f, {nullptr, 4}); }, "y is null");
  expect_error([&] { scankit::sparse::spmv(1.0f, m.view(), {big.data() + 2, 3}, 0.0f, {big.data(), 4}); },
               "x and y overlap");
  spmv_options transposed;
  transposed.operation = spmv_operation::transpose;
  // A^T is 3 x 4: A's own sizes are wrong for it.
  expect_error([&] { scankit::sparse::spmv(1.0f, m.view(), vx, 0.0f, vy, nullptr, nullptr, transposed); },
               "sizes do not match");
}

TEST(SpmvArguments, MatrixShapeAndOptionsAreChecked) {
  const fake_matrix m;
  std::vector<float> x(3), y(4);
  const dense_vector<const float> vx{x.data(), 3};
  const dense_vector<float> vy{y.data(), 4};
  auto v = m.view();
  v.rows = -1;
  expect_error([&] { scankit::sparse::spmv(1.0f, v, vx, 0.0f, vy); }, "negative size");
  v = m.view();
  v.cols = 0;
  expect_error([&] { scankit::sparse::spmv(1.0f, v, {x.data(), 0}, 0.0f, vy); }, "nonzeros in a 4 x 0 matrix");
  v = m.view();
  v.columns = nullptr;
  expect_error([&] { scankit::sparse::spmv(1.0f, v, vx, 0.0f, vy); }, "a.columns is null");
  v = m.view();
  v.offsets = nullptr;
  expect_error([&] { scankit::sparse::spmv(1.0f, v, vx, 0.0f, vy); }, "a.offsets is null");
  for (int width : {1, 3, 64, -2}) {
    spmv_options o;
    o.kernel = spmv_kernel::vector;
    o.vector_width = width;
    expect_error([&] { scankit::sparse::spmv(1.0f, m.view(), vx, 0.0f, vy, nullptr, nullptr, o); },
                 "vector_width = " + std::to_string(width));
    expect_error([&] { scankit::sparse::spmv_plan<std::int32_t, float> plan(m.view(), o); },
                 "vector_width = " + std::to_string(width));
  }
}

TEST(SpmvArguments, BadColumnBlocksThrowBeforeAnyLaunch) {
  const fake_matrix m;
  std::vector<float> x(3), y(4);
  const dense_vector<const float> vx{x.data(), 3};
  const dense_vector<float> vy{y.data(), 4};
  for (int blocks : {-1, 65, 1000}) {
    spmv_options o;
    o.column_blocks = blocks;
    expect_error([&] { scankit::sparse::spmv_plan<std::int32_t, float> plan(m.view(), o); },
                 "column_blocks = " + std::to_string(blocks) + " is not in 0..64");
    expect_error([&] { scankit::sparse::spmv(1.0f, m.view(), vx, 0.0f, vy, nullptr, nullptr, o); },
                 "column_blocks = " + std::to_string(blocks));
  }
  spmv_options o;
  o.column_blocks = 2;
  o.kernel = spmv_kernel::vector;
  expect_error([&] { scankit::sparse::spmv_plan<std::int32_t, float> plan(m.view(), o); },
               "column_blocks = 2 needs the merge-path kernel");
  o.kernel = spmv_kernel::automatic;
  o.operation = scankit::sparse::spmv_operation::transpose;
  expect_error([&] { scankit::sparse::spmv_plan<std::int32_t, float> plan(m.view(), o); },
               "column_blocks = 2 with A^T");
}

TEST(SpmvArguments, KernelNames) {
  EXPECT_STREQ(scankit::sparse::to_string(spmv_kernel::automatic), "automatic");
  EXPECT_STREQ(scankit::sparse::to_string(spmv_kernel::merge_path), "merge_path");
  EXPECT_STREQ(scankit::sparse::to_string(spmv_kernel::vector), "vector");
}

}  // namespace
