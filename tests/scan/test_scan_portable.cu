// The precompiled scans on the path of GPUs without the bulk copy (sm_80, sm_89: the register
// kernel), forced on this GPU so that it stays proven: every value type, the built-in operators,
// the deterministic float sums, sizes from one tile to many, against Thrust.
#include <gtest/gtest.h>

#include "scan_types.cuh"
#include "scankit/device_features.hpp"

namespace scankit::testing {

// scan_types.cuh's typed suite is instantiated by test_scan_types_*.cu, not here.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ScanTypes);

namespace {

struct portable_kernels_forced {
  portable_kernels_forced() { scankit::force_portable_kernels(true); }
  ~portable_kernels_forced() { scankit::force_portable_kernels(false); }
  portable_kernels_forced(const portable_kernels_forced&) = delete;
  portable_kernels_forced& operator=(const portable_kernels_forced&) = delete;
};

template <class T>
class ScanPortable : public ::testing::Test {};
using portable_types = ::testing::Types<std::int8_t, std::uint16_t, std::int32_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(ScanPortable, portable_types);

TYPED_TEST(ScanPortable, MatchesThrust) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  using T = TypeParam;
  const portable_kernels_forced portable;
  ASSERT_FALSE(scankit::staged_kernels_available());
  std::mt19937_64 rng(seed);
  workspace ws;
  const std::int64_t tile = tuned_tile_items<T>();
  for (std::int64_t n : {tile, tile + 1, 7 * tile - 3, std::int64_t{3'000'017}}) {
    for_each_supported_op<T>([&](scan_op op, auto ops) {
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
        for (bool deterministic : {false, true}) {
          if (deterministic && (std::is_integral_v<T> || op != scan_op::plus)) continue;
          SCOPED_TRACE(std::string(to_string(kind)) + " " + scankit::to_string(op) + " n = " + std::to_string(n) +
                       (deterministic ? " deterministic" : ""));
          const std::vector<T> host = op_input<T>(op, n, rng);
          device_buffer<T> in(host);
          device_buffer<T> out(host.size());
          out.poison();
          const T init = host[0];
          const std::vector<T> expected = thrust_expected(in.data(), n, kind, init, ops);
          scan_options options;
          options.deterministic = deterministic;
          precompiled_scan(kind, in.data(), out.data(), n, init, op, nullptr, &ws, options);
          sync_device();
          ASSERT_TRUE(equal_vectors(expected, out.download()));
        }
      }
    });
  }
}

}  // namespace
}  // namespace scankit::testing
