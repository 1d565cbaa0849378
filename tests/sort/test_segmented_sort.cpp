// The segmented sort's precompiled API (g++) against the host reference: every size class and
// their limits, mixes of tiny, small, medium and huge segments, empty segments (runs of them, at
// both ends), items outside every segment (left as they were), both orders, bit ranges (an odd and
// an even number of digit passes, so that the two-buffer form ends in either buffer), float keys
// with NaNs in both float orders, int32 and int64 offsets, values of 4 and 8 bytes, workspaces
// of the queried size, and bad offsets (thrown before anything is written). Every check runs
// out of place and in two buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/segmented_sort.hpp"
#include "segmented_sort_test_util.hpp"

namespace scankit::testing {
namespace {

struct precompiled_api {
  template <class K, class O>
  static void keys(const K* in, K* out, std::int64_t n, const O* offsets, std::int64_t segments, const sort_options& o) {
    segmented_sort_keys(in, out, n, offsets, segments, nullptr, nullptr, o);
  }
  template <class K, class V, class O>
  static void pairs(const K* in, K* out, const V* vin, V* vout, std::int64_t n, const O* offsets, std::int64_t segments,
                    const sort_options& o) {
    segmented_sort_pairs(in, out, vin, vout, n, offsets, segments, nullptr, nullptr, o);
  }
  template <class K, class O>
  static void keys_in_two_buffers(double_buffer<K>& keys, std::int64_t n, const O* offsets, std::int64_t segments,
                                  const sort_options& o) {
    segmented_sort_keys(keys, n, offsets, segments, nullptr, nullptr, o);
  }
  template <class K, class V, class O>
  static void pairs_in_two_buffers(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, const O* offsets,
                                   std::int64_t segments, const sort_options& o) {
    segmented_sort_pairs(keys, values, n, offsets, segments, nullptr, nullptr, o);
  }
};

template <class Key, class Offset = std::int64_t>
void check(const std::vector<std::int64_t>& sizes, key_pattern pattern, const sort_options& options, std::uint64_t seed,
           std::int64_t lead = 0, std::int64_t tail = 0) {
  check_sorted_segments<precompiled_api, Key, Offset>(sizes, pattern, options, seed, lead, tail);
}

TEST(SegmentedSort, ClassLimitsEveryPattern) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (key_pattern p : all_key_patterns) {
    SCOPED_TRACE(to_string(p));
    check<std::uint32_t>(limit_sizes(), p, {}, seed);
    check<float>(limit_sizes(), p, {}, seed + 1);
  }
}

TEST(SegmentedSort, KeyTypesAndOrders) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::vector<std::int64_t> sizes = limit_sizes();
  for (sort_order order : {sort_order::ascending, sort_order::descending}) {
    sort_options o;
    o.order = order;
    SCOPED_TRACE(order == sort_order::ascending ? "ascending" : "descending");
    check<std::int32_t>(sizes, key_pattern::uniform, o, seed);
    check<std::int64_t>(sizes, key_pattern::few_distinct, o, seed);
    check<double>(sizes, key_pattern::uniform, o, seed);
    check<__half>(sizes, key_pattern::uniform, o, seed);
    check<__nv_bfloat16>(sizes, key_pattern::few_distinct, o, seed);
  }
  sort_options raw;
  raw.floats = float_order::raw_bits;
  check<float>(sizes, key_pattern::uniform, raw, seed);
  check<double, std::int32_t>(sizes, key_pattern::few_distinct, raw, seed);
  // Three digit passes (odd: the two-buffer form ends in the alternate buffers) and two (even).
  sort_options bits;
  bits.begin_bit = 4;
  bits.end_bit = 28;
  check<std::uint32_t>(sizes, key_pattern::uniform, bits, seed);
  bits.end_bit = 20;
  bits.order = sort_order::descending;
  check<std::int64_t, std::int32_t>(sizes, key_pattern::uniform, bits, seed);
}

// Every size a thread sorts (0 to 17: the one-thread class and one above), shuffled, with many
// ties: stability on every path of the small-segment pass.
TEST(SegmentedSort, EveryThreadSizeWithTies) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::vector<std::int64_t> sizes;
  for (int repeat = 0; repeat < (sort_small_sizes_only() ? 60 : 600); ++repeat) {
    for (std::int64_t s = 0; s <= 17; ++s) sizes.push_back(s);
  }
  std::shuffle(sizes.begin(), sizes.end(), std::mt19937_64(seed));
  for (sort_order order : {sort_order::ascending, sort_order::descending}) {
    sort_options o;
    o.order = order;
    SCOPED_TRACE(order == sort_order::ascending ? "ascending" : "descending");
    check<std::uint32_t>(sizes, key_pattern::few_distinct, o, seed);
    check<float>(sizes, key_pattern::few_distinct, o, seed + 1);
    check<double, std::int32_t>(sizes, key_pattern::uniform, o, seed + 2);
  }
}

TEST(SegmentedSort, SizeMixes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const bool small = sort_small_sizes_only();
  SCOPED_TRACE("tiny");
  check<float>(uniform_sizes(small ? 3000 : 200000, 0, 3, seed), key_pattern::uniform, {}, seed);
  SCOPED_TRACE("uniform 1..2000");
  check<float>(uniform_sizes(small ? 40 : 2000, 1, 2000, seed), key_pattern::uniform, {}, seed);
  SCOPED_TRACE("power law");
  check<float>(power_law_sizes(small ? 300 : 3000, small ? 60000 : 300000, seed), key_pattern::uniform, {}, seed);
  SCOPED_TRACE("16 large");
  check<std::uint32_t>(std::vector<std::int64_t>(16, small ? 20000 : 300000), key_pattern::uniform, {}, seed);
}

TEST(SegmentedSort, ItemsOutsideSegmentsAndEmptyRuns) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::vector<std::int64_t> sizes(50, 0);
  for (std::int64_t s : {5, 0, 0, 700, 0, 20000}) sizes.push_back(s);
  sizes.insert(sizes.end(), 50, 0);
  check<std::uint32_t>(sizes, key_pattern::uniform, {}, seed, 37, 1001);
  check<std::uint32_t, std::int32_t>(sizes, key_pattern::uniform, {}, seed, 37, 1001);
  check<std::uint32_t>({}, key_pattern::uniform, {}, seed, 10, 0);                       // no segments
  check<std::uint32_t>(std::vector<std::int64_t>(9, 0), key_pattern::uniform, {}, seed);  // n = 0
}

TEST(SegmentedSort, Int32Offsets) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check<double, std::int32_t>(limit_sizes(), key_pattern::uniform, {}, seed);
  check<float, std::int32_t>(uniform_sizes(500, 0, 40, seed), key_pattern::few_distinct, {}, seed);
}

TEST(SegmentedSort, BadOffsetsThrowBeforeWriting) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1000;
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::uniform, 7);
  device_buffer<std::uint32_t> keys_in(keys), keys_out(n);
  for (const std::vector<std::int64_t>& bad :
       {std::vector<std::int64_t>{0, 500, 400, 1000}, std::vector<std::int64_t>{0, 500, 1001},
        std::vector<std::int64_t>{-1, 10}, std::vector<std::int64_t>{0, 20, 10, 30}}) {
    device_buffer<std::int64_t> d_offsets(bad);
    const auto segments = static_cast<std::int64_t>(bad.size()) - 1;
    keys_out.poison();
    EXPECT_THROW(segmented_sort_keys(keys_in.data(), keys_out.data(), n, d_offsets.data(), segments), scankit::error);
    EXPECT_TRUE(same_bits(poisoned<std::uint32_t>(n), keys_out.download())) << "the output was written";
    double_buffer<std::uint32_t> db(keys_in.data(), keys_out.data());
    EXPECT_THROW(segmented_sort_keys(db, n, d_offsets.data(), segments), scankit::error);
    EXPECT_EQ(db.selector, 0);
    EXPECT_TRUE(same_bits(keys, keys_in.download())) << "the current buffer was written";
    EXPECT_TRUE(same_bits(poisoned<std::uint32_t>(n), keys_out.download())) << "the alternate buffer was written";
  }
  device_buffer<std::int64_t> ok(std::vector<std::int64_t>{0, n});
  device_buffer<std::int32_t> values(static_cast<std::size_t>(n));
  EXPECT_THROW(segmented_sort_keys(keys_in.data(), keys_out.data(), n, ok.data(), -1), scankit::error);
  EXPECT_THROW(segmented_sort_keys(keys_in.data(), keys_out.data(), -1, ok.data(), 1), scankit::error);
  EXPECT_THROW(segmented_sort_keys(keys_in.data(), keys_out.data(), n, static_cast<const std::int64_t*>(nullptr), 1),
               scankit::error);
  EXPECT_THROW(segmented_sort_keys(keys_in.data(), keys_in.data(), n, ok.data(), 1), scankit::error);
  EXPECT_THROW(segmented_sort_pairs(keys_in.data(), keys_out.data(), values.data(), reinterpret_cast<std::int32_t*>(keys_out.data()),
                                    n, ok.data(), 1),
               scankit::error);
  double_buffer<std::uint32_t> same(keys_in.data(), keys_in.data());
  EXPECT_THROW(segmented_sort_keys(same, n, ok.data(), 1), scankit::error);
  sort_options wide;
  wide.end_bit = 40;
  EXPECT_THROW(segmented_sort_keys(keys_in.data(), keys_out.data(), n, ok.data(), 1, nullptr, nullptr, wide),
               scankit::error);
  // int32 offsets cannot address more than 2^31 - 1 items.
  device_buffer<std::int32_t> ok32(std::vector<std::int32_t>{0, static_cast<std::int32_t>(n)});
  EXPECT_THROW(segmented_sort_keys(keys_in.data(), keys_out.data(), std::int64_t{1} << 31, ok32.data(), 1),
               scankit::error);
}

TEST(SegmentedSort, SameResultTwiceWithAWorkspaceOfTheQueriedSize) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::vector<std::int64_t> sizes = power_law_sizes(3000, 100000, seed);
  std::int64_t n = 0;
  for (std::int64_t s : sizes) n += s;
  const auto segments = static_cast<std::int64_t>(sizes.size());
  const std::vector<float> keys = make_keys<float>(static_cast<std::size_t>(n), key_pattern::few_distinct, seed);
  std::vector<std::int64_t> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = i;
  device_buffer<float> ki(keys), ko(static_cast<std::size_t>(n));
  device_buffer<std::int64_t> vi(values), vo(static_cast<std::size_t>(n));
  const std::vector<std::int64_t> offsets = offsets_of<std::int64_t>(sizes, 0);
  device_buffer<std::int64_t> d_offsets(offsets);

  std::vector<float> want_keys(keys.size());
  std::vector<std::int64_t> want_values(values.size());
  reference_segmented_sort(keys, &values, offsets, {}, want_keys, &want_values);

  const std::size_t bytes = segmented_sort_pairs_workspace_bytes(ki.data(), vi.data(), n, segments);
  ASSERT_GT(bytes, 0u);
  device_buffer<unsigned char> memory(bytes);
  workspace ws(memory.data(), bytes);
  for (int run = 0; run < 2; ++run) {
    vo.poison();
    segmented_sort_pairs(ki.data(), ko.data(), vi.data(), vo.data(), n, d_offsets.data(), segments, nullptr, &ws);
    EXPECT_TRUE(same_bits(want_values, vo.download())) << "run " << run;
    EXPECT_TRUE(same_bits(want_keys, ko.download())) << "run " << run;
  }

  // Two buffers of double values: the workspace query of that form, smaller (no O(n) scratch).
  const std::size_t two_buffer_bytes =
      segmented_sort_pairs_workspace_bytes(ki.data(), static_cast<const double*>(nullptr), n, segments, true);
  EXPECT_LT(two_buffer_bytes, bytes);
  device_buffer<unsigned char> small_memory(two_buffer_bytes);
  workspace small_ws(small_memory.data(), two_buffer_bytes);
  std::vector<double> dvalues(values.begin(), values.end()), want_dvalues(want_values.begin(), want_values.end());
  device_buffer<float> ka(keys), kb(static_cast<std::size_t>(n));
  device_buffer<double> va(dvalues), vb(static_cast<std::size_t>(n));
  double_buffer<float> dk(ka.data(), kb.data());
  double_buffer<double> dv(va.data(), vb.data());
  segmented_sort_pairs(dk, dv, n, d_offsets.data(), segments, nullptr, &small_ws);
  EXPECT_TRUE(same_bits(want_keys, (dk.current() == ka.data() ? ka : kb).download()));
  EXPECT_TRUE(same_bits(want_dvalues, (dv.current() == va.data() ? va : vb).download()));
}

}  // namespace
}  // namespace scankit::testing
