// Lengths held in device memory (scankit::device_n) for the scan, compaction, sort, reduce,
// reduce-by-key, segmented scan, segmented reduction, CSR construction and top-k entry points of
// the precompiled API (sampling: test_device_counts_sampling.cpp). Each call is sized for a host
// bound and given a count in device memory: 0, 1, small ones, counts at and around tile edges, the
// bound, and counts outside [0, bound] (clamped). The results are checked
// against host references over the first `count` items, and every output item past the count must
// keep its poison: a kernel that used the bound instead of the count writes there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/compact.hpp"
#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/reduce.hpp"
#include "scankit/reduce_by_key.hpp"
#include "scankit/reference/segmented_scan_reference.hpp"
#include "scankit/scan.hpp"
#include "scankit/segmented_reduce.hpp"
#include "scankit/segmented_scan.hpp"
#include "scankit/sort.hpp"
#include "scankit/sparse/csr_build.hpp"
#include "scankit/top_k.hpp"
#include "device_count_support.hpp"
#include "support/gpu_test.hpp"

namespace scankit::testing {
namespace {

template <class T>
std::vector<T> random_ints(std::size_t n, long long lo, long long hi, std::mt19937_64& rng) {
  std::uniform_int_distribution<long long> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Scan: the staged kernel (aligned arrays), the register kernel (misaligned), one tile.

template <class T>
void check_scan(std::int64_t bound, std::int64_t offset, std::mt19937_64& rng) {
  SCOPED_TRACE("bound " + std::to_string(bound) + ", offset " + std::to_string(offset));
  const std::vector<T> host = random_ints<T>(static_cast<std::size_t>(bound + offset), -50, 50, rng);
  device_buffer<T> in(host);
  device_buffer<T> out(static_cast<std::size_t>(bound + offset));
  device_count_cell cell;
  const T init = static_cast<T>(7);
  for (std::int64_t count : counts_for(bound, rng)) {
    SCOPED_TRACE("count " + std::to_string(count));
    const std::int64_t c = processed(count, bound);
    for (bool exclusive : {false, true}) {
      out.poison();
      const device_n n{cell.set(count), bound};
      if (exclusive) {
        exclusive_scan(in.data() + offset, out.data() + offset, n, init);
      } else {
        inclusive_scan(in.data() + offset, out.data() + offset, n);
      }
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<T> got = out.download();
      T running = exclusive ? init : T{};
      bool ok = true;
      for (std::int64_t i = 0; i < c && ok; ++i) {
        const T x = host[static_cast<std::size_t>(offset + i)];
        const T want = exclusive ? running : static_cast<T>(running + x);
        running = static_cast<T>(running + x);
        if (got[static_cast<std::size_t>(offset + i)] != want) {
          ADD_FAILURE() << (exclusive ? "exclusive" : "inclusive") << " scan item " << i << ": " << +got[offset + i]
                        << " != " << +want;
          ok = false;
        }
      }
      expect_poisoned_from(got, offset + c, "scan");
    }
  }
}

TEST(DeviceCounts, Scan) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  check_scan<std::int32_t>(300'007, 0, rng);   // staged kernel, many tiles
  check_scan<std::int32_t>(300'007, 1, rng);   // misaligned: the register kernel
  check_scan<std::int64_t>(100'003, 0, rng);
  check_scan<std::int32_t>(1000, 0, rng);      // one tile
}

// ---------------------------------------------------------------------------------------------
// Compaction.

TEST(DeviceCounts, SelectFlaggedSelectIfUnique) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t bound : {std::int64_t{200'003}, std::int64_t{700}}) {
    SCOPED_TRACE("bound " + std::to_string(bound));
    const auto size = static_cast<std::size_t>(bound);
    const std::vector<std::int32_t> items = random_ints<std::int32_t>(size, 0, 9, rng);  // runs for unique
    const std::vector<std::uint8_t> flags = random_ints<std::uint8_t>(size, 0, 1, rng);
    const std::vector<std::int32_t> values = random_ints<std::int32_t>(size, -1000, 1000, rng);
    device_buffer<std::int32_t> d_items(items), d_values(values), out(size), values_out(size);
    device_buffer<std::uint8_t> d_flags(flags);
    device_buffer<std::int64_t> kept(1);
    device_count_cell cell;
    for (std::int64_t count : counts_for(bound, rng)) {
      SCOPED_TRACE("count " + std::to_string(count));
      const std::int64_t c = processed(count, bound);
      const device_n n{cell.set(count), bound};
      const auto run = [&](const char* what, std::vector<std::int32_t> want, auto&& call) {
        out.poison();
        kept.poison();
        call();
        SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
        const std::int64_t got_count = kept.download()[0];
        ASSERT_EQ(got_count, static_cast<std::int64_t>(want.size())) << what;
        std::vector<std::int32_t> got = out.download();
        EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << what;
        expect_poisoned_from(got, got_count, what);
      };
      std::vector<std::int32_t> want;
      for (std::int64_t i = 0; i < c; ++i) {
        if (flags[i] != 0) want.push_back(items[i]);
      }
      run("select_flagged", want, [&] { select_flagged(d_items.data(), d_flags.data(), out.data(), kept.data(), n); });
      want.clear();
      for (std::int64_t i = 0; i < c; ++i) {
        if (items[i] >= 3 && items[i] <= 6) want.push_back(items[i]);
      }
      run("select_if", want, [&] { select_if(d_items.data(), out.data(), kept.data(), n, keep_in_range<std::int32_t>{3, 6}); });
      want.clear();
      for (std::int64_t i = 0; i < c; ++i) {
        if (i == 0 || items[i] != items[i - 1]) want.push_back(items[i]);
      }
      run("unique", want, [&] { unique(d_items.data(), out.data(), kept.data(), n); });
      std::vector<std::int32_t> want_values;
      for (std::int64_t i = 0; i < c; ++i) {
        if (i == 0 || items[i] != items[i - 1]) want_values.push_back(values[i]);
      }
      values_out.poison();
      run("unique_by_key", want, [&] {
        unique_by_key(d_items.data(), d_values.data(), out.data(), values_out.data(), kept.data(), n);
      });
      const std::vector<std::int32_t> got_values = values_out.download();
      EXPECT_TRUE(std::equal(want_values.begin(), want_values.end(), got_values.begin())) << "unique_by_key values";
      expect_poisoned_from(got_values, static_cast<std::int64_t>(want_values.size()), "unique_by_key values");
    }
  }
}

TEST(DeviceCounts, PartitionPlacesRejectedByTheCount) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t bound = 100'001;
  const auto size = static_cast<std::size_t>(bound);
  const std::vector<std::uint32_t> items = random_ints<std::uint32_t>(size, 0, 100, rng);
  device_buffer<std::uint32_t> in(items), out(size);
  device_buffer<std::int64_t> kept(1);
  device_count_cell cell;
  for (std::int64_t count : counts_for(bound, rng)) {
    SCOPED_TRACE("count " + std::to_string(count));
    const std::int64_t c = processed(count, bound);
    out.poison();
    partition_if(in.data(), out.data(), kept.data(), device_n{cell.set(count), bound},
                 keep_in_range<std::uint32_t>{10, 40});
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> selected, rejected;
    for (std::int64_t i = 0; i < c; ++i) (items[i] >= 10 && items[i] <= 40 ? selected : rejected).push_back(items[i]);
    std::reverse(rejected.begin(), rejected.end());  // one array: rejected in reverse input order
    const std::vector<std::uint32_t> got = out.download();
    ASSERT_EQ(kept.download()[0], static_cast<std::int64_t>(selected.size()));
    EXPECT_TRUE(std::equal(selected.begin(), selected.end(), got.begin()));
    EXPECT_TRUE(std::equal(rejected.begin(), rejected.end(), got.begin() + static_cast<std::ptrdiff_t>(selected.size())));
    expect_poisoned_from(got, c, "partition_if");
  }
}

// ---------------------------------------------------------------------------------------------
// Sort: the one-block and cluster sorts (small bounds), onesweep, 8-bit keys (never the counting
// sort with a device count), the double-buffer form, argsort, and a sort by no bits at all.

template <class K, class V>
void check_sort_pairs(std::int64_t bound, std::mt19937_64& rng) {
  SCOPED_TRACE("bound " + std::to_string(bound) + ", " + std::to_string(sizeof(K)) + "-byte keys");
  const auto size = static_cast<std::size_t>(bound);
  std::vector<K> keys(size);
  for (auto& k : keys) k = static_cast<K>(rng() & (sizeof(K) == 1 ? 0xffu : 0xfffffu));
  std::vector<V> values(size);
  std::iota(values.begin(), values.end(), V{0});
  device_buffer<K> d_keys(keys), keys_out(size);
  device_buffer<V> d_values(values), values_out(size);
  device_count_cell cell;
  for (std::int64_t count : counts_for(bound, rng)) {
    SCOPED_TRACE("count " + std::to_string(count));
    const std::int64_t c = processed(count, bound);
    std::vector<std::size_t> order(static_cast<std::size_t>(c));
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    keys_out.poison();
    values_out.poison();
    sort_pairs(d_keys.data(), keys_out.data(), d_values.data(), values_out.data(), device_n{cell.set(count), bound});
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<K> got_keys = keys_out.download();
    const std::vector<V> got_values = values_out.download();
    for (std::int64_t i = 0; i < c; ++i) {
      if (got_keys[i] != keys[order[i]] || got_values[i] != values[order[i]]) {
        ADD_FAILURE() << "sort_pairs item " << i;
        break;
      }
    }
    expect_poisoned_from(got_keys, c, "sort_pairs keys");
    expect_poisoned_from(got_values, c, "sort_pairs values");
  }
}

TEST(DeviceCounts, SortPairs) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  check_sort_pairs<std::uint32_t, std::int32_t>(1000, rng);     // one block of 256 x 4
  check_sort_pairs<std::uint32_t, std::int32_t>(3000, rng);     // one block of 512 x 8
  check_sort_pairs<std::uint32_t, std::int32_t>(6000, rng);     // a cluster of 6 blocks of 1024 (sm_90 and later)
  check_sort_pairs<std::uint32_t, std::int32_t>(30'000, rng);   // 15 blocks of 2048
  check_sort_pairs<std::uint32_t, std::int32_t>(50'000, rng);   // 13 blocks of 4096
  check_sort_pairs<std::uint32_t, std::int32_t>(300'007, rng);  // onesweep
  check_sort_pairs<std::uint64_t, std::uint64_t>(150'001, rng);
}

TEST(DeviceCounts, SortKeysArgsortDoubleBufferAndNoBits) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t bound = 200'003;
  const auto size = static_cast<std::size_t>(bound);
  const std::vector<std::uint8_t> bytes = random_ints<std::uint8_t>(size, 0, 255, rng);
  std::vector<float> floats(size);
  for (auto& f : floats) f = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 8.0f;
  device_buffer<std::uint8_t> d_bytes(bytes), bytes_out(size);
  device_buffer<float> d_floats(floats), floats_out(size), alternate(size);
  device_buffer<std::int32_t> indices(size);
  device_count_cell cell;
  for (std::int64_t count : counts_for(bound, rng)) {
    SCOPED_TRACE("count " + std::to_string(count));
    const std::int64_t c = processed(count, bound);
    const device_n n{cell.set(count), bound};

    bytes_out.poison();
    sort_keys(d_bytes.data(), bytes_out.data(), n);  // 8-bit keys: the radix sort, not the counting sort
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint8_t> want_bytes(bytes.begin(), bytes.begin() + c);
    std::sort(want_bytes.begin(), want_bytes.end());
    std::vector<std::uint8_t> got_bytes = bytes_out.download();
    EXPECT_TRUE(std::equal(want_bytes.begin(), want_bytes.end(), got_bytes.begin())) << "uint8 sort_keys";
    expect_poisoned_from(got_bytes, c, "uint8 sort_keys");

    std::vector<std::int32_t> order(static_cast<std::size_t>(c));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return floats[a] > floats[b]; });
    indices.poison();
    sort_options descending;
    descending.order = sort_order::descending;
    argsort(d_floats.data(), static_cast<float*>(nullptr), indices.data(), n, nullptr, nullptr, descending);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<std::int32_t> got_indices = indices.download();
    EXPECT_TRUE(std::equal(order.begin(), order.end(), got_indices.begin())) << "argsort";
    expect_poisoned_from(got_indices, c, "argsort");

    // The double-buffer form sorts in the caller's buffers: only the first c items may change.
    floats_out.upload(floats);
    alternate.poison();
    double_buffer<float> buffers(floats_out.data(), alternate.data());
    sort_keys(buffers, n);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> want_floats(floats.begin(), floats.begin() + c);
    std::sort(want_floats.begin(), want_floats.end());
    const std::vector<float> got_floats =
        buffers.current() == floats_out.data() ? floats_out.download() : alternate.download();
    EXPECT_TRUE(std::equal(want_floats.begin(), want_floats.end(), got_floats.begin())) << "double-buffer sort_keys";
    if (buffers.current() == alternate.data()) expect_poisoned_from(got_floats, c, "double-buffer sort_keys");

    // No bits to sort by: the keys are copied, up to the count.
    sort_options no_bits;
    no_bits.begin_bit = no_bits.end_bit = 4;
    bytes_out.poison();
    sort_keys(d_bytes.data(), bytes_out.data(), n, nullptr, nullptr, no_bits);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    got_bytes = bytes_out.download();
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + c, got_bytes.begin())) << "sort by no bits";
    expect_poisoned_from(got_bytes, c, "sort by no bits");
  }
}

// ---------------------------------------------------------------------------------------------
// Reduce-by-key and segmented scans.

TEST(DeviceCounts, ReduceByKeyAndSegmentedScans) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t bound : {std::int64_t{250'001}, std::int64_t{900}}) {
    SCOPED_TRACE("bound " + std::to_string(bound));
    const auto size = static_cast<std::size_t>(bound);
    std::vector<std::int32_t> keys(size);
    std::int32_t key = 0;
    for (auto& k : keys) k = (key += (rng() % 5 == 0) ? 1 : 0);
    const std::vector<std::int64_t> values = random_ints<std::int64_t>(size, -100, 100, rng);
    std::vector<std::uint8_t> heads(size);
    for (std::size_t i = 0; i < size; ++i) heads[i] = i == 0 || keys[i] != keys[i - 1];
    device_buffer<std::int32_t> d_keys(keys), unique_keys(size);
    device_buffer<std::int64_t> d_values(values), sums(size), out(size), runs(1);
    device_buffer<std::uint8_t> d_heads(heads);
    device_count_cell cell;
    for (std::int64_t count : counts_for(bound, rng)) {
      SCOPED_TRACE("count " + std::to_string(count));
      const std::int64_t c = processed(count, bound);
      const device_n n{cell.set(count), bound};
      std::vector<std::int32_t> want_keys;
      std::vector<std::int64_t> want_sums, want_scan(static_cast<std::size_t>(c));
      for (std::int64_t i = 0; i < c; ++i) {
        if (heads[i] != 0) {
          want_keys.push_back(keys[i]);
          want_sums.push_back(0);
        }
        want_sums.back() += values[i];
        want_scan[i] = want_sums.back();
      }
      unique_keys.poison();
      sums.poison();
      runs.poison();
      reduce_by_key(d_keys.data(), d_values.data(), unique_keys.data(), sums.data(), runs.data(), n);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_EQ(runs.download()[0], static_cast<std::int64_t>(want_keys.size()));
      const std::vector<std::int32_t> got_keys = unique_keys.download();
      const std::vector<std::int64_t> got_sums = sums.download();
      EXPECT_TRUE(std::equal(want_keys.begin(), want_keys.end(), got_keys.begin())) << "reduce_by_key keys";
      EXPECT_TRUE(std::equal(want_sums.begin(), want_sums.end(), got_sums.begin())) << "reduce_by_key sums";
      expect_poisoned_from(got_sums, static_cast<std::int64_t>(want_sums.size()), "reduce_by_key sums");

      for (int form = 0; form < 2; ++form) {
        out.poison();
        if (form == 0) {
          inclusive_scan_by_key(d_keys.data(), d_values.data(), out.data(), n);
        } else {
          inclusive_segmented_scan(d_values.data(), d_heads.data(), out.data(), n);
        }
        SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<std::int64_t> got = out.download();
        EXPECT_TRUE(std::equal(want_scan.begin(), want_scan.end(), got.begin())) << "segmented scan form " << form;
        expect_poisoned_from(got, c, "segmented scan");
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Segments by offsets: two device counts, the items and the segments. Only the first segments + 1
// offsets are read, positions clamp to the items' count, and only the first segments results of
// the reduction are written.

TEST(DeviceCounts, SegmentsByOffsets) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t bound : {std::int64_t{250'001}, std::int64_t{900}}) {
    SCOPED_TRACE("bound " + std::to_string(bound));
    std::vector<std::int32_t> offsets{0};  // segments of 1 to 80 items, a tenth of them empty
    while (offsets.back() < bound) {
      const std::int64_t length = rng() % 10 == 0 ? 0 : 1 + static_cast<std::int64_t>(rng() % 80);
      offsets.push_back(static_cast<std::int32_t>(std::min<std::int64_t>(bound, offsets.back() + length)));
    }
    const auto segment_bound = static_cast<std::int64_t>(offsets.size()) - 1;
    const std::vector<std::int64_t> values = random_ints<std::int64_t>(static_cast<std::size_t>(bound), -100, 100, rng);
    device_buffer<std::int64_t> d_values(values), out(static_cast<std::size_t>(bound));
    device_buffer<std::int64_t> sums(static_cast<std::size_t>(segment_bound));
    device_buffer<std::int32_t> d_offsets(offsets);
    device_count_cell items, segments;
    std::uniform_int_distribution<std::int64_t> any_segments(0, segment_bound);
    const std::vector<std::int64_t> item_counts = counts_for(bound, rng);
    for (std::size_t trial = 0; trial < item_counts.size(); ++trial) {
      const std::int64_t count = item_counts[trial];
      const std::int64_t segment_choices[] = {segment_bound, 0, 1, any_segments(rng), segment_bound + 5, -2,
                                              segment_bound - 1};
      const std::int64_t segment_count = segment_choices[trial % std::size(segment_choices)];
      SCOPED_TRACE("count " + std::to_string(count) + ", segments " + std::to_string(segment_count));
      const std::int64_t c = processed(count, bound), sc = processed(segment_count, segment_bound);
      const std::vector<std::int64_t> counted(values.begin(), values.begin() + c);
      std::vector<std::int64_t> used(offsets.begin(), offsets.begin() + sc + 1);
      for (auto& p : used) p = static_cast<std::int32_t>(std::min<std::int64_t>(p, c));
      const auto heads = reference::offset_heads(used, static_cast<std::size_t>(c));
      const std::plus<std::int64_t> plus;
      const device_n n{items.set(count), bound}, num_segments{segments.set(segment_count), segment_bound};

      for (bool exclusive : {false, true}) {
        out.poison();
        if (exclusive) {
          exclusive_segmented_scan_by_offsets(d_values.data(), d_offsets.data(), num_segments, out.data(), n,
                                              std::int64_t{3});
        } else {
          inclusive_segmented_scan_by_offsets(d_values.data(), d_offsets.data(), num_segments, out.data(), n);
        }
        SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<std::int64_t> want = exclusive
                                                   ? reference::exclusive_segmented_scan(counted, heads, std::int64_t{3}, plus)
                                                   : reference::inclusive_segmented_scan(counted, heads, plus);
        const std::vector<std::int64_t> got = out.download();
        EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << "scan by offsets, exclusive " << exclusive;
        expect_poisoned_from(got, c, "scan by offsets");
      }

      sums.poison();
      segmented_reduce(d_values.data(), d_offsets.data(), num_segments, sums.data(), n, std::int64_t{-7});
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<std::int64_t> want_sums = reference::segmented_reduce(counted, used, plus, std::int64_t{-7});
      const std::vector<std::int64_t> got_sums = sums.download();
      EXPECT_TRUE(std::equal(want_sums.begin(), want_sums.end(), got_sums.begin())) << "segmented_reduce";
      expect_poisoned_from(got_sums, sc, "segmented_reduce");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// CSR construction from the first `count` triplets: duplicates summed, triplets outside the
// matrix left out (the first one's index reported), columns and values past the entries untouched.

TEST(DeviceCounts, CooToCsrAndRowOffsets) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int32_t n_rows = 1000, n_cols = 777;
  for (std::int64_t bound : {std::int64_t{200'003}, std::int64_t{700}}) {
    SCOPED_TRACE("bound " + std::to_string(bound));
    const auto size = static_cast<std::size_t>(bound);
    std::vector<std::int32_t> rows = random_ints<std::int32_t>(size, 0, n_rows - 1, rng);
    std::vector<std::int32_t> cols = random_ints<std::int32_t>(size, 0, n_cols - 1, rng);
    const std::vector<double> values = random_ints<double>(size, -20, 20, rng);  // exact sums in any order
    for (std::size_t k = 0; k < size; k += 1 + rng() % 5000) {  // out of the matrix now and then
      (rng() % 2 == 0 ? rows[k] : cols[k]) = rng() % 2 == 0 ? -1 : n_rows + n_cols;
    }
    device_buffer<std::int32_t> d_rows(rows), d_cols(cols), offsets(n_rows + 1), columns(size);
    device_buffer<double> d_values(values), out_values(size);
    device_buffer<std::int64_t> entries(1), first_bad(1);
    device_count_cell cell;
    for (std::int64_t count : counts_for(bound, rng)) {
      SCOPED_TRACE("count " + std::to_string(count));
      const std::int64_t c = processed(count, bound);
      std::map<std::pair<std::int32_t, std::int32_t>, double> want;
      std::int64_t want_bad = -1;
      for (std::int64_t k = 0; k < c; ++k) {
        const std::int32_t r = rows[k], col = cols[k];
        if (r < 0 || r >= n_rows || col < 0 || col >= n_cols) {
          if (want_bad < 0) want_bad = k;
          continue;
        }
        want[{r, col}] += values[k];
      }
      offsets.poison();
      columns.poison();
      out_values.poison();
      entries.poison();
      first_bad.poison();
      sparse::coo_to_csr(d_rows.data(), d_cols.data(), d_values.data(), device_n{cell.set(count), bound}, n_rows,
                         n_cols, offsets.data(), columns.data(), out_values.data(), entries.data(), first_bad.data());
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_EQ(entries.download()[0], static_cast<std::int64_t>(want.size()));
      EXPECT_EQ(first_bad.download()[0], want_bad);
      const std::vector<std::int32_t> got_offsets = offsets.download(), got_columns = columns.download();
      const std::vector<double> got_values = out_values.download();
      std::vector<std::int32_t> want_offsets(n_rows + 1, 0);
      std::size_t e = 0;
      bool same = true;
      for (const auto& [at, sum] : want) {
        ++want_offsets[at.first + 1];
        same = same && got_columns[e] == at.second && got_values[e] == sum;
        ++e;
      }
      std::partial_sum(want_offsets.begin(), want_offsets.end(), want_offsets.begin());
      EXPECT_TRUE(same) << "columns or values";
      EXPECT_EQ(got_offsets, want_offsets);
      expect_poisoned_from(got_columns, static_cast<std::int64_t>(want.size()), "coo_to_csr columns");
      expect_poisoned_from(got_values, static_cast<std::int64_t>(want.size()), "coo_to_csr values");
    }
  }
  // Row offsets alone, from sorted rows whose count is on the device.
  std::vector<std::int64_t> sorted = random_ints<std::int64_t>(100'000, 0, 4999, rng);
  std::sort(sorted.begin(), sorted.end());
  device_buffer<std::int64_t> d_sorted(sorted), offsets(5001);
  device_count_cell cell;
  for (std::int64_t count : counts_for(100'000, rng)) {
    SCOPED_TRACE("row offsets, count " + std::to_string(count));
    const std::int64_t c = processed(count, 100'000);
    offsets.poison();
    sparse::row_offsets_from_sorted_rows(d_sorted.data(), device_n{cell.set(count), 100'000}, std::int64_t{5000},
                                         offsets.data());
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::int64_t> want(5001);
    for (std::int64_t r = 0; r <= 5000; ++r) {
      want[r] = std::lower_bound(sorted.begin(), sorted.begin() + c, r) - sorted.begin();
    }
    EXPECT_EQ(offsets.download(), want);
  }
}

// ---------------------------------------------------------------------------------------------
// Top-k of the first `count` rows (a matrix's rows, or segments by offsets): the rows past the
// count keep their poison, including when the rows are split over several blocks.

TEST(DeviceCounts, TopKRowsAndSegments) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t k = 7;
  for (const auto& [row_bound, cols] : {std::pair<std::int64_t, std::int64_t>{300, 1000},
                                        std::pair<std::int64_t, std::int64_t>{3, 200'000}}) {  // split rows
    SCOPED_TRACE("rows " + std::to_string(row_bound) + " x " + std::to_string(cols));
    const auto total = static_cast<std::size_t>(row_bound * cols);
    const std::vector<std::int32_t> keys = random_ints<std::int32_t>(total, -1'000'000, 1'000'000, rng);
    std::vector<std::int32_t> offsets(static_cast<std::size_t>(row_bound) + 1);  // the same rows as segments
    for (std::int64_t r = 0; r <= row_bound; ++r) offsets[r] = static_cast<std::int32_t>(r * cols);
    device_buffer<std::int32_t> d_keys(keys), d_offsets(offsets), values(static_cast<std::size_t>(row_bound * k));
    device_buffer<std::int64_t> indices(static_cast<std::size_t>(row_bound * k));
    device_count_cell cell;
    for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, row_bound / 2, row_bound - 1, row_bound,
                               row_bound + 4, std::int64_t{-3}}) {
      SCOPED_TRACE("count " + std::to_string(count));
      const std::int64_t c = processed(count, row_bound);
      for (bool by_offsets : {false, true}) {
        values.poison();
        indices.poison();
        const device_n rows{cell.set(count), row_bound};
        if (by_offsets) {
          top_k_segments(d_keys.data(), static_cast<std::int64_t>(total), d_offsets.data(), rows, k, values.data(),
                         indices.data());
        } else {
          top_k(d_keys.data(), rows, cols, k, values.data(), indices.data());
        }
        SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<std::int32_t> got_values = values.download();
        const std::vector<std::int64_t> got_indices = indices.download();
        for (std::int64_t r = 0; r < c; ++r) {
          std::vector<std::int64_t> order(static_cast<std::size_t>(cols));
          std::iota(order.begin(), order.end(), std::int64_t{0});
          const std::int32_t* row = keys.data() + r * cols;
          std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::int64_t a, std::int64_t b) {
            return row[a] != row[b] ? row[a] > row[b] : a < b;
          });
          for (std::int64_t j = 0; j < k; ++j) {
            ASSERT_EQ(got_indices[r * k + j], order[j]) << "row " << r << " slot " << j << ", by offsets " << by_offsets;
            ASSERT_EQ(got_values[r * k + j], row[order[j]]) << "row " << r << " slot " << j;
          }
        }
        expect_poisoned_from(got_values, c * k, "top_k values");
        expect_poisoned_from(got_indices, c * k, "top_k indices");
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reduce and arg-max: one grid planned for the bound, the items below the count combined.

TEST(DeviceCounts, ReduceAndArgMax) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (std::int64_t bound : {std::int64_t{3'000'017}, std::int64_t{500}}) {
    SCOPED_TRACE("bound " + std::to_string(bound));
    const std::vector<std::int64_t> values = random_ints<std::int64_t>(static_cast<std::size_t>(bound), -1000, 1000, rng);
    device_buffer<std::int64_t> d_values(values), sum(1);
    device_buffer<indexed_value<std::int64_t>> best(1);
    device_count_cell cell;
    for (std::int64_t count : counts_for(bound, rng)) {
      SCOPED_TRACE("count " + std::to_string(count));
      const std::int64_t c = processed(count, bound);
      const device_n n{cell.set(count), bound};
      sum.poison();
      best.poison();
      reduce(d_values.data(), sum.data(), n, std::int64_t{5});
      arg_max(d_values.data(), best.data(), n);
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      const auto first = values.begin(), last = values.begin() + c;
      EXPECT_EQ(sum.download()[0], std::accumulate(first, last, std::int64_t{5}));
      const indexed_value<std::int64_t> got = best.download()[0];
      if (c == 0) {
        EXPECT_EQ(got.index, -1);
      } else {
        const auto at = std::max_element(first, last);  // the first maximum
        EXPECT_EQ(got.index, at - first);
        EXPECT_EQ(got.value, *at);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Bad arguments: refused before anything is enqueued (no GPU needed).

TEST(DeviceCounts, BadArgumentsAreRefused) {
  std::int64_t* cell = reinterpret_cast<std::int64_t*>(std::uintptr_t{0x1000});  // never dereferenced
  const auto* in = reinterpret_cast<const std::int32_t*>(std::uintptr_t{0x10000});
  auto* out = reinterpret_cast<std::int32_t*>(std::uintptr_t{0x40000000});
  const auto* flags = reinterpret_cast<const std::uint8_t*>(std::uintptr_t{0x80000000});
  EXPECT_THROW(inclusive_scan(in, out, device_n{nullptr, 10}), error);
  EXPECT_THROW(inclusive_scan(in, out, device_n{cell, -1}), error);
  EXPECT_THROW(select_flagged(in, flags, out, nullptr, device_n{nullptr, 10}), error);
  // The count may not be the call's own count output.
  EXPECT_THROW(select_flagged(in, flags, out, cell, device_n{cell, 10}), error);
  compact_options three_step;
  three_step.strategy = compact_strategy::three_step;
  auto* kept = reinterpret_cast<std::int64_t*>(std::uintptr_t{0x2000});
  EXPECT_THROW(select_flagged(in, flags, out, kept, device_n{cell, 10}, nullptr, nullptr, three_step), error);
  sort_options reduce_then_scan;
  reduce_then_scan.strategy = sort_strategy::reduce_then_scan;
  const auto* keys = reinterpret_cast<const std::uint32_t*>(std::uintptr_t{0x10000});
  auto* keys_out = reinterpret_cast<std::uint32_t*>(std::uintptr_t{0x40000000});
  EXPECT_THROW(sort_keys(keys, keys_out, device_n{cell, 10}, nullptr, nullptr, reduce_then_scan), error);
  EXPECT_THROW(sort_keys(keys, keys_out, device_n{nullptr, 10}), error);
  auto* runs = reinterpret_cast<std::int64_t*>(std::uintptr_t{0x3000});
  auto* sums = reinterpret_cast<std::int32_t*>(std::uintptr_t{0x60000000});
  EXPECT_THROW(reduce_by_key(in, in, out, sums, runs, device_n{runs, 10}), error);
  const auto* offsets = reinterpret_cast<const std::int32_t*>(std::uintptr_t{0x20000000});
  EXPECT_THROW(segmented_reduce(in, offsets, device_n{nullptr, 3}, out, device_n{cell, 10}), error);
  EXPECT_THROW(segmented_reduce(in, offsets, device_n{cell, -1}, out, device_n{cell, 10}), error);
  EXPECT_THROW(inclusive_segmented_scan_by_offsets(in, offsets, device_n{cell, 3}, out, device_n{nullptr, 10}), error);
  auto* rows_out = reinterpret_cast<std::int32_t*>(std::uintptr_t{0x70000000});
  const auto* values = reinterpret_cast<const double*>(std::uintptr_t{0x90000000});
  auto* values_out = reinterpret_cast<double*>(std::uintptr_t{0xb0000000});
  EXPECT_THROW(sparse::coo_to_csr(in, in, values, device_n{cell, 10}, 4, 4, rows_out, out, values_out, nullptr), error);
  EXPECT_THROW(sparse::coo_to_csr(in, in, values, device_n{cell, 10}, 4, 4, rows_out, out, values_out, cell), error);
  EXPECT_THROW(sparse::coo_to_csr(in, in, values, device_n{nullptr, 10}, 4, 4, rows_out, out, values_out, runs), error);
  EXPECT_THROW(sparse::row_offsets_from_sorted_rows(in, device_n{nullptr, 10}, 4, rows_out), error);
  const auto* float_keys = reinterpret_cast<const float*>(std::uintptr_t{0x10000});
  auto* top_values = reinterpret_cast<float*>(std::uintptr_t{0xc0000000});
  EXPECT_THROW(top_k(float_keys, device_n{nullptr, 4}, 100, 5, top_values, out), error);
  try {  // the sorting path (k above 2048) needs a host count
    top_k(float_keys, device_n{cell, 4}, 5000, 3000, top_values, out);
    ADD_FAILURE() << "top_k with k = 3000 and a device count was not refused";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("device_n"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scankit::testing
