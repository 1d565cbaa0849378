// Calls the precompiled scan overloads from plain C++. Without a GPU it checks that argument
// errors arrive as scankit::error; with one it also scans and checks a result.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/scan.hpp"

int main() {
  try {
    scankit::inclusive_scan(static_cast<const std::int32_t*>(nullptr), nullptr, -1);
    std::puts("consumer: expected scankit::error for n = -1");
    return 1;
  } catch (const scankit::error& e) {
    std::printf("consumer: rejected as expected: %s\n", e.what());
  }
  scankit::inclusive_scan(static_cast<const float*>(nullptr), nullptr, 0);  // nothing to do, no launch

  if (!scankit::cuda_device_available()) {
    std::puts("consumer: no CUDA device; linked and called the precompiled API");
    return 0;
  }
  const std::int64_t n = 1000003;
  std::vector<std::int64_t> host(n);
  for (std::int64_t i = 0; i < n; ++i) host[i] = (i * 7919) % 13 - 6;
  std::int64_t* d = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&d), n * sizeof(std::int64_t)) != cudaSuccess) return 1;
  cudaMemcpy(d, host.data(), n * sizeof(std::int64_t), cudaMemcpyHostToDevice);
  scankit::workspace ws;
  scankit::exclusive_scan(d, d, n, std::int64_t{5}, scankit::scan_op::plus, nullptr, &ws);  // in place
  std::vector<std::int64_t> out(n);
  cudaMemcpy(out.data(), d, n * sizeof(std::int64_t), cudaMemcpyDeviceToHost);
  cudaFree(d);
  std::int64_t running = 5;
  for (std::int64_t i = 0; i < n; ++i) {
    if (out[i] != running) {
      std::printf("consumer: mismatch at %lld\n", static_cast<long long>(i));
      return 1;
    }
    running += host[i];
  }
  std::puts("consumer: GPU exclusive scan matches");
  return 0;
}
