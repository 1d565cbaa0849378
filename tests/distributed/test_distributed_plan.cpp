// Host tests of the distributed module's pure logic (no GPU, no NCCL call): even shards, shard
// offsets, the exchange plans of a rebalance and of an all-to-all, sample positions, splitters
// and buckets, the scan's rank prefix, and a whole sample sort simulated on the host against
// std::stable_sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include "scankit/distributed/sample_sort_plan.hpp"
#include "scankit/distributed/scan_offset.hpp"
#include "scankit/distributed/shard_plan.hpp"
#include "scankit/error.hpp"
#include "support/gpu_test.hpp"

namespace {

using namespace scankit::distributed;
using sizes_t = std::vector<std::int64_t>;

constexpr std::int64_t two_31 = std::int64_t{1} << 31;

// ---- even shards and offsets ----------------------------------------------------------------

TEST(DistributedPlan, EvenShardsCoverTheTotalOnceAndDifferByAtMostOne) {
  const std::vector<std::int64_t> totals = {0, 1, 2, 7, 31, 32, 33, 1000, two_31 - 1, two_31, two_31 + 1,
                                            (std::int64_t{1} << 40) + 3, std::numeric_limits<std::int64_t>::max()};
  for (const std::int64_t total : totals) {
    for (int ranks = 1; ranks <= 9; ++ranks) {
      std::int64_t next = 0, smallest = std::numeric_limits<std::int64_t>::max(), largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const item_range s = even_shard(total, ranks, r);
        EXPECT_EQ(s.begin, next) << "total " << total << " ranks " << ranks << " rank " << r;
        next = s.end;
        smallest = std::min(smallest, s.size());
        largest = std::max(largest, s.size());
      }
      EXPECT_EQ(next, total);
      EXPECT_LE(largest - smallest, 1);
      const auto sizes = even_shard_sizes(total, ranks);
      EXPECT_EQ(shard_offsets(sizes).back(), total);
    }
  }
}

TEST(DistributedPlan, EvenShardRejectsBadArguments) {
  EXPECT_THROW(even_shard(-1, 2, 0), scankit::error);
  EXPECT_THROW(even_shard(10, 0, 0), scankit::error);
  EXPECT_THROW(even_shard(10, 2, 2), scankit::error);
  EXPECT_THROW(even_shard(10, 2, -1), scankit::error);
}

TEST(DistributedPlan, ShardOffsetsAreTheExclusiveScanOfTheSizes) {
  EXPECT_EQ(shard_offsets({}), sizes_t({0}));
  EXPECT_EQ(shard_offsets({0, 0, 0}), sizes_t({0, 0, 0, 0}));
  EXPECT_EQ(shard_offsets({3, 0, 5, two_31}), sizes_t({0, 3, 3, 8, 8 + two_31}));
  EXPECT_THROW(shard_offsets({1, -1}), scankit::error);
  EXPECT_THROW(shard_offsets({std::numeric_limits<std::int64_t>::max(), 1}), scankit::error);
}

// ---- exchange plans -------------------------------------------------------------------------

// Checks that the plans of all ranks agree pairwise (what s sends to d is what d receives from
// s), that receives tile each receive buffer and sends stay inside each send buffer, then runs
// them on host buffers.
std::vector<std::vector<std::int64_t>> run_plans(const std::vector<exchange_plan>& plans,
                                                 const std::vector<std::vector<std::int64_t>>& send,
                                                 const sizes_t& send_sizes, const sizes_t& recv_sizes, bool move_data) {
  const int ranks = static_cast<int>(plans.size());
  std::map<std::pair<int, int>, transfer> sent, received;
  for (int r = 0; r < ranks; ++r) {
    std::int64_t tiled = 0;
    int last_peer = -1;
    for (const auto& t : plans[r].receives) {
      EXPECT_GT(t.count, 0);
      EXPECT_GT(t.peer, last_peer) << "receives in peer order";
      last_peer = t.peer;
      EXPECT_EQ(t.offset, tiled) << "receives tile the buffer in peer order";
      tiled += t.count;
      received[{t.peer, r}] = t;
    }
    EXPECT_EQ(tiled, recv_sizes[r]);
    last_peer = -1;
    for (const auto& t : plans[r].sends) {
      EXPECT_GT(t.count, 0);
      EXPECT_GT(t.peer, last_peer);
      last_peer = t.peer;
      EXPECT_GE(t.offset, 0);
      EXPECT_LE(t.offset + t.count, send_sizes[r]);
      sent[{r, t.peer}] = t;
    }
    EXPECT_EQ(plans[r].sent(), send_sizes[r]) << "every item leaves (or stays) exactly once";
  }
  EXPECT_EQ(sent.size(), received.size());
  for (const auto& [key, t] : sent) {
    const auto it = received.find(key);
    EXPECT_NE(it, received.end()) << key.first << " -> " << key.second << " has no receive";
    if (it != received.end()) {
      EXPECT_EQ(it->second.count, t.count);
    }
  }
  std::vector<std::vector<std::int64_t>> recv(static_cast<std::size_t>(ranks));
  if (!move_data) return recv;
  for (int r = 0; r < ranks; ++r) recv[r].assign(static_cast<std::size_t>(recv_sizes[r]), -1);
  for (const auto& [key, t] : sent) {
    const transfer& in = received.at(key);
    std::copy_n(send[key.first].begin() + t.offset, t.count, recv[key.second].begin() + in.offset);
  }
  return recv;
}

std::vector<std::vector<std::int64_t>> numbered_shards(const sizes_t& sizes) {
  std::vector<std::vector<std::int64_t>> shards;
  std::int64_t next = 0;
  for (const auto s : sizes) {
    shards.emplace_back(static_cast<std::size_t>(s));
    std::iota(shards.back().begin(), shards.back().end(), next);
    next += s;
  }
  return shards;
}

TEST(DistributedPlan, RedistributionToEvenShardsKeepsTheGlobalOrder) {
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  std::vector<sizes_t> cases = {{0}, {5}, {0, 0}, {10, 0}, {0, 10}, {1, 0, 0, 0, 7}, {3, 3, 3}, {0, 0, 0, 1},
                                {100, 1, 0, 57, 2, 0, 0, 33}};
  for (int i = 0; i < 200; ++i) {
    sizes_t s(1 + rng() % 9);
    for (auto& x : s) x = (rng() % 4 == 0) ? 0 : static_cast<std::int64_t>(rng() % 200);
    cases.push_back(s);
  }
  for (const auto& from : cases) {
    const int ranks = static_cast<int>(from.size());
    const std::int64_t total = shard_offsets(from).back();
    const auto to = even_shard_sizes(total, ranks);
    std::vector<exchange_plan> plans;
    for (int r = 0; r < ranks; ++r) plans.push_back(plan_redistribution(from, to, r));
    const auto result = run_plans(plans, numbered_shards(from), from, to, true);
    EXPECT_EQ(result, numbered_shards(to));
    // Also between arbitrary layouts (the reverse move).
    std::vector<exchange_plan> back;
    for (int r = 0; r < ranks; ++r) back.push_back(plan_redistribution(to, from, r));
    EXPECT_EQ(run_plans(back, numbered_shards(to), to, from, true), numbered_shards(from));
  }
}

TEST(DistributedPlan, RedistributionBeyondTwoToThe31) {
  const sizes_t from = {3 * two_31 + 5, 0, 1, two_31 - 1, 0};
  const auto to = even_shard_sizes(shard_offsets(from).back(), 5);
  std::vector<exchange_plan> plans;
  for (int r = 0; r < 5; ++r) plans.push_back(plan_redistribution(from, to, r));
  run_plans(plans, {}, from, to, false);
  EXPECT_EQ(plans[0].sends.front().count, to[0]);  // rank 0 keeps its first share
}

TEST(DistributedPlan, RedistributionRejectsMismatchedLayouts) {
  EXPECT_THROW(plan_redistribution({1, 2}, {3}, 0), scankit::error);
  EXPECT_THROW(plan_redistribution({1, 2}, {2, 2}, 0), scankit::error);
  EXPECT_THROW(plan_redistribution({1, -1}, {0, 0}, 0), scankit::error);
  EXPECT_THROW(plan_redistribution({1, 2}, {2, 1}, 2), scankit::error);
}

TEST(DistributedPlan, AllToAllPlansMatchTheCountMatrix) {
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 200; ++i) {
    const int ranks = 1 + static_cast<int>(rng() % 8);
    sizes_t counts(static_cast<std::size_t>(ranks * ranks));
    for (auto& c : counts) c = (rng() % 3 == 0) ? 0 : static_cast<std::int64_t>(rng() % 50);
    sizes_t send_sizes(ranks, 0), recv_sizes(ranks, 0);
    for (int s = 0; s < ranks; ++s) {
      for (int d = 0; d < ranks; ++d) {
        send_sizes[s] += counts[s * ranks + d];
        recv_sizes[d] += counts[s * ranks + d];
      }
    }
    std::vector<exchange_plan> plans;
    for (int r = 0; r < ranks; ++r) plans.push_back(plan_all_to_all(counts, ranks, r));
    // Source s's items are numbered s * 1000 + position: a destination must see them by source.
    std::vector<std::vector<std::int64_t>> send(ranks);
    for (int s = 0; s < ranks; ++s) {
      for (std::int64_t k = 0; k < send_sizes[s]; ++k) send[s].push_back(s * 1000 + k);
    }
    const auto recv = run_plans(plans, send, send_sizes, recv_sizes, true);
    for (int d = 0; d < ranks; ++d) {
      EXPECT_TRUE(std::is_sorted(recv[d].begin(), recv[d].end())) << "sources arrive in rank order";
      std::int64_t at = 0;
      for (int s = 0; s < ranks; ++s) {
        std::int64_t first = 0;
        for (int e = 0; e < d; ++e) first += counts[s * ranks + e];
        for (std::int64_t k = 0; k < counts[s * ranks + d]; ++k) EXPECT_EQ(recv[d][at++], s * 1000 + first + k);
      }
    }
  }
  EXPECT_THROW(plan_all_to_all({1, 2, 3}, 2, 0), scankit::error);
  EXPECT_THROW(plan_all_to_all({1, -2, 3, 4}, 2, 0), scankit::error);
}

TEST(DistributedPlan, AllToAllBeyondTwoToThe31) {
  const sizes_t counts = {two_31 + 7, 0, 3 * two_31, 1};
  const auto plan = plan_all_to_all(counts, 2, 1);
  ASSERT_EQ(plan.sends.size(), 2u);
  EXPECT_EQ(plan.sends[1].offset, 3 * two_31);
  EXPECT_EQ(plan.received(), 1);
}

// ---- samples and splitters ------------------------------------------------------------------

TEST(DistributedPlan, SamplePositionsAreOnePerStratumAndReproducible) {
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{5}, std::int64_t{1023},
                               std::int64_t{1024}, std::int64_t{1025}, std::int64_t{100000}, 3 * two_31 + 1}) {
    for (const int m : {1, 7, 1024}) {
      const auto p = sample_positions(n, m, 42, 3);
      const auto w = sample_weights(n, m);
      ASSERT_EQ(p.size(), static_cast<std::size_t>(std::min<std::int64_t>(n, m)));
      ASSERT_EQ(w.size(), p.size());
      EXPECT_EQ(std::accumulate(w.begin(), w.end(), std::int64_t{0}), p.empty() ? 0 : n);
      std::int64_t begin = 0;
      for (std::size_t k = 0; k < p.size(); ++k) {
        EXPECT_GE(p[k], begin);
        EXPECT_LT(p[k], begin + w[k]) << "position inside its stratum";
        begin += w[k];
      }
      EXPECT_EQ(p, sample_positions(n, m, 42, 3));
      if (n >= 4 * std::int64_t{m} && m > 1) {
        EXPECT_NE(p, sample_positions(n, m, 42, 4)) << "ranks draw differently";
      }
    }
  }
  EXPECT_THROW(sample_positions(-1, 4, 0, 0), scankit::error);
  EXPECT_THROW(sample_positions(10, 0, 0, 0), scankit::error);
}

// Items of a host "shard": their composite positions.
std::vector<sort_position> items_of(const std::vector<std::vector<std::uint64_t>>& shards) {
  std::vector<sort_position> items;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    for (std::size_t i = 0; i < shards[s].size(); ++i) items.push_back({shards[s][i], static_cast<std::int64_t>(s), static_cast<std::int64_t>(i)});
  }
  return items;
}

sizes_t bucket_sizes(const std::vector<sort_position>& items, const std::vector<sort_position>& splitters, int ranks) {
  sizes_t sizes(ranks, 0);
  for (const auto& x : items) ++sizes[bucket_of(x, splitters)];
  return sizes;
}

std::vector<std::vector<std::uint64_t>> make_shards(const sizes_t& sizes, std::mt19937_64& rng, std::uint64_t key_range) {
  std::vector<std::vector<std::uint64_t>> shards;
  for (const auto n : sizes) {
    shards.emplace_back(static_cast<std::size_t>(n));
    for (auto& k : shards.back()) k = key_range == 0 ? 7 : rng() % key_range;
  }
  return shards;
}

TEST(DistributedPlan, EverySampledGivesExactlyEvenBuckets) {
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::vector<sizes_t> layouts = {{50}, {10, 0, 33}, {0, 0, 0, 64}, {1, 1, 1, 1, 1}, {17, 90, 0, 3, 44, 0, 5}};
  for (const auto& sizes : layouts) {
    for (const std::uint64_t key_range : {std::uint64_t{0}, std::uint64_t{2}, std::uint64_t{1} << 40}) {  // 0: all equal
      const auto shards = make_shards(sizes, rng, key_range);
      const int ranks = static_cast<int>(sizes.size());
      std::vector<sort_position> samples;
      sizes_t weights;
      for (int s = 0; s < ranks; ++s) {
        for (const auto p : sample_positions(sizes[s], 1 << 20, 1, s)) {  // m >= n: every item
          samples.push_back({shards[s][p], s, p});
          weights.push_back(1);
        }
      }
      const auto splitters = choose_splitters(samples, weights, ranks);
      ASSERT_EQ(splitters.size(), static_cast<std::size_t>(ranks - 1));
      EXPECT_TRUE(std::is_sorted(splitters.begin(), splitters.end()));
      EXPECT_EQ(bucket_sizes(items_of(shards), splitters, ranks), even_shard_sizes(shard_offsets(sizes).back(), ranks));
    }
  }
}

// All keys equal, shards of any size (totals beyond 2^31 too): with composite splitters the items
// below a splitter can be counted from the sizes alone, and every bucket must be within one
// stratum weight of its even share on each side.
TEST(DistributedPlan, AllKeysEqualStillSplitEvenly) {
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 50; ++trial) {
    const int ranks = 2 + static_cast<int>(rng() % 7);
    sizes_t sizes(ranks);
    for (auto& s : sizes) s = (rng() % 4 == 0) ? 0 : static_cast<std::int64_t>(rng() % (std::uint64_t{3} << 31));
    const int m = 64;
    std::vector<sort_position> samples;
    sizes_t weights;
    std::int64_t heaviest = 1;
    for (int s = 0; s < ranks; ++s) {
      const auto p = sample_positions(sizes[s], m, 9, s);
      const auto w = sample_weights(sizes[s], m);
      for (std::size_t k = 0; k < p.size(); ++k) {
        samples.push_back({5, s, p[k]});
        weights.push_back(w[k]);
        heaviest = std::max(heaviest, w[k]);
      }
    }
    const auto splitters = choose_splitters(samples, weights, ranks);
    const auto offsets = shard_offsets(sizes);
    auto below = [&](const sort_position& sp) {  // items (5, s, i) < sp
      if (sp.bits != 5) return sp.bits > 5 ? offsets.back() : std::int64_t{0};
      const auto s = static_cast<std::size_t>(sp.rank);
      return offsets[s] + std::min(sp.index, sizes[s]);
    };
    std::int64_t previous = 0;
    for (int k = 0; k < ranks; ++k) {
      const std::int64_t end = k + 1 < ranks ? below(splitters[k]) : offsets.back();
      const std::int64_t share = even_shard(offsets.back(), ranks, k).size();
      EXPECT_LE(std::abs((end - previous) - share), 2 * heaviest) << "bucket " << k << " of " << ranks;
      previous = end;
    }
  }
}

TEST(DistributedPlan, SplittersPastTheSamplesLeaveEmptyBuckets) {
  // One sample that stands for everything: later splitters land on it or past the end.
  const auto splitters = choose_splitters({{3, 0, 0}}, {100}, 4);
  ASSERT_EQ(splitters.size(), 3u);
  EXPECT_TRUE(std::is_sorted(splitters.begin(), splitters.end()));
  EXPECT_EQ(bucket_of({std::numeric_limits<std::uint64_t>::max(), 1000, 1000}, {sort_position_after_all()}), 0);
  EXPECT_THROW(choose_splitters({{1, 0, 0}}, {}, 2), scankit::error);
  EXPECT_THROW(choose_splitters({{1, 0, 0}}, {-1}, 2), scankit::error);
}

TEST(DistributedPlan, BucketOfCountsTheSplittersAtOrBelow) {
  const std::vector<sort_position> sp = {{5, 0, 3}, {5, 1, 0}, {9, 0, 0}};
  EXPECT_EQ(bucket_of({4, 9, 9}, sp), 0);
  EXPECT_EQ(bucket_of({5, 0, 2}, sp), 0);
  EXPECT_EQ(bucket_of({5, 0, 3}, sp), 1);  // a splitter opens its bucket
  EXPECT_EQ(bucket_of({5, 0, 99}, sp), 1);
  EXPECT_EQ(bucket_of({5, 1, 0}, sp), 2);
  EXPECT_EQ(bucket_of({9, 0, 0}, sp), 3);
  EXPECT_EQ(bucket_of({1, 0, 0}, {}), 0);
}

// The whole sample sort on the host: samples, splitters, buckets, all-to-all, local stable sort,
// rebalance; the result must be the stable sort of the concatenated shards, item for item.
TEST(DistributedPlan, SimulatedSampleSortEqualsStableSort) {
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 60; ++trial) {
    const int ranks = 1 + static_cast<int>(rng() % 6);
    sizes_t sizes(ranks);
    for (auto& s : sizes) s = (rng() % 4 == 0) ? 0 : static_cast<std::int64_t>(rng() % 3000);
    const std::uint64_t key_range = trial % 3 == 0 ? 0 : (trial % 3 == 1 ? 4 : std::uint64_t{1} << 62);
    const auto shards = make_shards(sizes, rng, key_range);
    const int m = 1 + static_cast<int>(rng() % 64);
    std::vector<sort_position> samples;
    sizes_t weights;
    for (int s = 0; s < ranks; ++s) {
      const auto p = sample_positions(sizes[s], m, trial, s);
      const auto w = sample_weights(sizes[s], m);
      for (std::size_t k = 0; k < p.size(); ++k) {
        samples.push_back({shards[s][p[k]], s, p[k]});
        weights.push_back(w[k]);
      }
    }
    const auto splitters = choose_splitters(samples, weights, ranks);
    // Partition each shard by bucket (stable), count, exchange.
    sizes_t counts(static_cast<std::size_t>(ranks * ranks), 0);
    std::vector<std::vector<sort_position>> partitioned(ranks);
    for (int s = 0; s < ranks; ++s) {
      std::vector<std::pair<int, sort_position>> tagged;
      for (std::int64_t i = 0; i < sizes[s]; ++i) {
        const sort_position x{shards[s][i], s, i};
        tagged.push_back({bucket_of(x, splitters), x});
      }
      std::stable_sort(tagged.begin(), tagged.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [b, x] : tagged) {
        ++counts[s * ranks + b];
        partitioned[s].push_back(x);
      }
    }
    std::vector<std::vector<sort_position>> received(ranks);
    sizes_t bucket_totals(ranks, 0);
    for (int d = 0; d < ranks; ++d) {
      const auto plan = plan_all_to_all(counts, ranks, d);
      received[d].resize(static_cast<std::size_t>(plan.received()));
      for (const auto& t : plan.receives) {
        const auto source = plan_all_to_all(counts, ranks, t.peer);
        const auto it = std::find_if(source.sends.begin(), source.sends.end(), [&](const transfer& x) { return x.peer == d; });
        ASSERT_NE(it, source.sends.end());
        std::copy_n(partitioned[t.peer].begin() + it->offset, t.count, received[d].begin() + t.offset);
      }
      // Local stable sort by key bits only, as the radix sort does.
      std::stable_sort(received[d].begin(), received[d].end(), [](const auto& a, const auto& b) { return a.bits < b.bits; });
      bucket_totals[d] = static_cast<std::int64_t>(received[d].size());
    }
    const std::int64_t total = shard_offsets(sizes).back();
    std::vector<sort_position> result;
    for (const auto& r : received) result.insert(result.end(), r.begin(), r.end());
    // The rebalance only re-cuts the concatenation: check its plan keeps the order.
    const auto even = even_shard_sizes(total, ranks);
    std::vector<exchange_plan> plans;
    for (int r = 0; r < ranks; ++r) plans.push_back(plan_redistribution(bucket_totals, even, r));
    run_plans(plans, {}, bucket_totals, even, false);

    auto expected = items_of(shards);
    std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.bits < b.bits; });
    EXPECT_EQ(result, expected) << "trial " << trial << " ranks " << ranks << " samples " << m;
  }
}

// ---- the scan's rank prefix -----------------------------------------------------------------

TEST(DistributedPlan, RankPrefixFoldsTheNonEmptyShardsBefore) {
  const sizes_t sizes = {3, 0, 2, 4};
  const std::vector<std::int64_t> totals = {10, 0, -4, 100};
  using scankit::scan_op;
  EXPECT_FALSE(rank_prefix(sizes, totals, 0, scan_op::plus).has_value());
  EXPECT_EQ(*rank_prefix(sizes, totals, 1, scan_op::plus), 10);
  EXPECT_EQ(*rank_prefix(sizes, totals, 3, scan_op::plus), 6);
  EXPECT_EQ(*rank_prefix(sizes, totals, 3, scan_op::plus, std::optional<std::int64_t>(1)), 7);
  EXPECT_EQ(*rank_prefix(sizes, totals, 0, scan_op::plus, std::optional<std::int64_t>(5)), 5);
  EXPECT_EQ(*rank_prefix(sizes, totals, 3, scan_op::minimum), -4);
  EXPECT_EQ(*rank_prefix(sizes, totals, 3, scan_op::maximum), 10);
  // Empty shards before: an inclusive scan starts fresh (no -0.0 turned into +0.0).
  EXPECT_FALSE(rank_prefix(sizes_t{0, 0, 5}, std::vector<double>{0.0, 0.0, 1.0}, 2, scan_op::plus).has_value());
  EXPECT_THROW(rank_prefix(sizes, totals, 4, scan_op::plus), scankit::error);
  EXPECT_THROW(rank_prefix(sizes_t{1}, totals, 0, scan_op::plus), scankit::error);
}

TEST(DistributedPlan, ScanIdentitiesAndOperators) {
  using scankit::scan_op;
  EXPECT_EQ(scan_identity<float>(scan_op::maximum), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(scan_identity<std::int32_t>(scan_op::maximum), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(scan_identity<std::uint32_t>(scan_op::minimum), 0xffffffffu);
  EXPECT_EQ(scan_identity<std::int64_t>(scan_op::plus), 0);
  EXPECT_EQ(scan_combine<std::int32_t>(scan_op::maximum, -3, 2), 2);
  EXPECT_EQ(scan_combine<std::uint64_t>(scan_op::plus, ~std::uint64_t{0}, 2), 1u);  // wraps like the GPU
  EXPECT_TRUE(scan_op_supported(scan_op::plus));
  EXPECT_FALSE(scan_op_supported(scan_op::bit_xor));
  EXPECT_THROW(scan_identity<int>(scan_op::bit_and), scankit::error);
}

}  // namespace
