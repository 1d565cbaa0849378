// The template API (scankit/device/*.cuh) with what the precompiled library does not cover:
// extended-lambda predicates, items that do not fill 16-byte vectors (12-byte structs, odd
// coarsening), unaligned pointers, other tile shapes, 1-byte items, wide flag types, a user
// equality, struct values in unique_by_key; plus caller-allocated workspaces. Oracle: Thrust.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compact_test_util.cuh"
#include "scankit/device/partition.cuh"
#include "scankit/device/select.cuh"
#include "scankit/device/unique.cuh"

namespace scankit::testing {

// Extended lambdas may not live in a TEST body (a private member function), hence this function.
void check_lambda_predicate(std::uint64_t seed) {
  workspace ws;
  auto pred = [] __host__ __device__(std::int32_t x) { return x % 3 == 0; };
  for (const std::int64_t n : compact_sizes(compact_tile_items<4>(), seed, false)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::int32_t> host = random_items<std::int32_t>(n, seed + n);
    device_buffer<std::int32_t> in(host), want(host.size());
    const std::int64_t c = thrust::copy_if(thrust::device, in.data(), in.data() + n, want.data(), pred) - want.data();
    std::vector<std::int32_t> want_host = want.download();
    want_host.resize(static_cast<std::size_t>(c));
    device_count count;
    for (const run_config& config : run_configs(true)) {
      SCOPED_TRACE(describe(config));
      device_buffer<std::int32_t> out(host.size());
      if (config.in_place) {
        out.upload(host);
      } else {
        out.poison();
      }
      count.poison();
      scankit::device::select_if(config.in_place ? out.data() : in.data(), out.data(), count.get(), n, pred, nullptr,
                                 config.own_workspace ? &ws : nullptr, options_of(config));
      SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
      ASSERT_EQ(count.value(), c);
      ASSERT_TRUE(same_items(out.download(), want_host, c));
    }
  }
}

}  // namespace scankit::testing

namespace scankit::testing {
namespace {

struct point3 {
  float x, y, z;
};

struct above_plane {
  float h;
  __host__ __device__ bool operator()(const point3& p) const { return p.z > h; }
};

struct same_decade {
  __host__ __device__ bool operator()(std::int32_t a, std::int32_t b) const { return a / 10 == b / 10; }
};

struct below_byte {
  std::uint8_t limit;
  __host__ __device__ bool operator()(std::uint8_t x) const { return x < limit; }
};

// Compares a scankit run (`run(out, d_count, options, ws)`) with thrust's output on every
// configuration; `in_place_ok` adds in-place runs (`run` then gets out == its input copy).
template <class T, class Run>
void expect_matches(const std::vector<T>& want, std::int64_t n, Run run, const std::vector<run_config>& configs,
                    workspace& ws) {
  const auto want_count = static_cast<std::int64_t>(want.size());
  device_count count;
  for (const run_config& config : configs) {
    SCOPED_TRACE(describe(config));
    device_buffer<T> out(static_cast<std::size_t>(n));
    out.poison();
    count.poison();
    run(out, count.get(), options_of(config), config.own_workspace ? &ws : nullptr, config.in_place);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(count.value(), want_count);
    ASSERT_TRUE(same_items(out.download(), want, want_count));
  }
}

template <class T>
std::vector<T> first_items(const device_buffer<T>& buffer, std::int64_t count) {
  std::vector<T> all = buffer.download();
  all.resize(static_cast<std::size_t>(count));
  return all;
}

// select_if<Policy> on `host` (`in` holds a device copy) against thrust::copy_if, on every
// configuration (in place included).
template <class Policy = scankit::device::tuned, class T, class Pred>
void expect_select_if_matches(const std::vector<T>& host, const device_buffer<T>& in, Pred pred, workspace& ws) {
  const auto n = static_cast<std::int64_t>(host.size());
  device_buffer<T> want(host.size());
  const std::int64_t c = thrust::copy_if(thrust::device, in.data(), in.data() + n, want.data(), pred) - want.data();
  expect_matches<T>(
      first_items(want, c), n,
      [&](device_buffer<T>& out, std::int64_t* d_count, const compact_options& o, workspace* w, bool in_place) {
        if (in_place) out.upload(host);
        scankit::device::select_if<Policy>(in_place ? out.data() : in.data(), out.data(), d_count, n, pred, nullptr, w,
                                           o);
      },
      run_configs(true), ws);
}

// unique<Policy> with equality `eq` against thrust::unique_copy, likewise.
template <class Policy = scankit::device::tuned, class T, class Eq = equal_to>
void expect_unique_matches(const std::vector<T>& host, const device_buffer<T>& in, workspace& ws, Eq eq = {}) {
  const auto n = static_cast<std::int64_t>(host.size());
  device_buffer<T> want(host.size());
  const std::int64_t u =
      thrust::unique_copy(thrust::device, in.data(), in.data() + n, want.data(), eq) - want.data();
  expect_matches<T>(
      first_items(want, u), n,
      [&](device_buffer<T>& out, std::int64_t* d_count, const compact_options& o, workspace* w, bool in_place) {
        if (in_place) out.upload(host);
        scankit::device::unique<Policy>(in_place ? out.data() : in.data(), out.data(), d_count, n, eq, nullptr, w, o);
      },
      run_configs(true), ws);
}

TEST(CompactTemplates, LambdaPredicateOnInt) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_lambda_predicate(seed);
}

// 12-byte items: no 16-byte vectors, the per-item load path.
TEST(CompactTemplates, TwelveByteItems) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  workspace ws;
  const above_plane pred{0.0f};
  for (const std::int64_t n : compact_sizes(device_detail::tuned_compact_policy<12>::tile_items, seed, false)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::mt19937_64 rng(seed + n);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<point3> host(static_cast<std::size_t>(n));
    for (auto& p : host) p = {d(rng), d(rng), d(rng)};
    const device_buffer<point3> in(host);
    expect_select_if_matches(host, in, pred, ws);
    if (HasFatalFailure()) return;
  }
}

// Other tile shapes: odd coarsening (no vectors), one item per thread, big blocks, small blocks.
template <class Policy>
void check_policy(std::uint64_t seed) {
  SCOPED_TRACE("policy " + std::to_string(Policy::block_threads) + " x " + std::to_string(Policy::items_per_thread));
  workspace ws;
  const keep_in_range<std::uint32_t> pred{0, 1u << 31};
  for (const std::int64_t n : compact_sizes(Policy::tile_items, seed, false)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::uint32_t> host = random_items<std::uint32_t>(n, seed + n);
    device_buffer<std::uint32_t> in(host), want(host.size()), rejected(host.size());
    const auto ends = thrust::stable_partition_copy(thrust::device, in.data(), in.data() + n, want.data(),
                                                    rejected.data(), pred);
    const std::int64_t c = ends.first - want.data();
    expect_matches<std::uint32_t>(
        first_items(want, c), n,
        [&](device_buffer<std::uint32_t>& out, std::int64_t* d_count, const compact_options& o, workspace* w,
            bool in_place) {
          if (in_place) out.upload(host);
          scankit::device::select_if<Policy>(in_place ? out.data() : in.data(), out.data(), d_count, n, pred, nullptr,
                                             w, o);
        },
        run_configs(true), ws);
    if (::testing::Test::HasFatalFailure()) return;
    // Two-output partition with the same shape.
    device_buffer<std::uint32_t> s(host.size()), r(host.size());
    device_count count;
    count.poison();
    scankit::device::partition_if<Policy>(in.data(), s.data(), r.data(), count.get(), n, pred);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(count.value(), c);
    ASSERT_TRUE(same_items(s.download(), want.download(), c));
    ASSERT_TRUE(same_items(r.download(), rejected.download(), n - c));
  }
}

TEST(CompactTemplates, OtherTileShapes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_policy<scankit::device::compact_policy<128, 5>>(seed);
  if (HasFatalFailure()) return;
  check_policy<scankit::device::compact_policy<64, 1>>(seed);
  if (HasFatalFailure()) return;
  check_policy<scankit::device::compact_policy<1024, 8>>(seed);
  if (HasFatalFailure()) return;
  check_policy<scankit::device::compact_policy<32, 32>>(seed);
}

// The look-back warp beside the tile's threads: one working warp with tiny tiles (long
// look-backs), an odd shape, and the tuned 4-byte shape; in place included (run_configs).
TEST(CompactTemplates, LookBackWarp) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_policy<scankit::device::compact_policy<32, 1, 4 << 20, true>>(seed);
  if (HasFatalFailure()) return;
  check_policy<scankit::device::compact_policy<96, 5, 4 << 20, true>>(seed);
  if (HasFatalFailure()) return;
  check_policy<scankit::device::compact_policy<256, 32, 4 << 20, true>>(seed);
}

// Staged shapes (compact_staged_kernel.cuh) for select_if and unique: one stripe of one warp
// (tiny tiles, long look-backs), an odd stripe count, the look-back warp beside one and eight
// warps, register caps; in place included (run_configs). Items of 4 and 8 bytes.
template <class T, class Shape>
void check_staged_shape(std::uint64_t seed) {
  using policy = typename Shape::template policy<sizeof(T)>;
  SCOPED_TRACE("staged " + std::to_string(policy::block_threads) + " x " + std::to_string(policy::chunks_per_thread) +
               (policy::look_back_warp ? " + look-back warp" : "") + ", " + std::to_string(sizeof(T)) + "-byte items");
  workspace ws;
  const keep_in_range<T> pred{T(0), T(1) << (8 * sizeof(T) - 1)};
  for (const std::int64_t n : compact_sizes(policy::tile_items, seed, false)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<T> host = random_items<T>(n, seed + n);
    expect_select_if_matches<Shape>(host, device_buffer<T>(host), pred, ws);
    if (::testing::Test::HasFatalFailure()) return;

    // Runs of 1 to 6 equal keys, so runs cross chunk, stripe and tile boundaries.
    std::vector<T> runs(host.size());
    std::mt19937_64 rng(seed ^ static_cast<std::uint64_t>(n));
    T key = 0;
    for (std::size_t i = 0; i < runs.size();) {
      const std::size_t length = 1 + rng() % 6;
      for (std::size_t j = 0; j < length && i < runs.size(); ++j) runs[i++] = key;
      key = static_cast<T>(key + 1 + rng() % 3);
    }
    expect_unique_matches<Shape>(runs, device_buffer<T>(runs), ws);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(CompactTemplates, StagedShapes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using scankit::device::staged_compact;
  check_staged_shape<std::uint32_t, staged_compact<32, 1>>(seed);
  if (HasFatalFailure()) return;
  check_staged_shape<std::uint32_t, staged_compact<96, 3, 1, true>>(seed);
  if (HasFatalFailure()) return;
  check_staged_shape<std::uint32_t, staged_compact<256, 8, 6, true>>(seed);
  if (HasFatalFailure()) return;
  check_staged_shape<std::uint64_t, staged_compact<32, 2, 1, true>>(seed);
  if (HasFatalFailure()) return;
  check_staged_shape<std::uint64_t, staged_compact<128, 8, 4>>(seed);
}

// The tuned (staged) select_if and unique on the item sizes the typed suites do not cover:
// 1, 2 and 16 bytes. Keys repeat (values % 5), so unique has runs to drop.
template <class T, class Pred>
void check_tuned_selection(std::uint64_t seed, Pred pred) {
  SCOPED_TRACE(std::to_string(sizeof(T)) + "-byte items");
  workspace ws;
  for (const std::int64_t n : compact_sizes(selection_tile_items<sizeof(T)>(), seed, false)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<T> host = random_items<T>(n, seed + n);
    std::mt19937_64 rng(seed ^ static_cast<std::uint64_t>(n));
    for (std::size_t i = 1; i < host.size(); ++i) {
      if (rng() % 3 == 0) host[i] = host[i - 1];  // runs for unique
    }
    const device_buffer<T> in(host);
    expect_select_if_matches(host, in, pred, ws);
    if (::testing::Test::HasFatalFailure()) return;
    expect_unique_matches(host, in, ws);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

struct low_half_small {
  __host__ __device__ bool operator()(const item16& x) const { return x.lo % 4 != 0; }
};

TEST(CompactTemplates, TunedSelectionOnOtherItemSizes) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_tuned_selection<std::uint8_t>(seed, below_byte{100});
  if (HasFatalFailure()) return;
  check_tuned_selection<std::uint16_t>(seed, keep_in_range<std::uint16_t>{0, 30000});
  if (HasFatalFailure()) return;
  check_tuned_selection<item16>(seed, low_half_small{});
}

// Pointers that are not 16-byte aligned: the input takes the per-item load path; the output runs
// of 1- and 2-byte items start their 16-byte stores after a head of single items.
template <class T, class Pred>
void check_unaligned(std::uint64_t seed, Pred pred, int in_offset, int out_offset) {
  SCOPED_TRACE(std::to_string(sizeof(T)) + "-byte items, in + " + std::to_string(in_offset) + ", out + " +
               std::to_string(out_offset));
  const std::int64_t n = 9 * selection_tile_items<sizeof(T)>() + 77;
  const std::vector<T> host = random_items<T>(n + in_offset, seed);
  device_buffer<T> in(host), out(static_cast<std::size_t>(n + out_offset)), want(static_cast<std::size_t>(n));
  const std::int64_t c =
      thrust::copy_if(thrust::device, in.data() + in_offset, in.data() + in_offset + n, want.data(), pred) -
      want.data();
  device_count count;
  for (compact_strategy s : {compact_strategy::single_pass, compact_strategy::three_step}) {
    out.poison();
    count.poison();
    compact_options o;
    o.strategy = s;
    scankit::device::select_if(in.data() + in_offset, out.data() + out_offset, count.get(), n, pred, nullptr, nullptr,
                               o);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(count.value(), c);
    const std::vector<T> got = out.download();
    ASSERT_TRUE(same_items(got, want.download(), c, out_offset, 0));
    ASSERT_TRUE(still_poisoned(got, out_offset + c));
    const auto* bytes = reinterpret_cast<const unsigned char*>(got.data());
    for (std::size_t b = 0; b < out_offset * sizeof(T); ++b) ASSERT_EQ(bytes[b], 0xA5) << "byte " << b << " before the output";
  }
}

TEST(CompactTemplates, UnalignedPointers) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  check_unaligned<std::uint32_t>(seed, keep_in_range<std::uint32_t>{0, 1u << 30}, 1, 3);
  if (HasFatalFailure()) return;
  check_unaligned<std::uint8_t>(seed, below_byte{100}, 5, 7);
  if (HasFatalFailure()) return;
  check_unaligned<std::uint16_t>(seed, keep_in_range<std::uint16_t>{0, 30000}, 3, 5);
}

// 1-byte items (32 per thread) with a predicate, and 4-byte int flags for select_flagged.
TEST(CompactTemplates, BytesAndIntFlags) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  workspace ws;
  const below_byte pred{40};
  for (const std::int64_t n : compact_sizes(selection_tile_items<1>(), seed, false)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::vector<std::uint8_t> host = random_items<std::uint8_t>(n, seed + n);
    const device_buffer<std::uint8_t> in(host);
    expect_select_if_matches(host, in, pred, ws);
    if (HasFatalFailure()) return;

    std::vector<std::int32_t> flags_host(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) flags_host[static_cast<std::size_t>(i)] = (host[i] % 5 == 0) ? -7 : 0;
    device_buffer<std::int32_t> flags(flags_host);
    device_buffer<std::uint8_t> want_flagged(host.size());
    const std::int64_t cf = thrust::copy_if(thrust::device, in.data(), in.data() + n, flags.data(),
                                            want_flagged.data(), flag_is_set{}) -
                            want_flagged.data();
    expect_matches<std::uint8_t>(
        first_items(want_flagged, cf), n,
        [&](device_buffer<std::uint8_t>& out, std::int64_t* d_count, const compact_options& o, workspace* w,
            bool in_place) {
          if (in_place) out.upload(host);
          scankit::device::select_flagged(in_place ? out.data() : in.data(), flags.data(), out.data(), d_count, n,
                                          nullptr, w, o);
        },
        run_configs(true), ws);
    if (HasFatalFailure()) return;
  }
}

// A user equality for unique, and 12-byte struct values for unique_by_key.
TEST(CompactTemplates, UniqueWithUserEqualityAndStructValues) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  workspace ws;
  for (const std::int64_t n : compact_sizes(compact_tile_items<12>(), seed, false)) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::mt19937_64 rng(seed + n);
    std::vector<std::int32_t> keys_host(static_cast<std::size_t>(n));
    std::int32_t v = 0;
    for (auto& k : keys_host) {
      v += static_cast<std::int32_t>(rng() % 7);
      k = v;
    }
    std::vector<point3> values_host(static_cast<std::size_t>(n));
    for (auto& p : values_host) p = {static_cast<float>(rng() % 100), 1.0f, -2.0f};
    device_buffer<std::int32_t> keys(keys_host), want_keys(keys_host.size());
    device_buffer<point3> values(values_host), want_values(values_host.size());

    expect_unique_matches(keys_host, keys, ws, same_decade{});
    if (HasFatalFailure()) return;

    const auto ends = thrust::unique_by_key_copy(thrust::device, keys.data(), keys.data() + n, values.data(),
                                                 want_keys.data(), want_values.data(), same_decade{});
    const std::int64_t cv = ends.first - want_keys.data();
    device_buffer<std::int32_t> keys_out(keys_host.size());
    expect_matches<point3>(
        first_items(want_values, cv), n,
        [&](device_buffer<point3>& out, std::int64_t* d_count, const compact_options& o, workspace* w, bool in_place) {
          if (in_place) {
            out.upload(values_host);
            keys_out.upload(keys_host);
          }
          scankit::device::unique_by_key(in_place ? keys_out.data() : keys.data(), in_place ? out.data() : values.data(),
                                         keys_out.data(), out.data(), d_count, n, same_decade{}, nullptr, w, o);
        },
        run_configs(true), ws);
    if (HasFatalFailure()) return;
    ASSERT_TRUE(same_items(keys_out.download(), want_keys.download(), cv)) << "keys of the last run";
  }
}

// A workspace the caller allocates, sized by compact_workspace_bytes, serves every call; a
// smaller one is refused before anything runs.
TEST(CompactTemplates, CallerAllocatedWorkspace) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = 1000003;
  const std::vector<std::uint32_t> host = random_items<std::uint32_t>(n, seed);
  device_buffer<std::uint32_t> in(host), out(host.size()), want(host.size());
  const keep_in_range<std::uint32_t> pred{0, 1u << 31};
  const std::int64_t c = thrust::copy_if(thrust::device, in.data(), in.data() + n, want.data(), pred) - want.data();
  device_count count;
  for (const run_config& config : run_configs(true)) {
    SCOPED_TRACE(describe(config));
    const compact_options o = options_of(config);
    const std::size_t bytes = scankit::compact_workspace_bytes(n, sizeof(std::uint32_t), 0, o);
    ASSERT_EQ(bytes, scankit::device::compact_workspace_bytes<std::uint32_t>(n, o));
    ASSERT_GT(bytes, 0u);
    device_buffer<unsigned char> memory(bytes);
    workspace ws(memory.data(), bytes);
    if (config.in_place) {
      out.upload(host);
    } else {
      out.poison();
    }
    count.poison();
    scankit::select_if(config.in_place ? out.data() : in.data(), out.data(), count.get(), n, pred, nullptr, &ws, o);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(count.value(), c);
    ASSERT_TRUE(same_items(out.download(), want.download(), c));

    workspace small(memory.data(), bytes / 2);
    EXPECT_THROW(scankit::select_if(in.data(), out.data(), count.get(), n, pred, nullptr, &small, o), scankit::error);
  }
}

}  // namespace
}  // namespace scankit::testing
