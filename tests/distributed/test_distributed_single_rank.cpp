// The distributed module on a communicator of one rank (label gpu): the same code path as many
// ranks (gathers, samples, exchanges as local copies, rebalance), checked against scankit's own
// single-GPU calls on the same input; argument checks; the local pass that continues a scan from
// the ranks before it (which only several ranks reach through the API). Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "distributed_test_util.hpp"
#include "scankit/compact.hpp"
#include "scankit/distributed/compact.hpp"
#include "scankit/distributed/scan.hpp"
#include "scankit/distributed/scan_offset.hpp"
#include "scankit/distributed/sort.hpp"
#include "scankit/sort.hpp"
#include "scankit/scan.hpp"

namespace {

using namespace scankit::testing;  // device_buffer, key_kind, random_keys, same_bits, run_ranks, ...
namespace dist = scankit::distributed;
using scankit::scan_op;

constexpr std::size_t guard = 64;

// One communicator of one rank on GPU 0 for the whole suite (creating one costs NCCL set-up).
class SingleRank : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!scankit::cuda_device_available()) return;
    nccl_test_environment();
    try {
      SCANKIT_CUDA_CHECK(cudaSetDevice(0));
      comm_ = std::make_unique<dist::communicator>(dist::create_unique_id(), 0, 1, 0);
    } catch (const std::exception& e) {
      setup_error_ = e.what();  // reported by every test of the suite
    }
  }
  static void TearDownTestSuite() { comm_.reset(); }
  void SetUp() override {
    SCANKIT_REQUIRE_GPU();
    ASSERT_TRUE(comm_ && !comm_->aborted()) << "no communicator of one rank: " << setup_error_;
    SCANKIT_CUDA_CHECK(cudaSetDevice(0));
  }
  static std::unique_ptr<dist::communicator> comm_;
  static std::string setup_error_;
};
std::unique_ptr<dist::communicator> SingleRank::comm_;
std::string SingleRank::setup_error_;

const std::vector<std::int64_t> sizes = {0, 1, 31, 32, 33, 4095, 4096, 4097, (1 << 20) + 3};

template <class T>
std::vector<T> with_guard(const device_buffer<T>& buffer, std::size_t n) {
  auto all = buffer.download();
  for (std::size_t i = n; i < all.size(); ++i) {
    unsigned char poison[sizeof(T)];
    std::memset(poison, 0xA5, sizeof(T));
    EXPECT_EQ(std::memcmp(&all[i], poison, sizeof(T)), 0) << "guard item " << i - n << " after the output was written";
  }
  all.resize(n);
  return all;
}

template <class T>
std::vector<T> first_n(const device_buffer<T>& buffer, std::size_t n) {
  auto all = buffer.download();
  all.resize(n);
  return all;
}

// ---- scan -----------------------------------------------------------------------------------

template <class T>
class SingleRankScan : public SingleRank {};
TYPED_TEST_SUITE(SingleRankScan, nccl_value_types);

TYPED_TEST(SingleRankScan, MatchesTheSingleGpuScan) {
  using T = TypeParam;
  SCANKIT_SEEDED(seed);
  for (const auto n64 : sizes) {
    const auto n = static_cast<std::size_t>(n64);
    const auto host = random_keys<T>(n, seed + n, key_kind::small);
    device_buffer<T> in(host), out(n + guard), want(n + guard);
    for (const scan_op op : {scan_op::plus, scan_op::maximum, scan_op::minimum}) {
      SCOPED_TRACE("n " + std::to_string(n) + " op " + std::to_string(static_cast<int>(op)));
      out.poison();
      dist::inclusive_scan(*this->comm_, in.data(), out.data(), n64, op);
      scankit::inclusive_scan(in.data(), want.data(), n64, op);
      EXPECT_TRUE(same_bits(with_guard(out, n), first_n(want, n)));
      out.poison();
      dist::exclusive_scan(*this->comm_, in.data(), out.data(), n64, T(5), op);
      scankit::exclusive_scan(in.data(), want.data(), n64, T(5), op);
      EXPECT_TRUE(same_bits(with_guard(out, n), first_n(want, n)));
      // In place.
      device_buffer<T> inplace(host);
      dist::inclusive_scan(*this->comm_, inplace.data(), inplace.data(), n64, op);
      scankit::inclusive_scan(in.data(), want.data(), n64, op);
      EXPECT_TRUE(same_bits(inplace.download(), first_n(want, n)));
    }
  }
}

// The pass a rank with shards before it runs: out = prefix op inclusive_scan(in), in and out of place.
TYPED_TEST(SingleRankScan, LocalPassFromAPrefix) {
  using T = TypeParam;
  SCANKIT_SEEDED(seed);
  for (const auto n64 : sizes) {
    const auto n = static_cast<std::size_t>(n64);
    const auto host = random_keys<T>(n, seed + n, key_kind::small);
    for (const scan_op op : {scan_op::plus, scan_op::maximum, scan_op::minimum}) {
      SCOPED_TRACE("n " + std::to_string(n) + " op " + std::to_string(static_cast<int>(op)));
      const T prefix = T(7);
      std::vector<T> expected(n);
      T acc = prefix;
      T total = dist::scan_identity<T>(op);
      for (std::size_t i = 0; i < n; ++i) {
        acc = dist::scan_combine(op, acc, host[i]);
        total = dist::scan_combine(op, total, host[i]);
        expected[i] = acc;
      }
      device_buffer<T> in(host), out(n + guard);
      out.poison();
      dist::detail::inclusive_scan_from(in.data(), out.data(), n64, prefix, total, op, nullptr, nullptr);
      EXPECT_TRUE(same_bits(with_guard(out, n), expected));
      dist::detail::inclusive_scan_from(in.data(), in.data(), n64, prefix, total, op, nullptr, nullptr);
      EXPECT_TRUE(same_bits(in.download(), expected));
    }
  }
}

TEST_F(SingleRank, ScanRejectsBadArgumentsBeforeAnyCollective) {
  device_buffer<std::int32_t> a(100), b(100);
  EXPECT_THROW(dist::inclusive_scan(*comm_, a.data(), b.data(), -1), scankit::error);
  EXPECT_THROW(dist::inclusive_scan(*comm_, static_cast<const std::int32_t*>(nullptr), b.data(), 10), scankit::error);
  EXPECT_THROW(dist::inclusive_scan(*comm_, a.data(), a.data() + 1, 50), scankit::error);
  EXPECT_THROW(dist::inclusive_scan(*comm_, a.data(), b.data(), 10, scan_op::bit_xor), scankit::error);
  EXPECT_FALSE(comm_->aborted()) << "a bad argument leaves the communicator usable";
  dist::inclusive_scan(*comm_, a.data(), b.data(), 10);
}

// ---- compaction -----------------------------------------------------------------------------

TEST_F(SingleRank, SelectAndRebalanceMatchTheSingleGpuSelect) {
  SCANKIT_SEEDED(seed);
  for (const auto n64 : sizes) {
    const auto n = static_cast<std::size_t>(n64);
    const auto host = random_keys<float>(n, seed + n, key_kind::small);
    device_buffer<float> in(host), out(n + guard), want(n + guard), even(n + guard);
    const scankit::keep_in_range<float> pred{-2.0f, 3.0f};
    out.poison();
    const auto info = dist::select_if(*comm_, in.data(), out.data(), n64, pred);
    const auto count = scankit::select_if_count_host(in.data(), want.data(), n64, pred);
    EXPECT_EQ(info.count, count);
    EXPECT_EQ(info.global_offset, 0);
    EXPECT_EQ(info.global_count, count);
    const auto w = first_n(want, static_cast<std::size_t>(count));
    EXPECT_TRUE(same_bits(first_n(out, static_cast<std::size_t>(count)), w));
    even.poison();
    const auto moved = dist::rebalance(*comm_, out.data(), info.count, even.data(), n64 + 1);
    EXPECT_EQ(moved.count, count);
    EXPECT_TRUE(same_bits(first_n(even, static_cast<std::size_t>(count)), w));

    std::vector<std::uint8_t> flags(n);
    for (std::size_t i = 0; i < n; ++i) flags[i] = static_cast<std::uint8_t>(host[i] > 0);
    device_buffer<std::uint8_t> d_flags(flags);
    const auto by_flags = dist::select_flagged(*comm_, in.data(), d_flags.data(), out.data(), n64);
    EXPECT_EQ(by_flags.count, scankit::select_flagged_count_host(in.data(), d_flags.data(), want.data(), n64));
  }
}

TEST_F(SingleRank, RebalanceNeedsRoomForTheShare) {
  device_buffer<std::int64_t> a(100), b(100);
  EXPECT_THROW(dist::rebalance(*comm_, a.data(), 100, b.data(), 99), scankit::error);
  EXPECT_THROW(dist::rebalance(*comm_, a.data(), 100, a.data() + 10, 100), scankit::error);  // overlap: before any gather
  EXPECT_FALSE(comm_->aborted());
}

// ---- sort -----------------------------------------------------------------------------------

template <class K>
class SingleRankSort : public SingleRank {};
TYPED_TEST_SUITE(SingleRankSort, nccl_value_types);

TYPED_TEST(SingleRankSort, KeysAndPairsMatchTheSingleGpuSort) {
  using K = TypeParam;
  SCANKIT_SEEDED(seed);
  for (const auto kind : {key_kind::wide, key_kind::few, key_kind::all_equal, key_kind::special_floats}) {
    for (const auto n64 : sizes) {
      const auto n = static_cast<std::size_t>(n64);
      SCOPED_TRACE("n " + std::to_string(n) + " kind " + std::to_string(static_cast<int>(kind)));
      const auto keys = random_keys<K>(n, seed + n, kind);
      std::vector<std::uint32_t> values(n);
      for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i * 2654435761u);
      device_buffer<K> in(keys), out(n + guard), want(n + guard);
      device_buffer<std::uint32_t> vin(values), vout(n + guard), vwant(n + guard);
      out.poison();
      const auto info = dist::sort_keys(*this->comm_, in.data(), n64, out.data(), n64);
      EXPECT_EQ(info.count, n64);
      scankit::sort_keys(in.data(), want.data(), n64);
      const auto w = first_n(want, n);
      EXPECT_TRUE(same_bits(with_guard(out, n), w));

      out.poison();
      vout.poison();
      dist::sort_pairs(*this->comm_, in.data(), vin.data(), n64, out.data(), vout.data(), n64);
      scankit::sort_pairs(in.data(), want.data(), vin.data(), vwant.data(), n64);
      EXPECT_TRUE(same_bits(with_guard(out, n), w));
      EXPECT_TRUE(same_bits(with_guard(vout, n), first_n(vwant, n))) << "stable: equal keys keep their input order";
    }
  }
}

TEST_F(SingleRank, SortWithEightByteValuesAndFewSamples) {
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 100000;
  const auto keys = random_keys<double>(n, seed, key_kind::special_floats);
  std::vector<std::int64_t> values(n);
  for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = i;
  device_buffer<double> in(keys), out(n), want(n);
  device_buffer<std::int64_t> vin(values), vout(n), vwant(n);
  dist::sample_sort_options options;
  options.samples_per_rank = 3;
  dist::sort_pairs(*comm_, in.data(), vin.data(), n, out.data(), vout.data(), n, nullptr, nullptr, options);
  scankit::sort_pairs(in.data(), want.data(), vin.data(), vwant.data(), n);
  EXPECT_TRUE(same_bits(out.download(), want.download()));
  EXPECT_TRUE(same_bits(vout.download(), vwant.download()));
}

TEST_F(SingleRank, SortRejectsBadArguments) {
  device_buffer<std::uint32_t> a(100), b(100);
  EXPECT_THROW(dist::sort_keys(*comm_, a.data(), -1, b.data(), 100), scankit::error);
  EXPECT_THROW(dist::sort_keys(*comm_, a.data(), 100, a.data() + 50, 50), scankit::error);  // overlap
  EXPECT_THROW(dist::sort_keys(*comm_, a.data(), 100, b.data(), 99), scankit::error);       // room < share
  dist::sample_sort_options none;
  none.samples_per_rank = 0;
  EXPECT_THROW(dist::sort_keys(*comm_, a.data(), 100, b.data(), 100, nullptr, nullptr, none), scankit::error);
  EXPECT_FALSE(comm_->aborted());
}

// ---- the communicator -------------------------------------------------------------------------

TEST(SingleRankCommunicator, RejectsBadRanksAndDevices) {
  SCANKIT_REQUIRE_GPU();
  const dist::unique_id id{};  // never reaches NCCL: the checks come first
  EXPECT_THROW(dist::communicator(id, 0, 0, 0), scankit::error);
  EXPECT_THROW(dist::communicator(id, 1, 1, 0), scankit::error);
  EXPECT_THROW(dist::communicator(id, -1, 2, 0), scankit::error);
  EXPECT_THROW(dist::communicator(id, 0, 1, 1 << 20), scankit::error);
}

TEST(SingleRankCommunicator, AnAbortedCommunicatorRefusesCalls) {
  SCANKIT_REQUIRE_GPU();
  nccl_test_environment();
  SCANKIT_CUDA_CHECK(cudaSetDevice(0));
  dist::communicator comm(dist::create_unique_id(), 0, 1, 0);
  comm.abort();
  device_buffer<std::int32_t> a(10), b(10);
  EXPECT_THROW(dist::inclusive_scan(comm, a.data(), b.data(), 10), scankit::error);
}

}  // namespace
