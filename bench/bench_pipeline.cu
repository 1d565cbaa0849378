// bench_pipeline: a pipeline whose counts stay on the GPU against the same pipeline with host
// counts, and against CUB with host counts (as CUB's users must write it).
//
// The pipeline (n = 2^26, 2^20 and 2^16 (key, value) items; keys uint32 below 2^20, values int32,
// half flagged):
//   select_flagged keys and values -> k kept items; sort_pairs of the k items by key; unique of the
//   sorted keys -> u; reduce_by_key -> r run sums; inclusive_scan_by_key (running sums per key);
//   exclusive_scan of the r run sums.
// Rows (Google Benchmark names pipeline/2^<log2 n>/<row>):
//   scankit_graph          the pipeline with device counts (scankit::device_n), captured once into
//                          a CUDA graph; each iteration is one graph launch
//   scankit_device_counts  the same calls with device counts, enqueued one by one (no graph)
//   scankit_host_counts    the same calls with host counts: each count is copied to the host and
//                          waited for (select_flagged_count_host, unique_count_host, and the run
//                          count after reduce_by_key) before the next call is sized
//   cub_host_counts        cub::DeviceSelect::Flagged (x2), DeviceRadixSort::SortPairs,
//                          DeviceSelect::Unique, DeviceReduce::ReduceByKey,
//                          DeviceScan::InclusiveSumByKey and ExclusiveSum, each count copied to the
//                          host and waited for; CUB's temporary storage is allocated once, before
//                          timing, at the size its largest call asks for
//   thrust_host_counts     thrust::copy_if (x2, by the flags), sort_by_key (in place), unique_copy,
//                          reduce_by_key, inclusive_scan_by_key and exclusive_scan on the stream
//                          (thrust::cuda::par.on): the counts come back as iterators, and Thrust
//                          takes its temporary storage per call
// each step of the 2^26 pipeline alone (step/<call>/<scankit|cub>: scankit with device counts, CUB
// with host counts known before timing), and per-call overhead at 2^16 items (overhead/<call>/<count form>): inclusive_scan, select_flagged
// and sort_pairs with a host count and with a device count.
// Counters: ms (median of one iteration). The summary adds vs_host (scankit_host_counts time / this
// time), vs_cub and vs_thrust (the same for their rows); on the overhead rows vs_host is the
// host-count call's time over this one.
// Correctness guard: every pipeline row runs once before timing on poisoned outputs and its counts
// and its run sums and running sums are compared on the device with CUB's; a mismatch skips the
// row and makes the exit status 1.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include "scankit/compact.hpp"
#include "scankit/device_n.hpp"
#include "scankit/reduce_by_key.hpp"
#include "scankit/scan.hpp"
#include "scankit/segmented_scan.hpp"
#include "scankit/sort.hpp"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;
using scankit_bench::mix64;

constexpr i64 pipeline_items = i64{1} << 26;  // the largest size; also 2^20 and 2^16
constexpr int pipeline_log2_sizes[] = {26, 20, 16};
constexpr i64 overhead_items = i64{1} << 16;

scankit_bench::gpu_session g_gpu;

template <class T>
struct device_array {
  T* data = nullptr;
  void allocate(i64 n) { BENCH_CHECK(cudaMalloc(&data, static_cast<std::size_t>(n) * sizeof(T))); }
  void release() {
    if (data != nullptr) (void)cudaFree(data);
    data = nullptr;
  }
  void poison(i64 n, cudaStream_t stream) {
    BENCH_CHECK(cudaMemsetAsync(data, 0xA5, static_cast<std::size_t>(n) * sizeof(T), stream));
  }
};

// The pipeline's arrays (one set per implementation, so their results can be compared).
struct pipeline_arrays {
  device_array<std::uint32_t> kept_keys, sorted_keys, distinct, run_keys;
  device_array<std::int32_t> kept_values, sorted_values, run_sums, running, run_starts;
  device_array<i64> counts;  // kept, kept (values), distinct, runs
  void allocate(i64 n) {
    for (auto* a : {&kept_keys, &sorted_keys, &distinct, &run_keys}) a->allocate(n);
    for (auto* a : {&kept_values, &sorted_values, &run_sums, &running, &run_starts}) a->allocate(n);
    counts.allocate(4);
  }
  void release() {
    for (auto* a : {&kept_keys, &sorted_keys, &distinct, &run_keys}) a->release();
    for (auto* a : {&kept_values, &sorted_values, &run_sums, &running, &run_starts}) a->release();
    counts.release();
  }
  void poison(i64 n, cudaStream_t stream) {
    for (auto* a : {&kept_keys, &sorted_keys, &distinct, &run_keys}) a->poison(n, stream);
    for (auto* a : {&kept_values, &sorted_values, &run_sums, &running, &run_starts}) a->poison(n, stream);
    counts.poison(4, stream);
  }
};

device_array<std::uint32_t> g_keys;
device_array<std::int32_t> g_values;
device_array<std::uint8_t> g_flags;
pipeline_arrays g_scankit, g_cub, g_thrust;
scankit::workspace g_ws;
void* g_cub_temp = nullptr;
std::size_t g_cub_temp_bytes = 0;
unsigned long long* g_mismatch = nullptr;
i64* g_overhead_n = nullptr;  // device: holds overhead_items
std::map<i64, cudaGraphExec_t> g_graphs;  // the captured pipeline of each size

__global__ void fill_inputs_kernel(std::uint32_t* keys, std::int32_t* values, std::uint8_t* flags, i64 n) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix64(static_cast<std::uint64_t>(i) ^ 0x5eedull);
    keys[i] = static_cast<std::uint32_t>(r & 0xFFFFFu);
    values[i] = static_cast<std::int32_t>((r >> 20) % 2001) - 1000;
    flags[i] = static_cast<std::uint8_t>((r >> 40) & 1u);
  }
}

// ------------------------------------------------------------------------------------------
// The four ways to run the pipeline over n items.

void scankit_device_counts(pipeline_arrays& a, i64 n, cudaStream_t stream) {
  i64* kept = a.counts.data;
  scankit::select_flagged(g_keys.data, g_flags.data, a.kept_keys.data, kept, n, stream, &g_ws);
  scankit::select_flagged(g_values.data, g_flags.data, a.kept_values.data, a.counts.data + 1, n, stream, &g_ws);
  const scankit::device_n k{kept, n};
  scankit::sort_pairs(a.kept_keys.data, a.sorted_keys.data, a.kept_values.data, a.sorted_values.data, k, stream, &g_ws);
  scankit::unique(a.sorted_keys.data, a.distinct.data, a.counts.data + 2, k, stream, &g_ws);
  scankit::reduce_by_key(a.sorted_keys.data, a.sorted_values.data, a.run_keys.data, a.run_sums.data, a.counts.data + 3,
                         k, scankit::scan_op::plus, stream, &g_ws);
  scankit::inclusive_scan_by_key(a.sorted_keys.data, a.sorted_values.data, a.running.data, k, scankit::scan_op::plus,
                                 stream, &g_ws);
  scankit::exclusive_scan(a.run_sums.data, a.run_starts.data, scankit::device_n{a.counts.data + 3, n},
                          std::int32_t{0}, scankit::scan_op::plus, stream, &g_ws);
}

i64 count_to_host(const i64* d_count, cudaStream_t stream) {
  i64 count = 0;
  BENCH_CHECK(cudaMemcpyAsync(&count, d_count, sizeof(count), cudaMemcpyDeviceToHost, stream));
  BENCH_CHECK(cudaStreamSynchronize(stream));
  return count;
}

void scankit_host_counts(pipeline_arrays& a, i64 n, cudaStream_t stream) {
  const i64 k = scankit::select_flagged_count_host(g_keys.data, g_flags.data, a.kept_keys.data, n, stream, &g_ws);
  scankit::select_flagged_count_host(g_values.data, g_flags.data, a.kept_values.data, n, stream, &g_ws);
  scankit::sort_pairs(a.kept_keys.data, a.sorted_keys.data, a.kept_values.data, a.sorted_values.data, k, stream, &g_ws);
  scankit::unique_count_host(a.sorted_keys.data, a.distinct.data, k, stream, &g_ws);
  scankit::reduce_by_key(a.sorted_keys.data, a.sorted_values.data, a.run_keys.data, a.run_sums.data, a.counts.data + 3,
                         k, scankit::scan_op::plus, stream, &g_ws);
  const i64 r = count_to_host(a.counts.data + 3, stream);
  scankit::inclusive_scan_by_key(a.sorted_keys.data, a.sorted_values.data, a.running.data, k, scankit::scan_op::plus,
                                 stream, &g_ws);
  scankit::exclusive_scan(a.run_sums.data, a.run_starts.data, r, std::int32_t{0}, scankit::scan_op::plus, stream,
                          &g_ws);
}

// temp == nullptr: only asks each call for its temporary storage (the largest goes to *bytes).
void cub_host_counts(pipeline_arrays& a, i64 n, cudaStream_t stream, void* temp, std::size_t* bytes) {
  std::size_t need = 0;
  const auto call = [&](auto&& f) {
    std::size_t b = temp == nullptr ? 0 : g_cub_temp_bytes;
    BENCH_CHECK(f(b));
    need = std::max(need, b);
  };
  const bool sizing = temp == nullptr;
  const auto counted = [&](const i64* d, i64 bound) { return sizing ? bound : count_to_host(d, stream); };
  call([&](std::size_t& b) {
    return cub::DeviceSelect::Flagged(temp, b, g_keys.data, g_flags.data, a.kept_keys.data, a.counts.data, n, stream);
  });
  const i64 k = counted(a.counts.data, n);
  call([&](std::size_t& b) {
    return cub::DeviceSelect::Flagged(temp, b, g_values.data, g_flags.data, a.kept_values.data, a.counts.data + 1, n,
                                      stream);
  });
  call([&](std::size_t& b) {
    return cub::DeviceRadixSort::SortPairs(temp, b, a.kept_keys.data, a.sorted_keys.data, a.kept_values.data,
                                           a.sorted_values.data, k, 0, 32, stream);
  });
  call([&](std::size_t& b) {
    return cub::DeviceSelect::Unique(temp, b, a.sorted_keys.data, a.distinct.data, a.counts.data + 2, k, stream);
  });
  if (!sizing) (void)count_to_host(a.counts.data + 2, stream);
  call([&](std::size_t& b) {
    return cub::DeviceReduce::ReduceByKey(temp, b, a.sorted_keys.data, a.run_keys.data, a.sorted_values.data,
                                          a.run_sums.data, a.counts.data + 3, ::cuda::std::plus<>{}, k, stream);
  });
  const i64 r = counted(a.counts.data + 3, n);
  call([&](std::size_t& b) {
    return cub::DeviceScan::InclusiveSumByKey(temp, b, a.sorted_keys.data, a.sorted_values.data, a.running.data, k,
                                              ::cuda::std::equal_to<>{}, stream);
  });
  call([&](std::size_t& b) { return cub::DeviceScan::ExclusiveSum(temp, b, a.run_sums.data, a.run_starts.data, r, stream); });
  if (bytes != nullptr) *bytes = need;
}

struct is_set {
  __host__ __device__ bool operator()(std::uint8_t flag) const { return flag != 0; }
};

void thrust_host_counts(pipeline_arrays& a, i64 n, cudaStream_t stream) {
  const auto policy = thrust::cuda::par.on(stream);
  std::uint32_t* kept_keys_end = thrust::copy_if(policy, g_keys.data, g_keys.data + n, g_flags.data, a.kept_keys.data,
                                                 is_set{});
  const i64 k = kept_keys_end - a.kept_keys.data;
  thrust::copy_if(policy, g_values.data, g_values.data + n, g_flags.data, a.kept_values.data, is_set{});
  thrust::sort_by_key(policy, a.kept_keys.data, a.kept_keys.data + k, a.kept_values.data);  // sorted in place
  thrust::unique_copy(policy, a.kept_keys.data, a.kept_keys.data + k, a.distinct.data);
  const auto ends = thrust::reduce_by_key(policy, a.kept_keys.data, a.kept_keys.data + k, a.kept_values.data,
                                          a.run_keys.data, a.run_sums.data);
  const i64 r = ends.first - a.run_keys.data;
  thrust::inclusive_scan_by_key(policy, a.kept_keys.data, a.kept_keys.data + k, a.kept_values.data, a.running.data);
  thrust::exclusive_scan(policy, a.run_sums.data, a.run_sums.data + r, a.run_starts.data);
  // The sorted items and the counts where the comparison with CUB looks for them.
  BENCH_CHECK(cudaMemcpyAsync(a.sorted_keys.data, a.kept_keys.data, static_cast<std::size_t>(k) * sizeof(std::uint32_t),
                              cudaMemcpyDeviceToDevice, stream));
  BENCH_CHECK(cudaMemcpyAsync(a.sorted_values.data, a.kept_values.data,
                              static_cast<std::size_t>(k) * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, stream));
  const i64 counts[4] = {k, k, r, r};
  BENCH_CHECK(cudaMemcpyAsync(a.counts.data, counts, sizeof(counts), cudaMemcpyHostToDevice, stream));
  BENCH_CHECK(cudaStreamSynchronize(stream));
}

// ------------------------------------------------------------------------------------------
// Rows.

std::map<std::string, double> g_ms;
std::vector<scankit_bench::summary_row> g_rows;

// Mismatching items of `a` against CUB's results (the counts, the sorted items, the run sums,
// the running sums, the run starts); 0 when they agree. scankit's host-count row writes only the
// run count (its other counts go to the host).
unsigned long long compare_with_cub(const pipeline_arrays& a, bool all_counts) {
  cudaStream_t s = g_gpu.stream;
  unsigned long long bad =
      all_counts ? scankit_bench::bitwise_mismatches(a.counts.data, g_cub.counts.data, 4, g_mismatch, s)
                 : scankit_bench::bitwise_mismatches(a.counts.data + 3, g_cub.counts.data + 3, 1, g_mismatch, s);
  i64 counts[4];
  BENCH_CHECK(cudaMemcpy(counts, g_cub.counts.data, sizeof(counts), cudaMemcpyDeviceToHost));
  const i64 k = counts[0], r = counts[3];
  bad += scankit_bench::bitwise_mismatches(a.sorted_keys.data, g_cub.sorted_keys.data, k, g_mismatch, s);
  bad += scankit_bench::bitwise_mismatches(a.sorted_values.data, g_cub.sorted_values.data, k, g_mismatch, s);
  bad += scankit_bench::bitwise_mismatches(a.distinct.data, g_cub.distinct.data, r, g_mismatch, s);
  bad += scankit_bench::bitwise_mismatches(a.run_sums.data, g_cub.run_sums.data, r, g_mismatch, s);
  bad += scankit_bench::bitwise_mismatches(a.running.data, g_cub.running.data, k, g_mismatch, s);
  bad += scankit_bench::bitwise_mismatches(a.run_starts.data, g_cub.run_starts.data, r, g_mismatch, s);
  return bad;
}

// A failed row, reported once however many repetitions met it.
void fail_row(benchmark::State& state, const std::string& name, const std::string& why) {
  state.SkipWithError(why.c_str());
  const bool known = std::any_of(g_rows.begin(), g_rows.end(), [&](const auto& r) { return r.name == name; });
  if (!known) g_rows.push_back({name, {}, why, ""});
}

void run_row(benchmark::State& state, const std::string& name, const std::function<void()>& launch,
             const std::function<bool()>& guard) {
  try {
    if (guard && !guard()) return fail_row(state, name, "mismatch vs CUB");
    const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch);
    g_ms[name] = ms;
    state.counters["ms"] = ms;
  } catch (const std::exception& e) {
    fail_row(state, name, e.what());
  }
}

std::string pipeline_name(int log2_n, const std::string& row) {
  return "pipeline/2^" + std::to_string(log2_n) + "/" + row;
}

void pipeline_row(benchmark::State& state, int log2_n, const std::string& row) {
  const std::string name = pipeline_name(log2_n, row);
  cudaStream_t s = g_gpu.stream;
  const i64 n = i64{1} << log2_n;
  const cudaGraphExec_t graph = g_graphs[n];
  std::function<void()> launch;
  if (row == "cub_host_counts") {
    launch = [=] { cub_host_counts(g_cub, n, s, g_cub_temp, nullptr); };
  } else if (row == "thrust_host_counts") {
    launch = [=] { thrust_host_counts(g_thrust, n, s); };
  } else if (row == "scankit_graph") {
    launch = [=] { BENCH_CHECK(cudaGraphLaunch(graph, s)); };
  } else if (row == "scankit_device_counts") {
    launch = [=] { scankit_device_counts(g_scankit, n, s); };
  } else {
    launch = [=] { scankit_host_counts(g_scankit, n, s); };
  }
  const auto guard = [&]() -> bool {
    pipeline_arrays& mine = row == "cub_host_counts" ? g_cub : row == "thrust_host_counts" ? g_thrust : g_scankit;
    mine.poison(n, s);
    launch();
    BENCH_CHECK(cudaStreamSynchronize(s));
    return row == "cub_host_counts" || compare_with_cub(mine, row != "scankit_host_counts") == 0;
  };
  run_row(state, name, launch, guard);
}

// One step of the 2^26 pipeline alone, on the intermediate arrays its last run left (scankit
// with its device counts, CUB with the counts copied to the host before timing).
void step_row(benchmark::State& state, const std::string& step, bool cub) {
  const std::string name = "step/" + step + (cub ? "/cub" : "/scankit");
  cudaStream_t s = g_gpu.stream;
  const i64 n = pipeline_items;
  pipeline_arrays& a = cub ? g_cub : g_scankit;
  i64 counts[4];
  BENCH_CHECK(cudaMemcpy(counts, g_cub.counts.data, sizeof(counts), cudaMemcpyDeviceToHost));
  const i64 k = counts[0], r = counts[3];
  const scankit::device_n dk{a.counts.data, n}, dr{a.counts.data + 3, n};
  void* temp = g_cub_temp;
  std::size_t bytes = g_cub_temp_bytes;
  std::function<void()> launch;
  if (step == "select_flagged_x2") {
    launch = cub ? std::function<void()>([=]() mutable {
      BENCH_CHECK(cub::DeviceSelect::Flagged(temp, bytes, g_keys.data, g_flags.data, a.kept_keys.data, a.counts.data, n, s));
      BENCH_CHECK(cub::DeviceSelect::Flagged(temp, bytes, g_values.data, g_flags.data, a.kept_values.data,
                                             a.counts.data + 1, n, s));
    })
                 : std::function<void()>([=] {
                     scankit::select_flagged(g_keys.data, g_flags.data, a.kept_keys.data, a.counts.data, n, s, &g_ws);
                     scankit::select_flagged(g_values.data, g_flags.data, a.kept_values.data, a.counts.data + 1, n, s,
                                             &g_ws);
                   });
  } else if (step == "sort_pairs") {
    launch = cub ? std::function<void()>([=]() mutable {
      BENCH_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, a.kept_keys.data, a.sorted_keys.data, a.kept_values.data,
                                                  a.sorted_values.data, k, 0, 32, s));
    })
                 : std::function<void()>([=] {
                     scankit::sort_pairs(a.kept_keys.data, a.sorted_keys.data, a.kept_values.data, a.sorted_values.data,
                                         dk, s, &g_ws);
                   });
  } else if (step == "unique") {
    launch = cub ? std::function<void()>([=]() mutable {
      BENCH_CHECK(cub::DeviceSelect::Unique(temp, bytes, a.sorted_keys.data, a.distinct.data, a.counts.data + 2, k, s));
    })
                 : std::function<void()>([=] {
                     scankit::unique(a.sorted_keys.data, a.distinct.data, a.counts.data + 2, dk, s, &g_ws);
                   });
  } else if (step == "reduce_by_key") {
    launch = cub ? std::function<void()>([=]() mutable {
      BENCH_CHECK(cub::DeviceReduce::ReduceByKey(temp, bytes, a.sorted_keys.data, a.run_keys.data, a.sorted_values.data,
                                                 a.run_sums.data, a.counts.data + 3, ::cuda::std::plus<>{}, k, s));
    })
                 : std::function<void()>([=] {
                     scankit::reduce_by_key(a.sorted_keys.data, a.sorted_values.data, a.run_keys.data, a.run_sums.data,
                                            a.counts.data + 3, dk, scankit::scan_op::plus, s, &g_ws);
                   });
  } else if (step == "scan_by_key") {
    launch = cub ? std::function<void()>([=]() mutable {
      BENCH_CHECK(cub::DeviceScan::InclusiveSumByKey(temp, bytes, a.sorted_keys.data, a.sorted_values.data,
                                                     a.running.data, k, ::cuda::std::equal_to<>{}, s));
    })
                 : std::function<void()>([=] {
                     scankit::inclusive_scan_by_key(a.sorted_keys.data, a.sorted_values.data, a.running.data, dk,
                                                    scankit::scan_op::plus, s, &g_ws);
                   });
  } else {
    launch = cub ? std::function<void()>([=]() mutable {
      BENCH_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, a.run_sums.data, a.run_starts.data, r, s));
    })
                 : std::function<void()>([=] {
                     scankit::exclusive_scan(a.run_sums.data, a.run_starts.data, dr, std::int32_t{0},
                                             scankit::scan_op::plus, s, &g_ws);
                   });
  }
  run_row(state, name, launch, {});
}

// Per-call overhead at 2^16: a host count against a device count holding the same value.
void overhead_row(benchmark::State& state, const std::string& call, bool device_count) {
  const std::string name = "overhead/" + call + (device_count ? "/device_count" : "/host_count");
  cudaStream_t s = g_gpu.stream;
  const i64 n = overhead_items;
  i64* d_n = g_overhead_n;
  pipeline_arrays& a = g_cub;        // scratch arrays for these rows
  std::function<void()> launch;
  if (call == "inclusive_scan") {
    launch = device_count ? std::function<void()>([=] {
      scankit::inclusive_scan(g_values.data, a.running.data, scankit::device_n{d_n, n}, scankit::scan_op::plus, s, &g_ws);
    })
                          : std::function<void()>([=] {
                              scankit::inclusive_scan(g_values.data, a.running.data, n, scankit::scan_op::plus, s, &g_ws);
                            });
  } else if (call == "select_flagged") {
    launch = device_count ? std::function<void()>([=] {
      scankit::select_flagged(g_keys.data, g_flags.data, a.kept_keys.data, a.counts.data, scankit::device_n{d_n, n}, s,
                              &g_ws);
    })
                          : std::function<void()>([=] {
                              scankit::select_flagged(g_keys.data, g_flags.data, a.kept_keys.data, a.counts.data, n, s,
                                                      &g_ws);
                            });
  } else {
    launch = device_count ? std::function<void()>([=] {
      scankit::sort_pairs(g_keys.data, a.sorted_keys.data, g_values.data, a.sorted_values.data,
                          scankit::device_n{d_n, n}, s, &g_ws);
    })
                          : std::function<void()>([=] {
                              scankit::sort_pairs(g_keys.data, a.sorted_keys.data, g_values.data, a.sorted_values.data,
                                                  n, s, &g_ws);
                            });
  }
  run_row(state, name, launch, {});
}

const char* const k_pipeline_rows[] = {"cub_host_counts", "thrust_host_counts", "scankit_host_counts",
                                       "scankit_device_counts", "scankit_graph"};
const char* const k_overhead_calls[] = {"inclusive_scan", "select_flagged", "sort_pairs"};
const char* const k_steps[] = {"select_flagged_x2", "sort_pairs", "unique", "reduce_by_key", "scan_by_key",
                               "exclusive_scan"};

void register_pipeline(int log2_n) {
  for (const char* row : k_pipeline_rows) {
    const std::string r = row;
    benchmark::RegisterBenchmark(pipeline_name(log2_n, r).c_str(),
                                 [log2_n, r](benchmark::State& s) { pipeline_row(s, log2_n, r); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(log2_n >= 24 ? 20 : 200);
  }
}

void register_all() {
  register_pipeline(pipeline_log2_sizes[0]);
  // The steps run on what the 2^26 rows left, before the smaller sizes overwrite it.
  for (const char* step : k_steps) {
    for (bool cub : {true, false}) {
      const std::string st = step;
      benchmark::RegisterBenchmark(("step/" + st + (cub ? "/cub" : "/scankit")).c_str(),
                                   [st, cub](benchmark::State& s) { step_row(s, st, cub); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(20);
    }
  }
  for (int log2_n : pipeline_log2_sizes) {
    if (log2_n != pipeline_log2_sizes[0]) register_pipeline(log2_n);
  }
  for (const char* call : k_overhead_calls) {
    for (bool device_count : {false, true}) {
      const std::string c = call;
      benchmark::RegisterBenchmark(("overhead/" + c + (device_count ? "/device_count" : "/host_count")).c_str(),
                                   [c, device_count](benchmark::State& s) { overhead_row(s, c, device_count); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(200);
    }
  }
}

void setup_gpu() {
  g_gpu.open("bench_pipeline");
  const i64 n = pipeline_items;
  g_keys.allocate(n);
  g_values.allocate(n);
  g_flags.allocate(n);
  g_scankit.allocate(n);
  g_cub.allocate(n);
  g_thrust.allocate(n);
  BENCH_CHECK(cudaMalloc(&g_mismatch, sizeof(unsigned long long)));
  BENCH_CHECK(cudaMalloc(&g_overhead_n, sizeof(i64)));
  BENCH_CHECK(cudaMemcpy(g_overhead_n, &overhead_items, sizeof(i64), cudaMemcpyHostToDevice));
  fill_inputs_kernel<<<g_gpu.helper_grid(n), 256, 0, g_gpu.stream>>>(g_keys.data, g_values.data, g_flags.data, n);
  BENCH_CHECK(cudaGetLastError());
  cub_host_counts(g_cub, n, g_gpu.stream, nullptr, &g_cub_temp_bytes);
  BENCH_CHECK(cudaMalloc(&g_cub_temp, g_cub_temp_bytes));
  // Warm the workspace to the pipeline's largest call, then capture the device-count pipeline of
  // each size (the workspace serves them all: each needs no more than the largest).
  scankit_device_counts(g_scankit, n, g_gpu.stream);
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  for (int log2_n : pipeline_log2_sizes) {
    const i64 size = i64{1} << log2_n;
    cudaGraph_t graph = nullptr;
    BENCH_CHECK(cudaStreamBeginCapture(g_gpu.stream, cudaStreamCaptureModeThreadLocal));
    scankit_device_counts(g_scankit, size, g_gpu.stream);
    BENCH_CHECK(cudaStreamEndCapture(g_gpu.stream, &graph));
    BENCH_CHECK(cudaGraphInstantiate(&g_graphs[size], graph, 0));
    BENCH_CHECK(cudaGraphDestroy(graph));
  }
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
}

int print_summary() {
  std::vector<scankit_bench::summary_row> rows = g_rows;
  const auto ms = [](const std::string& k) {
    const auto it = g_ms.find(k);
    return it == g_ms.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
  };
  for (int log2_n : pipeline_log2_sizes) {
    const double host = ms(pipeline_name(log2_n, "scankit_host_counts"));
    const double cub = ms(pipeline_name(log2_n, "cub_host_counts"));
    const double thrust = ms(pipeline_name(log2_n, "thrust_host_counts"));
    for (const char* row : k_pipeline_rows) {
      const std::string name = pipeline_name(log2_n, row);
      if (g_ms.count(name) == 0) continue;
      const double t = ms(name);
      rows.push_back({name, {t, host / t, cub / t, thrust / t}, "", ""});
    }
  }
  const double none = std::numeric_limits<double>::quiet_NaN();
  for (const char* step : k_steps) {
    const std::string mine = std::string("step/") + step + "/scankit", theirs = std::string("step/") + step + "/cub";
    if (g_ms.count(theirs) != 0) rows.push_back({theirs, {ms(theirs), none, 1.0}, "", ""});
    if (g_ms.count(mine) != 0) rows.push_back({mine, {ms(mine), none, ms(theirs) / ms(mine)}, "", ""});
  }
  for (const char* call : k_overhead_calls) {
    for (const char* form : {"host_count", "device_count"}) {
      const std::string name = std::string("overhead/") + call + "/" + form;
      if (g_ms.count(name) == 0) continue;
      const double t = ms(name);
      const double h = ms(std::string("overhead/") + call + "/host_count");
      rows.push_back({name, {t, h / t}, "", ""});
    }
  }
  return scankit_bench::print_summary_table(
      40, {{"ms", 10, 4}, {"vs_host", 8, 3}, {"vs_cub", 8, 3}, {"vs_thrust", 9, 3}}, rows);
}

void teardown_gpu() {
  for (auto& [size, graph] : g_graphs) (void)cudaGraphExecDestroy(graph);
  g_ws.release();
  g_keys.release();
  g_values.release();
  g_flags.release();
  g_scankit.release();
  g_cub.release();
  g_thrust.release();
  if (g_cub_temp != nullptr) (void)cudaFree(g_cub_temp);
  if (g_mismatch != nullptr) (void)cudaFree(g_mismatch);
  if (g_overhead_n != nullptr) (void)cudaFree(g_overhead_n);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_pipeline", register_all, setup_gpu, print_summary, teardown_gpu});
}
