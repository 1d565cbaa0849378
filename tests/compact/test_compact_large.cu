// Counts above 2^31 and 2^32 items (1-byte items, so that the arrays fit): above 2^32 the
// offsets no longer fit in 32 bits and the single pass switches to the 64-bit (split) tile state
// on its own. Each test skips itself when the GPU lacks the memory. Oracle: Thrust, compared on
// the device (thrust::equal). Only Thrust algorithms with 64-bit sizes serve as oracles here:
// thrust::unique_copy does not (see unique_oracle below).
#include <gtest/gtest.h>

#include <thrust/copy.h>
#include <thrust/equal.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>

#include <cstdint>
#include <string>

#include "compact_test_util.cuh"
#include "scankit/device/partition.cuh"
#include "scankit/device/select.cuh"
#include "scankit/device/unique.cuh"

namespace scankit::testing {
namespace {

constexpr std::int64_t above_2e31 = (std::int64_t{1} << 31) + 4099;
// Large enough that a 99.6 % selection also passes 2^32 kept items.
constexpr std::int64_t above_2e32 = (std::int64_t{1} << 32) + (std::int64_t{1} << 25) + 4099;

__host__ __device__ inline std::uint64_t hash64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct random_byte {
  std::uint64_t seed;
  __host__ __device__ std::uint8_t operator()(std::int64_t i) const {
    return static_cast<std::uint8_t>(hash64(seed ^ static_cast<std::uint64_t>(i)) >> 56);
  }
};

// Runs of about 4 equal bytes: the value changes where the hash of the index says so.
struct run_byte {
  std::uint64_t seed;
  __host__ __device__ std::uint8_t operator()(std::int64_t i) const {
    return static_cast<std::uint8_t>(hash64(seed ^ static_cast<std::uint64_t>(i >> 2)) >> 58);
  }
};

struct high_half_only {
  __host__ __device__ std::uint8_t operator()(std::uint8_t f) const { return static_cast<std::uint8_t>(f >= 128 ? f : 0); }
};

struct below {
  std::uint8_t limit;
  __host__ __device__ bool operator()(std::uint8_t x) const { return x < limit; }
};

template <class Fill>
device_buffer<std::uint8_t> generated(std::int64_t n, Fill fill) {
  device_buffer<std::uint8_t> b(static_cast<std::size_t>(n));
  thrust::tabulate(thrust::device, b.data(), b.data() + n, fill);
  return b;
}

bool same_on_device(const std::uint8_t* a, const std::uint8_t* b, std::int64_t count) {
  return thrust::equal(thrust::device, a, a + count, b);
}

// Item i starts a run of equal items: i == 0 or in[i - 1] != in[i].
struct starts_run {
  const std::uint8_t* in;
  __host__ __device__ bool operator()(std::int64_t i) const { return i == 0 || in[i - 1] != in[i]; }
};

// out = the first item of every run of in[0, n); returns the count. Not thrust::unique_copy: the
// Thrust of CUDA 13.0 (3.0.1, thrust/system/cuda/detail/unique.h, __unique::unique) counts in
// `int` (`using size_type = int; num_items = static_cast<size_type>(distance)`), so above 2^32
// items it silently processes only n mod 2^32 of them (here 2^25 + 4099). copy_if dispatches with
// 64-bit offsets (SelectIfAbove2e32 relies on it for counts above 2^32).
std::int64_t unique_oracle(const std::uint8_t* in, std::uint8_t* out, std::int64_t n) {
  return thrust::copy_if(thrust::device, in, in + n, thrust::counting_iterator<std::int64_t>(0), out,
                         starts_run{in}) -
         out;
}

#define SCANKIT_REQUIRE_MEMORY(bytes)                                                                         \
  do {                                                                                                        \
    if (small_sizes_only()) GTEST_SKIP() << "SCANKIT_TEST_SMALL is set";                                     \
    if (!gpu_memory_available(bytes))                                                                         \
      GTEST_SKIP() << "needs " << ((bytes) >> 30) << " GiB of free GPU memory (plus 1 GiB to spare)";          \
  } while (0)

TEST(CompactLarge, SelectFlaggedAbove2e31) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = above_2e31;
  SCANKIT_REQUIRE_MEMORY(static_cast<std::size_t>(n) * 8);  // in, flags, out, thrust, three-step offsets
  SCANKIT_SEEDED(seed);
  const device_buffer<std::uint8_t> in = generated(n, random_byte{seed});
  device_buffer<std::uint8_t> flags = generated(n, random_byte{seed + 1});
  device_buffer<std::uint8_t> want(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  // Keep about half: flag bytes below 128 become 0.
  thrust::transform(thrust::device, flags.data(), flags.data() + n, flags.data(), high_half_only{});
  const std::int64_t want_count =
      thrust::copy_if(thrust::device, in.data(), in.data() + n, flags.data(), want.data(), flag_is_set{}) -
      want.data();
  ASSERT_GT(want_count, std::int64_t{1} << 29);
  device_count count;
  for (compact_strategy s : {compact_strategy::single_pass, compact_strategy::three_step}) {
    SCOPED_TRACE(to_string(s));
    compact_options o;
    o.strategy = s;
    count.poison();
    scankit::select_flagged(in.data(), flags.data(), out.data(), count.get(), n, nullptr, nullptr, o);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(count.value(), want_count);
    ASSERT_TRUE(same_on_device(out.data(), want.data(), want_count));
  }
}

TEST(CompactLarge, SelectIfAbove2e32) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = above_2e32;
  SCANKIT_REQUIRE_MEMORY(static_cast<std::size_t>(n) * 3);
  SCANKIT_SEEDED(seed);
  device_buffer<std::uint8_t> in = generated(n, random_byte{seed});
  device_buffer<std::uint8_t> want(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  const below pred{255};  // 255 of 256 byte values kept: the count passes 2^32 as well
  const std::int64_t want_count =
      thrust::copy_if(thrust::device, in.data(), in.data() + n, want.data(), pred) - want.data();
  ASSERT_GT(want_count, std::int64_t{1} << 32);
  device_count count;
  count.poison();
  scankit::device::select_if(in.data(), out.data(), count.get(), n, pred);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(count.value(), want_count);
  ASSERT_TRUE(same_on_device(out.data(), want.data(), want_count));

  // In place, single pass.
  count.poison();
  scankit::device::select_if(in.data(), in.data(), count.get(), n, pred);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(count.value(), want_count);
  ASSERT_TRUE(same_on_device(in.data(), want.data(), want_count)) << "in place";
}

TEST(CompactLarge, SelectIfThreeStepAbove2e32) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = above_2e32;
  SCANKIT_REQUIRE_MEMORY(static_cast<std::size_t>(n) * 12);  // + 64-bit offsets
  SCANKIT_SEEDED(seed);
  const device_buffer<std::uint8_t> in = generated(n, random_byte{seed});
  device_buffer<std::uint8_t> want(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  const below pred{100};
  const std::int64_t want_count =
      thrust::copy_if(thrust::device, in.data(), in.data() + n, want.data(), pred) - want.data();
  device_count count;
  count.poison();
  compact_options o;
  o.strategy = compact_strategy::three_step;
  scankit::device::select_if(in.data(), out.data(), count.get(), n, pred, nullptr, nullptr, o);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(count.value(), want_count);
  ASSERT_TRUE(same_on_device(out.data(), want.data(), want_count));
}

TEST(CompactLarge, PartitionAbove2e32) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = above_2e32;
  SCANKIT_REQUIRE_MEMORY(static_cast<std::size_t>(n) * 5);
  SCANKIT_SEEDED(seed);
  const device_buffer<std::uint8_t> in = generated(n, random_byte{seed});
  device_buffer<std::uint8_t> want_s(static_cast<std::size_t>(n)), want_r(static_cast<std::size_t>(n));
  const below pred{128};
  const auto ends =
      thrust::stable_partition_copy(thrust::device, in.data(), in.data() + n, want_s.data(), want_r.data(), pred);
  const std::int64_t want_count = ends.first - want_s.data();
  device_buffer<std::uint8_t> s(static_cast<std::size_t>(n)), r(static_cast<std::size_t>(n));
  device_count count;
  count.poison();
  scankit::device::partition_if(in.data(), s.data(), r.data(), count.get(), n, pred);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(count.value(), want_count);
  ASSERT_TRUE(same_on_device(s.data(), want_s.data(), want_count)) << "selected";
  ASSERT_TRUE(same_on_device(r.data(), want_r.data(), n - want_count)) << "rejected";
}

// In-place unique of n generated bytes against unique_oracle; the oracle's count must exceed
// `more_than` (which also catches an oracle that saw only part of the input).
template <class Fill>
void check_unique_in_place(std::int64_t n, Fill fill, std::int64_t more_than) {
  device_buffer<std::uint8_t> in = generated(n, fill);
  device_buffer<std::uint8_t> want(static_cast<std::size_t>(n));
  const std::int64_t want_count = unique_oracle(in.data(), want.data(), n);
  ASSERT_GT(want_count, more_than);
  device_count count;
  count.poison();
  scankit::device::unique(in.data(), in.data(), count.get(), n);  // in place
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_EQ(count.value(), want_count);
  ASSERT_TRUE(same_on_device(in.data(), want.data(), want_count));
}

// Runs of about 4 equal bytes (64 values): about n/4 * 63/64 ~ 1.065e9 kept.
TEST(CompactLarge, UniqueAbove2e32) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = above_2e32;
  SCANKIT_REQUIRE_MEMORY(static_cast<std::size_t>(n) * 3);
  SCANKIT_SEEDED(seed);
  check_unique_in_place(n, run_byte{seed}, n / 5);
}

// Random bytes: about n * 255/256 kept, so the count (and the tile prefixes) pass 2^32 too.
TEST(CompactLarge, UniqueCountAbove2e32) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = above_2e32;
  SCANKIT_REQUIRE_MEMORY(static_cast<std::size_t>(n) * 3);
  SCANKIT_SEEDED(seed);
  check_unique_in_place(n, random_byte{seed}, std::int64_t{1} << 32);
}

}  // namespace
}  // namespace scankit::testing
