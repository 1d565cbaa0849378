// bench_segmented_sort: the segmented sort on the GPU — scankit against cub::DeviceSegmentedSort
// (StableSortKeys / StableSortPairs) and the copy ceiling.
//
// Workloads (Google Benchmark names <workload>/<row>; 2^28 f32 keys in [-1, 1), int32 offsets):
//   uniform_1_2000        segment sizes uniform in [1, 2000]
//   power_law             a few segments of about 10^7 items, most below 64
//   tiny_1_2              one- and two-item segments
//   large_16              16 segments of 2^24
//   uniform_1_2000_pairs  the first with int32 values
// Rows: copy (cudaMemcpyAsync D2D of the keys and values), cub, scankit, and scankit_device_counts
// (the precompiled call with the items' and segments' counts in device memory, scankit::device_n:
// no read-back, the segments above a block's tile gathered and sorted together).
// Counters: ms (median), Gkeys_per_s, frac_floor (copy time / this time), vs_cub (CUB time / this
// time, > 1: faster than CUB). Each scankit row's output is compared on the device with CUB's
// (both stable: the same keys and values) before it is timed; a mismatch fails the row.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>

#include "scankit/device/segmented_sort.cuh"
#include "scankit/device_n.hpp"
#include "scankit/segmented_sort.hpp"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;
using scankit_bench::mix64;

scankit_bench::gpu_session g_gpu;
unsigned long long* g_mismatches = nullptr;
scankit::workspace* g_ws = nullptr;

__global__ void fill_keys_kernel(float* keys, i64 n, std::uint64_t seed) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix64(seed ^ mix64(static_cast<std::uint64_t>(i)));
    keys[i] = static_cast<float>(r >> 40) / 16777216.0f * 2.0f - 1.0f;
  }
}

__global__ void iota_kernel(std::int32_t* values, i64 n) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    values[i] = static_cast<std::int32_t>(i);
  }
}

template <class T>
unsigned long long mismatches(const T* a, const T* b, i64 n) {
  return scankit_bench::bitwise_mismatches(a, b, n, g_mismatches, g_gpu.stream);
}

enum class sizes_kind { uniform_1_2000, power_law, tiny_1_2, large_16 };

// Segment sizes summing to n.
std::vector<std::int32_t> offsets_for(sizes_kind kind, i64 n) {
  std::mt19937_64 rng(12345);
  std::vector<std::int32_t> offsets{0};
  const auto add = [&](i64 size) {
    size = std::min(size, n - offsets.back());
    offsets.push_back(static_cast<std::int32_t>(offsets.back() + size));
  };
  while (offsets.back() < n) {
    switch (kind) {
      case sizes_kind::uniform_1_2000: add(static_cast<i64>(rng() % 2000) + 1); break;
      case sizes_kind::tiny_1_2: add(static_cast<i64>(rng() % 2) + 1); break;
      case sizes_kind::large_16: add(n / 16); break;
      case sizes_kind::power_law: {
        // Every 4096th segment of about 10^7 items, the others below 64 (Pareto-like).
        if (offsets.size() % 4096 == 0) {
          add(5000000 + static_cast<i64>(rng() % 10000000));
        } else {
          const double u = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
          add(std::min<i64>(63, static_cast<i64>(std::pow(u, -0.7))));
        }
        break;
      }
    }
  }
  return offsets;
}

struct anchors {
  scankit_bench::anchor_times copy, cub;
};
std::map<std::string, anchors> g_anchors;
std::vector<scankit_bench::summary_row> g_summary;

struct workload_data {
  i64 n = 0, segments = 0;
  float *keys = nullptr, *cub_keys = nullptr, *our_keys = nullptr;
  std::int32_t *values = nullptr, *cub_values = nullptr, *our_values = nullptr, *offsets = nullptr;
  std::int64_t* counts = nullptr;  // the items' and the segments' counts, for the device-count row
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  ~workload_data() {
    for (void* p : {static_cast<void*>(keys), static_cast<void*>(cub_keys), static_cast<void*>(our_keys),
                    static_cast<void*>(values), static_cast<void*>(cub_values), static_cast<void*>(our_values),
                    static_cast<void*>(offsets), static_cast<void*>(counts), temp}) {
      if (p) (void)cudaFree(p);
    }
  }
};
std::unique_ptr<workload_data> g_current;
std::string g_current_name;

void run_workload(benchmark::State& state, const std::string& workload, const std::string& row, sizes_kind kind,
                  bool pairs) {
  const i64 n = i64{1} << 28;
  if (g_current_name != workload) {
    g_current.reset();
    BENCH_CHECK(cudaDeviceSynchronize());
    g_current = std::make_unique<workload_data>();
    g_current_name = workload;
    workload_data& d = *g_current;
    const std::vector<std::int32_t> offsets = offsets_for(kind, n);
    d.n = n;
    d.segments = static_cast<i64>(offsets.size()) - 1;
    BENCH_CHECK(cudaMalloc(&d.keys, n * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&d.cub_keys, n * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&d.our_keys, n * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&d.offsets, offsets.size() * sizeof(std::int32_t)));
    BENCH_CHECK(cudaMemcpy(d.offsets, offsets.data(), offsets.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    const std::int64_t counts[2] = {n, d.segments};
    BENCH_CHECK(cudaMalloc(&d.counts, sizeof(counts)));
    BENCH_CHECK(cudaMemcpy(d.counts, counts, sizeof(counts), cudaMemcpyHostToDevice));
    fill_keys_kernel<<<2048, 256, 0, g_gpu.stream>>>(d.keys, n, mix64(std::hash<std::string>{}(workload)));
    BENCH_CHECK(cudaGetLastError());
    if (pairs) {
      BENCH_CHECK(cudaMalloc(&d.values, n * sizeof(std::int32_t)));
      BENCH_CHECK(cudaMalloc(&d.cub_values, n * sizeof(std::int32_t)));
      BENCH_CHECK(cudaMalloc(&d.our_values, n * sizeof(std::int32_t)));
      iota_kernel<<<2048, 256, 0, g_gpu.stream>>>(d.values, n);
      BENCH_CHECK(cudaGetLastError());
      BENCH_CHECK(cub::DeviceSegmentedSort::StableSortPairs(nullptr, d.temp_bytes, d.keys, d.cub_keys, d.values,
                                                            d.cub_values, n, d.segments, d.offsets, d.offsets + 1,
                                                            g_gpu.stream));
    } else {
      BENCH_CHECK(cub::DeviceSegmentedSort::StableSortKeys(nullptr, d.temp_bytes, d.keys, d.cub_keys, n, d.segments,
                                                           d.offsets, d.offsets + 1, g_gpu.stream));
    }
    BENCH_CHECK(cudaMalloc(&d.temp, std::max<std::size_t>(d.temp_bytes, 1)));
  }
  workload_data& d = *g_current;

  std::function<void()> launch;
  if (row == "copy") {
    launch = [&d, pairs] {
      BENCH_CHECK(cudaMemcpyAsync(d.our_keys, d.keys, d.n * sizeof(float), cudaMemcpyDeviceToDevice, g_gpu.stream));
      if (pairs) {
        BENCH_CHECK(cudaMemcpyAsync(d.our_values, d.values, d.n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice,
                                    g_gpu.stream));
      }
    };
  } else if (row == "cub") {
    launch = [&d, pairs] {
      if (pairs) {
        BENCH_CHECK(cub::DeviceSegmentedSort::StableSortPairs(d.temp, d.temp_bytes, d.keys, d.cub_keys, d.values,
                                                              d.cub_values, d.n, d.segments, d.offsets, d.offsets + 1,
                                                              g_gpu.stream));
      } else {
        BENCH_CHECK(cub::DeviceSegmentedSort::StableSortKeys(d.temp, d.temp_bytes, d.keys, d.cub_keys, d.n, d.segments,
                                                             d.offsets, d.offsets + 1, g_gpu.stream));
      }
    };
  } else {
    scankit::sort_options options;
    options.floats = scankit::float_order::raw_bits;  // CUB's order, so the outputs compare
    if (row == "scankit") {
      launch = [&d, pairs, options] {
        if (pairs) {
          scankit::device::segmented_sort_pairs(d.keys, d.our_keys, d.values, d.our_values, d.n, d.offsets, d.segments,
                                                g_gpu.stream, g_ws, options);
        } else {
          scankit::device::segmented_sort_keys(d.keys, d.our_keys, d.n, d.offsets, d.segments, g_gpu.stream, g_ws,
                                               options);
        }
      };
    } else {
      launch = [&d, pairs, options] {
        const scankit::device_n items{d.counts, d.n}, segments{d.counts + 1, d.segments};
        if (pairs) {
          scankit::segmented_sort_pairs(d.keys, d.our_keys, d.values, d.our_values, items, d.offsets, segments,
                                        g_gpu.stream, g_ws, options);
        } else {
          scankit::segmented_sort_keys(d.keys, d.our_keys, items, d.offsets, segments, g_gpu.stream, g_ws, options);
        }
      };
    }
    BENCH_CHECK(cudaMemsetAsync(d.our_keys, 0xA5, d.n * sizeof(float), g_gpu.stream));
    if (pairs) BENCH_CHECK(cudaMemsetAsync(d.our_values, 0xA5, d.n * sizeof(std::int32_t), g_gpu.stream));
    launch();
    unsigned long long bad = mismatches(d.our_keys, d.cub_keys, d.n);
    if (pairs) bad += mismatches(d.our_values, d.cub_values, d.n);
    if (bad != 0) {
      const std::string why = "mismatch vs CUB: " + std::to_string(bad) + " items";
      g_summary.push_back({workload + "/" + row, {}, why});
      state.SkipWithError(why.c_str());
      return;
    }
  }
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch);
  anchors& a = g_anchors[workload];
  if (row == "copy") a.copy.add(ms);
  if (row == "cub") a.cub.add(ms);
  const double keys_per_s = static_cast<double>(d.n) / (ms * 1e-3) / 1e9;
  state.counters["ms"] = ms;
  state.counters["Gkeys_per_s"] = keys_per_s;
  state.counters["frac_floor"] = a.copy.median() / ms;
  state.counters["vs_cub"] = a.cub.median() / ms;
  state.counters["segments"] = static_cast<double>(d.segments);
  g_summary.push_back({workload + "/" + row, {ms, keys_per_s, a.copy.median() / ms, a.cub.median() / ms}, ""});
}

void add_workload(const std::string& name, sizes_kind kind, bool pairs) {
  for (const std::string row : {"copy", "cub", "scankit", "scankit_device_counts"}) {
    benchmark::RegisterBenchmark((name + "/" + row).c_str(),
                                 [name, row, kind, pairs](benchmark::State& s) {
                                   try {
                                     run_workload(s, name, row, kind, pairs);
                                   } catch (const std::exception& e) {
                                     g_summary.push_back({name + "/" + row, {}, e.what()});
                                     s.SkipWithError(e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(10);
  }
}

void register_all() {
  add_workload("uniform_1_2000", sizes_kind::uniform_1_2000, false);
  add_workload("power_law", sizes_kind::power_law, false);
  add_workload("tiny_1_2", sizes_kind::tiny_1_2, false);
  add_workload("large_16", sizes_kind::large_16, false);
  add_workload("uniform_1_2000_pairs", sizes_kind::uniform_1_2000, true);
}

void setup_gpu() {
  g_gpu.open("bench_segmented_sort");
  BENCH_CHECK(cudaMalloc(&g_mismatches, sizeof(unsigned long long)));
  g_ws = new scankit::workspace();
}

int print_summary() {
  return scankit_bench::print_summary_table(
      44, {{"ms", 10, 4}, {"Gkeys/s", 12, 2}, {"of floor", 10, 3}, {"vs CUB", 8, 3}}, g_summary);
}

void teardown_gpu() {
  g_current.reset();
  g_ws->release();
  delete g_ws;
  (void)cudaFree(g_mismatches);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(
      argc, argv, {"bench_segmented_sort", register_all, setup_gpu, print_summary, teardown_gpu});
}
