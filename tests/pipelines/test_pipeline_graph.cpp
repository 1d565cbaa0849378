// A whole pipeline in one CUDA graph, its counts flowing on the device (scankit::device_n):
//
//   select_flagged   keep the flagged (key, value) items            -> kept items, count k
//   sort_pairs       sort the kept items by key (stable)             count k read on the device
//   unique           the distinct keys                               -> count u
//   reduce_by_key    one sum per key                                 -> count r (= u)
//   scan_by_key      each key's running sum over its sorted values  count k read on the device
//   exclusive_scan   the prefix sums of the r run sums                count r read on the device
//
// The graph is captured once, with the bound as every size, and replayed on new inputs whose
// flags keep different numbers of items (none, one, some, all), with poisoned outputs; each
// replay is checked against a host reference. Nothing in the pipeline waits for the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/compact.hpp"
#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/reduce_by_key.hpp"
#include "scankit/scan.hpp"
#include "scankit/segmented_scan.hpp"
#include "scankit/sort.hpp"
#include "support/gpu_test.hpp"
#include "support/graph_replay.hpp"

namespace scankit::testing {
namespace {

// The pipeline's arrays, all sized for the bound.
struct pipeline_buffers {
  explicit pipeline_buffers(std::int64_t bound)
      : keys(size(bound)), values(size(bound)), flags(size(bound)), kept_keys(size(bound)),
        kept_values(size(bound)), sorted_keys(size(bound)), sorted_values(size(bound)),
        distinct(size(bound)), run_keys(size(bound)), run_sums(size(bound)), running(size(bound)),
        run_starts(size(bound)), counts(4) {}
  static std::size_t size(std::int64_t bound) { return static_cast<std::size_t>(bound); }

  device_buffer<std::uint32_t> keys;
  device_buffer<std::int64_t> values;
  device_buffer<std::uint8_t> flags;
  device_buffer<std::uint32_t> kept_keys;
  device_buffer<std::int64_t> kept_values;
  device_buffer<std::uint32_t> sorted_keys;
  device_buffer<std::int64_t> sorted_values;
  device_buffer<std::uint32_t> distinct;
  device_buffer<std::uint32_t> run_keys;
  device_buffer<std::int64_t> run_sums;
  device_buffer<std::int64_t> running;
  device_buffer<std::int64_t> run_starts;
  device_buffer<std::int64_t> counts;  // kept, kept again (values), distinct, runs
};

// Enqueues the pipeline on `stream`; every size after the selection is read on the device.
void enqueue_pipeline(pipeline_buffers& b, std::int64_t bound, cudaStream_t stream) {
  std::int64_t* kept = b.counts.data();
  std::int64_t* kept_again = b.counts.data() + 1;
  std::int64_t* distinct = b.counts.data() + 2;
  std::int64_t* runs = b.counts.data() + 3;
  select_flagged(b.keys.data(), b.flags.data(), b.kept_keys.data(), kept, bound, stream);
  select_flagged(b.values.data(), b.flags.data(), b.kept_values.data(), kept_again, bound, stream);
  const device_n k{kept, bound};
  sort_pairs(b.kept_keys.data(), b.sorted_keys.data(), b.kept_values.data(), b.sorted_values.data(), k, stream);
  unique(b.sorted_keys.data(), b.distinct.data(), distinct, k, stream);
  reduce_by_key(b.sorted_keys.data(), b.sorted_values.data(), b.run_keys.data(), b.run_sums.data(), runs, k,
                scan_op::plus, stream);
  inclusive_scan_by_key(b.sorted_keys.data(), b.sorted_values.data(), b.running.data(), k, scan_op::plus, stream);
  exclusive_scan(b.run_sums.data(), b.run_starts.data(), device_n{runs, bound}, std::int64_t{0}, scan_op::plus,
                 stream);
}

struct pipeline_input {
  std::vector<std::uint32_t> keys;
  std::vector<std::int64_t> values;
  std::vector<std::uint8_t> flags;
};

pipeline_input make_input(std::int64_t bound, double keep, std::uint32_t key_range, std::mt19937_64& rng) {
  pipeline_input in;
  const auto size = static_cast<std::size_t>(bound);
  std::uniform_int_distribution<std::uint32_t> key(0, key_range - 1);
  std::uniform_int_distribution<std::int64_t> value(-1000, 1000);
  std::bernoulli_distribution flag(keep);
  in.keys.resize(size);
  in.values.resize(size);
  in.flags.resize(size);
  for (std::size_t i = 0; i < size; ++i) {
    in.keys[i] = key(rng);
    in.values[i] = value(rng);
    in.flags[i] = flag(rng) ? 1 : 0;
  }
  return in;
}

void check_pipeline(pipeline_buffers& b, const pipeline_input& in) {
  // Host reference: the kept items, sorted stably by key; per key its sum; running sums.
  std::vector<std::pair<std::uint32_t, std::int64_t>> kept;
  for (std::size_t i = 0; i < in.keys.size(); ++i) {
    if (in.flags[i] != 0) kept.emplace_back(in.keys[i], in.values[i]);
  }
  std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
  std::vector<std::uint32_t> run_keys;
  std::vector<std::int64_t> run_sums, running(kept.size()), run_starts;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i == 0 || kept[i].first != kept[i - 1].first) {
      run_keys.push_back(kept[i].first);
      run_sums.push_back(0);
    }
    run_sums.back() += kept[i].second;
    running[i] = run_sums.back();
  }
  std::int64_t start = 0;
  for (std::int64_t s : run_sums) {
    run_starts.push_back(start);
    start += s;
  }

  const std::vector<std::int64_t> counts = b.counts.download();
  const auto k = static_cast<std::int64_t>(kept.size());
  const auto r = static_cast<std::int64_t>(run_keys.size());
  ASSERT_EQ(counts[0], k);
  ASSERT_EQ(counts[1], k);
  ASSERT_EQ(counts[2], r);
  ASSERT_EQ(counts[3], r);
  const std::vector<std::uint32_t> sorted_keys = b.sorted_keys.download();
  const std::vector<std::int64_t> sorted_values = b.sorted_values.download();
  for (std::int64_t i = 0; i < k; ++i) {
    if (sorted_keys[i] != kept[i].first || sorted_values[i] != kept[i].second) {
      ADD_FAILURE() << "sorted item " << i;
      break;
    }
  }
  EXPECT_TRUE(std::equal(run_keys.begin(), run_keys.end(), b.distinct.download().begin())) << "unique";
  EXPECT_TRUE(std::equal(run_keys.begin(), run_keys.end(), b.run_keys.download().begin())) << "reduce_by_key keys";
  EXPECT_TRUE(std::equal(run_sums.begin(), run_sums.end(), b.run_sums.download().begin())) << "reduce_by_key sums";
  EXPECT_TRUE(std::equal(running.begin(), running.end(), b.running.download().begin())) << "scan_by_key";
  EXPECT_TRUE(std::equal(run_starts.begin(), run_starts.end(), b.run_starts.download().begin())) << "run starts";
}

void upload_and_poison(pipeline_buffers& b, const pipeline_input& in) {
  b.keys.upload(in.keys);
  b.values.upload(in.values);
  b.flags.upload(in.flags);
  for (auto* buffer : {&b.kept_keys, &b.sorted_keys, &b.distinct, &b.run_keys}) buffer->poison();
  for (auto* buffer : {&b.kept_values, &b.sorted_values, &b.run_sums, &b.running, &b.run_starts, &b.counts}) {
    buffer->poison();
  }
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());  // the poison (legacy stream) lands before the pipeline runs
}

class PipelineGraph : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(PipelineGraph, ReplaysOnInputsOfDifferentCounts) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t bound = GetParam();
  pipeline_buffers buffers(bound);
  owned_stream stream;

  // An eager run first (the same calls outside a graph), then the captured graph.
  pipeline_input in = make_input(bound, 0.5, 1000, rng);
  upload_and_poison(buffers, in);
  enqueue_pipeline(buffers, bound, stream.get());
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  check_pipeline(buffers, in);

  captured_graph graph(stream.get(), [&] { enqueue_pipeline(buffers, bound, stream.get()); });
  // Keep nothing, keep one, keep some, keep all; few keys and many.
  const double keeps[] = {0.0, 1.0 / static_cast<double>(bound), 0.3, 1.0, 0.7};
  const std::uint32_t key_ranges[] = {7, 1u << 20, 50, 3, 100000};
  for (int replay = 0; replay < 5; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    in = make_input(bound, keeps[replay], key_ranges[replay], rng);
    upload_and_poison(buffers, in);
    graph.launch();
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    check_pipeline(buffers, in);
  }
}

INSTANTIATE_TEST_SUITE_P(Bounds, PipelineGraph, ::testing::Values(std::int64_t{1'000'003}, std::int64_t{777}),
                         [](const ::testing::TestParamInfo<std::int64_t>& info) {
                           return "bound" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace scankit::testing
