// What the Google Benchmark binaries on the GPU share (nvcc): CUDA errors as exceptions that name
// the call and the line, the GPU session (device, stream, timing events, and the machine recorded
// in the JSON context), a mixing hash and a random fill for generated data, the CUDA-event timing
// of a launch and the median of a benchmark's timed iterations.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

namespace scankit_bench {

extern const char* const build_commit;  // generated build_info.cpp

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();
    throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                             cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
  }
}

#define BENCH_CHECK(call) ::scankit_bench::check_cuda((call), #call, __FILE__, __LINE__)

// The GPU a benchmark binary times on: device 0, a non-blocking stream and two timing events.
// open() also records the GPU, the CUDA versions and the commit measured (SCANKIT_COMMIT, else the
// build's) in the JSON context, and prints them on stderr.
struct gpu_session {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaDeviceProp prop{};
  int runtime_version = 0, driver_version = 0;
  std::string commit;

  void open(const char* bench_name) {
    int count = 0;
    BENCH_CHECK(cudaGetDeviceCount(&count));
    if (count == 0) throw std::runtime_error("no CUDA device");
    BENCH_CHECK(cudaSetDevice(0));
    BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
    BENCH_CHECK(cudaRuntimeGetVersion(&runtime_version));
    BENCH_CHECK(cudaDriverGetVersion(&driver_version));
    BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    BENCH_CHECK(cudaEventCreate(&start));
    BENCH_CHECK(cudaEventCreate(&stop));
    const char* given = std::getenv("SCANKIT_COMMIT");
    commit = given != nullptr && *given != '\0' ? given : build_commit;
    benchmark::AddCustomContext("gpu", prop.name);
    benchmark::AddCustomContext("gpu_sms", std::to_string(prop.multiProcessorCount));
    benchmark::AddCustomContext("gpu_l2_bytes", std::to_string(prop.l2CacheSize));
    benchmark::AddCustomContext("gpu_memory_bytes", std::to_string(prop.totalGlobalMem));
    benchmark::AddCustomContext("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
    benchmark::AddCustomContext("cuda_runtime_version", std::to_string(runtime_version));
    benchmark::AddCustomContext("cuda_driver_version", std::to_string(driver_version));
    benchmark::AddCustomContext("scankit_commit", commit);
    benchmark::AddCustomContext("scankit_build_commit", build_commit);
    std::fprintf(stderr, "%s: %s, %d SMs, L2 %d bytes, %.1f GiB, sm_%d%d, CUDA runtime %d, driver %d, commit %s\n",
                 bench_name, prop.name, prop.multiProcessorCount, prop.l2CacheSize,
                 static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), prop.major, prop.minor,
                 runtime_version, driver_version, commit.c_str());
  }

  // Blocks of 256 threads for a helper kernel (fills, checks) over n items: one per 256 items, at
  // most 8 per SM.
  int helper_grid(long long n) const {
    const long long blocks = (n + 255) / 256;
    return static_cast<int>(std::max<long long>(1, std::min<long long>(blocks, 8LL * prop.multiProcessorCount)));
  }

  void close() noexcept {
    if (start != nullptr) (void)cudaEventDestroy(start);
    if (stop != nullptr) (void)cudaEventDestroy(stop);
    if (stream != nullptr) (void)cudaStreamDestroy(stream);
    start = stop = nullptr;
    stream = nullptr;
  }
};

// SplitMix64's finaliser: a well-mixed 64-bit value from a counter.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void bitwise_mismatch_kernel(const T* a, const T* b, std::int64_t n, unsigned long long* count) {
  using bits = std::conditional_t<sizeof(T) == 1, std::uint8_t,
               std::conditional_t<sizeof(T) == 2, std::uint16_t,
               std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  unsigned long long bad = 0;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    bits x, y;
    memcpy(&x, &a[i], sizeof(T));
    memcpy(&y, &b[i], sizeof(T));
    if (x != y) ++bad;
  }
  if (bad) atomicAdd(count, bad);
}

// How many of a[i], b[i] (i < n, device arrays) differ bit for bit (so NaNs compare by payload and
// -0.0 differs from +0.0). `counter`: one device word the call may overwrite. Waits for `stream`.
template <class T>
unsigned long long bitwise_mismatches(const T* a, const T* b, std::int64_t n, unsigned long long* counter,
                                      cudaStream_t stream) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "1-, 2-, 4- or 8-byte items");
  check_cuda(cudaMemsetAsync(counter, 0, sizeof(*counter), stream), "cudaMemsetAsync", __FILE__, __LINE__);
  bitwise_mismatch_kernel<T><<<2048, 256, 0, stream>>>(a, b, n, counter);
  check_cuda(cudaGetLastError(), "bitwise_mismatch_kernel", __FILE__, __LINE__);
  unsigned long long bad = 0;
  check_cuda(cudaMemcpyAsync(&bad, counter, sizeof(bad), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync",
             __FILE__, __LINE__);
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__);
  return bad;
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

// The summary a benchmark prints after its rows: the row name, then its measured values under the
// columns (or the error that skipped it) and an optional note. Returns the number of failed rows.
// An anchor row's times (copy, CUB), one per repetition: the rows after it divide by their
// median, since Google Benchmark runs a row's repetitions back to back and the last one alone
// would carry its own noise into every ratio.
struct anchor_times {
  std::vector<double> reps;
  void add(double ms) { reps.push_back(ms); }
  double median() const {
    if (reps.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> v = reps;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  }
};

struct summary_column {
  const char* title;
  int width;
  int precision;
  char format = 'f';  // 'f' or 'e'
};
struct summary_row {
  std::string name;
  std::vector<double> values;
  std::string error, note;
};

inline int print_summary_table(int name_width, const std::vector<summary_column>& columns,
                               const std::vector<summary_row>& rows) {
  std::printf("\n%-*s", name_width, "row");
  for (const summary_column& c : columns) std::printf(" %*s", c.width, c.title);
  std::printf("\n");
  int failed = 0;
  for (const summary_row& r : rows) {
    std::printf("%-*s", name_width, r.name.c_str());
    if (!r.error.empty()) {
      std::printf(" FAILED: %s\n", r.error.c_str());
      ++failed;
      continue;
    }
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const double v = i < r.values.size() ? r.values[i] : std::numeric_limits<double>::quiet_NaN();
      std::printf(columns[i].format == 'e' ? " %*.*e" : " %*.*f", columns[i].width, columns[i].precision, v);
    }
    std::printf(r.note.empty() ? "\n" : "  %s\n", r.note.c_str());
  }
  return failed;
}

}  // namespace scankit_bench
