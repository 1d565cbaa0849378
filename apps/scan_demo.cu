// `scankit scan`: the scan engine on generated data. Every strategy x block algorithm runs on the
// same input, is checked against the host reference, and is timed with CUDA events beside a
// device-to-device copy of the same bytes (the bandwidth ceiling).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "scankit/error.hpp"
#include "scankit/operators.hpp"
#include "scankit/reference/scan_reference.hpp"
#include "scankit/lab/scan_lab.hpp"
#include "scankit/scan.hpp"
#include "scankit/version.hpp"
#include "scan_demo_options.hpp"

namespace {

struct event_timer {
  cudaEvent_t start{}, stop{};
  event_timer() {
    SCANKIT_CUDA_CHECK(cudaEventCreate(&start));
    SCANKIT_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~event_timer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  template <class F>
  double median_ms(int repeat, F&& f) {
    std::vector<float> times;
    f();  // warm-up
    for (int r = 0; r < repeat; ++r) {
      SCANKIT_CUDA_CHECK(cudaEventRecord(start));
      f();
      SCANKIT_CUDA_CHECK(cudaEventRecord(stop));
      SCANKIT_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      SCANKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }
};

}  // namespace

int run_scan_demo(int argc, char** argv) {
  scankit::apps::scan_demo_options o;
  if (const int status = scankit::apps::parse_scan_demo_options(argc, argv, o); status >= 0) return status;
  std::vector<std::int32_t> input(static_cast<std::size_t>(o.n));
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<int> dist(-100, 100);
  for (auto& x : input) x = dist(rng);

  std::vector<std::int32_t> expected(input.size());
  const auto t0 = std::chrono::steady_clock::now();
  scankit::reference::inclusive_scan(input.data(), expected.data(), o.n, scankit::plus_op{});
  const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double bytes = 2.0 * static_cast<double>(o.n) * sizeof(std::int32_t);

  std::printf("scankit scan: int32 inclusive sum, n = %lld\n", static_cast<long long>(o.n));
  std::printf("  host reference (1 CPU thread): %.3f ms, %.2f GB/s\n", host_ms, bytes / host_ms / 1e6);
  if (!scankit::cuda_device_available()) {
    std::printf("\nNo CUDA device found: only the host reference ran. The GPU strategies need an NVIDIA GPU\n"
                "(this build: CUDA architectures %s); see README.md.\n", scankit::cuda_architectures);
    return 0;
  }

  cudaDeviceProp prop{};
  SCANKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("  device: %s (%d SMs, %.0f MB L2)\n\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);

  std::int32_t *d_in = nullptr, *d_out = nullptr;
  SCANKIT_CUDA_CHECK(cudaMalloc(&d_in, input.size() * sizeof(std::int32_t)));
  SCANKIT_CUDA_CHECK(cudaMalloc(&d_out, input.size() * sizeof(std::int32_t)));
  SCANKIT_CUDA_CHECK(cudaMemcpy(d_in, input.data(), input.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));

  event_timer timer;
  const double copy_ms = timer.median_ms(o.repeat, [&] {
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, input.size() * sizeof(std::int32_t), cudaMemcpyDeviceToDevice));
  });
  std::printf("  %-22s %-30s %10.3f ms %9.1f GB/s  (copy ceiling)\n", "cudaMemcpy D2D", "", copy_ms, bytes / copy_ms / 1e6);

  const scankit::scan_strategy strategies[] = {scankit::scan_strategy::three_launch, scankit::scan_strategy::reduce_then_scan,
                                               scankit::scan_strategy::chained, scankit::scan_strategy::decoupled_look_back};
  const scankit::block_scan_algorithm blocks[] = {
      scankit::block_scan_algorithm::kogge_stone_double_buffer, scankit::block_scan_algorithm::kogge_stone_read_sync_write,
      scankit::block_scan_algorithm::brent_kung, scankit::block_scan_algorithm::warp_of_warps};

  scankit::workspace ws;
  int failures = 0;
  std::vector<std::int32_t> result(input.size());
  for (auto strategy : strategies) {
    if (o.strategy != "all" && scankit::parse_scan_strategy(o.strategy) != strategy) continue;
    for (auto block : blocks) {
      if (o.block != "all" && scankit::parse_block_scan_algorithm(o.block) != block) continue;
      scankit::scan_options opts;
      opts.strategy = strategy;
      opts.block_algorithm = block;
      SCANKIT_CUDA_CHECK(cudaMemset(d_out, 0xA5, input.size() * sizeof(std::int32_t)));
      scankit::lab::inclusive_scan(d_in, d_out, o.n, scankit::scan_op::plus, nullptr, &ws, opts);
      SCANKIT_CUDA_CHECK(cudaMemcpy(result.data(), d_out, result.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
      const bool ok = result == expected;
      failures += ok ? 0 : 1;
      const double ms = timer.median_ms(o.repeat, [&] {
        scankit::lab::inclusive_scan(d_in, d_out, o.n, scankit::scan_op::plus, nullptr, &ws, opts);
      });
      std::printf("  %-22s %-30s %10.3f ms %9.1f GB/s  %.2f of copy  %s\n", scankit::to_string(strategy),
                  scankit::to_string(block), ms, bytes / ms / 1e6, copy_ms / ms, ok ? "ok" : "MISMATCH vs host reference");
    }
  }
  SCANKIT_CUDA_CHECK(cudaFree(d_in));
  SCANKIT_CUDA_CHECK(cudaFree(d_out));
  if (failures > 0) {
    std::printf("\n%d variant(s) gave a wrong result\n", failures);
    return 1;
  }
  std::printf("\nall variants match the host reference\n");
  return 0;
}
