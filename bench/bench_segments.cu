// bench_segments: segmented scans and reductions on the GPU — scankit against CUB and the copy
// ceiling.
//
// Workloads (Google Benchmark names <workload>/<row>; n = 2^28):
//   sum_len1000, sum_len8     inclusive segmented sums of int32 values 0..15, segments of random
//                             length (a head with probability 1/1000, 1/8)
//   reduce_i32, reduce_f32    the sum of int32 values 0..15 / of floats in [0, 1)
//   argmin_f32                arg-min of floats in [0, 1)
//   rbk_len8                  reduce-by-key: uint32 keys in runs of random length (mean 8), float
//                             values in [0, 1), summed
// Rows:
//   copy                 cudaMemcpyAsync D2D of the values (8 bytes per item: the copy ceiling)
//   cub_by_key           cub::DeviceScan::InclusiveSumByKey with uint32 keys (the segment ids)
//   scankit_flags        scankit::device::inclusive_segmented_scan with uint8 head flags
//   scankit_by_key       scankit::device::inclusive_scan_by_key with CUB's uint32 keys
//   cub                  cub::DeviceReduce::Sum / ArgMin / ReduceByKey
//   scankit              scankit::device::sum / arg_min / reduce_by_key
// Counters: ms (median), Gitems_per_s, frac_copy (the bytes the row must move, at the copy's
// bandwidth, over its time: 12 bytes per item by key, 9 by flags, 4 for a reduction, 8 plus
// 8 per run for reduce-by-key), vs_cub
// (CUB time / this time).
// Correctness guard: every scankit row's output is compared with CUB's on the device first
// (float sums: to a relative 1e-5, their association differs).
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include "scankit/device/reduce.cuh"
#include "scankit/device/reduce_by_key.cuh"
#include "scankit/device/segmented_scan.cuh"
#include "scankit/workspace.hpp"

namespace scankit_bench {
extern const char* const build_commit;
}

namespace {

using i64 = std::int64_t;
using scankit_bench::mix64;


cudaStream_t g_stream = nullptr;
cudaEvent_t g_start = nullptr, g_stop = nullptr;
unsigned long long* g_mismatches = nullptr;
scankit::workspace* g_ws = nullptr;

// values 0..15; flags[i] = 1 with probability 1 / mean_length (and at 0); keys[i] = flags[i] too,
// scanned into segment ids afterwards.
__global__ void fill_kernel(std::int32_t* values, std::uint8_t* flags, std::uint32_t* keys, i64 n, unsigned mean_length) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix64(static_cast<std::uint64_t>(i) * 31 + mean_length);
    values[i] = static_cast<std::int32_t>(r & 15);
    const std::uint8_t head = (i == 0 || (r >> 20) % mean_length == 0) ? 1 : 0;
    flags[i] = head;
    keys[i] = head;
  }
}

__global__ void compare_kernel(const std::int32_t* a, const std::int32_t* b, i64 n, unsigned long long* mismatches) {
  unsigned long long bad = 0;
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) bad += a[i] != b[i];
  if (bad != 0) atomicAdd(mismatches, bad);
}

struct workload_data {
  i64 n = 0;
  std::int32_t* values = nullptr;
  std::uint8_t* flags = nullptr;
  std::uint32_t* keys = nullptr;
  std::int32_t* cub_out = nullptr;
  std::int32_t* our_out = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  ~workload_data() {
    for (void* p : {static_cast<void*>(values), static_cast<void*>(flags), static_cast<void*>(keys),
                    static_cast<void*>(cub_out), static_cast<void*>(our_out), temp}) {
      if (p) (void)cudaFree(p);
    }
  }
};

std::unique_ptr<workload_data> g_current;
std::string g_current_name;

struct anchors {
  double copy_ms = 0, cub_ms = 0;
};
std::map<std::string, anchors> g_anchors;

struct summary_row {
  std::string name;
  double ms, gitems, frac_copy, vs_cub;
  std::string error;
};
std::vector<summary_row> g_summary;


workload_data& data_for(const std::string& workload, i64 n, unsigned mean_length) {
  if (g_current && g_current_name == workload) return *g_current;
  g_current.reset();
  auto d = std::make_unique<workload_data>();
  d->n = n;
  BENCH_CHECK(cudaMalloc(&d->values, n * sizeof(std::int32_t)));
  BENCH_CHECK(cudaMalloc(&d->flags, n));
  BENCH_CHECK(cudaMalloc(&d->keys, n * sizeof(std::uint32_t)));
  BENCH_CHECK(cudaMalloc(&d->cub_out, n * sizeof(std::int32_t)));
  BENCH_CHECK(cudaMalloc(&d->our_out, n * sizeof(std::int32_t)));
  fill_kernel<<<1024, 256, 0, g_stream>>>(d->values, d->flags, d->keys, n, mean_length);
  BENCH_CHECK(cudaGetLastError());
  thrust::inclusive_scan(thrust::cuda::par.on(g_stream), d->keys, d->keys + n, d->keys);  // segment ids
  BENCH_CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, d->temp_bytes, d->keys, d->values, d->cub_out, n,
                                                 cuda::std::equal_to<>{}, g_stream));
  BENCH_CHECK(cudaMalloc(&d->temp, d->temp_bytes + 1));
  BENCH_CHECK(cudaStreamSynchronize(g_stream));
  g_current = std::move(d);
  g_current_name = workload;
  return *g_current;
}

void run_row(benchmark::State& state, const std::string& workload, const std::string& row, i64 n, unsigned mean_length) {
  workload_data& d = data_for(workload, n, mean_length);
  std::function<void()> launch;
  double bytes_per_item = 8;
  if (row == "copy") {
    launch = [&d, n] {
      BENCH_CHECK(cudaMemcpyAsync(d.our_out, d.values, n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, g_stream));
    };
  } else if (row == "cub_by_key") {
    bytes_per_item = 12;
    launch = [&d, n] {
      BENCH_CHECK(cub::DeviceScan::InclusiveSumByKey(d.temp, d.temp_bytes, d.keys, d.values, d.cub_out, n,
                                                     cuda::std::equal_to<>{}, g_stream));
    };
  } else if (row == "scankit_flags") {
    bytes_per_item = 9;
    launch = [&d, n] {
      scankit::device::inclusive_segmented_scan(d.values, d.flags, d.our_out, n, scankit::plus_op{}, g_stream, g_ws);
    };
  } else if (row == "scankit_by_key") {
    bytes_per_item = 12;
    launch = [&d, n] {
      scankit::device::inclusive_scan_by_key(d.keys, d.values, d.our_out, n, scankit::plus_op{}, scankit::equal_to_op{},
                                             g_stream, g_ws);
    };
  }
  if (row.rfind("scankit", 0) == 0) {  // correctness guard against CUB's result
    BENCH_CHECK(cub::DeviceScan::InclusiveSumByKey(d.temp, d.temp_bytes, d.keys, d.values, d.cub_out, n,
                                                   cuda::std::equal_to<>{}, g_stream));
    BENCH_CHECK(cudaMemsetAsync(d.our_out, 0xA5, n * sizeof(std::int32_t), g_stream));
    launch();
    BENCH_CHECK(cudaMemsetAsync(g_mismatches, 0, sizeof(unsigned long long), g_stream));
    compare_kernel<<<1024, 256, 0, g_stream>>>(d.cub_out, d.our_out, n, g_mismatches);
    unsigned long long bad = 0;
    BENCH_CHECK(cudaMemcpyAsync(&bad, g_mismatches, sizeof(bad), cudaMemcpyDeviceToHost, g_stream));
    BENCH_CHECK(cudaStreamSynchronize(g_stream));
    if (bad != 0) {
      const std::string why = std::to_string(bad) + " items differ from CUB's";
      g_summary.push_back({workload + "/" + row, 0, 0, 0, 0, why});
      state.SkipWithError(why.c_str());
      return;
    }
  }
  const double ms = scankit_bench::timed_median_ms(state, g_stream, g_start, g_stop, launch);
  anchors& a = g_anchors[workload];
  if (row == "copy") a.copy_ms = ms;
  if (row == "cub_by_key") a.cub_ms = ms;
  const double frac_copy = a.copy_ms * (bytes_per_item / 8.0) / ms;
  state.counters["ms"] = ms;
  state.counters["Gitems_per_s"] = n / (ms * 1e-3) / 1e9;
  state.counters["frac_copy"] = frac_copy;
  state.counters["vs_cub"] = a.cub_ms / ms;
  g_summary.push_back({workload + "/" + row, ms, n / (ms * 1e-3) / 1e9, frac_copy, a.cub_ms / ms, ""});
}

// Reductions: values, CUB's and scankit's results (one item each).
__global__ void fill_reduce_kernel(std::int32_t* ints, float* floats, i64 n) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix64(static_cast<std::uint64_t>(i) ^ 0x5eedull);
    ints[i] = static_cast<std::int32_t>(r & 15);
    floats[i] = static_cast<float>(r >> 40) / 16777216.0f;
  }
}

struct reduce_data {
  i64 n = 0;
  std::int32_t* ints = nullptr;
  float* floats = nullptr;
  float* copy_target = nullptr;  // n / 2 floats
  void* results = nullptr;       // 64 bytes: CUB's at 0, scankit's at 32
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  ~reduce_data() {
    for (void* p : {static_cast<void*>(ints), static_cast<void*>(floats), static_cast<void*>(copy_target), results,
                    temp}) {
      if (p) (void)cudaFree(p);
    }
  }
};
std::unique_ptr<reduce_data> g_reduce;

reduce_data& reduce_data_for(i64 n) {
  if (g_reduce && g_reduce->n == n) return *g_reduce;
  g_current.reset();  // one workload's data at a time
  g_current_name.clear();
  g_reduce.reset();
  auto d = std::make_unique<reduce_data>();
  d->n = n;
  BENCH_CHECK(cudaMalloc(&d->ints, n * sizeof(std::int32_t)));
  BENCH_CHECK(cudaMalloc(&d->floats, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d->copy_target, n / 2 * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d->results, 64));
  fill_reduce_kernel<<<1024, 256, 0, g_stream>>>(d->ints, d->floats, n);
  BENCH_CHECK(cudaGetLastError());
  std::size_t a = 0, b = 0, c = 0;
  auto* r = static_cast<char*>(d->results);
  BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, a, d->ints, reinterpret_cast<std::int32_t*>(r), n, g_stream));
  BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, b, d->floats, reinterpret_cast<float*>(r), n, g_stream));
  BENCH_CHECK(cub::DeviceReduce::ArgMin(nullptr, c, d->floats, reinterpret_cast<float*>(r),
                                        reinterpret_cast<std::int64_t*>(r + 8), n, g_stream));
  d->temp_bytes = std::max(a, std::max(b, c));
  BENCH_CHECK(cudaMalloc(&d->temp, d->temp_bytes + 1));
  BENCH_CHECK(cudaStreamSynchronize(g_stream));
  g_reduce = std::move(d);
  return *g_reduce;
}

void run_reduce_row(benchmark::State& state, const std::string& workload, const std::string& row, i64 n) {
  reduce_data& d = reduce_data_for(n);
  auto* cub_result = static_cast<char*>(d.results);
  auto* our_result = cub_result + 32;
  const bool ints = workload == "reduce_i32";
  const bool arg = workload == "argmin_f32";
  std::function<void()> launch;
  if (row == "copy") {
    launch = [&d, n] {
      // n / 2 floats in and out: the bytes of one read of n at the copy's bandwidth.
      BENCH_CHECK(cudaMemcpyAsync(d.copy_target, d.floats, n / 2 * sizeof(float), cudaMemcpyDeviceToDevice, g_stream));
    };
  } else if (row == "cub") {
    launch = [&d, n, ints, arg, cub_result] {
      if (arg) {
        BENCH_CHECK(cub::DeviceReduce::ArgMin(d.temp, d.temp_bytes, d.floats, reinterpret_cast<float*>(cub_result),
                                              reinterpret_cast<std::int64_t*>(cub_result + 8), n, g_stream));
      } else if (ints) {
        BENCH_CHECK(cub::DeviceReduce::Sum(d.temp, d.temp_bytes, d.ints, reinterpret_cast<std::int32_t*>(cub_result), n,
                                           g_stream));
      } else {
        BENCH_CHECK(
            cub::DeviceReduce::Sum(d.temp, d.temp_bytes, d.floats, reinterpret_cast<float*>(cub_result), n, g_stream));
      }
    };
  } else {
    launch = [&d, n, ints, arg, our_result] {
      if (arg) {
        scankit::device::arg_min(d.floats, reinterpret_cast<scankit::indexed_value<float>*>(our_result), n, g_stream,
                                 g_ws);
      } else if (ints) {
        scankit::device::sum(d.ints, reinterpret_cast<std::int32_t*>(our_result), n, g_stream, g_ws);
      } else {
        scankit::device::sum(d.floats, reinterpret_cast<float*>(our_result), n, g_stream, g_ws);
      }
    };
    // Correctness guard against CUB's result.
    std::vector<char> results(64);
    BENCH_CHECK(cudaMemsetAsync(d.results, 0xA5, 64, g_stream));
    if (arg) {
      BENCH_CHECK(cub::DeviceReduce::ArgMin(d.temp, d.temp_bytes, d.floats, reinterpret_cast<float*>(cub_result),
                                            reinterpret_cast<std::int64_t*>(cub_result + 8), n, g_stream));
    } else if (ints) {
      BENCH_CHECK(cub::DeviceReduce::Sum(d.temp, d.temp_bytes, d.ints, reinterpret_cast<std::int32_t*>(cub_result), n,
                                         g_stream));
    } else {
      BENCH_CHECK(
          cub::DeviceReduce::Sum(d.temp, d.temp_bytes, d.floats, reinterpret_cast<float*>(cub_result), n, g_stream));
    }
    launch();
    BENCH_CHECK(cudaMemcpyAsync(results.data(), d.results, 64, cudaMemcpyDeviceToHost, g_stream));
    BENCH_CHECK(cudaStreamSynchronize(g_stream));
    std::string why;
    if (arg) {
      float cub_value, our_value;
      std::int64_t cub_index, our_index;
      std::memcpy(&cub_value, results.data(), 4);
      std::memcpy(&cub_index, results.data() + 8, 8);
      std::memcpy(&our_index, results.data() + 32, 8);
      std::memcpy(&our_value, results.data() + 40, 4);
      if (cub_index != our_index || cub_value != our_value) {
        why = "arg-min " + std::to_string(our_index) + " differs from CUB's " + std::to_string(cub_index);
      }
    } else if (ints) {
      std::int32_t a, b;
      std::memcpy(&a, results.data(), 4);
      std::memcpy(&b, results.data() + 32, 4);
      if (a != b) why = "sum " + std::to_string(b) + " differs from CUB's " + std::to_string(a);
    } else {
      float a, b;
      std::memcpy(&a, results.data(), 4);
      std::memcpy(&b, results.data() + 32, 4);
      if (!(std::fabs(a - b) <= 1e-5f * std::fabs(a))) why = "sum " + std::to_string(b) + " differs from CUB's " + std::to_string(a);
    }
    if (!why.empty()) {
      g_summary.push_back({workload + "/" + row, 0, 0, 0, 0, why});
      state.SkipWithError(why.c_str());
      return;
    }
  }
  const double ms = scankit_bench::timed_median_ms(state, g_stream, g_start, g_stop, launch);
  anchors& a = g_anchors[workload];
  if (row == "copy") a.copy_ms = ms;
  if (row == "cub") a.cub_ms = ms;
  const double frac_copy = a.copy_ms / ms;
  state.counters["ms"] = ms;
  state.counters["Gitems_per_s"] = n / (ms * 1e-3) / 1e9;
  state.counters["frac_copy"] = frac_copy;
  state.counters["vs_cub"] = a.cub_ms / ms;
  g_summary.push_back({workload + "/" + row, ms, n / (ms * 1e-3) / 1e9, frac_copy, a.cub_ms / ms, ""});
}

// Reduce-by-key: keys (segment ids of runs of mean 8), values, CUB's and scankit's outputs.
__global__ void fill_rbk_kernel(std::uint32_t* keys, float* values, i64 n) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix64(static_cast<std::uint64_t>(i) ^ 0xb7ull);
    keys[i] = (i == 0 || (r >> 20) % 8 == 0) ? 1u : 0u;
    values[i] = static_cast<float>(r >> 40) / 16777216.0f;
  }
}

__global__ void compare_runs_kernel(const std::uint32_t* ka, const float* va, const std::uint32_t* kb, const float* vb,
                                    const std::int64_t* runs, unsigned long long* mismatches) {
  unsigned long long bad = 0;
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < *runs; i += stride) {
    bad += ka[i] != kb[i] || !(fabsf(va[i] - vb[i]) <= 1e-5f * fabsf(va[i]) + 1e-6f);
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

struct rbk_data {
  i64 n = 0;
  std::uint32_t* keys = nullptr;
  float* values = nullptr;
  std::uint32_t* keys_out[2] = {nullptr, nullptr};  // CUB, scankit
  float* values_out[2] = {nullptr, nullptr};
  std::int64_t* runs = nullptr;                     // [0] CUB, [1] scankit
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  ~rbk_data() {
    for (void* p : {static_cast<void*>(keys), static_cast<void*>(values), static_cast<void*>(keys_out[0]),
                    static_cast<void*>(keys_out[1]), static_cast<void*>(values_out[0]), static_cast<void*>(values_out[1]),
                    static_cast<void*>(runs), temp}) {
      if (p) (void)cudaFree(p);
    }
  }
};
std::unique_ptr<rbk_data> g_rbk;

rbk_data& rbk_data_for(i64 n) {
  if (g_rbk && g_rbk->n == n) return *g_rbk;
  g_current.reset();
  g_current_name.clear();
  g_reduce.reset();
  auto d = std::make_unique<rbk_data>();
  d->n = n;
  BENCH_CHECK(cudaMalloc(&d->keys, n * sizeof(std::uint32_t)));
  BENCH_CHECK(cudaMalloc(&d->values, n * sizeof(float)));
  for (int s = 0; s < 2; ++s) {
    BENCH_CHECK(cudaMalloc(&d->keys_out[s], n * sizeof(std::uint32_t)));
    BENCH_CHECK(cudaMalloc(&d->values_out[s], n * sizeof(float)));
  }
  BENCH_CHECK(cudaMalloc(&d->runs, 2 * sizeof(std::int64_t)));
  fill_rbk_kernel<<<1024, 256, 0, g_stream>>>(d->keys, d->values, n);
  BENCH_CHECK(cudaGetLastError());
  thrust::inclusive_scan(thrust::cuda::par.on(g_stream), d->keys, d->keys + n, d->keys);  // run ids
  BENCH_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, d->temp_bytes, d->keys, d->keys_out[0], d->values,
                                             d->values_out[0], d->runs, cuda::std::plus<>{}, n, g_stream));
  BENCH_CHECK(cudaMalloc(&d->temp, d->temp_bytes + 1));
  BENCH_CHECK(cudaStreamSynchronize(g_stream));
  g_rbk = std::move(d);
  return *g_rbk;
}

void run_rbk_row(benchmark::State& state, const std::string& workload, const std::string& row, i64 n) {
  rbk_data& d = rbk_data_for(n);
  std::function<void()> launch;
  const auto cub_launch = [&d, n] {
    BENCH_CHECK(cub::DeviceReduce::ReduceByKey(d.temp, d.temp_bytes, d.keys, d.keys_out[0], d.values, d.values_out[0],
                                               d.runs, cuda::std::plus<>{}, n, g_stream));
  };
  if (row == "copy") {
    launch = [&d, n] {
      BENCH_CHECK(cudaMemcpyAsync(d.values_out[1], d.values, n * sizeof(float), cudaMemcpyDeviceToDevice, g_stream));
    };
  } else if (row == "cub") {
    launch = cub_launch;
  } else {
    launch = [&d, n] {
      scankit::device::reduce_by_key(d.keys, d.values, d.keys_out[1], d.values_out[1], d.runs + 1, n, scankit::plus_op{},
                                     scankit::equal_to_op{}, g_stream, g_ws);
    };
    cub_launch();
    BENCH_CHECK(cudaMemsetAsync(d.keys_out[1], 0xA5, n * sizeof(std::uint32_t), g_stream));
    launch();
    std::int64_t runs[2];
    BENCH_CHECK(cudaMemcpyAsync(runs, d.runs, sizeof(runs), cudaMemcpyDeviceToHost, g_stream));
    BENCH_CHECK(cudaMemsetAsync(g_mismatches, 0, sizeof(unsigned long long), g_stream));
    compare_runs_kernel<<<1024, 256, 0, g_stream>>>(d.keys_out[0], d.values_out[0], d.keys_out[1], d.values_out[1],
                                                    d.runs, g_mismatches);
    unsigned long long bad = 0;
    BENCH_CHECK(cudaMemcpyAsync(&bad, g_mismatches, sizeof(bad), cudaMemcpyDeviceToHost, g_stream));
    BENCH_CHECK(cudaStreamSynchronize(g_stream));
    if (runs[0] != runs[1] || bad != 0) {
      const std::string why = std::to_string(runs[1]) + " runs (CUB " + std::to_string(runs[0]) + "), " +
                              std::to_string(bad) + " differ";
      g_summary.push_back({workload + "/" + row, 0, 0, 0, 0, why});
      state.SkipWithError(why.c_str());
      return;
    }
  }
  const double ms = scankit_bench::timed_median_ms(state, g_stream, g_start, g_stop, launch);
  anchors& a = g_anchors[workload];
  if (row == "copy") a.copy_ms = ms;
  if (row == "cub") a.cub_ms = ms;
  const double frac_copy = row == "copy" ? 1.0 : a.copy_ms * (8.0 + 8.0 / 8.0) / 8.0 / ms;  // about 1/8 of items end a run
  state.counters["ms"] = ms;
  state.counters["Gitems_per_s"] = n / (ms * 1e-3) / 1e9;
  state.counters["frac_copy"] = frac_copy;
  state.counters["vs_cub"] = a.cub_ms / ms;
  g_summary.push_back({workload + "/" + row, ms, n / (ms * 1e-3) / 1e9, frac_copy, a.cub_ms / ms, ""});
}

void add_reduce_workload(const std::string& name, i64 n) {
  for (const char* row : {"copy", "cub", "scankit"}) {
    const std::string r = row;
    benchmark::RegisterBenchmark((name + "/" + r).c_str(),
                                 [name, r, n](benchmark::State& s) {
                                   try {
                                     if (name == "rbk_len8") {
                                       run_rbk_row(s, name, r, n);
                                     } else {
                                       run_reduce_row(s, name, r, n);
                                     }
                                   } catch (const std::exception& e) {
                                     g_summary.push_back({name + "/" + r, 0, 0, 0, 0, e.what()});
                                     s.SkipWithError(e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(50);
  }
}

void add_workload(const std::string& name, i64 n, unsigned mean_length) {
  for (const char* row : {"copy", "cub_by_key", "scankit_flags", "scankit_by_key"}) {
    const std::string r = row;
    benchmark::RegisterBenchmark((name + "/" + r).c_str(),
                                 [name, r, n, mean_length](benchmark::State& s) {
                                   try {
                                     run_row(s, name, r, n, mean_length);
                                   } catch (const std::exception& e) {
                                     g_summary.push_back({name + "/" + r, 0, 0, 0, 0, e.what()});
                                     s.SkipWithError(e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(20);
  }
}

void register_all() {
  const i64 big = i64{1} << 28;
  add_workload("sum_len1000", big, 1000);
  add_workload("sum_len8", big, 8);
  add_reduce_workload("reduce_i32", big);
  add_reduce_workload("reduce_f32", big);
  add_reduce_workload("argmin_f32", big);
  add_reduce_workload("rbk_len8", big);
}

void setup_gpu() {
  BENCH_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  BENCH_CHECK(cudaEventCreate(&g_start));
  BENCH_CHECK(cudaEventCreate(&g_stop));
  BENCH_CHECK(cudaMalloc(&g_mismatches, sizeof(unsigned long long)));
  g_ws = new scankit::workspace();
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  benchmark::AddCustomContext("gpu", prop.name);
  benchmark::AddCustomContext("scankit_commit", scankit_bench::build_commit);
}

int print_summary() {
  int failed = 0;
  std::printf("\n%-36s %10s %12s %10s %8s\n", "row", "ms", "Gitems/s", "of copy", "vs CUB");
  for (const summary_row& r : g_summary) {
    if (!r.error.empty()) {
      std::printf("%-36s FAILED: %s\n", r.name.c_str(), r.error.c_str());
      ++failed;
      continue;
    }
    std::printf("%-36s %10.4f %12.2f %10.3f %8.3f\n", r.name.c_str(), r.ms, r.gitems, r.frac_copy, r.vs_cub);
  }
  return failed;
}

void teardown_gpu() {
  g_current.reset();
  g_reduce.reset();
  g_rbk.reset();
  g_ws->release();
  delete g_ws;
  (void)cudaFree(g_mismatches);
  (void)cudaStreamDestroy(g_stream);
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(
      argc, argv, {"bench_segments", register_all, setup_gpu, print_summary, teardown_gpu});
}
