// The compaction template API with iterators (scankit/device/{select,partition,unique}.cuh):
// counting and transform iterators as inputs and as flags, transform_output and discard iterators
// as outputs, thrust::device_vector iterators; both strategies. Oracle: Thrust on the same
// iterators.
#include <gtest/gtest.h>

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/partition.h>
#include <thrust/unique.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "scankit/device/partition.cuh"
#include "scankit/device/select.cuh"
#include "scankit/device/unique.cuh"
#include "compact_test_util.cuh"

namespace scankit::testing {
namespace {

// Device functors (extended lambdas may not live in a TEST body).

__host__ __device__ inline std::uint32_t mix(std::uint32_t x) {  // murmur3's finaliser
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  return x ^ (x >> 16);
}

// Keeps about `percent` % of integers, by a seeded hash of the value.
struct hash_keep {
  std::uint32_t seed;
  std::uint32_t percent;
  template <class T>
  __host__ __device__ bool operator()(const T& x) const {
    return mix(static_cast<std::uint32_t>(x) ^ seed) % 100u < percent;
  }
};

// A pseudo-random 32-bit value per index.
struct hash_of_index {
  std::uint32_t seed;
  __host__ __device__ std::uint32_t operator()(std::int64_t i) const {
    return mix(static_cast<std::uint32_t>(i) ^ mix(static_cast<std::uint32_t>(i >> 32) + seed));
  }
};

// Runs of four indices share a key, and a key repeats its predecessor a third of the time.
struct run_key {
  std::uint32_t seed;
  __host__ __device__ std::int32_t operator()(std::int32_t i) const {
    return static_cast<std::int32_t>(mix(static_cast<std::uint32_t>(i / 4) ^ seed) % 3u);
  }
};

// Weights from 16-bit samples: 2-byte items read through a transform into 8-byte ones.
struct weight_of {
  double scale;
  __host__ __device__ double operator()(std::uint16_t x) const { return scale * x; }
};

template <class T>
struct above {
  T threshold;
  __host__ __device__ bool operator()(const T& x) const { return x > threshold; }
};

// The selected items go out widened and transformed.
struct widen_times_3 {
  __host__ __device__ std::uint64_t operator()(std::uint32_t x) const { return std::uint64_t{x} * 3u + 1u; }
};

// 0, 1, one tile - 1, several tiles and a bit, 3,000,017 (not under SCANKIT_TEST_SMALL).
std::vector<std::int64_t> iterator_sizes(std::int64_t tile) {
  std::vector<std::int64_t> sizes = {0, 1, tile - 1, 5 * tile + 3};
  if (!small_sizes_only()) sizes.push_back(3000017);
  return sizes;
}

// Single pass and three-step, 32- and 64-bit offsets (nothing in place: not with iterators).
const std::vector<run_config>& configs() {
  static const std::vector<run_config> all = run_configs(false);
  return all;
}

template <class T>
std::vector<T> first_items(const thrust::device_vector<T>& v, std::int64_t count) {
  std::vector<T> host(static_cast<std::size_t>(count));
  thrust::copy(v.begin(), v.begin() + count, host.begin());
  return host;
}

// Runs `call(out, d_count, options, ws)` in every configuration into a poisoned output of n
// items and compares the first want.size() of them, the count, and that nothing else was written.
template <class T, class Call>
void expect_selection(const std::vector<T>& want, std::int64_t n, Call call) {
  workspace ws;
  device_count count;
  const auto kept = static_cast<std::int64_t>(want.size());
  for (const run_config& config : configs()) {
    SCOPED_TRACE(describe(config));
    device_buffer<T> out(static_cast<std::size_t>(n));
    out.poison();
    count.poison();
    call(out.data(), count.get(), options_of(config), config.own_workspace ? &ws : nullptr);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(count.value(), kept);
    const std::vector<T> got = out.download();
    ASSERT_TRUE(same_items(got, want, kept));
    ASSERT_TRUE(still_poisoned(got, kept));
  }
}

constexpr std::int64_t register_tile_4 = compact_tile_items<4>();  // the register kernel, 4-byte items

}  // namespace

// Indices of the selected items: select_if over a counting iterator.
TEST(CompactIterators, CountingIteratorInput) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const hash_keep pred{static_cast<std::uint32_t>(seed), 50};
  for (const std::int64_t n : iterator_sizes(register_tile_4)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const thrust::counting_iterator<std::int32_t> indices(0);
    thrust::device_vector<std::int32_t> want(static_cast<std::size_t>(n));
    const std::int64_t c = thrust::copy_if(thrust::device, indices, indices + n, want.begin(), pred) - want.begin();
    expect_selection(first_items(want, c), n, [&](std::int32_t* out, std::int64_t* d_count, const compact_options& o,
                                                  workspace* w) {
      scankit::device::select_if(indices, out, d_count, n, pred, nullptr, w, o);
    });
    if (HasFatalFailure()) return;
  }
}

// Weights from a transform of a device array (2-byte samples read as 8-byte weights).
TEST(CompactIterators, TransformOfArrayInput) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const weight_of weight{0.25};
  const above<double> pred{4096.0};
  for (const std::int64_t n : iterator_sizes(compact_tile_items<8>())) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const device_buffer<std::uint16_t> samples(random_items<std::uint16_t>(n, seed + n));
    const auto weights = thrust::make_transform_iterator(samples.data(), weight);
    thrust::device_vector<double> want(static_cast<std::size_t>(n));
    const std::int64_t c = thrust::copy_if(thrust::device, weights, weights + n, want.begin(), pred) - want.begin();
    expect_selection(first_items(want, c), n, [&](double* out, std::int64_t* d_count, const compact_options& o,
                                                  workspace* w) {
      scankit::device::select_if(weights, out, d_count, n, pred, nullptr, w, o);
    });
    if (HasFatalFailure()) return;
  }
}

// Values computed from the index: a transform of a counting iterator.
TEST(CompactIterators, TransformOfCountingInput) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const hash_keep pred{static_cast<std::uint32_t>(seed >> 32), 10};
  for (const std::int64_t n : iterator_sizes(register_tile_4)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto values = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                        hash_of_index{static_cast<std::uint32_t>(seed)});
    thrust::device_vector<std::uint32_t> want(static_cast<std::size_t>(n));
    const std::int64_t c = thrust::copy_if(thrust::device, values, values + n, want.begin(), pred) - want.begin();
    expect_selection(first_items(want, c), n, [&](std::uint32_t* out, std::int64_t* d_count,
                                                  const compact_options& o, workspace* w) {
      scankit::device::select_if(values, out, d_count, n, pred, nullptr, w, o);
    });
    if (HasFatalFailure()) return;
  }
}

// Flags from a transform iterator, over an array and with a counting-iterator input.
TEST(CompactIterators, FlagsFromTransform) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  // The tile of 8-byte items beside a buffered stencil (select_flagged's register kernel).
  for (const std::int64_t n : iterator_sizes(device_detail::tuned_compact_policy<8, 2>::tile_items)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> host_weights(static_cast<std::size_t>(n));
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (float& w : host_weights) w = uniform(rng);
    const device_buffer<float> weights(host_weights);
    const device_buffer<std::int64_t> items(random_items<std::int64_t>(n, seed + n));
    const auto flags = thrust::make_transform_iterator(weights.data(), above<float>{0.3f});
    {
      SCOPED_TRACE("array items");
      thrust::device_vector<std::int64_t> want(static_cast<std::size_t>(n));
      const std::int64_t c =
          thrust::copy_if(thrust::device, items.data(), items.data() + n, flags, want.begin(), flag_is_set{}) -
          want.begin();
      expect_selection(first_items(want, c), n, [&](std::int64_t* out, std::int64_t* d_count,
                                                    const compact_options& o, workspace* w) {
        scankit::device::select_flagged(items.data(), flags, out, d_count, n, nullptr, w, o);
      });
      if (HasFatalFailure()) return;
    }
    {
      SCOPED_TRACE("counting-iterator items");
      const thrust::counting_iterator<std::int32_t> indices(0);
      thrust::device_vector<std::int32_t> want(static_cast<std::size_t>(n));
      const std::int64_t c =
          thrust::copy_if(thrust::device, indices, indices + n, flags, want.begin(), flag_is_set{}) -
          want.begin();
      expect_selection(first_items(want, c), n, [&](std::int32_t* out, std::int64_t* d_count,
                                                    const compact_options& o, workspace* w) {
        scankit::device::select_flagged(indices, flags, out, d_count, n, nullptr, w, o);
      });
      if (HasFatalFailure()) return;
    }
  }
}

// The selected items written through a transform_output_iterator (widened and transformed).
TEST(CompactIterators, TransformOutput) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const hash_keep pred{static_cast<std::uint32_t>(seed), 50};
  for (const std::int64_t n : iterator_sizes(register_tile_4)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const device_buffer<std::uint32_t> in(random_items<std::uint32_t>(n, seed + n));
    thrust::device_vector<std::uint64_t> want(static_cast<std::size_t>(n));
    const auto want_end = thrust::copy_if(thrust::device, in.data(), in.data() + n,
                                          thrust::make_transform_output_iterator(want.begin(), widen_times_3{}), pred);
    const std::int64_t c = want_end - thrust::make_transform_output_iterator(want.begin(), widen_times_3{});
    expect_selection(first_items(want, c), n, [&](std::uint64_t* out, std::int64_t* d_count,
                                                  const compact_options& o, workspace* w) {
      scankit::device::select_if(in.data(), thrust::make_transform_output_iterator(out, widen_times_3{}), d_count, n,
                                 pred, nullptr, w, o);
    });
    if (HasFatalFailure()) return;
  }
}

// Count only: the items go to a discard_iterator, from an array and from a counting iterator.
TEST(CompactIterators, DiscardOutputCountsOnly) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const hash_keep pred{static_cast<std::uint32_t>(seed), 30};
  workspace ws;
  device_count count;
  for (const std::int64_t n : iterator_sizes(register_tile_4)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const device_buffer<std::uint32_t> in(random_items<std::uint32_t>(n, seed + n));
    const thrust::counting_iterator<std::int32_t> indices(0);
    const std::int64_t want_array = thrust::count_if(thrust::device, in.data(), in.data() + n, pred);
    const std::int64_t want_indices = thrust::count_if(thrust::device, indices, indices + n, pred);
    for (const run_config& config : configs()) {
      SCOPED_TRACE(describe(config));
      workspace* w = config.own_workspace ? &ws : nullptr;
      count.poison();
      scankit::device::select_if(in.data(), thrust::make_discard_iterator(), count.get(), n, pred, nullptr, w,
                                 options_of(config));
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_EQ(count.value(), want_array);
      count.poison();
      scankit::device::select_if(indices, thrust::make_discard_iterator(), count.get(), n, pred, nullptr, w,
                                 options_of(config));
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_EQ(count.value(), want_indices);
    }
  }
}

// thrust::device_vector iterators are arrays: the pointer API's kernels (the staged one), in place too.
TEST(CompactIterators, DeviceVectorIterators) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const hash_keep pred{static_cast<std::uint32_t>(seed), 50};
  workspace ws;
  device_count count;
  for (const std::int64_t n : iterator_sizes(selection_tile_items<4>())) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::uint32_t> host = random_items<std::uint32_t>(n, seed + n);
    const thrust::device_vector<std::uint32_t> in(host.begin(), host.end());
    thrust::device_vector<std::uint32_t> want(static_cast<std::size_t>(n));
    const std::int64_t c = thrust::copy_if(in.begin(), in.end(), want.begin(), pred) - want.begin();
    const std::vector<std::uint32_t> want_host = first_items(want, c);
    for (const run_config& config : run_configs(true)) {
      SCOPED_TRACE(describe(config));
      thrust::device_vector<std::uint32_t> out(static_cast<std::size_t>(n));
      if (config.in_place) {
        thrust::copy(host.begin(), host.end(), out.begin());
      } else if (n > 0) {
        SCANKIT_CUDA_CHECK(cudaMemset(thrust::raw_pointer_cast(out.data()), 0xA5, host.size() * sizeof(std::uint32_t)));
      }
      count.poison();
      if (config.in_place) {
        scankit::device::select_if(out.begin(), out.begin(), count.get(), n, pred, nullptr,
                                   config.own_workspace ? &ws : nullptr, options_of(config));
      } else {
        scankit::device::select_if(in.cbegin(), out.begin(), count.get(), n, pred, nullptr,
                                   config.own_workspace ? &ws : nullptr, options_of(config));
      }
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_EQ(count.value(), c);
      std::vector<std::uint32_t> got(host.size());
      thrust::copy(out.begin(), out.end(), got.begin());  // one transfer
      ASSERT_TRUE(same_items(got, want_host, c));
      if (config.in_place) {
        ASSERT_TRUE(same_items(got, host, n - c, c, c)) << "beyond the count";
      } else {
        ASSERT_TRUE(still_poisoned(got, c));
      }
    }
  }
}

// unique over a transform of a counting iterator (keys computed on the fly).
TEST(CompactIterators, UniqueOfTransform) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  for (const std::int64_t n : iterator_sizes(register_tile_4)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::int32_t>(0),
                                                      run_key{static_cast<std::uint32_t>(seed)});
    thrust::device_vector<std::int32_t> want(static_cast<std::size_t>(n));
    const std::int64_t c = thrust::unique_copy(thrust::device, keys, keys + n, want.begin()) - want.begin();
    expect_selection(first_items(want, c), n, [&](std::int32_t* out, std::int64_t* d_count, const compact_options& o,
                                                  workspace* w) {
      scankit::device::unique(keys, out, d_count, n, nullptr, w, o);
    });
    if (HasFatalFailure()) return;
  }
}

// partition_if from a counting iterator: two outputs (both in input order), and one output
// (rejected items from the back, in reverse order) through a transform_output_iterator.
TEST(CompactIterators, PartitionOfCounting) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const hash_keep pred{static_cast<std::uint32_t>(seed), 50};
  workspace ws;
  device_count count;
  for (const std::int64_t n : iterator_sizes(register_tile_4)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const thrust::counting_iterator<std::int32_t> indices(0);
    thrust::device_vector<std::int32_t> want_selected(static_cast<std::size_t>(n));
    thrust::device_vector<std::int32_t> want_rejected(static_cast<std::size_t>(n));
    const auto ends = thrust::partition_copy(thrust::device, indices, indices + n, want_selected.begin(),
                                             want_rejected.begin(), pred);
    const std::int64_t c = ends.first - want_selected.begin();
    const std::vector<std::int32_t> selected = first_items(want_selected, c);
    const std::vector<std::int32_t> rejected = first_items(want_rejected, n - c);
    // One output: selected, then the rejected ones reversed, each through widen_times_3.
    std::vector<std::uint64_t> want_one(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < selected.size(); ++i) {
      want_one[i] = widen_times_3{}(static_cast<std::uint32_t>(selected[i]));
    }
    for (std::size_t i = 0; i < rejected.size(); ++i) {
      want_one[want_one.size() - 1 - i] = widen_times_3{}(static_cast<std::uint32_t>(rejected[i]));
    }
    for (const run_config& config : configs()) {
      SCOPED_TRACE(describe(config));
      workspace* w = config.own_workspace ? &ws : nullptr;
      device_buffer<std::int32_t> s(static_cast<std::size_t>(n)), r(static_cast<std::size_t>(n));
      s.poison();
      r.poison();
      count.poison();
      scankit::device::partition_if(indices, s.data(), r.data(), count.get(), n, pred, nullptr, w, options_of(config));
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_EQ(count.value(), c);
      const std::vector<std::int32_t> got_s = s.download(), got_r = r.download();
      ASSERT_TRUE(same_items(got_s, selected, c));
      ASSERT_TRUE(still_poisoned(got_s, c));
      ASSERT_TRUE(same_items(got_r, rejected, n - c));
      ASSERT_TRUE(still_poisoned(got_r, n - c));

      device_buffer<std::uint64_t> one(static_cast<std::size_t>(n));
      one.poison();
      count.poison();
      scankit::device::partition_if(indices, thrust::make_transform_output_iterator(one.data(), widen_times_3{}),
                                    count.get(), n, pred, nullptr, w, options_of(config));
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_EQ(count.value(), c);
      ASSERT_TRUE(same_items(one.download(), want_one, n));
    }
  }
}

// Argument checks look at arrays only; they throw before anything is enqueued (no GPU needed).
TEST(CompactIterators, ArgumentChecksSeeArraysOnly) {
  const thrust::counting_iterator<std::int32_t> indices(0);
  const hash_keep pred{1, 50};
  auto* count = reinterpret_cast<std::int64_t*>(std::uintptr_t{0x100000});
  EXPECT_THROW(scankit::device::select_if(indices, static_cast<std::int32_t*>(nullptr), count, 10, pred),
               scankit::error);
  EXPECT_THROW(scankit::device::select_if(indices, thrust::make_discard_iterator(), nullptr, 10, pred), scankit::error);
  EXPECT_THROW(scankit::device::select_if(indices, thrust::make_discard_iterator(), count, -1, pred), scankit::error);
  EXPECT_THROW(scankit::device::select_flagged(indices, static_cast<const bool*>(nullptr),
                                               thrust::make_discard_iterator(), count, 10),
               scankit::error);
  // An array that is not the output of the same type: never in place, so out == in overlaps.
  auto* array = reinterpret_cast<std::int32_t*>(std::uintptr_t{0x200000});
  EXPECT_THROW(scankit::device::select_if(array, reinterpret_cast<std::uint32_t*>(array), count, 10, pred),
               scankit::error);
}

}  // namespace scankit::testing
