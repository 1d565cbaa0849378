// What the Google Benchmark binaries on the GPU share (nvcc): CUDA errors as exceptions that name
// the call and the line, a mixing hash for generated data, and the CUDA-event timing of a launch.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

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

}  // namespace scankit_bench

#define BENCH_CHECK(call) ::scankit_bench::check_cuda((call), #call, __FILE__, __LINE__)
