// The segmented sort with its items' and segments' counts in device memory (scankit::device_n):
// segments of every size class (one and two items, the thread class, the five block classes, and
// segments above the block tiles, which take the gathered two-sort path), keys-only and pairs,
// int32 and int64 offsets. Each call equals a host-count call on the counted segments bit for bit,
// over the whole output (items past the counted segments keep their poison in both); counted
// segments that reach past the items' count are clamped; and a captured graph replays with new
// counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/segmented_sort.hpp"
#include "scankit/workspace.hpp"
#include "device_count_support.hpp"
#include "sort/segmented_sort_test_util.hpp"
#include "support/gpu_test.hpp"
#include "support/graph_replay.hpp"

namespace scankit::testing {
namespace {

// Sizes of every class in a shuffled order (block classes up to block_max items), with `large`
// segments above any block tile (the largest holds 16384 items).
std::vector<std::int64_t> mixed_sizes(int large, std::mt19937_64& rng, std::int64_t block_max = 9000) {
  std::vector<std::int64_t> sizes;
  std::uniform_int_distribution<std::int64_t> thread_class(3, 16), block_class(17, block_max), big(30000, 60000);
  for (int i = 0; i < 150; ++i) sizes.push_back(static_cast<std::int64_t>(rng() % 3));  // 0, 1, 2
  for (int i = 0; i < 120; ++i) sizes.push_back(thread_class(rng));
  for (int i = 0; i < 60; ++i) sizes.push_back(block_class(rng));
  for (int i = 0; i < large; ++i) sizes.push_back(big(rng));
  std::shuffle(sizes.begin(), sizes.end(), rng);
  return sizes;
}

// Offsets cut at `items`: each segment clamped into [0, items], as the counted call clamps them.
template <class Offset>
std::vector<Offset> clamped(std::vector<Offset> offsets, std::int64_t items) {
  for (auto& o : offsets) o = static_cast<Offset>(std::min<std::int64_t>(o, items));
  return offsets;
}

template <class Key, class Value, class Offset>
void check_counted(const sort_options& options, int large, std::mt19937_64& rng, std::int64_t block_max = 9000) {
  const std::vector<std::int64_t> sizes = mixed_sizes(large, rng, block_max);
  const std::int64_t lead = 5, tail = 7;
  const std::vector<Offset> offsets = offsets_of<Offset>(sizes, lead);
  const auto segments = static_cast<std::int64_t>(sizes.size());
  const std::int64_t n = static_cast<std::int64_t>(offsets.back()) + tail;
  const auto items = static_cast<std::size_t>(n);
  SCOPED_TRACE(std::to_string(segments) + " segments, " + std::to_string(n) + " items");
  const std::vector<Key> keys = make_keys<Key>(items, key_pattern::few_distinct, rng());
  std::vector<Value> values(items);
  for (std::size_t i = 0; i < items; ++i) values[i] = static_cast<Value>(i);
  device_buffer<Key> keys_in(keys), want_keys(items), got_keys(items);
  device_buffer<Value> values_in(values), want_values(items), got_values(items);
  device_buffer<Offset> d_offsets(offsets);
  device_count_cell n_cell, segment_cell;
  // The first segment after a large one, so that a count ends right past it.
  std::int64_t after_large = 1;
  while (after_large < segments && sizes[static_cast<std::size_t>(after_large - 1)] < 30000) ++after_large;
  for (std::int64_t count : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, segments / 2, after_large, segments,
                             segments + 2, std::int64_t{-3}}) {
    const std::int64_t c = processed(count, segments);
    const std::int64_t used = static_cast<std::int64_t>(offsets[static_cast<std::size_t>(c)]);
    SCOPED_TRACE("segments " + std::to_string(count));
    for (bool pairs : {false, true}) {
      SCOPED_TRACE(pairs ? "pairs" : "keys");
      for (auto* b : {&want_keys, &got_keys}) b->poison();
      for (auto* b : {&want_values, &got_values}) b->poison();
      if (pairs) {
        segmented_sort_pairs(keys_in.data(), want_keys.data(), values_in.data(), want_values.data(), used,
                             d_offsets.data(), c, nullptr, nullptr, options);
        segmented_sort_pairs(keys_in.data(), got_keys.data(), values_in.data(), got_values.data(),
                             device_n{n_cell.set(used), n}, d_offsets.data(), device_n{segment_cell.set(count), segments},
                             nullptr, nullptr, options);
      } else {
        segmented_sort_keys(keys_in.data(), want_keys.data(), used, d_offsets.data(), c, nullptr, nullptr, options);
        segmented_sort_keys(keys_in.data(), got_keys.data(), device_n{n_cell.set(used), n}, d_offsets.data(),
                            device_n{segment_cell.set(count), segments}, nullptr, nullptr, options);
      }
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_TRUE(same_bits(want_keys.download(), got_keys.download())) << "keys";
      if (pairs) ASSERT_TRUE(same_bits(want_values.download(), got_values.download())) << "values";
    }
  }
  // Caller memory of the query's size serves the counted form's device-wide sorts.
  {
    const std::size_t bytes =
        segmented_sort_pairs_workspace_bytes(keys_in.data(), values_in.data(), n, segments, false, options);
    device_buffer<unsigned char> memory(std::max<std::size_t>(bytes, 1));
    workspace wrapped(memory.data(), bytes);
    for (auto* b : {&want_keys, &got_keys}) b->poison();
    for (auto* b : {&want_values, &got_values}) b->poison();
    segmented_sort_pairs(keys_in.data(), want_keys.data(), values_in.data(), want_values.data(), n, d_offsets.data(),
                         segments, nullptr, nullptr, options);
    segmented_sort_pairs(keys_in.data(), got_keys.data(), values_in.data(), got_values.data(),
                         device_n{n_cell.set(n), n}, d_offsets.data(), device_n{segment_cell.set(segments), segments},
                         nullptr, &wrapped, options);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_TRUE(same_bits(want_keys.download(), got_keys.download())) << "wrapped workspace: keys";
    ASSERT_TRUE(same_bits(want_values.download(), got_values.download())) << "wrapped workspace: values";
  }
  // The items' count inside a segment, and past the bound: the counted segments are clamped to it.
  const std::int64_t cut = static_cast<std::int64_t>(offsets[static_cast<std::size_t>(segments / 2)]) + 3;
  for (std::int64_t item_count : {cut, n + 100}) {
    const std::int64_t used = std::min(item_count, n);
    SCOPED_TRACE("items " + std::to_string(item_count));
    const std::vector<Offset> cut_offsets = clamped(offsets, used);
    device_buffer<Offset> d_cut(cut_offsets);
    for (auto* b : {&want_keys, &got_keys}) b->poison();
    for (auto* b : {&want_values, &got_values}) b->poison();
    segmented_sort_pairs(keys_in.data(), want_keys.data(), values_in.data(), want_values.data(), used, d_cut.data(),
                         segments, nullptr, nullptr, options);
    segmented_sort_pairs(keys_in.data(), got_keys.data(), values_in.data(), got_values.data(),
                         device_n{n_cell.set(item_count), n}, d_offsets.data(), device_n{segment_cell.set(segments), segments},
                         nullptr, nullptr, options);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_TRUE(same_bits(want_keys.download(), got_keys.download())) << "keys";
    ASSERT_TRUE(same_bits(want_values.download(), got_values.download())) << "values";
  }
}

TEST(DeviceCounts, SegmentedSort) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  sort_options ascending;
  check_counted<float, std::int32_t, std::int32_t>(ascending, 3, rng);
  sort_options descending;
  descending.order = sort_order::descending;
  check_counted<std::uint32_t, std::uint32_t, std::int64_t>(descending, 2, rng);
  sort_options low_bits;
  low_bits.end_bit = 40;
  check_counted<std::int64_t, double, std::int64_t>(low_bits, 2, rng);
  check_counted<__half, std::int64_t, std::int64_t>(ascending, 1, rng);
  // No segment above the tiles (8192 items for 12-byte items), though the bounds allow some.
  check_counted<double, float, std::int32_t>(ascending, 0, rng, 6000);
}

// Captured once with the bounds, replayed with new segment and item counts: each replay equals a
// host-count call on the counted segments.
TEST(DeviceCounts, SegmentedSortReplaysInAGraph) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::int64_t> sizes = mixed_sizes(3, rng);
  const std::vector<std::int64_t> offsets = offsets_of<std::int64_t>(sizes, 0);
  const auto segments = static_cast<std::int64_t>(sizes.size());
  const std::int64_t n = offsets.back();
  const auto items = static_cast<std::size_t>(n);
  const std::vector<float> keys = make_keys<float>(items, key_pattern::uniform, rng());
  std::vector<std::int32_t> values(items);
  for (std::size_t i = 0; i < items; ++i) values[i] = static_cast<std::int32_t>(i);
  device_buffer<float> keys_in(keys), want_keys(items), got_keys(items);
  device_buffer<std::int32_t> values_in(values), want_values(items), got_values(items);
  device_buffer<std::int64_t> d_offsets(offsets);
  device_count_cell n_cell, segment_cell;
  owned_stream stream;
  const auto enqueue = [&] {
    segmented_sort_pairs(keys_in.data(), got_keys.data(), values_in.data(), got_values.data(),
                         device_n{n_cell.data(), n}, d_offsets.data(), device_n{segment_cell.data(), segments},
                         stream.get());
  };
  // An eager call first (as the pipeline test makes one), then the captured graph.
  n_cell.set(n);
  segment_cell.set(segments);
  enqueue();
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  captured_graph graph(stream.get(), enqueue);
  for (std::int64_t count : {segments, std::int64_t{0}, segments / 3, segments - 1, std::int64_t{1}}) {
    SCOPED_TRACE("segments " + std::to_string(count));
    const std::int64_t used = offsets[static_cast<std::size_t>(count)];
    n_cell.set(used);
    segment_cell.set(count);
    for (auto* b : {&want_keys, &got_keys}) b->poison();
    for (auto* b : {&want_values, &got_values}) b->poison();
    segmented_sort_pairs(keys_in.data(), want_keys.data(), values_in.data(), want_values.data(), used,
                         d_offsets.data(), count);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    graph.launch();
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    ASSERT_TRUE(same_bits(want_keys.download(), got_keys.download())) << "keys";
    ASSERT_TRUE(same_bits(want_values.download(), got_values.download())) << "values";
  }
}

TEST(DeviceCounts, SegmentedSortBadArgumentsAreRefused) {
  const auto* cell = reinterpret_cast<const std::int64_t*>(std::uintptr_t{0x1000});  // never dereferenced
  const auto* keys = reinterpret_cast<const float*>(std::uintptr_t{0x10000});
  auto* keys_out = reinterpret_cast<float*>(std::uintptr_t{0x40000000});
  const auto* offsets = reinterpret_cast<const std::int64_t*>(std::uintptr_t{0x20000000});
  EXPECT_THROW(segmented_sort_keys(keys, keys_out, device_n{nullptr, 10}, offsets, device_n{cell, 3}), error);
  EXPECT_THROW(segmented_sort_keys(keys, keys_out, device_n{cell, 10}, offsets, device_n{nullptr, 3}), error);
  EXPECT_THROW(segmented_sort_keys(keys, keys_out, device_n{cell, 10}, offsets, device_n{cell, -1}), error);
  EXPECT_THROW(segmented_sort_keys(keys, keys_out, device_n{cell, 10}, static_cast<const std::int64_t*>(nullptr),
                                   device_n{cell, 3}),
               error);
  // In place is not a counted form.
  EXPECT_THROW(segmented_sort_keys(keys, const_cast<float*>(keys), device_n{cell, 10}, offsets, device_n{cell, 3}),
               error);
  // Positions of the gathered large segments are 32-bit.
  EXPECT_THROW(segmented_sort_keys(keys, keys_out, device_n{cell, std::int64_t{1} << 32}, offsets, device_n{cell, 3}),
               error);
}

}  // namespace
}  // namespace scankit::testing
