// Segments given by offsets (CSR row offsets): the segmented scan by offsets and the segmented
// reduction, against the host reference, on awkward sizes and segment patterns (empty segments,
// runs of empty segments at tile boundaries, segments spanning many tiles, offsets that cover only
// part of the values), 32- and 64-bit offsets, a non-commutative operator, iterators, the
// precompiled overloads with caller memory of the queried size, bad arguments, and above 2^31
// items.
#include <algorithm>
#include <limits>

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "scan/scan_test_util.cuh"
#include "scankit/device/segmented_reduce.cuh"
#include "scankit/device/segmented_scan.cuh"
#include "scankit/reference/segmented_scan_reference.hpp"
#include "scankit/segmented_reduce.hpp"
#include "scankit/segmented_scan.hpp"

namespace scankit::testing {
namespace {

template <class Offset>
using offsets_t = std::vector<Offset>;

// Offsets over [first, last) of segments with lengths uniform in [1, 2 * mean - 1], a tenth of
// them empty.
template <class Offset = std::int32_t>
offsets_t<Offset> random_offsets(std::int64_t first, std::int64_t last, double mean, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> length(1, std::max<std::int64_t>(1, static_cast<std::int64_t>(2 * mean) - 1));
  std::bernoulli_distribution empty(0.1);
  offsets_t<Offset> offsets{static_cast<Offset>(first)};
  std::int64_t at = first;
  while (at < last) {
    at = std::min(last, at + (empty(rng) ? 0 : length(rng)));
    offsets.push_back(static_cast<Offset>(at));
  }
  return offsets;
}

// Runs of `repeat` equal offsets at every multiple of `step` (empty segments at tile boundaries).
offsets_t<std::int32_t> repeated_offsets(std::int64_t n, std::int64_t step, int repeat) {
  offsets_t<std::int32_t> offsets;
  for (std::int64_t p = 0; p <= n; p += step) {
    for (int r = 0; r < repeat; ++r) offsets.push_back(static_cast<std::int32_t>(p));
  }
  if (offsets.back() != n) offsets.push_back(static_cast<std::int32_t>(n));
  return offsets;
}

template <class T>
std::int64_t offsets_tile() {
  return scankit::device::resolved_offsets_policy<scankit::device::tuned, T>::tile_items;
}

template <class T, class Offset, class Op>
void check_offsets(const std::vector<T>& values, const offsets_t<Offset>& offsets, Op op, const T& init,
                   const T& empty_value, const std::string& what) {
  SCOPED_TRACE(what + ", n = " + std::to_string(values.size()) + ", segments = " + std::to_string(offsets.size() - 1));
  const auto n = static_cast<std::int64_t>(values.size());
  const auto segments = static_cast<std::int64_t>(offsets.size()) - 1;
  const auto heads = reference::offset_heads(offsets, values.size());
  device_buffer<T> in(values);
  device_buffer<Offset> d_offsets(offsets);
  device_buffer<T> out(values.size() + 64);  // 64 poisoned items past the end must stay so
  out.poison();
  scankit::device::inclusive_segmented_scan_by_offsets(in.data(), d_offsets.data(), segments, out.data(), n, op);
  sync_device();
  std::vector<T> got = out.download();
  EXPECT_TRUE(still_poisoned(got, values.size(), got.size()));
  got.resize(values.size());
  EXPECT_TRUE(equal_vectors(reference::inclusive_segmented_scan(values, heads, op), got)) << "inclusive scan";

  out.poison();
  scankit::device::exclusive_segmented_scan_by_offsets(in.data(), d_offsets.data(), segments, out.data(), n, init, op);
  sync_device();
  got = out.download();
  got.resize(values.size());
  EXPECT_TRUE(equal_vectors(reference::exclusive_segmented_scan(values, heads, init, op), got)) << "exclusive scan";

  device_buffer<T> sums(static_cast<std::size_t>(segments) + 64);
  sums.poison();
  scankit::device::segmented_reduce(in.data(), d_offsets.data(), segments, sums.data(), n, op, empty_value);
  sync_device();
  got = sums.download();
  EXPECT_TRUE(still_poisoned(got, static_cast<std::size_t>(segments), got.size()));
  got.resize(static_cast<std::size_t>(segments));
  EXPECT_TRUE(equal_vectors(reference::segmented_reduce(values, offsets, op, empty_value), got)) << "reduce";
}

TEST(SegmentedOffsets, Int32SumAcrossSizesAndPatterns) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t tile = offsets_tile<std::int32_t>();
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{31}, tile - 1, tile, tile + 1,
                         3 * tile + 17, 40 * tile - 1, (std::int64_t{1} << 20) + 3}) {
    const auto values = random_values<std::int32_t>(n, seed + n);
    const std::int32_t init = 7, none = -1;
    check_offsets(values, random_offsets(0, n, 8, seed ^ n), plus_op{}, init, none, "mean length 8");
    check_offsets(values, random_offsets(0, n, 1000, seed ^ n), plus_op{}, init, none, "mean length 1000");
    check_offsets(values, random_offsets(0, n, 1.0, seed ^ n), plus_op{}, init, none, "length 1 or empty");
    check_offsets(values, offsets_t<std::int32_t>{0, static_cast<std::int32_t>(n)}, plus_op{}, init, none,
                  "one segment");
    check_offsets(values, repeated_offsets(n, tile, 5), plus_op{}, init, none, "empty runs at tile starts");
    check_offsets(values, repeated_offsets(n, tile + 1, 3), plus_op{}, init, none, "empty runs past tile starts");
    check_offsets(values, random_offsets(n / 3, n - n / 4, 50, seed), plus_op{}, init, none,
                  "offsets cover the middle only");
  }
}

TEST(SegmentedOffsets, OtherTypesAnd64BitOffsets) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{1000}, std::int64_t{300'001}}) {
    const auto offsets = random_offsets<std::int64_t>(0, n, 40, seed + n);
    check_offsets(random_values<float>(n, seed), offsets, maximum_op{}, -100.0f, -1e30f, "float maximum");
    check_offsets(random_values<double>(n, seed), offsets, plus_op{}, 0.5, -2.0, "double sum (split tile state)");
    check_offsets(random_values<std::int64_t>(n, seed), offsets, minimum_op{}, std::int64_t{1} << 40,
                  std::int64_t{-5}, "int64 minimum");
    check_offsets(random_values<std::uint8_t>(n, seed), random_offsets<std::int64_t>(0, n, 3, seed), plus_op{},
                  std::uint8_t{3}, std::uint8_t{9}, "uint8 sum (32 per thread)");
  }
}

TEST(SegmentedOffsets, NonCommutativeOperator) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (std::int64_t n : {std::int64_t{5000}, std::int64_t{(1 << 20) + 9}}) {
    const auto values = random_affine32(n, seed);
    check_offsets(values, random_offsets(0, n, 300, seed), compose_affine32{}, affine32{3, 1}, affine32{0, 0},
                  "affine maps, runs of 300");
    check_offsets(values, random_offsets(0, n, 3, seed + 1), compose_affine32{}, affine32{1, 0}, affine32{0, 0},
                  "affine maps, runs of 3");
  }
}

// Segments but no values: every segment is empty.
TEST(SegmentedOffsets, NoValues) {
  SCANKIT_REQUIRE_GPU();
  device_buffer<std::int32_t> offsets(std::vector<std::int32_t>(6, 0));
  device_buffer<float> out(5 + 64);
  out.poison();
  scankit::device::segmented_reduce(static_cast<const float*>(nullptr), offsets.data(), 5, out.data(), 0, plus_op{},
                                    42.0f);
  sync_device();
  const auto got = out.download();
  EXPECT_TRUE(still_poisoned(got, 5, got.size()));
  EXPECT_TRUE(equal_vectors(std::vector<float>(5, 42.0f), std::vector<float>(got.begin(), got.begin() + 5)));
}

struct times_seven {
  __host__ __device__ long long operator()(long long i) const { return 7 * i; }
};

// Values from a counting iterator, offsets from a transform iterator (segments of 7).
TEST(SegmentedOffsets, IteratorInputs) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 7 * 100'000;
  const std::int64_t segments = n / 7;
  const auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), times_seven{});
  device_buffer<long long> sums(segments), scanned(n);
  scankit::device::segmented_reduce(thrust::counting_iterator<long long>(0), offsets, segments, sums.data(), n,
                                    plus_op{}, 0LL);
  scankit::device::inclusive_segmented_scan_by_offsets(thrust::counting_iterator<long long>(0), offsets, segments,
                                                       scanned.data(), n, plus_op{});
  sync_device();
  const auto got = sums.download();
  const auto runs = scanned.download();
  std::int64_t wrong = 0;
  for (std::int64_t s = 0; s < segments; ++s) wrong += got[s] != 49 * s + 21 ? 1 : 0;  // 7 * 7s + (0 + ... + 6)
  for (std::int64_t i = 0; i < n; ++i) wrong += runs[i] != (i % 7 + 1) * (i - i % 7) + (i % 7) * (i % 7 + 1) / 2;
  EXPECT_EQ(0, wrong);
}

// The precompiled overloads (what g++ callers link), in caller memory of the queried size.
TEST(SegmentedOffsets, PrecompiledOverloads) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 250'001;
  const auto values = random_values<float>(n, seed);
  const auto offsets = random_offsets<std::int64_t>(0, n, 30, seed);
  const auto segments = static_cast<std::int64_t>(offsets.size()) - 1;
  const auto heads = reference::offset_heads(offsets, n);
  device_buffer<float> in(values), out(n), sums(segments);
  device_buffer<std::int64_t> d_offsets(offsets);
  device_buffer<char> memory(scankit::segmented_reduce_workspace_bytes(static_cast<const float*>(nullptr), n));
  workspace ws(memory.data(), memory.size());
  scankit::inclusive_segmented_scan_by_offsets(in.data(), d_offsets.data(), segments, out.data(), n, scan_op::maximum,
                                               nullptr, &ws);
  sync_device();
  EXPECT_TRUE(equal_vectors(reference::inclusive_segmented_scan(values, heads, maximum_op{}), out.download()));
  scankit::segmented_reduce(in.data(), d_offsets.data(), segments, sums.data(), n, scan_op::maximum, nullptr, &ws);
  sync_device();
  EXPECT_TRUE(equal_vectors(
      reference::segmented_reduce(values, offsets, maximum_op{}, -std::numeric_limits<float>::infinity()),
      sums.download()))
      << "empty segments give the identity";
  scankit::segmented_reduce(in.data(), d_offsets.data(), segments, sums.data(), n, 0.25f, scan_op::plus, nullptr, &ws);
  sync_device();
  EXPECT_TRUE(equal_vectors(reference::segmented_reduce(values, offsets, plus_op{}, 0.25f), sums.download()))
      << "empty segments give the value asked for";
  // The segmented scan's query covers the by-offsets form too.
  device_buffer<char> scan_memory(scankit::segmented_scan_workspace_bytes(static_cast<const float*>(nullptr), n));
  workspace scan_ws(scan_memory.data(), scan_memory.size());
  scankit::exclusive_segmented_scan_by_offsets(in.data(), d_offsets.data(), segments, out.data(), n, 1.0f,
                                               scan_op::plus, nullptr, &scan_ws);
  sync_device();
  EXPECT_TRUE(equal_vectors(reference::exclusive_segmented_scan(values, heads, 1.0f, plus_op{}), out.download()));
  EXPECT_THROW(scankit::segmented_reduce(in.data(), d_offsets.data(), segments, sums.data(), n, scan_op::bit_or), error);
}

TEST(SegmentedOffsets, BadArgumentsThrowBeforeLaunch) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = 10'000;
  device_buffer<std::int32_t> in(std::vector<std::int32_t>(n, 1)), out(n);
  const std::vector<std::int32_t> starts{0, 100, 5000, static_cast<std::int32_t>(n)};
  device_buffer<std::int32_t> offsets(starts);
  EXPECT_THROW(scankit::segmented_reduce(in.data(), offsets.data(), -1, out.data(), n), error);
  EXPECT_THROW(scankit::segmented_reduce(in.data(), offsets.data(), 3, out.data(), -1), error);
  EXPECT_THROW(scankit::segmented_reduce(in.data(), static_cast<const std::int32_t*>(nullptr), 3, out.data(), n), error);
  EXPECT_THROW(scankit::segmented_reduce(static_cast<const std::int32_t*>(nullptr), offsets.data(), 3, out.data(), n),
               error);
  EXPECT_THROW(scankit::segmented_reduce(in.data(), offsets.data(), 3, static_cast<std::int32_t*>(nullptr), n), error);
  EXPECT_THROW(scankit::segmented_reduce(in.data(), offsets.data(), 3, in.data() + 5, n), error) << "out in the values";
  EXPECT_THROW(scankit::segmented_reduce(in.data(), offsets.data(), 3, offsets.data() + 1, n), error)
      << "out in the offsets";
  EXPECT_THROW(scankit::inclusive_segmented_scan_by_offsets(in.data(), offsets.data(), 3, offsets.data(), n), error)
      << "scan output over the offsets";
  EXPECT_THROW(scankit::inclusive_segmented_scan_by_offsets(in.data(), offsets.data(), 3, in.data() + 1, n - 1), error)
      << "scan output overlapping the values other than exactly";
  sync_device();
  EXPECT_TRUE(equal_vectors(std::vector<std::int32_t>(n, 1), in.download())) << "the values must be intact";
  EXPECT_TRUE(equal_vectors(starts, offsets.download())) << "the offsets must be intact";
  // In place is allowed for the scan.
  scankit::inclusive_segmented_scan_by_offsets(in.data(), offsets.data(), 3, in.data(), n);
  sync_device();
  const auto scanned = in.download();
  EXPECT_EQ(100, scanned[99]);
  EXPECT_EQ(1, scanned[100]);
  EXPECT_EQ(n - 5000, scanned[n - 1]);
}

// offsets[s] = min(1000 s, n): segments of 1000 items, the last one shorter.
struct thousands_up_to {
  long long n;
  __host__ __device__ long long operator()(long long s) const { return s * 1000 < n ? s * 1000 : n; }
};

// Above 2^31 items: values of 1 and segments of 1000 given by 64-bit offsets (iterators); every
// segment's sum and every scanned item checked.
TEST(SegmentedOffsetsLarge, Above2p31Items) {
  SCANKIT_REQUIRE_GPU();
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  const std::int64_t segments = (n + 999) / 1000;
  if (!gpu_memory_available(static_cast<std::size_t>(n) + static_cast<std::size_t>(segments) * 4)) {
    GTEST_SKIP() << "not enough GPU memory";
  }
  const auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), thousands_up_to{n});
  device_buffer<int> sums(segments);
  scankit::device::segmented_reduce(thrust::constant_iterator<int>(1), offsets, segments, sums.data(), n, plus_op{}, -1);
  device_buffer<std::uint8_t> scanned(n);
  scankit::device::inclusive_segmented_scan_by_offsets(thrust::constant_iterator<std::uint8_t>(1), offsets, segments,
                                                       scanned.data(), n, plus_op{});
  sync_device();
  const auto s = sums.download();
  std::int64_t wrong = 0, first = -1;
  for (std::int64_t j = 0; j < segments; ++j) {
    if (s[j] != std::min<std::int64_t>(1000, n - j * 1000) && wrong++ == 0) first = j;
  }
  EXPECT_EQ(0, wrong) << "first wrong segment " << first;
  const auto items = scanned.download();
  wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (items[i] != static_cast<std::uint8_t>(i % 1000 + 1) && wrong++ == 0) first = i;
  }
  EXPECT_EQ(0, wrong) << "first wrong item " << first;
}

}  // namespace
}  // namespace scankit::testing
