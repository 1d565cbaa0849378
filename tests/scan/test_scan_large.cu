// More than 2^31 and more than 2^32 elements (uint8 sums through the precompiled API), where
// 32-bit indices would overflow. The input is in[i] = i % 251 + 1, whose prefix sums have a
// closed form, so the whole output is checked on the device and samples again on the host
// (around 2^31, 2^32 and the end). Skipped when the GPU lacks the memory.
#include <algorithm>
#include <memory>

#include "scan_test_util.cuh"

namespace scankit::testing {
namespace {

__host__ __device__ inline std::uint8_t pattern_value(std::uint64_t i) {
  return static_cast<std::uint8_t>(i % 251 + 1);
}

// (in[0] + ... + in[i]) mod 256: q whole periods of 1..251 (sum 31626) and r more items 1..r.
__host__ __device__ inline std::uint8_t pattern_inclusive(std::uint64_t i) {
  const std::uint64_t count = i + 1, q = count / 251, r = count % 251;
  return static_cast<std::uint8_t>((q * 31626u + r * (r + 1) / 2) & 0xffu);
}

__host__ __device__ inline std::uint8_t pattern_expected(std::uint64_t i, bool exclusive, std::uint8_t init) {
  if (!exclusive) return pattern_inclusive(i);
  return static_cast<std::uint8_t>(init + (i == 0 ? 0 : pattern_inclusive(i - 1)));
}

__global__ void fill_pattern(std::uint8_t* in, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    in[i] = pattern_value(i);
  }
}

__global__ void count_mismatches(const std::uint8_t* out, std::uint64_t n, bool exclusive, std::uint8_t init,
                                 unsigned long long* mismatches, unsigned long long* first) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0, local_first = ~0ull;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (out[i] != pattern_expected(i, exclusive, init)) {
      ++local;
      if (i < local_first) local_first = i;
    }
  }
  if (local > 0) {
    atomicAdd(mismatches, local);
    atomicMin(first, local_first);
  }
}

class ScanLarge : public ::testing::Test {
 protected:
  static constexpr std::size_t guard = 64;

  // Allocates in (filled with the pattern) and out (n + guard); false when memory is short.
  bool allocate(std::uint64_t n) {
    const std::size_t needed = 2 * n + guard + (std::size_t{256} << 20);  // + workspace and headroom
    if (!gpu_memory_available(needed)) return false;
    in_ = std::make_unique<device_buffer<std::uint8_t>>(n);
    out_ = std::make_unique<device_buffer<std::uint8_t>>(n + guard);
    fill_pattern<<<132 * 16, 256>>>(in_->data(), n);
    SCANKIT_CUDA_CHECK(cudaGetLastError());
    sync_device();
    return true;
  }

  void check(std::uint64_t n, bool exclusive, std::uint8_t init) {
    // Whole output on the device.
    device_buffer<unsigned long long> counters(2);
    const std::vector<unsigned long long> start = {0ull, ~0ull};
    counters.upload(start);
    count_mismatches<<<132 * 16, 256>>>(out_->data(), n, exclusive, init, counters.data(), counters.data() + 1);
    SCANKIT_CUDA_CHECK(cudaGetLastError());
    sync_device();
    const auto result = counters.download();
    EXPECT_EQ(result[0], 0ull) << "mismatches; the first at index " << result[1];

    // Samples on the host, from plain downloads.
    const std::uint64_t window = 4096;
    std::vector<std::uint64_t> starts = {0, n / 3, (std::uint64_t{1} << 31) - window / 2, n - window};
    if (n > (std::uint64_t{1} << 32)) starts.push_back((std::uint64_t{1} << 32) - window / 2);
    for (auto& s : starts) s = std::min(s, n - window);  // a window must end inside the output
    std::vector<std::uint8_t> host(window);
    for (std::uint64_t s : starts) {
      SCANKIT_CUDA_CHECK(cudaMemcpy(host.data(), out_->data() + s, window, cudaMemcpyDeviceToHost));
      for (std::uint64_t j = 0; j < window; ++j) {
        ASSERT_EQ(+host[j], +pattern_expected(s + j, exclusive, init)) << "index " << s + j;
      }
    }
    // Nothing written past the end.
    std::vector<std::uint8_t> tail(guard);
    SCANKIT_CUDA_CHECK(cudaMemcpy(tail.data(), out_->data() + n, guard, cudaMemcpyDeviceToHost));
    for (std::size_t j = 0; j < guard; ++j) ASSERT_EQ(tail[j], 0xA5) << "guard byte " << j << " was written";
  }

  void run_and_check(std::uint64_t n, scan_kind kind, const scan_options& options, workspace* ws) {
    SCOPED_TRACE(std::string(to_string(kind)) + " n = " + std::to_string(n) + " strategy " +
                 scankit::to_string(options.strategy));
    const std::uint8_t init = 42;
    out_->poison();
    precompiled_scan<std::uint8_t>(kind, in_->data(), out_->data(), static_cast<std::int64_t>(n), init,
                                   scan_op::plus, nullptr, ws, options);
    sync_device();
    check(n, kind == scan_kind::exclusive, init);
  }

  std::unique_ptr<device_buffer<std::uint8_t>> in_, out_;
};

TEST_F(ScanLarge, PatternClosedFormMatchesAHostSum) {
  // The oracle itself, against a running sum (no GPU needed).
  std::uint8_t running = 0;
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    running = static_cast<std::uint8_t>(running + pattern_value(i));
    ASSERT_EQ(+pattern_inclusive(i), +running) << "i = " << i;
    ASSERT_EQ(+pattern_expected(i + 1, true, 9), +static_cast<std::uint8_t>(9 + running)) << "i = " << i;
  }
  EXPECT_EQ(+pattern_expected(0, true, 9), 9);
}

TEST_F(ScanLarge, Uint8Above2To31) {
  SCANKIT_REQUIRE_GPU();
  const std::uint64_t n = (std::uint64_t{1} << 31) + 12345;
  if (!allocate(n)) GTEST_SKIP() << "not enough GPU memory for " << 2 * n << " bytes";
  workspace ws;
  for (scan_strategy strategy : {scan_strategy::automatic, scan_strategy::chained, scan_strategy::three_launch,
                                 scan_strategy::reduce_then_scan}) {
    scan_options options;
    options.strategy = strategy;
    run_and_check(n, scan_kind::inclusive, options, &ws);
  }
  run_and_check(n, scan_kind::exclusive, scan_options{}, &ws);
  run_and_check(n, scan_kind::inclusive, scan_options{}, nullptr);
}

TEST_F(ScanLarge, Uint8Above2To32) {
  SCANKIT_REQUIRE_GPU();
  const std::uint64_t n = (std::uint64_t{1} << 32) + 777;
  if (!allocate(n)) GTEST_SKIP() << "not enough GPU memory for " << 2 * n << " bytes";
  workspace ws;
  run_and_check(n, scan_kind::inclusive, scan_options{}, &ws);
  scan_options reduce;
  reduce.strategy = scan_strategy::reduce_then_scan;
  run_and_check(n, scan_kind::exclusive, reduce, &ws);
}

}  // namespace
}  // namespace scankit::testing
