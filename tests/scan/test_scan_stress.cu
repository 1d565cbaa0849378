// Stress of the single-pass protocol: thousands of launches of random sizes (log-uniform in
// [1, 2e6]) and random contents, each checked against Thrust on the device, all through one
// reused workspace (so every launch runs in a new epoch over the slots of the previous ones).
//
// Inputs are windows of a random pool on the device (regenerated now and then), starting at a
// random offset (so some start off the 16-byte grid); outputs and Thrust's results are compared
// on the device, guard elements included, and downloaded only on a mismatch.
#include <thrust/equal.h>
#include <thrust/mismatch.h>

#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

constexpr std::int64_t max_n = 2'000'000;
constexpr std::int64_t pool_items = max_n + 64;

template <class T>
class stress_runner {
 public:
  explicit stress_runner(std::uint64_t seed)
      : rng_(seed), pool_(pool_items), out_(max_n + guard_items), expected_(max_n + guard_items) {
    refill();
  }

  void refill() { pool_.upload(random_values<T>(pool_items, rng_())); }

  std::mt19937_64& rng() { return rng_; }

  // One launch; returns false (after reporting) on a mismatch.
  bool run_once(int launch, scan_kind kind, const scan_options& options, workspace& ws) {
    const std::int64_t n = log_uniform_size(rng_, max_n);
    // Mostly aligned windows; one in four starts at an odd element.
    const std::int64_t offset = rng_() % 4 == 0 ? static_cast<std::int64_t>(rng_() % 63) + 1
                                                : static_cast<std::int64_t>(rng_() % 16) * 4;
    const T* in = pool_.data() + offset;
    const T init = static_cast<T>(rng_() % 1000);
    out_.poison();
    expected_.poison();
    if (kind == scan_kind::inclusive) {
      thrust::inclusive_scan(thrust::device, in, in + n, expected_.data(), thrust::plus<T>());
    } else {
      thrust::exclusive_scan(thrust::device, in, in + n, expected_.data(), init, thrust::plus<T>());
    }
    precompiled_scan<T>(kind, in, out_.data(), n, init, scan_op::plus, nullptr, &ws, options);
    sync_device();
    // Guard elements included: both buffers were poisoned the same way.
    const std::int64_t compared = n + static_cast<std::int64_t>(guard_items);
    if (thrust::equal(thrust::device, out_.data(), out_.data() + compared, expected_.data())) return true;
    const auto where = thrust::mismatch(thrust::device, out_.data(), out_.data() + compared, expected_.data());
    const std::int64_t index = where.first - out_.data();
    T got{}, want{};
    SCANKIT_CUDA_CHECK(cudaMemcpy(&got, out_.data() + index, sizeof(T), cudaMemcpyDeviceToHost));
    SCANKIT_CUDA_CHECK(cudaMemcpy(&want, expected_.data() + index, sizeof(T), cudaMemcpyDeviceToHost));
    ADD_FAILURE() << "launch " << launch << ": " << to_string(kind) << " n = " << n << " offset " << offset << " "
                  << describe(strategy_case{options.strategy, options.deterministic}) << " items_per_thread "
                  << options.items_per_thread << ": first mismatch at index " << index
                  << (index >= n ? " (a guard element after the output)" : "") << ": expected " << show(want)
                  << ", got " << show(got);
    return false;
  }

 private:
  std::mt19937_64 rng_;
  device_buffer<T> pool_;
  device_buffer<T> out_;
  device_buffer<T> expected_;
};

// Runs `launches` checked launches; stops after a few failures.
template <class T>
void stress(int launches, const scan_options& options, double exclusive_fraction) {
  SCANKIT_SEEDED(seed);
  stress_runner<T> runner(seed);
  workspace ws;
  int failures = 0;
  for (int launch = 0; launch < launches && failures < 5; ++launch) {
    if (launch > 0 && launch % 250 == 0) runner.refill();
    const bool exclusive = static_cast<double>(runner.rng()() % 1000) < exclusive_fraction * 1000;
    if (!runner.run_once(launch, exclusive ? scan_kind::exclusive : scan_kind::inclusive, options, ws)) ++failures;
  }
}

TEST(ScanStress, DecoupledLookBackInt32) {
  SCANKIT_REQUIRE_GPU();
  stress<std::int32_t>(3000, scan_options{}, 0.2);
}

TEST(ScanStress, DecoupledLookBackInt32SmallTiles) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.items_per_thread = 1;  // 256-item tiles: up to about 7800 tiles, long look-backs
  stress<std::int32_t>(400, options, 0.3);
}

TEST(ScanStress, DecoupledLookBackUint64SplitState) {
  SCANKIT_REQUIRE_GPU();
  stress<std::uint64_t>(400, scan_options{}, 0.3);
}

TEST(ScanStress, ChainedInt32) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.strategy = scan_strategy::chained;
  stress<std::int32_t>(300, options, 0.3);
}

TEST(ScanStress, DeterministicLookBackFloat) {
  SCANKIT_REQUIRE_GPU();
  scan_options options;
  options.deterministic = true;  // small-integer floats: exact, so Thrust's bits must match
  options.items_per_thread = 1;  // many groups of 256 tiles
  stress<float>(300, options, 0.3);
}

}  // namespace
}  // namespace scankit::testing
