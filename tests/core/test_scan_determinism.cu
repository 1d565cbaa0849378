// options.deterministic: floating-point scans of real random values (not small integers, so the
// association shows in the bits) give identical bits run after run, with or without a reused
// workspace. The default strategy then runs the deterministic look-back; the other strategies
// have a fixed association anyway and must accept the flag.
#include <cstring>

#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

constexpr std::int64_t n = std::int64_t{1} << 24;

template <class T>
std::vector<T> random_reals(std::int64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> d(T(-1), T(1));
  std::vector<T> v(static_cast<std::size_t>(count));
  for (auto& x : v) x = d(rng);
  return v;
}

// Index of the first element whose bits differ, or -1.
template <class T>
std::int64_t first_bit_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0) return -1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<std::int64_t>(i);
  }
  return -1;
}

// Close to the exact (long double) prefix sums: |error| <= tol * sum of |x| so far. A loose
// bound (the association may differ from a serial sum), it catches garbage, not rounding.
template <class T>
::testing::AssertionResult close_to_exact(const std::vector<T>& in, const std::vector<T>& out, scan_kind kind, T init,
                                          double tol) {
  long double sum = kind == scan_kind::exclusive ? static_cast<long double>(init) : 0.0L;
  long double magnitude = kind == scan_kind::exclusive ? std::fabs(static_cast<long double>(init)) : 0.0L;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (kind == scan_kind::inclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
    const long double error = std::fabs(static_cast<long double>(out[i]) - sum);
    if (!(error <= tol * magnitude + 1e-3L)) {
      return ::testing::AssertionFailure() << "index " << i << ": got " << show(out[i]) << ", exact "
                                           << static_cast<double>(sum) << " (sum of |x| " << static_cast<double>(magnitude)
                                           << ")";
    }
    if (kind == scan_kind::exclusive) {
      sum += in[i];
      magnitude += std::fabs(static_cast<long double>(in[i]));
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs the scan `runs` times (alternating a reused workspace and none) and expects the same bits
// every time; checks the first result against the exact sums.
template <class T>
void check_same_bits(scan_kind kind, const scan_options& options, int runs) {
  SCANKIT_SEEDED(seed);
  SCOPED_TRACE(std::string(to_string(kind)) + " " + describe(strategy_case{options.strategy, options.deterministic}));
  const std::vector<T> host_in = random_reals<T>(n, seed);
  const T init = static_cast<T>(0.375);
  device_buffer<T> d_in(host_in);
  device_buffer<T> d_out(static_cast<std::size_t>(n));
  workspace ws;
  std::vector<T> first;
  for (int run = 0; run < runs; ++run) {
    d_out.poison();
    precompiled_scan<T>(kind, d_in.data(), d_out.data(), n, init, scan_op::plus, nullptr, run % 2 == 0 ? &ws : nullptr,
                        options);
    sync_device();
    std::vector<T> out = d_out.download();
    if (run == 0) {
      EXPECT_TRUE(close_to_exact(host_in, out, kind, init, 2e-5));
      first = std::move(out);
      continue;
    }
    const std::int64_t differs = first_bit_difference(first, out);
    if (differs >= 0) {
      ADD_FAILURE() << "run " << run << " differs from run 0 at index " << differs << ": " << show(out[differs])
                    << " vs " << show(first[differs]);
      return;
    }
  }
}

TEST(ScanDeterminism, FloatDefaultStrategyHundredRuns) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;  // strategy automatic
  check_same_bits<float>(scan_kind::inclusive, options, 100);
}

TEST(ScanDeterminism, FloatExclusive) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;
  check_same_bits<float>(scan_kind::exclusive, options, 20);
}

TEST(ScanDeterminism, FloatSmallTiles) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;
  options.items_per_thread = 1;  // 65536 tiles: 256 groups of the deterministic look-back
  check_same_bits<float>(scan_kind::inclusive, options, 20);
}

TEST(ScanDeterminism, DoubleDefaultStrategy) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;
  check_same_bits<double>(scan_kind::inclusive, options, 20);
}

TEST(ScanDeterminism, EveryStrategyAcceptsTheFlag) {
  SCANKIT_REQUIRE_GPU();
  for (scan_strategy strategy : {scan_strategy::decoupled_look_back, scan_strategy::chained,
                                 scan_strategy::three_launch, scan_strategy::reduce_then_scan}) {
    scan_options options;
    options.deterministic = true;
    options.strategy = strategy;
    check_same_bits<float>(scan_kind::inclusive, options, 10);
  }
}

// The deterministic path is also exact where the inputs allow it: small integers.
TEST(ScanDeterminism, ExactOnSmallIntegers) {
  SCANKIT_REQUIRE_GPU();
  SCANKIT_SEEDED(seed);
  const std::vector<float> host_in = random_values<float>(static_cast<std::size_t>(n), seed);
  device_buffer<float> d_in(host_in);
  device_buffer<float> d_out(static_cast<std::size_t>(n));
  scan_options options;
  options.deterministic = true;
  for (scan_kind kind : {scan_kind::inclusive, scan_kind::exclusive}) {
    SCOPED_TRACE(to_string(kind));
    const std::vector<float> expected = thrust_scan(d_in.data(), n, kind, 3.0f, thrust::plus<float>());
    d_out.poison();
    precompiled_scan<float>(kind, d_in.data(), d_out.data(), n, 3.0f, scan_op::plus, nullptr, nullptr, options);
    sync_device();
    EXPECT_TRUE(equal_vectors(expected, d_out.download()));
  }
}

}  // namespace
}  // namespace scankit::testing
