// Host tests of the reference scans (the oracle of the GPU tests): hand-computed cases, in place,
// n = 0, and non-commutative operators checked against a brute-force left fold.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "scankit/operators.hpp"
#include "scankit/reference/scan_reference.hpp"

namespace {

// Always qualified: with std::string values, argument-dependent lookup would find std::exclusive_scan.
namespace ref = scankit::reference;

template <class T, class Op>
std::vector<T> inclusive(const std::vector<T>& in, Op op) {
  std::vector<T> out(in.size());
  ref::inclusive_scan(in.data(), out.data(), static_cast<std::int64_t>(in.size()), op);
  return out;
}

template <class T, class Op>
std::vector<T> exclusive(const std::vector<T>& in, T init, Op op) {
  std::vector<T> out(in.size());
  ref::exclusive_scan(in.data(), out.data(), static_cast<std::int64_t>(in.size()), init, op);
  return out;
}

TEST(ScanReference, InclusiveHandComputed) {
  EXPECT_EQ(inclusive<int>({1, 2, 3, 4}, scankit::plus_op{}), (std::vector<int>{1, 3, 6, 10}));
  EXPECT_EQ(inclusive<int>({5, -7, 2, 0, 3}, scankit::plus_op{}), (std::vector<int>{5, -2, 0, 0, 3}));
  EXPECT_EQ(inclusive<int>({3, 1, 4, 1, 5, 9, 2, 6}, scankit::maximum_op{}),
            (std::vector<int>{3, 3, 4, 4, 5, 9, 9, 9}));
  EXPECT_EQ(inclusive<int>({3, 1, 4, 1, 5, 9, 2, 6}, scankit::minimum_op{}),
            (std::vector<int>{3, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(inclusive<unsigned>({0xF0u, 0x3Cu, 0xFFu, 0x0Fu}, scankit::bit_and_op{}),
            (std::vector<unsigned>{0xF0u, 0x30u, 0x30u, 0x00u}));
  EXPECT_EQ(inclusive<unsigned>({0x01u, 0x04u, 0x10u, 0x01u}, scankit::bit_or_op{}),
            (std::vector<unsigned>{0x01u, 0x05u, 0x15u, 0x15u}));
  EXPECT_EQ(inclusive<unsigned>({0x01u, 0x03u, 0x07u, 0x01u}, scankit::bit_xor_op{}),
            (std::vector<unsigned>{0x01u, 0x02u, 0x05u, 0x04u}));
  EXPECT_EQ(inclusive<double>({0.5, 0.25, -1.0}, scankit::plus_op{}), (std::vector<double>{0.5, 0.75, -0.25}));
}

TEST(ScanReference, ExclusiveHandComputed) {
  EXPECT_EQ(exclusive<int>({1, 2, 3, 4}, 10, scankit::plus_op{}), (std::vector<int>{10, 11, 13, 16}));
  EXPECT_EQ(exclusive<int>({1, 2, 3, 4}, 0, scankit::plus_op{}), (std::vector<int>{0, 1, 3, 6}));
  EXPECT_EQ(exclusive<int>({3, 1, 4, 1, 5}, 2, scankit::maximum_op{}), (std::vector<int>{2, 3, 3, 4, 4}));
  EXPECT_EQ(exclusive<int>({3, 1, 4, 1, 5}, 2, scankit::minimum_op{}), (std::vector<int>{2, 2, 1, 1, 1}));
  EXPECT_EQ(exclusive<unsigned>({0x01u, 0x03u, 0x07u}, 0x10u, scankit::bit_xor_op{}),
            (std::vector<unsigned>{0x10u, 0x11u, 0x12u}));
}

TEST(ScanReference, SingleElement) {
  EXPECT_EQ(inclusive<int>({42}, scankit::plus_op{}), (std::vector<int>{42}));
  EXPECT_EQ(exclusive<int>({42}, -5, scankit::plus_op{}), (std::vector<int>{-5}));
}

TEST(ScanReference, ZeroItemsWriteNothing) {
  const int in[1] = {7};
  int out[1] = {-99};
  ref::inclusive_scan(in, out, 0, scankit::plus_op{});
  EXPECT_EQ(out[0], -99);
  ref::exclusive_scan(in, out, 0, 5, scankit::plus_op{});
  EXPECT_EQ(out[0], -99);
  // Null pointers are fine when there is nothing to read or write.
  ref::inclusive_scan<int>(nullptr, nullptr, 0, scankit::plus_op{});
  ref::exclusive_scan<int>(nullptr, nullptr, 0, 1, scankit::plus_op{});
}

TEST(ScanReference, NarrowIntegersWrap) {
  const std::vector<std::uint8_t> in = {200, 100, 10};
  EXPECT_EQ(inclusive(in, scankit::plus_op{}), (std::vector<std::uint8_t>{200, 44, 54}));
  const std::vector<std::int8_t> signed_in = {100, 100, -56};
  EXPECT_EQ(inclusive(signed_in, scankit::plus_op{}), (std::vector<std::int8_t>{100, -56, -112}));
}

TEST(ScanReference, InPlace) {
  std::vector<int> data = {1, 2, 3, 4, 5};
  ref::inclusive_scan(data.data(), data.data(), 5, scankit::plus_op{});
  EXPECT_EQ(data, (std::vector<int>{1, 3, 6, 10, 15}));

  data = {1, 2, 3, 4, 5};
  ref::exclusive_scan(data.data(), data.data(), 5, 100, scankit::plus_op{});
  EXPECT_EQ(data, (std::vector<int>{100, 101, 103, 106, 110}));

  std::vector<std::string> words = {"a", "b", "c"};
  ref::exclusive_scan(words.data(), words.data(), 3, std::string(">"), std::plus<std::string>{});
  EXPECT_EQ(words, (std::vector<std::string>{">", ">a", ">ab"}));
}

// Concatenation: the plainest non-commutative operator; any reordering shows in the text.
TEST(ScanReference, StringConcatenationKeepsOrder) {
  const std::vector<std::string> in = {"a", "b", "c", "d"};
  const auto concat = [](const std::string& x, const std::string& y) { return x + y; };
  EXPECT_EQ(inclusive(in, concat), (std::vector<std::string>{"a", "ab", "abc", "abcd"}));
  EXPECT_EQ(exclusive(in, std::string("<"), concat), (std::vector<std::string>{"<", "<a", "<ab", "<abc"}));
}

// x -> a*x + b (mod 2^32); op(f, g) applies f first, then g.
struct affine {
  std::uint32_t a, b;
  bool operator==(const affine&) const = default;
};
struct compose {
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
std::uint32_t apply(const affine& f, std::uint32_t x) { return f.a * x + f.b; }

using mat2 = std::array<std::uint32_t, 4>;  // row major, products wrap mod 2^32
struct mat2_product {
  mat2 operator()(const mat2& x, const mat2& y) const {
    return {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2],
            x[2] * y[1] + x[3] * y[3]};
  }
};

TEST(ScanReference, OperatorsUnderTestAreNotCommutative) {
  const affine f{3, 5}, g{7, 11};
  EXPECT_NE(compose{}(f, g), compose{}(g, f));
  const mat2 x{1, 2, 3, 4}, y{5, 6, 7, 8};
  EXPECT_NE(mat2_product{}(x, y), mat2_product{}(y, x));
}

TEST(ScanReference, AffineCompositionMatchesBruteForce) {
  std::mt19937_64 rng(20240611);
  for (int n : {1, 2, 3, 17, 100, 257}) {
    std::vector<affine> in(n);
    for (auto& f : in) f = {static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())};
    const affine init{5, 9};
    const auto inc = inclusive(in, compose{});
    const auto exc = exclusive(in, init, compose{});
    for (int i = 0; i < n; ++i) {
      // Brute force: fold from scratch, left to right.
      affine fold = in[0];
      for (int j = 1; j <= i; ++j) fold = compose{}(fold, in[j]);
      ASSERT_EQ(inc[i], fold) << "inclusive, i = " << i;
      affine fold_ex = init;
      for (int j = 0; j < i; ++j) fold_ex = compose{}(fold_ex, in[j]);
      ASSERT_EQ(exc[i], fold_ex) << "exclusive, i = " << i;
      // Independent meaning: the composed map equals applying the maps one by one.
      const std::uint32_t x = static_cast<std::uint32_t>(rng());
      std::uint32_t y = x;
      for (int j = 0; j <= i; ++j) y = apply(in[j], y);
      ASSERT_EQ(apply(inc[i], x), y) << "i = " << i;
    }
  }
}

TEST(ScanReference, MatrixProductMatchesBruteForce) {
  std::mt19937_64 rng(77);
  for (int n : {1, 2, 5, 64, 129}) {
    std::vector<mat2> in(n);
    for (auto& m : in) {
      for (auto& e : m) e = static_cast<std::uint32_t>(rng());
    }
    const mat2 init{2, 1, 1, 1};
    const auto inc = inclusive(in, mat2_product{});
    const auto exc = exclusive(in, init, mat2_product{});
    for (int i = 0; i < n; ++i) {
      mat2 fold = in[0];
      for (int j = 1; j <= i; ++j) fold = mat2_product{}(fold, in[j]);
      ASSERT_EQ(inc[i], fold) << "inclusive, i = " << i;
      mat2 fold_ex = init;
      for (int j = 0; j < i; ++j) fold_ex = mat2_product{}(fold_ex, in[j]);
      ASSERT_EQ(exc[i], fold_ex) << "exclusive, i = " << i;
    }
  }
}

TEST(ScanReference, OperatorSupportTable) {
  using scankit::scan_op;
  for (scan_op op : {scan_op::plus, scan_op::maximum, scan_op::minimum, scan_op::bit_and, scan_op::bit_or,
                     scan_op::bit_xor}) {
    EXPECT_TRUE(scankit::op_supported<std::int8_t>(op));
    EXPECT_TRUE(scankit::op_supported<std::uint64_t>(op));
  }
  for (scan_op op : {scan_op::bit_and, scan_op::bit_or, scan_op::bit_xor}) {
    EXPECT_FALSE(scankit::op_supported<float>(op));
    EXPECT_FALSE(scankit::op_supported<double>(op));
  }
  for (scan_op op : {scan_op::plus, scan_op::maximum, scan_op::minimum}) {
    EXPECT_TRUE(scankit::op_supported<float>(op));
    EXPECT_TRUE(scankit::op_supported<double>(op));
  }
}

}  // namespace
