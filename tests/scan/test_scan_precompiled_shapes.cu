// Precompiled API, int32 and float sums: every strategy x every block algorithm x every
// precompiled coarsening (items_per_thread 0 = tuned, 1, 2, 4, 8, 16), inclusive and exclusive,
// vs Thrust. Also the kernel facts reported by describe_scan_kernel.
#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

constexpr int precompiled_items_per_thread[] = {0, 1, 2, 4, 8, 16};

template <class T>
void check_shapes(scan_kind kind) {
  SCANKIT_SEEDED(seed);
  std::mt19937_64 rng(seed);
  workspace ws;
  int run = 0;
  for (int k : precompiled_items_per_thread) {
    const std::int64_t tile = precompiled_tile_items<T>(k);
    const std::int64_t sizes[] = {1, tile - 1, tile + 1, 33 * tile + 3,
                                  random_non_multiple(rng, 40 * tile, 1'000'000, tile)};
    for (std::int64_t n : sizes) {
      const std::vector<T> host_in = random_values<T>(static_cast<std::size_t>(n), rng());
      const T init = static_cast<T>(-17);
      device_buffer<T> d_in(host_in);
      const std::vector<T> expected = thrust_scan(d_in.data(), n, kind, init, thrust::plus<T>());
      device_buffer<T> d_out(static_cast<std::size_t>(n) + guard_items);
      for (block_scan_algorithm algorithm : all_block_algorithms) {
        for (strategy_case strategy : all_strategy_cases) {
          scan_options options = options_for(strategy);
          options.block_algorithm = algorithm;
          options.items_per_thread = k;
          SCOPED_TRACE(std::string(to_string(kind)) + " items_per_thread " + std::to_string(k) + " " +
                       scankit::to_string(algorithm) + " " + describe(strategy) + " n = " + std::to_string(n));
          d_out.poison();
          precompiled_scan<T>(kind, d_in.data(), d_out.data(), n, init, scan_op::plus, nullptr,
                              run++ % 3 == 0 ? nullptr : &ws, options);
          sync_device();
          const std::vector<T> out = d_out.download();
          EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
          EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
        }
      }
    }
  }
}

TEST(ScanPrecompiledShapes, Int32Inclusive) {
  SCANKIT_REQUIRE_GPU();
  check_shapes<std::int32_t>(scan_kind::inclusive);
}

TEST(ScanPrecompiledShapes, Int32Exclusive) {
  SCANKIT_REQUIRE_GPU();
  check_shapes<std::int32_t>(scan_kind::exclusive);
}

TEST(ScanPrecompiledShapes, FloatInclusive) {
  SCANKIT_REQUIRE_GPU();
  check_shapes<float>(scan_kind::inclusive);
}

TEST(ScanPrecompiledShapes, FloatExclusive) {
  SCANKIT_REQUIRE_GPU();
  check_shapes<float>(scan_kind::exclusive);
}

// The 2^24 + 7 case, for the default path and a couple of strategies only (runtime).
TEST(ScanPrecompiledShapes, Int32Large) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::int64_t n = (std::int64_t{1} << 24) + 7;
  const std::vector<std::int32_t> host_in = random_values<std::int32_t>(static_cast<std::size_t>(n), seed);
  device_buffer<std::int32_t> d_in(host_in);
  workspace ws;
  for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
    const std::vector<std::int32_t> expected = thrust_scan(d_in.data(), n, kind, 99, thrust::plus<std::int32_t>());
    device_buffer<std::int32_t> d_out(static_cast<std::size_t>(n) + guard_items);
    for (scan_strategy strategy : {scan_strategy::automatic, scan_strategy::reduce_then_scan, scan_strategy::chained}) {
      SCOPED_TRACE(std::string(to_string(kind)) + " " + scankit::to_string(strategy));
      scan_options options;
      options.strategy = strategy;
      d_out.poison();
      precompiled_scan<std::int32_t>(kind, d_in.data(), d_out.data(), n, 99, scan_op::plus, nullptr, &ws, options);
      sync_device();
      const auto out = d_out.download();
      EXPECT_TRUE(equal_ranges(expected.data(), out.data(), n));
      EXPECT_TRUE(still_poisoned(out, static_cast<std::size_t>(n), out.size()));
    }
  }
}

TEST(ScanKernelInfo, DescribesThePrecompiledShapes) {
  SCANKIT_REQUIRE_GPU();
  for (int k : precompiled_items_per_thread) {
    for (block_scan_algorithm algorithm : all_block_algorithms) {
      for (scan_strategy strategy : {scan_strategy::automatic, scan_strategy::three_launch, scan_strategy::chained}) {
        scan_options options;
        options.items_per_thread = k;
        options.block_algorithm = algorithm;
        options.strategy = strategy;
        SCOPED_TRACE("items_per_thread " + std::to_string(k) + " " + scankit::to_string(algorithm) + " " +
                     scankit::to_string(strategy));
        const scan_kernel_info info = scankit::describe_scan_kernel(static_cast<const std::int32_t*>(nullptr), options);
        EXPECT_EQ(info.block_threads, 256);
        EXPECT_EQ(info.items_per_thread, k == 0 ? 16 : k);
        EXPECT_GT(info.registers_per_thread, 0);
        EXPECT_GT(info.static_shared_bytes, 0);
        EXPECT_GE(info.max_blocks_per_sm, 1);
        EXPECT_GT(info.occupancy, 0.0);
        EXPECT_LE(info.occupancy, 1.0);
        EXPECT_GE(info.block_barriers, 2);
        EXPECT_GT(info.block_scan_operations, 0);
        const scan_kernel_info float_info = scankit::describe_scan_kernel(static_cast<const float*>(nullptr), options);
        EXPECT_EQ(float_info.items_per_thread, info.items_per_thread);
      }
    }
  }
  scan_options bad;
  bad.items_per_thread = 3;
  EXPECT_THROW((void)scankit::describe_scan_kernel(static_cast<const std::int32_t*>(nullptr), bad), scankit::error);
}

}  // namespace
}  // namespace scankit::testing
