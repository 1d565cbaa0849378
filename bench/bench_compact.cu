// bench_compact: stream compaction on the GPU — scankit against CUB and the copy ceiling.
//
// Workloads (n = 2^28 random items each; the predicate is `x < threshold`, written as
// keep_in_range{0, threshold - 1}, so the kept fraction is controlled):
//   select/u32/keep1, keep50, keep99   select_if on uint32, 1 %, 50 %, 99 % kept
//   select/u64/keep50                  select_if on uint64, 50 % kept
//   partition/u32/keep50               partition_if, one output (rejected reversed at the back)
//   partition2/u32/keep50              partition_if, two outputs (CUB anchor: its one-output If)
//   unique/u32/runs4                   unique on runs of equal keys (random lengths, mean 4)
// Rows per workload (Google Benchmark names <workload>/<row>):
//   copy                cudaMemcpyAsync D2D of half the bytes the compaction moves (see below)
//   cub                 cub::DeviceSelect::If / DevicePartition::If / DeviceSelect::Unique
//   scankit_single_pass the precompiled scankit call, default strategy (single pass)
//   scankit_three_step  the textbook three-step strategy
//   scankit_tile_register_256x32[_no_prefetch]  select/u32/keep50 only: the single pass through
//                       the template API on the register kernel (256 threads x 32 items, the
//                       default before the staged kernel), with and without the L2 prefetch
//
// Counters (per repetition; Google Benchmark aggregates them over repetitions):
//   ms         median time of one call
//   GBps       bytes / time, bytes = n * size (read) + written * size (+ 8 for the count), where
//              written = selected items (select, unique) or n (partition)
//   frac_copy  GBps / copy GBps. A device-to-device copy of B bytes moves 2B (read + write), so
//              the copy row copies bytes / 2 (at most the input size) and its own GBps counts
//              both directions: frac_copy = 1 means as fast as a copy moving the same bytes.
//   vs_cub     CUB time / this time (> 1: faster than CUB); copy and CUB times are the medians of
//              their rows, measured in this process before the scankit rows of the workload.
// Correctness guard: before timing, each scankit row runs once on a poisoned output and its
// count and output are compared on the device with CUB's (all n items for partition); a
// mismatch skips the row ("mismatch vs CUB") and makes the exit status 1.
//
// CUB is instantiated here; scankit is reached through the precompiled library API, as a user
// would call it.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

#include "scankit/compact.hpp"
#include "scankit/device/select.cuh"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;

scankit_bench::gpu_session g_gpu;  // device, stream, timing events
unsigned long long* g_scalars = nullptr;  // device: [0] mismatches, [1] first mismatch

// ------------------------------------------------------------------------------------------
// Helper kernels: random input, run ids, comparison.

using scankit_bench::mix64;

template <class T>
__global__ void fill_random_kernel(T* data, i64 n, std::uint64_t seed) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    data[i] = static_cast<T>(mix64(seed ^ mix64(static_cast<std::uint64_t>(i))));
  }
}

// 1 where a new run starts (probability 1/4: runs of mean length 4), else 0.
__global__ void run_starts_kernel(std::uint32_t* starts, i64 n, std::uint64_t seed) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    starts[i] = (mix64(seed ^ static_cast<std::uint64_t>(i)) & 3u) == 0 ? 1u : 0u;
  }
}

// Run id -> a random key of that run.
__global__ void run_keys_kernel(std::uint32_t* keys, i64 n, std::uint64_t seed) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = static_cast<std::uint32_t>(mix64(seed + keys[i]));
  }
}

template <class T>
__global__ void compare_kernel(const T* got, const T* want, i64 n, unsigned long long* bad_count,
                               unsigned long long* first_bad) {
  unsigned long long count = 0;
  unsigned long long first = ~0ull;
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (got[i] != want[i]) {
      ++count;
      if (static_cast<unsigned long long>(i) < first) first = static_cast<unsigned long long>(i);
    }
  }
  if (count != 0) {
    atomicAdd(bad_count, count);
    atomicMin(first_bad, first);
  }
}

// ------------------------------------------------------------------------------------------
// Workloads.

enum class op { select, partition, partition2, unique };

struct workload {
  std::string name;
  op kind;
  std::size_t item_bytes;  // 4 or 8
  double keep;             // fraction kept (select, partition)
  i64 n;
};

// The data of one workload: input, CUB's output and count, scankit's output(s) and count.
struct data_set {
  std::string name;
  i64 n = 0;
  void* in = nullptr;
  void* ref = nullptr;   // CUB's output
  void* out = nullptr;   // scankit's output (selected part for partition2)
  void* out2 = nullptr;  // partition2: rejected
  i64* counts = nullptr;  // device: [0] CUB, [1] scankit
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  i64 cub_count = 0;
  std::uint64_t threshold = 0;  // keep x < threshold
};
data_set g_data;

void free_data(data_set& d) noexcept {
  for (void* p : {d.in, d.ref, d.out, d.out2, static_cast<void*>(d.counts), d.temp}) {
    if (p != nullptr) (void)cudaFree(p);
  }
  d = data_set{};
}

void release_data() noexcept {
  (void)cudaStreamSynchronize(g_gpu.stream);
  free_data(g_data);
}

template <class T>
scankit::keep_in_range<T> predicate_of(const data_set& d) {
  return {T(0), static_cast<T>(d.threshold - 1)};
}

template <class T>
cudaError_t cub_call(const workload& w, data_set& d, void* temp, std::size_t& temp_bytes, T* out) {
  const T* in = static_cast<const T*>(d.in);
  switch (w.kind) {
    case op::select:
      return cub::DeviceSelect::If(temp, temp_bytes, in, out, d.counts, w.n, predicate_of<T>(d), g_gpu.stream);
    case op::partition:
    case op::partition2:
      return cub::DevicePartition::If(temp, temp_bytes, in, out, d.counts, w.n, predicate_of<T>(d), g_gpu.stream);
    case op::unique:
      return cub::DeviceSelect::Unique(temp, temp_bytes, in, out, d.counts, w.n, g_gpu.stream);
  }
  return cudaErrorInvalidValue;
}

template <class T>
data_set& data_for(const workload& w) {
  if (g_data.name == w.name) return g_data;
  release_data();
  data_set d;
  try {
    d.name = w.name;
    d.n = w.n;
    const std::size_t bytes = static_cast<std::size_t>(w.n) * sizeof(T);
    BENCH_CHECK(cudaMalloc(&d.in, bytes));
    BENCH_CHECK(cudaMalloc(&d.ref, bytes));
    BENCH_CHECK(cudaMalloc(&d.out, bytes));
    if (w.kind == op::partition2) BENCH_CHECK(cudaMalloc(&d.out2, bytes));
    BENCH_CHECK(cudaMalloc(&d.counts, 2 * sizeof(i64)));
    const std::uint64_t seed = mix64(std::hash<std::string>{}(w.name));
    if (w.kind == op::unique) {
      auto* keys = static_cast<std::uint32_t*>(d.in);
      run_starts_kernel<<<g_gpu.helper_grid(w.n), 256, 0, g_gpu.stream>>>(keys, w.n, seed);
      BENCH_CHECK(cudaGetLastError());
      std::size_t scan_bytes = 0;
      BENCH_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, keys, keys, w.n, g_gpu.stream));
      void* scan_temp = nullptr;
      BENCH_CHECK(cudaMalloc(&scan_temp, std::max<std::size_t>(scan_bytes, 1)));
      const cudaError_t scanned = cub::DeviceScan::InclusiveSum(scan_temp, scan_bytes, keys, keys, w.n, g_gpu.stream);
      BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
      (void)cudaFree(scan_temp);
      BENCH_CHECK(scanned);
      run_keys_kernel<<<g_gpu.helper_grid(w.n), 256, 0, g_gpu.stream>>>(keys, w.n, seed);
    } else {
      fill_random_kernel<T><<<g_gpu.helper_grid(w.n), 256, 0, g_gpu.stream>>>(static_cast<T*>(d.in), w.n, seed);
      const long double range = static_cast<long double>(std::numeric_limits<T>::max()) + 1.0L;
      d.threshold = static_cast<std::uint64_t>(range * static_cast<long double>(w.keep));
    }
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cub_call<T>(w, d, nullptr, d.temp_bytes, static_cast<T*>(d.ref)));
    BENCH_CHECK(cudaMalloc(&d.temp, std::max<std::size_t>(d.temp_bytes, 1)));
    BENCH_CHECK(cub_call<T>(w, d, d.temp, d.temp_bytes, static_cast<T*>(d.ref)));
    BENCH_CHECK(cudaMemcpyAsync(&d.cub_count, d.counts, sizeof(i64), cudaMemcpyDeviceToHost, g_gpu.stream));
    BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  } catch (...) {
    (void)cudaStreamSynchronize(g_gpu.stream);
    free_data(d);
    throw;
  }
  g_data = d;
  return g_data;
}

// Bytes the compaction must move: read every item, write the kept ones (all, for partition),
// plus the 8-byte count.
double bytes_moved(const workload& w, i64 selected) {
  const double written = (w.kind == op::partition || w.kind == op::partition2) ? static_cast<double>(w.n)
                                                                              : static_cast<double>(selected);
  return (static_cast<double>(w.n) + written) * static_cast<double>(w.item_bytes) + 8.0;
}

// ------------------------------------------------------------------------------------------
// Timing.

template <class Launch>
double time_once_ms(Launch&& launch) {
  BENCH_CHECK(cudaEventRecord(g_gpu.start, g_gpu.stream));
  launch();
  BENCH_CHECK(cudaEventRecord(g_gpu.stop, g_gpu.stream));
  BENCH_CHECK(cudaEventSynchronize(g_gpu.stop));
  float ms = 0.0f;
  BENCH_CHECK(cudaEventElapsedTime(&ms, g_gpu.start, g_gpu.stop));
  return static_cast<double>(ms);
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// ------------------------------------------------------------------------------------------
// Rows.

struct row_record {
  std::string name;
  std::string workload;
  std::string kind;  // copy | cub | scankit
  std::string label;
  std::size_t workload_index = 0;
  scankit::compact_options options;
  int tile_shape = 0;  // 0: the precompiled call; else an index into k_tile_shapes
  bool checked = false;
  std::string error;
  std::vector<double> rep_ms;
  double copy_gbps = std::numeric_limits<double>::quiet_NaN();  // of this workload's copy row
  double cub_ms = std::numeric_limits<double>::quiet_NaN();
  double bytes = 0;  // moved per call
};
std::vector<workload> g_workloads;
std::vector<row_record> g_rows;
std::map<std::string, std::pair<double, double>> g_anchor;  // workload -> (copy GBps, CUB ms)

std::pair<double, double>& anchor_of(const std::string& workload_name) {
  constexpr double unset = std::numeric_limits<double>::quiet_NaN();
  return g_anchor.try_emplace(workload_name, unset, unset).first->second;
}

void fail(benchmark::State& state, row_record& row, const std::string& why) {
  if (row.error.empty()) row.error = why;
  state.SkipWithError(why.c_str());
}

template <class Launch>
void timed_loop(benchmark::State& state, row_record& row, double counted_bytes, Launch&& launch) {
  launch();  // warm-up (also grows the reused workspace)
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  std::vector<double> times;
  for (auto _ : state) {
    const double ms = time_once_ms(launch);
    state.SetIterationTime(ms * 1e-3);
    times.push_back(ms);
  }
  const double ms = median(times);
  row.rep_ms.push_back(ms);
  const double gbps = counted_bytes / (ms * 1e-3) / 1e9;
  state.counters["ms"] = ms;
  state.counters["GBps"] = gbps;
  if (row.kind != "copy") {
    state.counters["frac_copy"] = gbps / row.copy_gbps;
    state.counters["vs_cub"] = row.cub_ms / ms;
  }
}

// Other kernels of the single pass (template API), on select/u32/keep50: the register kernel
// (compact_tiles_kernel.cuh), the default before the staged kernel, with and without prefetch.
constexpr const char* k_tile_shapes[] = {"", "register_256x32", "register_256x32_no_prefetch"};

template <class T>
void select_with_shape(int shape, const T* in, T* out, i64* count, i64 n, scankit::keep_in_range<T> pred,
                       scankit::workspace* ws) {
  using scankit::device::compact_policy;
  if (shape == 2) return scankit::device::select_if<compact_policy<256, 32, 0>>(in, out, count, n, pred, g_gpu.stream, ws);
  return scankit::device::select_if<compact_policy<256, 32>>(in, out, count, n, pred, g_gpu.stream, ws);
}

template <class T>
void scankit_call(const workload& w, data_set& d, const scankit::compact_options& options, int tile_shape,
                  scankit::workspace* ws) {
  const T* in = static_cast<const T*>(d.in);
  T* out = static_cast<T*>(d.out);
  i64* count = d.counts + 1;
  if (tile_shape != 0) {
    if constexpr (std::is_same_v<T, std::uint32_t>) {
      select_with_shape<T>(tile_shape, in, out, count, w.n, predicate_of<T>(d), ws);
      return;
    }
    throw std::runtime_error("tile shapes are benchmarked for uint32 selection only");
  }
  switch (w.kind) {
    case op::select:
      scankit::select_if(in, out, count, w.n, predicate_of<T>(d), g_gpu.stream, ws, options);
      return;
    case op::partition:
    case op::partition2:
      if constexpr (std::is_same_v<T, std::uint32_t>) {  // precompiled for uint32 and float
        if (w.kind == op::partition) {
          scankit::partition_if(in, out, count, w.n, predicate_of<T>(d), g_gpu.stream, ws, options);
        } else {
          scankit::partition_if(in, out, static_cast<T*>(d.out2), count, w.n, predicate_of<T>(d), g_gpu.stream, ws,
                                options);
        }
        return;
      }
      throw std::runtime_error("partition is benchmarked on uint32 only");
    case op::unique:
      scankit::unique(in, out, count, w.n, g_gpu.stream, ws, options);
      return;
  }
}

template <class T>
std::string compare_on_device(const T* got, const T* want, i64 n, const char* what) {
  if (n == 0) return {};
  unsigned long long host[2] = {0, ~0ull};
  BENCH_CHECK(cudaMemcpyAsync(g_scalars, host, sizeof(host), cudaMemcpyHostToDevice, g_gpu.stream));
  compare_kernel<T><<<g_gpu.helper_grid(n), 256, 0, g_gpu.stream>>>(got, want, n, g_scalars, g_scalars + 1);
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaMemcpyAsync(host, g_scalars, sizeof(host), cudaMemcpyDeviceToHost, g_gpu.stream));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  if (host[0] == 0) return {};
  return std::string("mismatch vs CUB: ") + what + ": " + std::to_string(host[0]) + " of " + std::to_string(n) +
         " items differ, first at " + std::to_string(host[1]);
}

// Runs scankit once on poisoned outputs and compares count and items with CUB's.
template <class T>
std::string check_against_cub(const workload& w, data_set& d, const scankit::compact_options& options,
                              int tile_shape, scankit::workspace* ws) {
  const std::size_t bytes = static_cast<std::size_t>(w.n) * sizeof(T);
  BENCH_CHECK(cudaMemsetAsync(d.out, 0xA5, bytes, g_gpu.stream));
  if (d.out2 != nullptr) BENCH_CHECK(cudaMemsetAsync(d.out2, 0xA5, bytes, g_gpu.stream));
  BENCH_CHECK(cudaMemsetAsync(d.counts + 1, 0xA5, sizeof(i64), g_gpu.stream));
  scankit_call<T>(w, d, options, tile_shape, ws);
  i64 count = -1;
  BENCH_CHECK(cudaMemcpyAsync(&count, d.counts + 1, sizeof(i64), cudaMemcpyDeviceToHost, g_gpu.stream));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  if (count != d.cub_count) {
    return "mismatch vs CUB: count " + std::to_string(count) + ", CUB " + std::to_string(d.cub_count);
  }
  const T* got = static_cast<const T*>(d.out);
  const T* want = static_cast<const T*>(d.ref);
  switch (w.kind) {
    case op::select:
    case op::unique:
      return compare_on_device(got, want, count, "selected items");
    case op::partition:
      return compare_on_device(got, want, w.n, "partitioned items");
    case op::partition2: {
      std::string why = compare_on_device(got, want, count, "selected items");
      if (!why.empty()) return why;
      // CUB's one output holds the rejected items reversed at the back; ours are in order.
      std::vector<T> rejected(static_cast<std::size_t>(w.n - count)), reference(rejected.size());
      BENCH_CHECK(cudaMemcpy(rejected.data(), d.out2, rejected.size() * sizeof(T), cudaMemcpyDeviceToHost));
      BENCH_CHECK(cudaMemcpy(reference.data(), want + count, reference.size() * sizeof(T), cudaMemcpyDeviceToHost));
      std::reverse(reference.begin(), reference.end());
      const auto bad = std::mismatch(rejected.begin(), rejected.end(), reference.begin());
      if (bad.first != rejected.end()) {
        return "mismatch vs CUB: rejected items, first at " + std::to_string(bad.first - rejected.begin());
      }
      return {};
    }
  }
  return {};
}

// The copy row also records the copy bandwidth that frac_copy refers to; the CUB row the anchor.
template <class T>
void bm_row(benchmark::State& state, std::size_t row_index) {
  row_record& row = g_rows[row_index];
  if (!row.error.empty()) {
    state.SkipWithError(row.error.c_str());
    return;
  }
  try {
    const workload& w = g_workloads[row.workload_index];
    data_set& d = data_for<T>(w);
    row.bytes = bytes_moved(w, d.cub_count);
    row.copy_gbps = anchor_of(w.name).first;
    row.cub_ms = anchor_of(w.name).second;
    if (row.kind == "copy") {
      const std::size_t copied =
          std::min(static_cast<std::size_t>(row.bytes / 2), static_cast<std::size_t>(w.n) * sizeof(T));
      timed_loop(state, row, 2.0 * static_cast<double>(copied),
                 [&] { BENCH_CHECK(cudaMemcpyAsync(d.out, d.in, copied, cudaMemcpyDeviceToDevice, g_gpu.stream)); });
      const double ms = median(row.rep_ms);
      anchor_of(w.name).first = 2.0 * static_cast<double>(copied) / (ms * 1e-3) / 1e9;
    } else if (row.kind == "cub") {
      timed_loop(state, row, row.bytes,
                 [&] { BENCH_CHECK(cub_call<T>(w, d, d.temp, d.temp_bytes, static_cast<T*>(d.out))); });
      anchor_of(w.name).second = median(row.rep_ms);
    } else {
      if (std::isnan(row.copy_gbps) || std::isnan(row.cub_ms)) {
        fail(state, row, "run the copy and cub rows of this workload first (filters must keep them)");
        return;
      }
      scankit::workspace ws;
      if (!row.checked) {
        row.checked = true;
        const std::string why = check_against_cub<T>(w, d, row.options, row.tile_shape, &ws);
        if (!why.empty()) {
          fail(state, row, why);
          return;
        }
      }
      timed_loop(state, row, row.bytes, [&] { scankit_call<T>(w, d, row.options, row.tile_shape, &ws); });
    }
  } catch (const std::exception& e) {
    fail(state, row, e.what());
  }
}

// ------------------------------------------------------------------------------------------
// Registration: per workload copy, cub, then the scankit rows (Google Benchmark keeps the order).

constexpr int k_iterations = 20;

void add_row(std::size_t workload_index, const std::string& kind, const std::string& label,
             scankit::compact_options options = {}, int tile_shape = 0) {
  const workload& w = g_workloads[workload_index];
  row_record row;
  row.name = w.name + "/" + label;
  row.workload = w.name;
  row.kind = kind;
  row.label = label;
  row.workload_index = workload_index;
  row.options = options;
  row.tile_shape = tile_shape;
  g_rows.push_back(row);
  const std::size_t index = g_rows.size() - 1;
  auto body = w.item_bytes == 8 ? +[](benchmark::State& s, std::size_t r) { bm_row<std::uint64_t>(s, r); }
                                : +[](benchmark::State& s, std::size_t r) { bm_row<std::uint32_t>(s, r); };
  benchmark::RegisterBenchmark(row.name.c_str(), [body, index](benchmark::State& s) { body(s, index); })
      ->UseManualTime()
      ->Iterations(k_iterations)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
}

void register_all() {
  const i64 n = i64{1} << 28;
  g_workloads = {
      {"select/u32/keep1", op::select, 4, 0.01, n},      {"select/u32/keep50", op::select, 4, 0.50, n},
      {"select/u32/keep99", op::select, 4, 0.99, n},     {"select/u64/keep50", op::select, 8, 0.50, n},
      {"partition/u32/keep50", op::partition, 4, 0.50, n}, {"partition2/u32/keep50", op::partition2, 4, 0.50, n},
      {"unique/u32/runs4", op::unique, 4, 0.25, n},
  };
  scankit::compact_options single, three;
  single.strategy = scankit::compact_strategy::single_pass;
  three.strategy = scankit::compact_strategy::three_step;
  for (std::size_t i = 0; i < g_workloads.size(); ++i) {
    add_row(i, "copy", "copy");
    add_row(i, "cub", "cub");
    add_row(i, "scankit", "scankit_single_pass", single);
    add_row(i, "scankit", "scankit_three_step", three);
    if (g_workloads[i].name == "select/u32/keep50") {
      for (int shape = 1; shape < static_cast<int>(std::size(k_tile_shapes)); ++shape) {
        add_row(i, "scankit", std::string("scankit_tile_") + k_tile_shapes[shape], single, shape);
      }
    }
  }
}

// ------------------------------------------------------------------------------------------
// Summary on stderr.

int print_summary() {
  std::fprintf(stderr,
               "\n== bench_compact summary: medians over repetitions; GB/s counts bytes read + written; frac_copy = "
               "GB/s / copy GB/s of the same bytes; vs_cub = CUB time / time\n");
  std::fprintf(stderr, "%-24s %-24s %10s %9s %9s %7s\n", "workload", "row", "ms", "GB/s", "frac_copy", "vs_cub");
  int measured = 0, failed = 0;
  for (const row_record& row : g_rows) {
    if (row.rep_ms.empty() && row.error.empty()) continue;
    std::fprintf(stderr, "%-24s %-24s ", row.workload.c_str(), row.label.c_str());
    if (!row.error.empty()) {
      ++failed;
      std::fprintf(stderr, "ERROR %s\n", row.error.c_str());
      continue;
    }
    ++measured;
    const double ms = median(row.rep_ms);
    if (row.kind == "copy") {
      std::fprintf(stderr, "%10.4f %9.1f %9s %7s\n", ms, anchor_of(row.workload).first, "1", "-");
      continue;
    }
    const double gbps = row.bytes / (ms * 1e-3) / 1e9;
    std::fprintf(stderr, "%10.4f %9.1f %9.3f %7.3f\n", ms, gbps, gbps / row.copy_gbps, row.cub_ms / ms);
  }
  std::fprintf(stderr,
               "targets (issue 5): select/u32/keep50 frac_copy >= 0.9 and vs_cub >= 1.3; every other single-pass "
               "row vs_cub >= 1.3\n== bench_compact: %d rows measured, %d failed\n",
               measured, failed);
  return failed;
}

void setup_gpu() {
  g_gpu.open("bench_compact");
  BENCH_CHECK(cudaMalloc(&g_scalars, 2 * sizeof(unsigned long long)));
}

void teardown_gpu() noexcept {
  release_data();
  if (g_scalars != nullptr) (void)cudaFree(g_scalars);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_compact", register_all, setup_gpu, print_summary, teardown_gpu});
}
