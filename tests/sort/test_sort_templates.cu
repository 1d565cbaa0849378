// The radix sort's template API (nvcc): a struct key through a user bit-key, 12-byte values, a
// shape of one's own (also beside the precompiled sort), and CUDA-graph capture and replay of the
// precompiled sorts.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "scankit/device/sort.cuh"
#include "sort_test_util.hpp"
#include "support/graph_replay.hpp"

namespace scankit::testing {
namespace {

// Sorted by (group ascending, then score ascending): the bit-key packs both into 64 bits.
struct record {
  std::uint32_t group;
  float score;
};
struct record_bits {
  __host__ __device__ std::uint64_t operator()(const record& r) const {
    return (static_cast<std::uint64_t>(r.group) << 32) | default_bit_key<float>{}(r.score);
  }
};
struct payload {
  std::uint32_t a, b, c;
};

TEST(SortTemplates, StructKeysWithABitKey) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{5000}, std::int64_t{300007}}) {
    std::vector<record> keys(n);
    std::vector<payload> values(n);
    for (std::int64_t i = 0; i < n; ++i) {
      keys[i] = {static_cast<std::uint32_t>(rng() % 50), static_cast<float>(rng() % 1000) - 500.0f};
      values[i] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i * 7), 42u};
    }
    device_buffer<record> ki(keys), ko(n);
    device_buffer<payload> vi(values), vo(n);
    for (sort_strategy s : {sort_strategy::onesweep, sort_strategy::reduce_then_scan}) {
      SCOPED_TRACE(std::string(to_string(s)) + ", n = " + std::to_string(n));
      sort_options options;
      options.strategy = s;
      ko.poison();
      vo.poison();
      device::sort_pairs(ki.data(), ko.data(), vi.data(), vo.data(), n, nullptr, nullptr, options, record_bits{});
      const auto order = reference::argsort(keys, options, record_bits{});
      ASSERT_TRUE(same_bits(reference::permute(keys, order), ko.download()));
      ASSERT_TRUE(same_bits(reference::permute(values, order), vo.download()));
    }
  }
}

TEST(SortTemplates, OwnShapeAndRadixBits) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 123457;
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::uniform, seed);
  device_buffer<std::uint32_t> in(keys), out(n);
  out.poison();
  // 6-bit digits (6 passes, the last of 2 bits), 256 threads x 7 keys.
  device::sort_keys<device::sort_policy<256, 7, 6>>(in.data(), out.data(), n);
  ASSERT_TRUE(same_bits(reference::sort_keys(keys), out.download()));
}

// This unit instantiates the library's small-sort cluster kernel for its own pass shape, as the
// precompiled sort does in the library: two copies of one kernel in one program. Each launch must
// find its opt-ins (above 8 blocks, the non-portable cluster sizes) on its own copy, whichever
// unit's copy of the shared host code the linker kept.
TEST(SortTemplates, OwnShapeBesideThePrecompiledSmallSorts) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{65536}, std::int64_t{16384}, std::int64_t{40000}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, key_pattern::uniform, seed + n);
    const std::vector<std::uint32_t> expected = reference::sort_keys(keys);
    device_buffer<std::uint32_t> in(keys), out(n);
    out.poison();
    device::sort_keys<device::sort_policy<256, 7, 6>>(in.data(), out.data(), n);
    ASSERT_TRUE(same_bits(expected, out.download()));
    out.poison();
    sort_keys(in.data(), out.data(), n);
    ASSERT_TRUE(same_bits(expected, out.download()));
  }
}

class SortGraphs : public ::testing::TestWithParam<graph_case> {};

TEST_P(SortGraphs, PairsReplayed) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = GetParam().n;
  device_buffer<float> ki(n), ko(n);
  device_buffer<std::uint32_t> vi(n), vo(n);
  std::vector<float> keys;
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  std::uint64_t round = 0;
  check_graph_replays(
      GetParam(),
      [&](std::int64_t m) {
        keys = make_keys<float>(m, key_pattern::few_distinct, seed + round++);
        ki.upload(keys);
        vi.upload(values);
        ko.poison();
        vo.poison();
      },
      [&](cudaStream_t stream, workspace* ws, std::int64_t m) {
        sort_pairs(ki.data(), ko.data(), vi.data(), vo.data(), m, stream, ws);
      },
      [&](std::int64_t) {
        const auto order = reference::argsort(keys);
        ASSERT_TRUE(same_bits(reference::permute(keys, order), ko.download()));
        ASSERT_TRUE(same_bits(reference::permute(values, order), vo.download()));
      });
}

INSTANTIATE_TEST_SUITE_P(CapturedOnce, SortGraphs, ::testing::ValuesIn(all_graph_cases()), graph_case_name);

}  // namespace
}  // namespace scankit::testing
