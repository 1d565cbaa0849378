// Top-k through the precompiled API (g++-compiled caller) against std::partial_sort on the host:
// every precompiled key type, the key patterns of the sort's tests (ties, ascending rows, all
// equal), rows split over several blocks, k from 1 to the whole row and beyond it, per-row k,
// segments with empty runs and items outside them, unaligned rows, NaNs in both float orders,
// unsorted selection, the same bits on a second run, workspaces, and bad arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "scankit/top_k.hpp"
#include "sort_test_util.hpp"

namespace scankit::testing {
namespace {

struct top_k_case {
  std::int64_t rows, cols, k;
};

// The wanted indices of one row: the first min(k, items) of the stable order (largest first,
// equal keys by index), then -1.
template <class Key>
std::vector<std::int64_t> reference_row(const Key* row, std::int64_t items, std::int64_t k, const top_k_options& options) {
  sort_options order;
  order.order = options.largest ? sort_order::descending : sort_order::ascending;
  order.floats = options.floats;
  std::vector<std::uint64_t> ranks(static_cast<std::size_t>(items));
  for (std::int64_t i = 0; i < items; ++i) ranks[i] = reference::sort_rank(row[i], order);
  std::vector<std::int64_t> index(static_cast<std::size_t>(items));
  std::iota(index.begin(), index.end(), std::int64_t{0});
  const std::int64_t kept = std::min(k, items);
  std::partial_sort(index.begin(), index.begin() + kept, index.end(), [&](std::int64_t a, std::int64_t b) {
    return ranks[a] != ranks[b] ? ranks[a] < ranks[b] : a < b;
  });
  index.resize(static_cast<std::size_t>(kept));
  index.resize(static_cast<std::size_t>(k), -1);
  return index;
}

template <class Key, class Index>
struct top_k_result {
  std::vector<Key> values;
  std::vector<Index> indices;
};

// Checks values and indices of every row against the reference; `row_begin(r)`, `row_items(r)`.
template <class Key, class Index, class Begin, class Items>
::testing::AssertionResult matches_reference(const std::vector<Key>& keys, std::int64_t rows, std::int64_t k,
                                             const std::vector<std::int32_t>* k_per_row, const top_k_options& options,
                                             const top_k_result<Key, Index>& got, Begin row_begin, Items row_items) {
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t row_k = k;
    if (k_per_row != nullptr) row_k = std::min<std::int64_t>(k, std::max((*k_per_row)[r], 0));
    std::vector<std::int64_t> want = reference_row(keys.data() + row_begin(r), row_items(r), row_k, options);
    want.resize(static_cast<std::size_t>(k), -1);
    for (std::int64_t j = 0; j < k; ++j) {
      const std::size_t slot = static_cast<std::size_t>(r * k + j);
      const std::int64_t index = want[j];
      if (static_cast<std::int64_t>(got.indices[slot]) != index) {
        return ::testing::AssertionFailure() << "row " << r << " slot " << j << ": index " << got.indices[slot]
                                             << ", expected " << index;
      }
      Key want_value{};
      if (index >= 0) want_value = keys[static_cast<std::size_t>(row_begin(r) + index)];
      if (std::memcmp(&want_value, &got.values[slot], sizeof(Key)) != 0) {
        return ::testing::AssertionFailure() << "row " << r << " slot " << j << ": value bits differ";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

template <class Key, class Index>
top_k_result<Key, Index> run_matrix(const device_buffer<Key>& keys, std::int64_t key_offset, const top_k_case& c,
                                    const top_k_options& options, workspace* ws = nullptr) {
  device_buffer<Key> values(static_cast<std::size_t>(c.rows * c.k));
  device_buffer<Index> indices(static_cast<std::size_t>(c.rows * c.k));
  values.poison();
  indices.poison();
  top_k(keys.data() + key_offset, c.rows, c.cols, c.k, values.data(), indices.data(), nullptr, ws, options);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  return {values.download(), indices.download()};
}

template <class Key, class Index = std::int32_t>
void check_matrix(const top_k_case& c, key_pattern pattern, const top_k_options& options, std::uint64_t seed,
                  std::int64_t key_offset = 0) {
  const std::vector<Key> all = make_keys<Key>(static_cast<std::size_t>(c.rows * c.cols + key_offset), pattern, seed);
  const std::vector<Key> keys(all.begin() + key_offset, all.end());
  const device_buffer<Key> d_keys(all);
  const auto got = run_matrix<Key, Index>(d_keys, key_offset, c, options);
  const std::int64_t cols = c.cols;
  EXPECT_TRUE(matches_reference(keys, c.rows, c.k, nullptr, options, got,
                                [cols](std::int64_t r) { return r * cols; }, [cols](std::int64_t) { return cols; }))
      << c.rows << " x " << c.cols << ", k " << c.k << ", " << to_string(pattern)
      << (options.largest ? ", largest" : ", smallest") << ", offset " << key_offset;
}

const top_k_case shapes[] = {
    {1, 1, 1},       {3, 5, 1},        {4, 1000, 1},    {5, 4097, 50},    {2, 8191, 2048},   {3, 10, 16},
    {2, 33, 33},     {700, 300, 7},    {9, 20000, 257}, {1, 100003, 1024}, {1, 1 << 21, 100}, {3, 400001, 50},
    {2, 65537, 2000}};

template <class Key>
class TopKKeys : public ::testing::Test {};
using top_k_key_types =
    ::testing::Types<float, double, __half, __nv_bfloat16, std::int32_t, std::uint32_t, std::int64_t>;
TYPED_TEST_SUITE(TopKKeys, top_k_key_types);

TYPED_TEST(TopKKeys, ShapesAndPatterns) {
  SCANKIT_REQUIRE_GPU();
  std::uint64_t seed = 11;
  for (const top_k_case& c : shapes) {
    if (sort_small_sizes_only() && c.rows * c.cols > 100000) continue;
    for (key_pattern p : {key_pattern::uniform, key_pattern::few_distinct, key_pattern::sorted}) {
      top_k_options options;
      options.largest = (seed % 2) == 0;
      check_matrix<TypeParam>(c, p, options, ++seed);
    }
  }
}

TYPED_TEST(TopKKeys, AscendingRowsSelectEveryRound) {
  SCANKIT_REQUIRE_GPU();
  // Largest of ascending rows: every item beats the threshold when it arrives.
  top_k_options options;
  check_matrix<TypeParam, std::int64_t>({2, 300000, 1000}, key_pattern::sorted, options, 5);
  options.largest = false;
  check_matrix<TypeParam, std::int64_t>({2, 300000, 1000}, key_pattern::reversed, options, 6);
}

TEST(TopK, AllEqualKeysKeepTheSmallestIndices) {
  SCANKIT_REQUIRE_GPU();
  top_k_options options;
  for (const top_k_case& c : {top_k_case{3, 5000, 10}, top_k_case{1, 500000, 700}}) {
    check_matrix<float>(c, key_pattern::all_equal, options, 3);
    options.largest = false;
    check_matrix<std::int32_t>(c, key_pattern::all_equal, options, 4);
  }
}

TEST(TopK, UnalignedRowsAndOddLengths) {
  SCANKIT_REQUIRE_GPU();
  top_k_options options;
  for (std::int64_t offset : {1, 2, 3}) {
    check_matrix<float>({5, 9999, 77}, key_pattern::uniform, options, 20 + offset, offset);
    check_matrix<__half>({4, 70001, 33}, key_pattern::uniform, options, 30 + offset, offset);
    check_matrix<double>({3, 12345, 500}, key_pattern::uniform, options, 40 + offset, offset);
  }
}

TEST(TopK, KAboveTheBlockLimitSortsTheRows) {
  SCANKIT_REQUIRE_GPU();
  top_k_options options;
  check_matrix<float, std::int64_t>({3, 10000, 3000}, key_pattern::few_distinct, options, 50);
  check_matrix<std::int64_t>({2, 5000, 5000}, key_pattern::uniform, options, 51);  // k = the whole row
  options.largest = false;
  check_matrix<double>({4, 3000, 4096}, key_pattern::uniform, options, 52);  // k above the row
}

TEST(TopK, NaNsAndZerosFollowTheFloatOrder) {
  SCANKIT_REQUIRE_GPU();
  std::vector<float> keys = {1.0f, NAN, -0.0f, 0.0f, -NAN, INFINITY, -INFINITY, 2.0f, NAN, -1.0f, 0.0f, -0.0f};
  const std::int64_t cols = static_cast<std::int64_t>(keys.size());
  const device_buffer<float> d_keys(keys);
  for (float_order order : {float_order::total, float_order::raw_bits}) {
    for (bool largest : {true, false}) {
      top_k_options options;
      options.floats = order;
      options.largest = largest;
      const auto got = run_matrix<float, std::int32_t>(d_keys, 0, {1, cols, cols}, options);
      EXPECT_TRUE(matches_reference(keys, 1, cols, nullptr, options, got, [](std::int64_t) { return 0; },
                                    [cols](std::int64_t) { return cols; }))
          << (order == float_order::total ? "total" : "raw_bits") << (largest ? " largest" : " smallest");
    }
  }
  // Largest first in the total order: the NaNs (by index), then +inf.
  top_k_options options;
  const auto got = run_matrix<float, std::int32_t>(d_keys, 0, {1, cols, 4}, options);
  EXPECT_EQ(got.indices, (std::vector<std::int32_t>{1, 4, 8, 5}));
}

TEST(TopK, PerRowK) {
  SCANKIT_REQUIRE_GPU();
  const top_k_case c{6, 50000, 300};
  const std::vector<std::int32_t> ks = {0, 1, 300, 299, 1000, -5};
  const std::vector<float> keys = make_keys<float>(static_cast<std::size_t>(c.rows * c.cols), key_pattern::uniform, 60);
  const device_buffer<float> d_keys(keys);
  const device_buffer<std::int32_t> d_ks(ks);
  top_k_options options;
  options.k_per_row = d_ks.data();
  const auto got = run_matrix<float, std::int64_t>(d_keys, 0, c, options);
  EXPECT_TRUE(matches_reference(keys, c.rows, c.k, &ks, options, got, [&](std::int64_t r) { return r * c.cols; },
                                [&](std::int64_t) { return c.cols; }));
}

template <class Offset>
void check_segments(const std::vector<std::int64_t>& sizes, std::int64_t lead, std::int64_t tail, std::int64_t k,
                    std::uint64_t seed) {
  std::vector<Offset> offsets{static_cast<Offset>(lead)};
  for (std::int64_t s : sizes) offsets.push_back(static_cast<Offset>(offsets.back() + s));
  const std::int64_t n = static_cast<std::int64_t>(offsets.back()) + tail;
  const auto segments = static_cast<std::int64_t>(sizes.size());
  const std::vector<float> keys = make_keys<float>(static_cast<std::size_t>(n), key_pattern::few_distinct, seed);
  const device_buffer<float> d_keys(keys);
  const device_buffer<Offset> d_offsets(offsets);
  device_buffer<float> values(static_cast<std::size_t>(segments * k));
  device_buffer<std::int32_t> indices(static_cast<std::size_t>(segments * k));
  values.poison();
  indices.poison();
  top_k_options options;
  top_k_segments(d_keys.data(), n, d_offsets.data(), segments, k, values.data(), indices.data(), nullptr, nullptr,
                 options);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const top_k_result<float, std::int32_t> got{values.download(), indices.download()};
  EXPECT_TRUE(matches_reference(keys, segments, k, nullptr, options, got,
                                [&](std::int64_t r) { return static_cast<std::int64_t>(offsets[r]); },
                                [&](std::int64_t r) { return static_cast<std::int64_t>(offsets[r + 1] - offsets[r]); }))
      << sizes.size() << " segments, k " << k;
}

TEST(TopKSegments, EmptyRunsAndItemsOutside) {
  SCANKIT_REQUIRE_GPU();
  check_segments<std::int32_t>({0, 0, 5, 1, 0, 3000, 17, 0, 0}, 7, 9, 20, 70);
  check_segments<std::int64_t>({0, 100000, 0, 2, 64, 0}, 0, 3, 64, 71);
}

TEST(TopKSegments, OneGiantSegmentAmongSmallOnes) {
  SCANKIT_REQUIRE_GPU();
  check_segments<std::int64_t>({3, 1 << 20, 5, 0, 40}, 2, 0, 100, 72);
  check_segments<std::int32_t>({1 << 21}, 0, 0, 1000, 73);  // one segment: split over many blocks
  check_segments<std::int64_t>({300, 5000, 10}, 0, 0, 2500, 74);  // the sorting path over segments
}

TEST(TopK, SelectKGivesTheSameSet) {
  SCANKIT_REQUIRE_GPU();
  const top_k_case c{4, 200000, 900};
  const std::vector<float> keys = make_keys<float>(static_cast<std::size_t>(c.rows * c.cols), key_pattern::uniform, 80);
  const device_buffer<float> d_keys(keys);
  device_buffer<float> values(static_cast<std::size_t>(c.rows * c.k));
  device_buffer<std::int64_t> indices(static_cast<std::size_t>(c.rows * c.k));
  select_k(d_keys.data(), c.rows, c.cols, c.k, values.data(), indices.data());
  const auto sorted = run_matrix<float, std::int64_t>(d_keys, 0, c, top_k_options{});
  std::vector<std::int64_t> got = indices.download(), want = sorted.indices;
  for (std::int64_t r = 0; r < c.rows; ++r) {
    std::sort(got.begin() + r * c.k, got.begin() + (r + 1) * c.k);
    std::sort(want.begin() + r * c.k, want.begin() + (r + 1) * c.k);
  }
  EXPECT_EQ(got, want);
}

TEST(TopK, SameBitsOnTwoRunsAndWithAWorkspace) {
  SCANKIT_REQUIRE_GPU();
  const top_k_case c{2, 1 << 20, 1000};  // few rows: split over blocks, merged in a second launch
  const std::vector<float> keys = make_keys<float>(static_cast<std::size_t>(c.rows * c.cols), key_pattern::few_distinct, 90);
  const device_buffer<float> d_keys(keys);
  workspace ws;
  const auto first = run_matrix<float, std::int32_t>(d_keys, 0, c, top_k_options{});
  const auto second = run_matrix<float, std::int32_t>(d_keys, 0, c, top_k_options{}, &ws);
  EXPECT_TRUE(same_bits(first.values, second.values));
  EXPECT_EQ(first.indices, second.indices);
  EXPECT_LE(top_k_workspace_bytes(d_keys.data(), c.rows, c.cols, c.k), ws.capacity_bytes());
  EXPECT_GT(top_k_workspace_bytes(d_keys.data(), c.rows, c.cols, c.k), 0u);
}

TEST(TopK, BadArgumentsThrowBeforeWriting) {
  SCANKIT_REQUIRE_GPU();
  device_buffer<float> keys(1000), values(100);
  device_buffer<std::int32_t> indices(100);
  values.poison();
  indices.poison();
  const std::vector<float> before = values.download();
  EXPECT_THROW(top_k(keys.data(), 10, 100, -1, values.data(), indices.data()), error);
  EXPECT_THROW(top_k(keys.data(), -1, 100, 10, values.data(), indices.data()), error);
  EXPECT_THROW(top_k(keys.data(), 10, 100, 10, static_cast<float*>(nullptr), static_cast<std::int32_t*>(nullptr)),
               error);
  EXPECT_THROW(top_k(static_cast<const float*>(nullptr), 10, 100, 10, values.data(), indices.data()), error);
  EXPECT_THROW(top_k(keys.data(), 10, 100, 10, keys.data() + 5, indices.data()), error);  // overlap
  EXPECT_THROW(top_k(keys.data(), 1, std::int64_t{1} << 31, 10, values.data(), indices.data()), error);  // int32
  EXPECT_THROW(top_k_segments(keys.data(), 1000, static_cast<const std::int32_t*>(nullptr), 5, 10, values.data(),
                              indices.data()),
               error);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(same_bits(before, values.download()));
  // Nothing to do: no rows, or k = 0.
  top_k(keys.data(), 0, 100, 10, values.data(), indices.data());
  top_k(keys.data(), 10, 100, 0, values.data(), indices.data());
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(same_bits(before, values.download()));
}

}  // namespace
}  // namespace scankit::testing
