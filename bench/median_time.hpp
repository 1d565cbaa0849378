// Timing for the plain-main() sweeps (tune_scan, tune_compact): the median of `reps` CUDA-event
// timings of f() on the default stream, after one untimed warm-up call.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "scankit/error.hpp"

namespace scankit_bench {

// The time of what f() queues on the default stream, between events a and b (waits for it).
inline float event_timed_ms(cudaEvent_t a, cudaEvent_t b, const std::function<void()>& f) {
  SCANKIT_CUDA_CHECK(cudaEventRecord(a));
  f();
  SCANKIT_CUDA_CHECK(cudaEventRecord(b));
  SCANKIT_CUDA_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  SCANKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

inline double median_ms(const std::function<void()>& f, int reps) {
  cudaEvent_t a, b;
  SCANKIT_CUDA_CHECK(cudaEventCreate(&a));
  SCANKIT_CUDA_CHECK(cudaEventCreate(&b));
  f();
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int r = 0; r < reps; ++r) times.push_back(event_timed_ms(a, b, f));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace scankit_bench
