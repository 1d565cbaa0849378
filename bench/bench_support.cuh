// What the Google Benchmark binaries on the GPU share (nvcc): CUDA errors as exceptions that name
// the call and the line, a mixing hash for generated data, the CUDA-event timing of a launch and
// the median of a benchmark's timed iterations.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace scankit_bench {

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();
    throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                             cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
  }
}

// SplitMix64's finaliser: a well-mixed 64-bit value from a counter.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Milliseconds between two events recorded on `stream` around launch() (waits for the second).
inline double event_time_ms(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
                            const std::function<void()>& launch) {
  check_cuda(cudaEventRecord(start, stream), "cudaEventRecord", __FILE__, __LINE__);
  launch();
  check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord", __FILE__, __LINE__);
  check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize", __FILE__, __LINE__);
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime", __FILE__, __LINE__);
  return ms;
}

// A benchmark's timed iterations (State: benchmark::State): one warm-up launch, then each
// iteration times launch() with events (before() first, untimed, when given) and reports it as
// the manual time. Returns the median in ms (NaN without iterations).
template <class State>
double timed_median_ms(State& state, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
                       const std::function<void()>& launch, const std::function<void()>& before = {}) {
  if (before) before();
  launch();
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__);
  std::vector<double> times;
  for (auto _ : state) {
    if (before) before();
    const double ms = event_time_ms(stream, start, stop, launch);
    state.SetIterationTime(ms * 1e-3);
    times.push_back(ms);
  }
  if (times.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace scankit_bench

#define BENCH_CHECK(call) ::scankit_bench::check_cuda((call), #call, __FILE__, __LINE__)
