// What the anchor programs share: the rows bench_top_k draws (uniform floats in [0, 1) from the
// same hash), event timing (median of 20 launches after a warm-up), and a JSON line per row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define ANCHOR_CHECK(call)                                                                        \
  do {                                                                                            \
    const cudaError_t anchor_code = (call);                                                       \
    if (anchor_code != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(anchor_code)); \
      std::exit(3);                                                                               \
    }                                                                                             \
  } while (0)

struct anchor_workload {
  const char* name;
  std::int64_t rows, cols, k;
  bool sorted;
};

inline const anchor_workload anchor_workloads[] = {
    {"rows_256x131072_k50", 256, 131072, 50, true},
    {"rows_4096x200000_k1024", 4096, 200000, 1024, true},
    {"rows_1x131072_k50", 1, 131072, 50, true},
    {"row_2p28_k1000", 1, std::int64_t{1} << 28, 1000, false},
};

__host__ __device__ inline std::uint64_t anchor_mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void anchor_fill_kernel(float* keys, std::int64_t n, std::uint64_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = static_cast<float>(anchor_mix64(seed ^ anchor_mix64(static_cast<std::uint64_t>(i))) >> 40) / 16777216.0f;
  }
}

inline double anchor_median_ms(const std::function<void()>& launch, int reps = 20) {
  cudaEvent_t a, b;
  ANCHOR_CHECK(cudaEventCreate(&a));
  ANCHOR_CHECK(cudaEventCreate(&b));
  launch();
  ANCHOR_CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int r = 0; r < reps; ++r) {
    ANCHOR_CHECK(cudaEventRecord(a));
    launch();
    ANCHOR_CHECK(cudaEventRecord(b));
    ANCHOR_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    ANCHOR_CHECK(cudaEventElapsedTime(&ms, a, b));
    times.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

inline void anchor_print(const char* anchor, const char* workload, const std::string& variant, double ms) {
  std::printf("{\"anchor\": \"%s\", \"workload\": \"%s\", \"variant\": \"%s\", \"ms\": %.5f}\n", anchor, workload,
              variant.c_str(), ms);
  std::fflush(stdout);
}
