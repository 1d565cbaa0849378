// The distributed module on several GPUs of one host, one thread per GPU (label multigpu):
// scan, compaction with rebalance and sort of uneven and empty shards, all keys equal, a total
// above 2^31, a call the ranks disagree on, and a rank that fails. Every result is compared with
// scankit's single-GPU call on the concatenated input (GPU 0). Skips with fewer than 2 GPUs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <cstdint>
#include <string>
#include <vector>

#include "distributed_test_util.hpp"
#include "scankit/compact.hpp"
#include "scankit/distributed/compact.hpp"
#include "scankit/distributed/scan.hpp"
#include "scankit/distributed/sort.hpp"
#include "scankit/sort.hpp"
#include "scankit/scan.hpp"

namespace {

using namespace scankit::testing;  // device_buffer, key_kind, random_keys, same_bits, run_ranks, ...
namespace dist = scankit::distributed;
using scankit::scan_op;

// Shards of a host array by sizes.
template <class T>
std::vector<std::vector<T>> split(const std::vector<T>& all, const std::vector<std::int64_t>& sizes) {
  std::vector<std::vector<T>> parts;
  std::size_t at = 0;
  for (const auto s : sizes) {
    parts.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + s));
    at += static_cast<std::size_t>(s);
  }
  return parts;
}

template <class T>
std::vector<T> concat(const std::vector<std::vector<T>>& parts) {
  std::vector<T> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

struct layout {
  const char* name;
  bool empties;
};
const layout layouts[] = {{"uneven", false}, {"empty shards", true}};

// ---- scan -----------------------------------------------------------------------------------

template <class T>
void check_scan(int ranks, std::int64_t total, bool empties, std::uint64_t seed,
                const std::vector<scan_op>& ops = {scan_op::plus, scan_op::maximum, scan_op::minimum}) {
  const auto sizes = uneven_sizes(total, ranks, seed, empties);
  const auto host = random_keys<T>(static_cast<std::size_t>(total), seed, key_kind::small);
  const auto parts = split(host, sizes);
  for (const scan_op op : ops) {
    SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)));
    std::vector<std::vector<T>> inclusive(ranks), inclusive_in_place(ranks), exclusive(ranks);
    expect_no_errors(run_ranks(ranks, [&](dist::communicator& comm) {
      const int r = comm.rank();
      const auto& mine = parts[static_cast<std::size_t>(r)];
      const std::int64_t n = sizes[static_cast<std::size_t>(r)];
      device_buffer<T> in(mine), out(mine.size());
      out.poison();
      dist::inclusive_scan(comm, in.data(), out.data(), n, op);
      inclusive[r] = out.download();
      out.poison();
      dist::exclusive_scan(comm, in.data(), out.data(), n, T(2), op);
      exclusive[r] = out.download();
      dist::inclusive_scan(comm, in.data(), in.data(), n, op);
      inclusive_in_place[r] = in.download();
    }));
    SCANKIT_CUDA_CHECK(cudaSetDevice(0));
    device_buffer<T> in(host), want(host.size());
    scankit::inclusive_scan(in.data(), want.data(), total, op);
    const auto want_inclusive = want.download();
    scankit::exclusive_scan(in.data(), want.data(), total, T(2), op);
    const auto want_exclusive = want.download();
    // Small integer values: float sums are exact in any association.
    EXPECT_TRUE(same_bits(concat(inclusive), want_inclusive));
    EXPECT_TRUE(same_bits(concat(inclusive_in_place), want_inclusive));
    EXPECT_TRUE(same_bits(concat(exclusive), want_exclusive));
  }
}

template <class T>
class MultiRankScan : public ::testing::Test {};
TYPED_TEST_SUITE(MultiRankScan, nccl_value_types);

TYPED_TEST(MultiRankScan, UnevenAndEmptyShards) {
  SCANKIT_REQUIRE_GPUS(2);
  SCANKIT_SEEDED(seed);
  for (const int ranks : {2, visible_gpus()}) {
    for (const auto& l : layouts) {
      for (const std::int64_t total : {std::int64_t{1}, std::int64_t{33}, std::int64_t{100003}, std::int64_t{3} << 20}) {
        SCOPED_TRACE(std::string(l.name) + ", " + std::to_string(ranks) + " ranks, total " + std::to_string(total));
        check_scan<TypeParam>(ranks, total, l.empties, seed + static_cast<std::uint64_t>(total));
      }
    }
  }
}

// ---- compaction and rebalance -----------------------------------------------------------------

TEST(MultiRankCompact, SelectThenRebalanceMatchesTheSingleGpuSelect) {
  SCANKIT_REQUIRE_GPUS(2);
  SCANKIT_SEEDED(seed);
  const int ranks = visible_gpus();
  for (const auto& l : layouts) {
    SCOPED_TRACE(l.name);
    const std::int64_t total = (1 << 20) + 77;
    const auto sizes = uneven_sizes(total, ranks, seed, l.empties);
    const auto host = random_keys<std::int64_t>(static_cast<std::size_t>(total), seed, key_kind::small);
    const auto parts = split(host, sizes);
    const scankit::keep_in_range<std::int64_t> pred{-3, 1};
    std::vector<std::vector<std::int64_t>> selected(ranks), even(ranks);
    std::vector<dist::shard_info> infos(ranks), even_infos(ranks);
    expect_no_errors(run_ranks(ranks, [&](dist::communicator& comm) {
      const int r = comm.rank();
      device_buffer<std::int64_t> in(parts[r]), out(parts[r].size()), balanced(static_cast<std::size_t>(total / ranks + 1));
      infos[r] = dist::select_if(comm, in.data(), out.data(), sizes[r], pred);
      auto got = out.download();
      got.resize(static_cast<std::size_t>(infos[r].count));
      selected[r] = got;
      even_infos[r] = dist::rebalance(comm, out.data(), infos[r].count, balanced.data(), total / ranks + 1);
      got = balanced.download();
      got.resize(static_cast<std::size_t>(even_infos[r].count));
      even[r] = got;
    }));
    SCANKIT_CUDA_CHECK(cudaSetDevice(0));
    device_buffer<std::int64_t> in(host), want(host.size());
    const auto count = scankit::select_if_count_host(in.data(), want.data(), total, pred);
    auto w = want.download();
    w.resize(static_cast<std::size_t>(count));
    EXPECT_TRUE(same_bits(concat(selected), w));
    EXPECT_TRUE(same_bits(concat(even), w));
    std::int64_t offset = 0;
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(infos[r].global_offset, offset);
      EXPECT_EQ(infos[r].global_count, count);
      offset += infos[r].count;
      EXPECT_EQ(even_infos[r].count, dist::even_shard(count, ranks, r).size());
    }
  }
}

// ---- sort -------------------------------------------------------------------------------------

template <class K>
void check_sort(int ranks, std::int64_t total, bool empties, key_kind kind, std::uint64_t seed, bool pairs = true) {
  const auto sizes = uneven_sizes(total, ranks, seed, empties);
  const auto keys = random_keys<K>(static_cast<std::size_t>(total), seed, kind);
  std::vector<std::uint64_t> values(pairs ? static_cast<std::size_t>(total) : 0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i;
  const auto key_parts = split(keys, sizes);
  const auto value_parts = pairs ? split(values, sizes) : std::vector<std::vector<std::uint64_t>>(ranks);
  std::vector<std::vector<K>> got_keys(ranks), got_pair_keys(ranks);
  std::vector<std::vector<std::uint64_t>> got_values(ranks);
  expect_no_errors(run_ranks(ranks, [&](dist::communicator& comm) {
    const int r = comm.rank();
    const std::int64_t room = total / ranks + 1;
    device_buffer<K> in(key_parts[r]), out(static_cast<std::size_t>(room));
    device_buffer<std::uint64_t> vin(value_parts[r]), vout(static_cast<std::size_t>(room));
    out.poison();
    const auto info = dist::sort_keys(comm, in.data(), sizes[r], out.data(), room);
    EXPECT_EQ(info.count, dist::even_shard(total, ranks, r).size()) << "rank " << r;
    EXPECT_EQ(info.global_offset, dist::even_shard(total, ranks, r).begin);
    auto k = out.download();
    k.resize(static_cast<std::size_t>(info.count));
    got_keys[r] = k;
    if (!pairs) return;
    dist::sort_pairs(comm, in.data(), vin.data(), sizes[r], out.data(), vout.data(), room);
    k = out.download();
    k.resize(static_cast<std::size_t>(info.count));
    got_pair_keys[r] = k;
    auto v = vout.download();
    v.resize(static_cast<std::size_t>(info.count));
    got_values[r] = v;
  }));
  SCANKIT_CUDA_CHECK(cudaSetDevice(0));
  device_buffer<K> in(keys), want(keys.size());
  if (!pairs) {
    scankit::sort_keys(in.data(), want.data(), total);
    EXPECT_TRUE(same_bits(concat(got_keys), want.download()));
    return;
  }
  device_buffer<std::uint64_t> vin(values), vwant(values.size());
  scankit::sort_pairs(in.data(), want.data(), vin.data(), vwant.data(), total);
  const auto w = want.download();
  EXPECT_TRUE(same_bits(concat(got_keys), w));
  EXPECT_TRUE(same_bits(concat(got_pair_keys), w));
  EXPECT_TRUE(same_bits(concat(got_values), vwant.download())) << "stable across ranks";
}

template <class K>
class MultiRankSort : public ::testing::Test {};
TYPED_TEST_SUITE(MultiRankSort, nccl_value_types);

TYPED_TEST(MultiRankSort, UnevenEmptyAndEqualKeys) {
  SCANKIT_REQUIRE_GPUS(2);
  SCANKIT_SEEDED(seed);
  for (const int ranks : {2, visible_gpus()}) {
    for (const auto& l : layouts) {
      for (const auto kind : {key_kind::wide, key_kind::few, key_kind::all_equal, key_kind::special_floats}) {
        for (const std::int64_t total : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{3} << 20}) {
          SCOPED_TRACE(std::string(l.name) + ", " + std::to_string(ranks) + " ranks, total " + std::to_string(total) +
                       ", kind " + std::to_string(static_cast<int>(kind)));
          check_sort<TypeParam>(ranks, total, l.empties, kind, seed + static_cast<std::uint64_t>(total));
        }
      }
    }
  }
}

// ---- above 2^31 items in total ----------------------------------------------------------------

bool host_memory_available(std::size_t bytes) {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 && static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) > bytes;
}

// Sort (keys) and scan (sums) of 2^31 + 4097 uint32 items over every GPU. Each rank needs about
// 8 times its shard (sort temporaries), GPU 0 also the single-GPU oracle (afterwards); the host
// holds up to about ten copies of the whole array (the scan's three results and their oracles).
TEST(MultiRankLarge, SortAndScanAboveTwoToThe31) {
  SCANKIT_REQUIRE_GPUS(2);
  const int ranks = visible_gpus();
  const std::int64_t total = (std::int64_t{1} << 31) + 4097;
  const std::size_t shard_bytes = static_cast<std::size_t>(total / ranks + 1) * 4;
  for (int d = 0; d < ranks; ++d) {
    SCANKIT_CUDA_CHECK(cudaSetDevice(d));
    const std::size_t need = 8 * shard_bytes + (d == 0 ? static_cast<std::size_t>(total) * 4 * 3 : 0);
    if (!gpu_memory_available(need)) GTEST_SKIP() << "GPU " << d << " lacks " << need << " bytes";
  }
  if (!host_memory_available(static_cast<std::size_t>(total) * 4 * 12)) GTEST_SKIP() << "not enough host memory";
  SCANKIT_SEEDED(seed);
  check_sort<std::uint32_t>(ranks, total, true, key_kind::wide, seed, false);
  check_scan<std::uint32_t>(ranks, total, true, seed, {scan_op::plus});
}

// ---- failures ---------------------------------------------------------------------------------

TEST(MultiRankFailure, RanksThatDisagreeAllGetAnError) {
  SCANKIT_REQUIRE_GPUS(2);
  const auto errors = run_ranks(2, [](dist::communicator& comm) {
    device_buffer<std::int32_t> a(100), b(100);
    if (comm.rank() == 0) {
      dist::inclusive_scan(comm, a.data(), b.data(), 100);
    } else {
      dist::exclusive_scan(comm, a.data(), b.data(), 100, 0);  // same gather size, other call
    }
  });
  for (const auto& e : errors) {
    ASSERT_TRUE(e) << "every rank must throw";
    EXPECT_THROW(std::rethrow_exception(e), dist::communication_error);
  }
}

TEST(MultiRankFailure, ARankThatNeverCallsLeavesTheOthersWithAnErrorNotAHang) {
  SCANKIT_REQUIRE_GPUS(2);
  const int ranks = visible_gpus();
  const auto started = std::chrono::steady_clock::now();
  const auto errors = run_ranks(
      ranks,
      [](dist::communicator& comm) {
        if (comm.rank() == 1) throw std::runtime_error("rank 1 failed before the scan");
        device_buffer<std::int32_t> a(1000), b(1000);
        dist::inclusive_scan(comm, a.data(), b.data(), 1000);
      },
      std::chrono::seconds(5));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60));
  for (int r = 0; r < ranks; ++r) {
    ASSERT_TRUE(errors[r]) << "rank " << r << " returned normally";
    if (r == 1) continue;
    try {
      std::rethrow_exception(errors[r]);
    } catch (const dist::communication_error& e) {
      // A timeout, or NCCL's own report that the peer went away: either way an error, in time.
      EXPECT_EQ(e.rank(), r) << e.what();
      std::cout << "rank " << r << ": " << e.what() << "\n";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "rank " << r << ": not a communication_error: " << e.what();
    }
  }
}

}  // namespace
