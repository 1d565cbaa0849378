// bench_top_k: top-k and select-k of f32 rows — scankit against the read floor (half a
// cudaMemcpyAsync D2D of the keys: top-k must read every key once). The other anchors run in the
// same GPU session from their own programs: torch.topk (bench/torch_top_k.py), FlashInfer's
// TopKDispatch and CUB's DeviceTopK / DeviceBatchedTopK from the cuda-cccl headers
// (bench/anchors/, README there), on rows drawn the same way (uniform floats).
//
// Workloads (Google Benchmark names <workload>/<row>; int32 indices):
//   rows_256x131072_k50     a batch of logits rows, k = 50, sorted
//   rows_4096x200000_k1024  k = 1024, sorted
//   rows_1x131072_k50       one row (latency)
//   row_2p28_k1000          one row of 2^28 keys, k = 1000, unsorted (select-k)
// Rows: copy (the keys, D2D), scankit (and scankit_blocks_<n>: the split threshold at n blocks).
// Counters: ms (median), Gkeys_per_s, frac_floor (copy time / 2 / this time). Before timing, the
// first, middle and last rows of scankit's result are checked against std::partial_sort.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "scankit/device/top_k.cuh"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;
using scankit_bench::mix64;

scankit_bench::gpu_session g_gpu;
scankit::workspace* g_ws = nullptr;

__global__ void fill_uniform_kernel(float* keys, i64 n, std::uint64_t seed) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = static_cast<float>(mix64(seed ^ mix64(static_cast<std::uint64_t>(i))) >> 40) / 16777216.0f;
  }
}

struct workload {
  std::string name;
  i64 rows, cols, k;
  bool sorted;
};

struct workload_data {
  i64 n = 0;
  float *keys = nullptr, *copy = nullptr, *values = nullptr;
  std::int32_t* indices = nullptr;
  ~workload_data() {
    for (void* p : {static_cast<void*>(keys), static_cast<void*>(copy), static_cast<void*>(values),
                    static_cast<void*>(indices)}) {
      if (p) (void)cudaFree(p);
    }
  }
};

std::unique_ptr<workload_data> g_current;
std::string g_current_name;
std::map<std::string, double> g_copy_ms;
std::vector<scankit_bench::summary_row> g_summary;

// Mismatches of rows first, middle and last against std::partial_sort (largest first, ties by
// index); the values are checked through the indices.
i64 check_rows(const workload& w, const workload_data& d) {
  i64 bad = 0;
  for (i64 r : {i64{0}, w.rows / 2, w.rows - 1}) {
    std::vector<float> row(static_cast<std::size_t>(w.cols));
    std::vector<std::int32_t> got(static_cast<std::size_t>(w.k));
    BENCH_CHECK(cudaMemcpy(row.data(), d.keys + r * w.cols, w.cols * sizeof(float), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(got.data(), d.indices + r * w.k, w.k * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    std::vector<std::int32_t> want(static_cast<std::size_t>(w.cols));
    std::iota(want.begin(), want.end(), 0);
    std::partial_sort(want.begin(), want.begin() + w.k, want.end(),
                      [&](std::int32_t a, std::int32_t b) { return row[a] != row[b] ? row[a] > row[b] : a < b; });
    want.resize(static_cast<std::size_t>(w.k));
    if (!w.sorted) {
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
    }
    for (i64 j = 0; j < w.k; ++j) bad += got[j] != want[j];
  }
  return bad;
}

void run(benchmark::State& state, const workload& w, const std::string& row, i64 blocks_wanted) {
  if (g_current_name != w.name) {
    g_current.reset();
    BENCH_CHECK(cudaDeviceSynchronize());
    g_current = std::make_unique<workload_data>();
    g_current_name = w.name;
    workload_data& d = *g_current;
    d.n = w.rows * w.cols;
    BENCH_CHECK(cudaMalloc(&d.keys, d.n * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&d.copy, d.n * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&d.values, w.rows * w.k * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&d.indices, w.rows * w.k * sizeof(std::int32_t)));
    fill_uniform_kernel<<<2048, 256, 0, g_gpu.stream>>>(d.keys, d.n, mix64(std::hash<std::string>{}(w.name)));
    BENCH_CHECK(cudaGetLastError());
  }
  workload_data& d = *g_current;
  std::function<void()> launch;
  if (row == "copy") {
    launch = [&d] {
      BENCH_CHECK(cudaMemcpyAsync(d.copy, d.keys, d.n * sizeof(float), cudaMemcpyDeviceToDevice, g_gpu.stream));
    };
  } else {
    namespace tk = scankit::device_detail::top_k;
    const tk::call_shape shape{w.rows, w.cols, d.n, w.k};
    const tk::result_spec spec{nullptr, d.values, d.indices, false, true, w.sorted, scankit::float_order::total};
    launch = [&d, shape, spec, blocks_wanted] {
      tk::run_top_k(d.keys, tk::row_layout{nullptr, false, shape.row_items}, shape, spec, g_gpu.stream, g_ws,
                    blocks_wanted);
    };
    BENCH_CHECK(cudaMemsetAsync(d.indices, 0xA5, w.rows * w.k * sizeof(std::int32_t), g_gpu.stream));
    launch();
    BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
    const i64 bad = check_rows(w, d);
    if (bad != 0) {
      const std::string why = "mismatch vs std::partial_sort: " + std::to_string(bad) + " slots";
      g_summary.push_back({w.name + "/" + row, {}, why});
      state.SkipWithError(why.c_str());
      return;
    }
  }
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch);
  if (row == "copy") g_copy_ms[w.name] = ms;
  const double copy_ms = g_copy_ms.count(w.name) ? g_copy_ms[w.name] : std::numeric_limits<double>::quiet_NaN();
  const double keys_per_s = static_cast<double>(d.n) / (ms * 1e-3) / 1e9;
  state.counters["ms"] = ms;
  state.counters["Gkeys_per_s"] = keys_per_s;
  state.counters["frac_floor"] = copy_ms / 2 / ms;
  g_summary.push_back({w.name + "/" + row, {ms, keys_per_s, copy_ms / 2 / ms}, ""});
}

void add(const workload& w, const std::vector<i64>& block_targets) {
  std::vector<std::pair<std::string, i64>> rows = {{"copy", 0}, {"scankit", 0}};
  for (i64 b : block_targets) rows.push_back({"scankit_blocks_" + std::to_string(b), b});
  for (const auto& [row, blocks] : rows) {
    benchmark::RegisterBenchmark((w.name + "/" + row).c_str(),
                                 [w, row = row, blocks = blocks](benchmark::State& s) {
                                   try {
                                     run(s, w, row, blocks);
                                   } catch (const std::exception& e) {
                                     g_summary.push_back({w.name + "/" + row, {}, e.what()});
                                     s.SkipWithError(e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(20);
  }
}

void register_all() {
  add({"rows_256x131072_k50", 256, 131072, 50, true}, {528});
  add({"rows_4096x200000_k1024", 4096, 200000, 1024, true}, {});
  add({"rows_1x131072_k50", 1, 131072, 50, true}, {1, 16});
  add({"row_2p28_k1000", 1, i64{1} << 28, 1000, false}, {132, 528});
}

void setup_gpu() {
  g_gpu.open("bench_top_k");
  g_ws = new scankit::workspace();
}

int print_summary() {
  return scankit_bench::print_summary_table(40, {{"ms", 10, 4}, {"Gkeys/s", 12, 2}, {"of floor", 10, 3}}, g_summary);
}

void teardown_gpu() {
  g_current.reset();
  g_ws->release();
  delete g_ws;
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_top_k", register_all, setup_gpu, print_summary, teardown_gpu});
}
