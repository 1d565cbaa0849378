// Reduce-by-key (template and precompiled API) against thrust::reduce_by_key and the host: runs of
// every length around the tile, one run, every item its own run, a non-commutative operator, a
// user key equality, iterators, graph replay, bad arguments, and above 2^31 items.
#include <thrust/execution_policy.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>

#include "scan/scan_test_util.cuh"
#include "scankit/device/reduce_by_key.cuh"
#include "scankit/reduce_by_key.hpp"

namespace scankit::testing {
namespace {

template <class K, class T>
struct runs_result {
  std::vector<K> keys;
  std::vector<T> aggregates;
};

template <class K, class T, class Op, class Eq>
runs_result<K, T> host_reduce_by_key(const std::vector<K>& keys, const std::vector<T>& values, Op op, Eq eq) {
  runs_result<K, T> r;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !eq(keys[i - 1], keys[i])) {
      r.keys.push_back(keys[i]);
      r.aggregates.push_back(values[i]);
    } else {
      r.aggregates.back() = static_cast<T>(op(r.aggregates.back(), values[i]));
    }
  }
  return r;
}

// Keys in runs of random length (mean `mean`), as integers that grow by 1 or 2 per run.
template <class K>
std::vector<K> run_keys(std::size_t n, double mean, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution change(1.0 / mean);
  std::vector<K> keys(n);
  K key = 0;
  for (auto& k : keys) {
    if (change(rng)) key = static_cast<K>(key + 1 + rng() % 2);
    k = key;
  }
  return keys;
}

template <class K, class T, class Op, class Eq = equal_to_op>
void check(const std::vector<K>& keys, const std::vector<T>& values, Op op, const std::string& what, Eq eq = {}) {
  SCOPED_TRACE(what + ", n = " + std::to_string(keys.size()));
  const auto n = static_cast<std::int64_t>(keys.size());
  const auto expected = host_reduce_by_key(keys, values, op, eq);
  const auto runs = static_cast<std::int64_t>(expected.keys.size());
  device_buffer<K> d_keys(keys), unique(n + 16);
  device_buffer<T> d_values(values), aggregates(n + 16);
  device_buffer<std::int64_t> d_runs(1);
  unique.poison();
  aggregates.poison();
  d_runs.poison();
  scankit::device::reduce_by_key(d_keys.data(), d_values.data(), unique.data(), aggregates.data(), d_runs.data(), n, op,
                                 eq);
  sync_device();
  ASSERT_EQ(runs, d_runs.download()[0]);
  auto got_keys = unique.download();
  auto got_aggregates = aggregates.download();
  EXPECT_TRUE(still_poisoned(got_keys, runs, got_keys.size())) << "keys past the runs";
  EXPECT_TRUE(still_poisoned(got_aggregates, runs, got_aggregates.size())) << "aggregates past the runs";
  got_keys.resize(runs);
  got_aggregates.resize(runs);
  EXPECT_TRUE(equal_vectors(expected.keys, got_keys)) << "keys";
  EXPECT_TRUE(equal_vectors(expected.aggregates, got_aggregates)) << "aggregates";
}

template <class T>
std::int64_t rbk_tile() {
  return scankit::device::resolved_segmented_policy<scankit::device::tuned, T, std::int32_t>::tile_items;
}

TEST(ReduceByKey, RunLengthsAroundTheTile) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t tile = rbk_tile<float>();
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{2}, tile - 1, tile, tile + 1, 3 * tile + 5, std::int64_t{1} << 20}) {
    const auto values = random_values<float>(n, seed + n);
    check(run_keys<std::int32_t>(n, 8, seed ^ n), values, plus_op{}, "runs of 8");
    check(run_keys<std::int32_t>(n, 1000, seed ^ n), values, plus_op{}, "runs of 1000");
    check(run_keys<std::int32_t>(n, tile * 2.5, seed ^ n), values, maximum_op{}, "runs longer than a tile");
    check(std::vector<std::int32_t>(n, 7), values, plus_op{}, "one run");
    std::vector<std::int32_t> distinct(n);
    for (std::int64_t i = 0; i < n; ++i) distinct[i] = static_cast<std::int32_t>(i);
    check(distinct, values, plus_op{}, "every item its own run");
    // Runs that end exactly at tile boundaries.
    std::vector<std::int32_t> by_tile(n);
    for (std::int64_t i = 0; i < n; ++i) by_tile[i] = static_cast<std::int32_t>(i / tile);
    check(by_tile, values, minimum_op{}, "a run per tile");
  }
}

TEST(ReduceByKey, WideKeysAndValues) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{5000}, std::int64_t{333'333}}) {
    check(run_keys<std::int64_t>(n, 20, seed), random_values<double>(n, seed), plus_op{}, "int64 keys, double");
    check(run_keys<std::uint64_t>(n, 3, seed), random_values<std::int64_t>(n, seed), plus_op{}, "uint64 keys, int64");
    check(run_keys<std::int16_t>(n, 5, seed), random_values<std::int32_t>(n, seed), maximum_op{}, "int16 keys");
  }
}

struct same_tens {
  __host__ __device__ bool operator()(std::int32_t a, std::int32_t b) const { return a / 10 == b / 10; }
};

TEST(ReduceByKey, NonCommutativeOperatorAndUserEquality) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 700'001;
  check(run_keys<std::int32_t>(n, 50, seed), random_affine32(n, seed), compose_affine32{}, "affine maps");
  std::vector<std::int32_t> keys(n);
  std::mt19937_64 rng(seed);
  for (std::int64_t i = 0; i < n; ++i) keys[i] = static_cast<std::int32_t>(i / 37 * 10 + rng() % 10);
  check(keys, random_values<std::int32_t>(n, seed), plus_op{}, "keys equal by tens (first key of each run out)",
        same_tens{});
}

TEST(ReduceByKey, AgreesWithThrust) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = (1 << 22) + 77;
  const auto keys = run_keys<std::uint32_t>(n, 8, seed);
  const auto values = random_values<std::int32_t>(n, seed);
  device_buffer<std::uint32_t> d_keys(keys), ours_k(n), theirs_k(n);
  device_buffer<std::int32_t> d_values(values), ours_v(n), theirs_v(n);
  device_buffer<std::int64_t> runs(1);
  scankit::reduce_by_key(d_keys.data(), d_values.data(), ours_k.data(), ours_v.data(), runs.data(), n);  // precompiled
  const auto ends = thrust::reduce_by_key(thrust::device, d_keys.data(), d_keys.data() + n, d_values.data(),
                                          theirs_k.data(), theirs_v.data());
  sync_device();
  const std::int64_t r = ends.first - theirs_k.data();
  ASSERT_EQ(r, runs.download()[0]);
  auto a = ours_k.download(), b = theirs_k.download();
  a.resize(r);
  b.resize(r);
  EXPECT_TRUE(equal_vectors(b, a));
  auto c = ours_v.download(), d = theirs_v.download();
  c.resize(r);
  d.resize(r);
  EXPECT_TRUE(equal_vectors(d, c));
}

struct key_of_index {
  __host__ __device__ int operator()(long long i) const { return static_cast<int>(i / 100); }
};

TEST(ReduceByKey, IteratorInputs) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 123'456;
  const auto keys = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), key_of_index{});
  const thrust::counting_iterator<long long> values(0);
  device_buffer<int> unique(n);
  device_buffer<long long> sums(n);
  device_buffer<std::int64_t> runs(1);
  scankit::device::reduce_by_key(keys, values, unique.data(), sums.data(), runs.data(), n);
  sync_device();
  const std::int64_t r = (n + 99) / 100;
  ASSERT_EQ(r, runs.download()[0]);
  const auto k = unique.download();
  const auto s = sums.download();
  for (std::int64_t j = 0; j < r; ++j) {
    const long long lo = j * 100, hi = std::min<long long>(n, lo + 100);
    ASSERT_EQ(j, k[j]);
    ASSERT_EQ((lo + hi - 1) * (hi - lo) / 2, s[j]) << "run " << j;
  }
}

TEST(ReduceByKey, GraphReplayWithNewInput) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 1'000'003;
  const auto keys = run_keys<std::int32_t>(n, 10, seed);
  device_buffer<std::int32_t> d_keys(keys), unique(n);
  device_buffer<float> values(n), sums(n);
  device_buffer<std::int64_t> runs(1);
  workspace ws;
  cudaStream_t stream;
  SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  SCANKIT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  scankit::reduce_by_key(d_keys.data(), values.data(), unique.data(), sums.data(), runs.data(), n, scan_op::plus,
                         stream, &ws);
  SCANKIT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  SCANKIT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    const auto v = random_values<float>(n, seed + replay);
    values.upload(v);
    SCANKIT_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto expected = host_reduce_by_key(keys, v, plus_op{}, equal_to_op{});
    auto got = sums.download();
    got.resize(expected.aggregates.size());
    EXPECT_TRUE(equal_vectors(expected.aggregates, got)) << "replay " << replay;
  }
  SCANKIT_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SCANKIT_CUDA_CHECK(cudaGraphDestroy(graph));
  ws.release();  // returned on `stream`, which must still exist
  SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(ReduceByKey, BadArgumentsThrowBeforeLaunch) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1000;
  device_buffer<std::int32_t> keys(std::vector<std::int32_t>(n, 1)), unique(n);
  device_buffer<float> values(std::vector<float>(n, 2.0f)), sums(n);
  device_buffer<std::int64_t> runs(1);
  EXPECT_THROW(scankit::reduce_by_key(keys.data(), values.data(), unique.data(), sums.data(), runs.data(), -1), error);
  EXPECT_THROW(scankit::reduce_by_key(keys.data(), values.data(), unique.data(), sums.data(),
                                      static_cast<std::int64_t*>(nullptr), n),
               error);
  EXPECT_THROW(scankit::reduce_by_key(keys.data(), values.data(), keys.data(), sums.data(), runs.data(), n), error);
  EXPECT_THROW(scankit::reduce_by_key(keys.data(), values.data(), unique.data(), values.data(), runs.data(), n), error);
  EXPECT_THROW(scankit::reduce_by_key(keys.data(), values.data(), unique.data(), sums.data(), runs.data(), n,
                                      scan_op::bit_or),
               error);
  EXPECT_THROW(scankit::device::reduce_by_key(keys.data(), values.data(), unique.data(), sums.data(), runs.data(),
                                              std::int64_t{1} << 32),
               error);
  EXPECT_TRUE(equal_vectors(std::vector<std::int32_t>(n, 1), keys.download()));
  EXPECT_TRUE(equal_vectors(std::vector<float>(n, 2.0f), values.download()));
}

// Outputs sized for the runs, side by side in one allocation, are accepted and filled; outputs that
// share their first item, or reach an input within n items, are refused.
TEST(ReduceByKey, OutputsSizedForTheRunsSideBySide) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 1000, run_length = 100, r = n / run_length;
  std::vector<std::int32_t> k(n);
  for (std::int64_t i = 0; i < n; ++i) k[i] = static_cast<std::int32_t>(i / run_length);
  device_buffer<std::int32_t> keys(k);
  device_buffer<std::int32_t> values(std::vector<std::int32_t>(n, 3));
  device_buffer<std::int32_t> both(2 * r + 1);  // unique keys, then the sums, then a guard word
  device_buffer<std::int64_t> runs(1);
  both.poison();
  std::int32_t* unique = both.data();
  std::int32_t* sums = both.data() + r;
  scankit::reduce_by_key(keys.data(), values.data(), unique, sums, runs.data(), n);
  const std::vector<std::int32_t> got = both.download();
  EXPECT_EQ(runs.download()[0], r);
  for (std::int64_t j = 0; j < r; ++j) {
    EXPECT_EQ(got[j], j);
    EXPECT_EQ(got[r + j], 3 * run_length);
  }
  EXPECT_EQ(static_cast<std::uint32_t>(got[2 * r]), 0xA5A5A5A5u);  // nothing after the runs
  EXPECT_THROW(scankit::reduce_by_key(keys.data(), values.data(), unique, unique, runs.data(), n), error);
  EXPECT_THROW(scankit::reduce_by_key(keys.data(), values.data(), unique, sums,
                                      reinterpret_cast<std::int64_t*>(sums), n),
               error);
  // An output that ends before the keys but would reach them at n items.
  device_buffer<std::int32_t> joined(2 * n);
  SCANKIT_CUDA_CHECK(cudaMemcpy(joined.data() + n, keys.data(), n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice));
  EXPECT_THROW(scankit::reduce_by_key(joined.data() + n, values.data(), joined.data() + n - r, sums, runs.data(), n),
               error);
}

struct key_of_thousand {
  __host__ __device__ long long operator()(long long i) const { return i / 1000; }
};

// Above 2^31 items: runs of 1000 equal keys (the last one shorter), values of 1, through
// iterators; every run checked.
TEST(ReduceByKeyLarge, Above2p31Items) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  const std::int64_t r = (n + 999) / 1000;
  if (!gpu_memory_available(static_cast<std::size_t>(r) * 12)) GTEST_SKIP() << "not enough GPU memory";
  const auto keys = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), key_of_thousand{});
  device_buffer<long long> unique(r);
  device_buffer<int> sums(r);
  device_buffer<std::int64_t> runs(1);
  scankit::device::reduce_by_key(keys, thrust::constant_iterator<int>(1), unique.data(), sums.data(), runs.data(), n);
  sync_device();
  ASSERT_EQ(r, runs.download()[0]);
  const auto k = unique.download();
  const auto s = sums.download();
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t j = 0; j < r; ++j) {
    const std::int64_t length = std::min<std::int64_t>(1000, n - j * 1000);
    if ((k[j] != j || s[j] != length) && wrong++ == 0) first = j;
  }
  EXPECT_EQ(0, wrong) << "first wrong run " << first;
}

}  // namespace
}  // namespace scankit::testing
