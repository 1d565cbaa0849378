// The template API with iterators: Thrust's counting, transform, discard and transform-output
// iterators, thrust::device_vector, and an accumulator type other than the input's. Inputs that
// stay contiguous (a transform of an array of the accumulator's size) keep the staged kernel;
// the rest run the register kernel. Checked against host loops, on sizes of one tile and many.
#include <gtest/gtest.h>

#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

// Row lengths computed on the fly: a pseudo-random length 0..7 per row.
struct row_length {
  __host__ __device__ int operator()(long long row) const { return static_cast<int>((row * 2654435761ll >> 7) & 7); }
};

struct square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

struct widen_byte {
  __host__ __device__ int operator()(std::int8_t x) const { return static_cast<int>(x); }
};

struct twice {
  __host__ __device__ long long operator()(long long x) const { return 2 * x; }
};

const std::int64_t sizes[] = {1, 1000, 4096, 4097, 3'000'017};

TEST(ScanIterators, CountingTransformInputInclusiveAndExclusive) {
  SCANKIT_REQUIRE_GPU();
  for (std::int64_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto lengths = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), row_length{});
    std::vector<long long> expected_incl(static_cast<std::size_t>(n)), expected_excl(static_cast<std::size_t>(n));
    long long running = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      expected_excl[static_cast<std::size_t>(i)] = running + 5;
      running += row_length{}(i);
      expected_incl[static_cast<std::size_t>(i)] = running;
    }
    device_buffer<long long> out(static_cast<std::size_t>(n) + 64);
    out.poison();
    workspace ws;
    // The accumulator is named: int lengths summed in 64 bits.
    scankit::device::inclusive_scan<scankit::device::tuned, long long>(lengths, out.data(), n, plus_op{}, nullptr, &ws);
    sync_device();
    std::vector<long long> got = out.download();
    EXPECT_TRUE(equal_ranges(expected_incl.data(), got.data(), n));
    EXPECT_TRUE(still_poisoned(got, static_cast<std::size_t>(n), got.size()));

    out.poison();
    scankit::device::exclusive_scan(lengths, out.data(), n, 5ll, plus_op{}, nullptr, &ws);  // accumulator: long long
    sync_device();
    got = out.download();
    EXPECT_TRUE(equal_ranges(expected_excl.data(), got.data(), n));
    EXPECT_TRUE(still_poisoned(got, static_cast<std::size_t>(n), got.size()));
  }
}

TEST(ScanIterators, TransformOfArrayKeepsResultsOnEveryPath) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  for (bool portable : {false, true}) {
    scankit::force_portable_kernels(portable);
    for (std::int64_t n : sizes) {
      SCOPED_TRACE("n = " + std::to_string(n) + (portable ? " (portable kernels)" : ""));
      std::vector<float> host(static_cast<std::size_t>(n));
      std::uniform_int_distribution<int> small(-2, 2);
      for (float& x : host) x = static_cast<float>(small(rng));  // sums of squares stay below 2^24: exact
      device_buffer<float> in(host);
      device_buffer<float> out(static_cast<std::size_t>(n));
      out.poison();
      scankit::device::inclusive_scan(thrust::make_transform_iterator(in.data(), square{}), out.data(), n, plus_op{});
      sync_device();
      std::vector<float> expected(host.size());
      float running = 0;
      for (std::size_t i = 0; i < host.size(); ++i) expected[i] = running += host[i] * host[i];
      EXPECT_TRUE(equal_vectors(expected, out.download()));
    }
  }
  scankit::force_portable_kernels(false);
}

TEST(ScanIterators, NarrowInputWiderAccumulator) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::int8_t> host = random_values<std::int8_t>(static_cast<std::size_t>(n), seed + n);
    device_buffer<std::int8_t> in(host);
    device_buffer<int> out(static_cast<std::size_t>(n));
    std::vector<int> expected(host.size());
    int running = 0;
    for (std::size_t i = 0; i < host.size(); ++i) expected[i] = running += host[i];
    // A plain int8 array accumulated in int, and the same through a transform to int.
    out.poison();
    scankit::device::inclusive_scan<scankit::device::tuned, int>(in.data(), out.data(), n, plus_op{});
    sync_device();
    EXPECT_TRUE(equal_vectors(expected, out.download()));
    out.poison();
    scankit::device::inclusive_scan(thrust::make_transform_iterator(in.data(), widen_byte{}), out.data(), n,
                                    plus_op{});
    sync_device();
    EXPECT_TRUE(equal_vectors(expected, out.download()));
  }
}

TEST(ScanIterators, DeviceVectorAndOutputIterators) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<long long> host = random_values<long long>(static_cast<std::size_t>(n), seed ^ n);
    thrust::device_vector<long long> in(host);
    thrust::device_vector<long long> out(static_cast<std::size_t>(n), -1);
    std::vector<long long> expected(host.size());
    long long running = 0;
    for (std::size_t i = 0; i < host.size(); ++i) expected[i] = running += host[i];

    scankit::device::inclusive_scan(in.begin(), out.begin(), n, plus_op{});
    sync_device();
    std::vector<long long> got(static_cast<std::size_t>(n));
    thrust::copy(out.begin(), out.end(), got.begin());  // one transfer, not one per element
    EXPECT_TRUE(equal_vectors(expected, got));

    // Written through a transform: twice every result.
    thrust::fill(out.begin(), out.end(), -1);
    scankit::device::inclusive_scan(in.begin(), thrust::make_transform_output_iterator(out.begin(), twice{}), n,
                                    plus_op{});
    sync_device();
    thrust::copy(out.begin(), out.end(), got.begin());
    for (long long& x : expected) x *= 2;
    EXPECT_TRUE(equal_vectors(expected, got));

    // Discarded: runs, writes nothing.
    thrust::fill(out.begin(), out.end(), -1);
    scankit::device::inclusive_scan(in.begin(), thrust::make_discard_iterator(), n, plus_op{});
    sync_device();
    thrust::copy(out.begin(), out.end(), got.begin());
    EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](long long x) { return x == -1; }));
  }
}

}  // namespace
}  // namespace scankit::testing
