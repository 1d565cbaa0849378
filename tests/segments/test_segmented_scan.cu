// The segmented scan (template API): by head flags and by key, inclusive and exclusive, against
// the host reference and Thrust, on awkward sizes and segment patterns, with a non-commutative
// operator, in place, through iterators, captured in a CUDA graph, and above 2^31 items.
#include <thrust/device_ptr.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/tabulate.h>

#include "scan/scan_test_util.cuh"
#include "scankit/device/segmented_scan.cuh"
#include "scankit/reference/segmented_scan_reference.hpp"
#include "scankit/segmented_scan.hpp"

namespace scankit::testing {
namespace {

using flags_t = std::vector<unsigned char>;

// Segment patterns: heads drawn with probability 1 / mean_length; `first` sets flag 0 (the scan
// treats item 0 as a head either way).
flags_t random_heads(std::size_t n, double mean_length, std::uint64_t seed, bool first = true) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution head(1.0 / mean_length);
  flags_t flags(n);
  for (auto& f : flags) f = head(rng) ? static_cast<unsigned char>(1 + rng() % 200) : 0;  // any non-zero is a head
  if (n > 0) flags[0] = first ? 1 : 0;
  return flags;
}

flags_t heads_every(std::size_t n, std::size_t period, std::size_t offset = 0) {
  flags_t flags(n, 0);
  for (std::size_t i = offset; i < n; i += period) flags[i] = 1;
  return flags;
}

template <class T, class HeadItem = unsigned char>
std::int64_t segmented_tile() {
  return scankit::device::resolved_segmented_policy<scankit::device::tuned, T, HeadItem>::tile_items;
}

std::vector<std::int64_t> sizes_around(std::int64_t tile) {
  return {1, 2, 31, tile - 1, tile, tile + 1, 3 * tile + 17, 40 * tile - 1, (std::int64_t{1} << 20) + 3};
}

template <class T, class Op>
void check_flags(const std::vector<T>& values, const flags_t& flags, Op op, const T& init, const std::string& what) {
  SCOPED_TRACE(what + ", n = " + std::to_string(values.size()));
  const auto n = static_cast<std::int64_t>(values.size());
  device_buffer<T> in(values);
  device_buffer<unsigned char> heads(flags);
  device_buffer<T> out(values.size() + 64);  // 64 poisoned items past the end must stay so
  out.poison();
  scankit::device::inclusive_segmented_scan(in.data(), heads.data(), out.data(), n, op);
  sync_device();
  std::vector<T> got = out.download();
  EXPECT_TRUE(still_poisoned(got, values.size(), got.size()));
  got.resize(values.size());
  EXPECT_TRUE(equal_vectors(reference::inclusive_segmented_scan(values, flags, op), got)) << "inclusive";

  out.poison();
  scankit::device::exclusive_segmented_scan(in.data(), heads.data(), out.data(), n, init, op);
  sync_device();
  got = out.download();
  EXPECT_TRUE(still_poisoned(got, values.size(), got.size()));
  got.resize(values.size());
  EXPECT_TRUE(equal_vectors(reference::exclusive_segmented_scan(values, flags, init, op), got)) << "exclusive";
}

TEST(SegmentedScan, Int32SumAcrossSizesAndPatterns) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t tile = segmented_tile<std::int32_t>();
  for (std::int64_t n : sizes_around(tile)) {
    const auto values = random_values<std::int32_t>(n, seed + n);
    check_flags(values, random_heads(n, 8, seed ^ n), plus_op{}, std::int32_t{7}, "mean length 8");
    check_flags(values, random_heads(n, 1000, seed ^ n, false), plus_op{}, std::int32_t{-3}, "mean length 1000, flag 0 clear");
    check_flags(values, flags_t(n, 1), plus_op{}, std::int32_t{0}, "every item its own segment");
    check_flags(values, flags_t(n, 0), plus_op{}, std::int32_t{5}, "one segment");
    check_flags(values, heads_every(n, tile), plus_op{}, std::int32_t{1}, "heads at tile starts");
    check_flags(values, heads_every(n, tile, tile - 1), plus_op{}, std::int32_t{1}, "heads at tile ends");
  }
}

TEST(SegmentedScan, OtherValueTypes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{1000}, std::int64_t{300'001}}) {
    const auto heads = random_heads(n, 50, seed + n);
    check_flags(random_values<float>(n, seed), heads, maximum_op{}, -100.0f, "float maximum");
    check_flags(random_values<double>(n, seed), heads, plus_op{}, 0.5, "double sum (split tile state)");
    check_flags(random_values<std::int64_t>(n, seed), heads, minimum_op{}, std::int64_t{1} << 40, "int64 minimum");
    check_flags(random_values<std::uint8_t>(n, seed), heads, plus_op{}, std::uint8_t{3}, "uint8 sum (32 per thread)");
    check_flags(random_values<std::int16_t>(n, seed), heads, bit_xor_op{}, std::int16_t{0}, "int16 xor");
  }
}

TEST(SegmentedScan, NonCommutativeOperator) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{5000}, std::int64_t{(1 << 20) + 9}}) {
    const auto values = random_affine32(n, seed);
    check_flags(values, random_heads(n, 300, seed), compose_affine32{}, affine32{3, 1}, "affine maps, runs of 300");
    check_flags(values, random_heads(n, 3, seed + 1), compose_affine32{}, affine32{1, 0}, "affine maps, runs of 3");
  }
}

TEST(SegmentedScan, InPlace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 77'777;
  const auto values = random_values<std::int32_t>(n, seed);
  const auto flags = random_heads(n, 20, seed);
  device_buffer<std::int32_t> data(values);
  device_buffer<unsigned char> heads(flags);
  scankit::device::inclusive_segmented_scan(data.data(), heads.data(), data.data(), n, plus_op{});
  sync_device();
  EXPECT_TRUE(equal_vectors(reference::inclusive_segmented_scan(values, flags, plus_op{}), data.download()));
}

TEST(SegmentedScan, AgreesWithThrustScanByKey) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = (1 << 22) + 123;
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> keys(n);
  std::uint32_t key = 0;
  for (auto& k : keys) {
    if (rng() % 1000 == 0) key += 1 + rng() % 3;
    k = key;
  }
  const auto values = random_values<std::int32_t>(n, seed);
  device_buffer<std::uint32_t> d_keys(keys);
  device_buffer<std::int32_t> d_values(values);
  device_buffer<std::int32_t> ours(n), theirs(n);
  ours.poison();
  scankit::device::inclusive_scan_by_key(d_keys.data(), d_values.data(), ours.data(), n);
  thrust::inclusive_scan_by_key(thrust::device, d_keys.data(), d_keys.data() + n, d_values.data(), theirs.data());
  sync_device();
  EXPECT_TRUE(equal_vectors(theirs.download(), ours.download())) << "inclusive";
  ours.poison();
  scankit::device::exclusive_scan_by_key(d_keys.data(), d_values.data(), ours.data(), n, 11);
  thrust::exclusive_scan_by_key(thrust::device, d_keys.data(), d_keys.data() + n, d_values.data(), theirs.data(), 11);
  sync_device();
  EXPECT_TRUE(equal_vectors(theirs.download(), ours.download())) << "exclusive";
}

// Keys equal when they agree above their low 4 bits: a user equality, not operator==.
struct same_high_bits {
  __host__ __device__ bool operator()(std::int64_t a, std::int64_t b) const { return (a >> 4) == (b >> 4); }
};

TEST(SegmentedScan, ByKeyWithUserEquality) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t tile = segmented_tile<double, std::int64_t>();
  for (std::int64_t n : sizes_around(tile)) {
    std::mt19937_64 rng(seed + n);
    std::vector<std::int64_t> keys(n);
    std::int64_t key = 0;
    for (auto& k : keys) {
      if (rng() % 40 == 0) key += 16 * (1 + rng() % 2);
      k = key + static_cast<std::int64_t>(rng() % 16);  // low bits vary inside a segment
    }
    const auto values = random_values<double>(n, seed);
    const auto heads = reference::key_change_heads(keys, same_high_bits{});
    device_buffer<std::int64_t> d_keys(keys);
    device_buffer<double> d_values(values);
    device_buffer<double> out(n);
    out.poison();
    scankit::device::inclusive_scan_by_key(d_keys.data(), d_values.data(), out.data(), n, plus_op{}, same_high_bits{});
    sync_device();
    EXPECT_TRUE(equal_vectors(reference::inclusive_segmented_scan(values, heads, plus_op{}), out.download()))
        << "n = " << n;
    out.poison();
    scankit::device::exclusive_scan_by_key(d_keys.data(), d_values.data(), out.data(), n, 1.5, plus_op{},
                                           same_high_bits{});
    sync_device();
    EXPECT_TRUE(equal_vectors(reference::exclusive_segmented_scan(values, heads, 1.5, plus_op{}), out.download()))
        << "n = " << n;
  }
}

struct every_seventh {
  __host__ __device__ int operator()(long long i) const { return i % 7 == 0 ? 1 : 0; }
};

TEST(SegmentedScan, IteratorInputs) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 100'003;
  const thrust::counting_iterator<long long> values(0);
  const auto flags = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), every_seventh{});
  device_buffer<long long> out(n);
  out.poison();
  scankit::device::inclusive_segmented_scan(values, flags, out.data(), n, plus_op{});
  sync_device();
  const auto got = out.download();
  long long expected = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    expected = i % 7 == 0 ? i : expected + i;
    ASSERT_EQ(expected, got[i]) << "index " << i;
  }
}

TEST(SegmentedScan, GraphReplayWithNewInput) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 1'000'000;
  const auto flags = random_heads(n, 100, seed);
  device_buffer<unsigned char> heads(flags);
  device_buffer<std::int32_t> in(n), out(n);
  workspace ws;
  cudaStream_t stream;
  SCANKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  SCANKIT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  scankit::device::inclusive_segmented_scan(in.data(), heads.data(), out.data(), n, plus_op{}, stream, &ws);
  SCANKIT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  SCANKIT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 4; ++replay) {
    const auto values = random_values<std::int32_t>(n, seed + replay);
    in.upload(values);
    out.poison();
    SCANKIT_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_TRUE(equal_vectors(reference::inclusive_segmented_scan(values, flags, plus_op{}), out.download()))
        << "replay " << replay;
  }
  SCANKIT_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SCANKIT_CUDA_CHECK(cudaGraphDestroy(graph));
  ws.release();  // returned on `stream`, which must still exist
  SCANKIT_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(SegmentedScan, BadArgumentsThrowBeforeLaunch) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 10'000;
  device_buffer<std::int32_t> in(std::vector<std::int32_t>(n, 1)), out(n);
  device_buffer<unsigned char> heads(flags_t(n, 0));
  EXPECT_THROW(scankit::device::inclusive_segmented_scan(in.data(), heads.data(), out.data(), -1, plus_op{}), error);
  EXPECT_THROW(scankit::device::inclusive_segmented_scan(static_cast<const std::int32_t*>(nullptr), heads.data(),
                                                         out.data(), n, plus_op{}),
               error);
  EXPECT_THROW(scankit::device::inclusive_segmented_scan(in.data(), static_cast<const unsigned char*>(nullptr),
                                                         out.data(), n, plus_op{}),
               error);
  // out overlapping the flags, and out overlapping the values other than exactly
  auto* flags_as_out = reinterpret_cast<std::int32_t*>(heads.data());
  EXPECT_THROW(scankit::device::inclusive_segmented_scan(in.data(), heads.data(), flags_as_out, n / 4, plus_op{}), error);
  EXPECT_THROW(scankit::device::inclusive_segmented_scan(in.data(), heads.data(), in.data() + 1, n - 1, plus_op{}), error);
  sync_device();
  EXPECT_TRUE(equal_vectors(std::vector<std::int32_t>(n, 1), in.download())) << "the input must be intact";
  EXPECT_TRUE(equal_vectors(flags_t(n, 0), heads.download())) << "the flags must be intact";
  // n == 0 does nothing, null pointers included
  scankit::device::inclusive_segmented_scan(static_cast<const std::int32_t*>(nullptr),
                                            static_cast<const unsigned char*>(nullptr),
                                            static_cast<std::int32_t*>(nullptr), 0, plus_op{});
}

// The precompiled overloads (what g++ callers link): by flags and by unsigned and signed keys.
TEST(SegmentedScan, PrecompiledOverloads) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 250'001;
  const auto values = random_values<float>(n, seed);
  const auto flags = random_heads(n, 30, seed);
  std::vector<std::uint32_t> keys(n);
  std::uint32_t key = 0x8000'0000u;  // the top bit set: unsigned keys must compare as bits
  for (std::int64_t i = 0; i < n; ++i) keys[i] = key += (i > 0 && flags[i] != 0) ? 1 : 0;
  device_buffer<float> in(values), out(n);
  device_buffer<std::uint8_t> heads(flags);
  device_buffer<std::uint32_t> d_keys(keys);
  // Caller memory of the queried size: a call that needed more would throw.
  device_buffer<char> memory(scankit::segmented_scan_workspace_bytes(static_cast<const float*>(nullptr), n));
  workspace ws(memory.data(), memory.size());
  scankit::inclusive_segmented_scan(in.data(), heads.data(), out.data(), n, scan_op::maximum, nullptr, &ws);
  sync_device();
  EXPECT_TRUE(equal_vectors(reference::inclusive_segmented_scan(values, flags, maximum_op{}), out.download()));
  scankit::exclusive_scan_by_key(d_keys.data(), in.data(), out.data(), n, 2.0f, scan_op::plus, nullptr, &ws);
  sync_device();
  EXPECT_TRUE(equal_vectors(reference::exclusive_segmented_scan(values, flags, 2.0f, plus_op{}), out.download()));
  EXPECT_THROW(scankit::inclusive_segmented_scan(in.data(), heads.data(), out.data(), n, scan_op::bit_xor), error);
}

struct head_every_1000 {
  __host__ __device__ unsigned char operator()(long long i) const { return i % 1000 == 0 ? 1 : 0; }
};

// Above 2^31 items: uint8 values of 1 and a head every 1000 items, so item i holds
// (i mod 1000) + 1 mod 256; checked on every item.
TEST(SegmentedScanLarge, Above2p31Items) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  if (!gpu_memory_available(3 * static_cast<std::size_t>(n))) GTEST_SKIP() << "not enough GPU memory";
  device_buffer<std::uint8_t> values(n), out(n);
  device_buffer<unsigned char> heads(n);
  SCANKIT_CUDA_CHECK(cudaMemset(values.data(), 1, n));
  thrust::tabulate(thrust::device, heads.data(), heads.data() + n, head_every_1000{});
  scankit::device::inclusive_segmented_scan(values.data(), heads.data(), out.data(), n, plus_op{});
  sync_device();
  const auto got = out.download();
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (got[i] != static_cast<std::uint8_t>(i % 1000 + 1) && wrong++ == 0) first = i;
  }
  EXPECT_EQ(0, wrong) << "first wrong item " << first;
}

}  // namespace
}  // namespace scankit::testing
