// bench_scan: inclusive sums on the GPU — scankit against cub::DeviceScan and the copy ceiling.
//
// Rows (Google Benchmark names; n is the element count):
//   copy/<type>/<n>                          cudaMemcpyAsync device to device of n values
//   cub/<type>/<n>                           cub::DeviceScan::InclusiveSum, temp storage allocated once (the
//                                            anchor of vs_cub; for int8 and int16 it accumulates in int32)
//   cub_scan/<type>/<n>                      int8 and int16 only: cub::DeviceScan::InclusiveScan with a plus
//                                            that returns the item type, so CUB accumulates (and looks back)
//                                            in int8 / int16 as scankit does (the anchor of vs_cub_scan)
//   scankit/<strategy>/<block_algorithm>/<type>/<n>   precompiled scankit::inclusive_scan (plus), or
//                                                     scankit::lab::inclusive_scan for the textbook
//                                                     strategies and block algorithms
//   scankit/deterministic/warp_of_warps/float/<n>     automatic strategy with options.deterministic
//                                                     (the deterministic look-back)
//   scankit/k<K>/decoupled_look_back/int32/<n>        options.items_per_thread = K (warp-of-warps)
//   scankit_template/pointer/float/<n>                 the template API on the plain array (2^28)
//   scankit_template/transform_iterator/float/<n>      the same through thrust::transform_iterator
//                                                      (|x| of each item): what an iterator input costs
// Google Benchmark appends /iterations:<i>/manual_time (and _median etc. to aggregates).
// Sizes 2^16, 2^20, 2^24, 2^28 (int8, int16, double and the deterministic row: 2^28 only), then
// a large group at 2^30 for int32 and float, last; leave it out with
// --benchmark_filter=-/1073741824/ . Every row is registered after the copy and CUB rows of its
// (type, n), and the rows of one (type, n) are adjacent, so the data are generated once per group.
//
// The two CUB anchors of the narrow integers. cub::DeviceScan::InclusiveSum(in, out, n) dispatches
// to DispatchScan<In, Out, ::cuda::std::plus<>, NullType, OffsetT> (cub/device/device_scan.cuh),
// whose AccumT defaults to ::cuda::std::__accumulator_t<ScanOpT, it_value_t<In>, it_value_t<In>>
// (cub/device/dispatch/dispatch_scan.cuh) = decay_t<invoke_result_t<plus<>, T, T>>: for int8 and
// int16 that is `int` (integer promotion), so CUB 3.0.1 (CUDA 13.0) loads bytes, scans, carries its
// tile aggregates and look-back in 32 bits and narrows only on the store. cub::DeviceScan::
// InclusiveScan with narrow_plus (returns T) makes AccumT = T: the accumulation scankit does. Both
// give the same bits (sums modulo 2^8 / 2^16); the static_asserts at cub_sum_accum_t check the
// accumulator types against this CUB at compile time.
//
// Timing: every iteration is bracketed by two CUDA events on one stream and reported with
// SetIterationTime; a warm-up launch comes first (it also grows the reused scankit workspace).
// Each repetition (default 5, --benchmark_repetitions overrides) reports the median of its
// iterations; only aggregates are reported, so `_median` is the median over repetitions.
//
// Counters (per repetition, aggregated like the time):
//   ms         median time of one call
//   GBps       2 * n * sizeof(T) bytes (read once, written once) / ms
//   frac_copy  copy time / this time, for the same type and n = GBps / copy GBps
//   vs_cub     CUB time / this time, for the same type and n (> 1: faster than CUB); CUB is
//              cub::DeviceScan::InclusiveSum (for int8 / int16: accumulating in int32)
//   vs_cub_scan int8 and int16 only: cub_scan time / this time (CUB's InclusiveScan accumulating
//              in the item type). On the cub row it compares the two CUB forms.
// The anchor rows carry a Google Benchmark label (JSON "label") that names the CUB call and its
// accumulator, e.g. "cub::DeviceScan::InclusiveSum acc=int32", and the JSON context has
// "cub_anchor" and "cub_scan_anchor" describing both.
// The copy and CUB times behind the ratios are measured in this process, the first time a
// (type, n) is needed, by a helper with its own event timings (median of 3 rounds of
// interleaved copy, CUB and, for int8 / int16, CUB InclusiveScan runs), so a ratio never depends
// on which rows ran or in what order. Before that, the CUB InclusiveScan output is checked
// against InclusiveSum's on the same input (bit for bit).
//
// Correctness guard: before timing, every scankit row runs once on a poisoned output and is
// compared on the device with CUB's output for the same input (exact for integers; floats
// within a relative tolerance; random inputs: integers in [-8, 7], floats in [0, 1)). A
// mismatch skips the row with an error ("mismatch vs CUB") and makes the exit status 1. The
// deterministic row must also give the same bits on two runs.
//
// Only CUB and the template-API rows (scankit_template/...) are instantiated here; everything else
// reaches scankit through the precompiled library API.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <cuda/std/type_traits>
#include <cuda_runtime.h>

#include "scankit/device/scan.cuh"
#include "scankit/lab/scan_lab.hpp"
#include "scankit/scan.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;

constexpr i64 pow2(int e) { return i64{1} << e; }

// ------------------------------------------------------------------------------------------
// Value types.

template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  return "?";
}

// Float comparison against CUB: both sum in a different order, so allow rounding differences.
// Inputs are positive for floats, so a relative tolerance is meaningful at every index.
template <class T>
constexpr double relative_tolerance() {
  return std::is_same_v<T, float> ? 1e-3 : 1e-9;
}
template <class T>
constexpr double absolute_tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

// ------------------------------------------------------------------------------------------
// Process-wide CUDA objects.

scankit_bench::gpu_session g_gpu;  // device, stream, timing events
unsigned long long* g_scalars = nullptr;  // device: [0] count / hash, [1] first bad index

// ------------------------------------------------------------------------------------------
// Helper kernels: random input, comparison, bit hash. (No scankit kernels are instantiated here.)

using scankit_bench::mix64;

template <class T>
__global__ void fill_random_kernel(T* data, i64 n, std::uint64_t seed) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix64(seed ^ mix64(static_cast<std::uint64_t>(i)));
    if constexpr (std::is_floating_point_v<T>) {
      data[i] = static_cast<T>(static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0));  // [0, 1)
    } else {
      data[i] = static_cast<T>(static_cast<int>(r >> 60) - 8);  // [-8, 7]
    }
  }
}

template <class T>
__global__ void compare_kernel(const T* got, const T* want, i64 n, double rtol, double atol,
                               unsigned long long* bad_count, unsigned long long* first_bad) {
  unsigned long long count = 0;
  unsigned long long first = ~0ull;
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    bool bad;
    if constexpr (std::is_floating_point_v<T>) {
      const double g = static_cast<double>(got[i]);
      const double w = static_cast<double>(want[i]);
      const double tol = rtol * fmax(fabs(g), fabs(w)) + atol;
      bad = !(fabs(g - w) <= tol);  // NaN (e.g. an unwritten, poisoned element) fails
    } else {
      bad = got[i] != want[i];
    }
    if (bad) {
      ++count;
      if (static_cast<unsigned long long>(i) < first) first = static_cast<unsigned long long>(i);
    }
  }
  if (count != 0) {
    atomicAdd(bad_count, count);
    atomicMin(first_bad, first);
  }
}

// Order-independent 64-bit hash of the bits of every element (and its index).
template <class T>
__global__ void hash_kernel(const T* data, i64 n, unsigned long long* hash) {
  unsigned long long h = 0;
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::uint64_t bits = 0;
    memcpy(&bits, &data[i], sizeof(T));
    h += mix64(bits ^ (static_cast<std::uint64_t>(i) * 0xD1B54A32D192ED03ull));
  }
  for (int offset = 16; offset > 0; offset /= 2) h += __shfl_down_sync(0xffffffffu, h, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(hash, h);
}

// ------------------------------------------------------------------------------------------
// CUB (the anchor): the only template instantiations of scan kernels in this file.

template <class T>
cudaError_t cub_inclusive_sum(void* temp, std::size_t& temp_bytes, const T* in, T* out, i64 n) {
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, static_cast<int>(n), g_gpu.stream);
}

// A plus whose result is the item type: with it CUB's accumulator is T itself.
struct narrow_plus {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return static_cast<T>(a + b);
  }
};

// The types that get the second anchor (cub_scan rows, vs_cub_scan).
template <class T>
constexpr bool has_cub_scan_anchor() {
  return std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint8_t> ||
         std::is_same_v<T, std::uint16_t>;
}

// CUB's accumulator type for InclusiveSum (::cuda::std::plus<>) and for InclusiveScan(narrow_plus):
// what DispatchScan's AccumT default computes (decay of the operator's result on two items).
template <class Op, class T>
using cub_accum_t = std::decay_t<::cuda::std::invoke_result_t<Op, T, T>>;
template <class T>
using cub_sum_accum_t = cub_accum_t<::cuda::std::plus<>, T>;
static_assert(std::is_same_v<cub_sum_accum_t<std::int8_t>, int>, "CUB InclusiveSum on int8 accumulates in int");
static_assert(std::is_same_v<cub_sum_accum_t<std::int16_t>, int>, "CUB InclusiveSum on int16 accumulates in int");
static_assert(std::is_same_v<cub_sum_accum_t<std::int32_t>, std::int32_t>, "and in the item type from 32 bits");
static_assert(std::is_same_v<cub_accum_t<narrow_plus, std::int8_t>, std::int8_t>, "narrow_plus keeps int8");
static_assert(std::is_same_v<cub_accum_t<narrow_plus, std::int16_t>, std::int16_t>, "narrow_plus keeps int16");

template <class T>
cudaError_t cub_inclusive_scan_narrow(void* temp, std::size_t& temp_bytes, const T* in, T* out, i64 n) {
  return cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out, narrow_plus{}, static_cast<int>(n), g_gpu.stream);
}

template <class A>
constexpr const char* accum_name() {
  if constexpr (std::is_same_v<A, std::int8_t>) return "int8";
  if constexpr (std::is_same_v<A, std::uint8_t>) return "uint8";
  if constexpr (std::is_same_v<A, std::int16_t>) return "int16";
  if constexpr (std::is_same_v<A, std::uint16_t>) return "uint16";
  if constexpr (std::is_same_v<A, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<A, std::uint32_t>) return "uint32";
  if constexpr (std::is_same_v<A, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<A, std::uint64_t>) return "uint64";
  if constexpr (std::is_same_v<A, float>) return "float";
  if constexpr (std::is_same_v<A, double>) return "double";
  return "?";
}

// Labels of the anchor rows: long for Google Benchmark's "label" (JSON), short (no spaces) for
// the summary's algorithm column.
template <class T>
std::string cub_sum_label(bool short_form = false) {
  return std::string(short_form ? "InclusiveSum,acc=" : "cub::DeviceScan::InclusiveSum acc=") +
         accum_name<cub_sum_accum_t<T>>();
}
template <class T>
std::string cub_scan_label(bool short_form = false) {
  return std::string(short_form ? "InclusiveScan,acc=" : "cub::DeviceScan::InclusiveScan(narrow_plus) acc=") +
         accum_name<cub_accum_t<narrow_plus, T>>();
}

// ------------------------------------------------------------------------------------------
// The data of one (type, n): input, output, CUB's result, CUB's temp storage. One set is held
// at a time; rows are registered grouped by (type, n), so it changes a few dozen times per run.

struct data_set {
  std::string type;
  i64 n = 0;
  void* in = nullptr;
  void* out = nullptr;
  void* ref = nullptr;  // CUB's inclusive sum of `in`
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  void* temp_scan = nullptr;  // CUB InclusiveScan(narrow_plus)'s temp storage (int8 / int16 only)
  std::size_t temp_scan_bytes = 0;
};
data_set g_data;

void free_data(data_set& d) noexcept {
  for (void* p : {d.in, d.out, d.ref, d.temp, d.temp_scan}) {
    if (p != nullptr) (void)cudaFree(p);
  }
  d = data_set{};
}

void release_data() noexcept {
  (void)cudaStreamSynchronize(g_gpu.stream);
  free_data(g_data);
}

template <class T>
data_set& data_for(i64 n) {
  if (g_data.type == type_name<T>() && g_data.n == n) return g_data;
  release_data();
  if (n > std::numeric_limits<int>::max()) throw std::runtime_error("n too large for the CUB anchor (int count)");
  data_set d;
  try {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    BENCH_CHECK(cudaMalloc(&d.in, bytes));
    BENCH_CHECK(cudaMalloc(&d.out, bytes));
    BENCH_CHECK(cudaMalloc(&d.ref, bytes));
    const std::uint64_t seed = mix64(static_cast<std::uint64_t>(n) * 1000003u + sizeof(T) * 17u +
                                     (std::is_floating_point_v<T> ? 1u : 0u));
    fill_random_kernel<T><<<g_gpu.helper_grid(n), 256, 0, g_gpu.stream>>>(static_cast<T*>(d.in), n, seed);
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cub_inclusive_sum<T>(nullptr, d.temp_bytes, static_cast<const T*>(d.in), static_cast<T*>(d.ref), n));
    BENCH_CHECK(cudaMalloc(&d.temp, std::max<std::size_t>(d.temp_bytes, 1)));
    BENCH_CHECK(cub_inclusive_sum<T>(d.temp, d.temp_bytes, static_cast<const T*>(d.in), static_cast<T*>(d.ref), n));
    if constexpr (has_cub_scan_anchor<T>()) {
      // The second anchor must give InclusiveSum's bits (into `out`, poisoned first).
      BENCH_CHECK(cub_inclusive_scan_narrow<T>(nullptr, d.temp_scan_bytes, static_cast<const T*>(d.in),
                                               static_cast<T*>(d.out), n));
      BENCH_CHECK(cudaMalloc(&d.temp_scan, std::max<std::size_t>(d.temp_scan_bytes, 1)));
      BENCH_CHECK(cudaMemsetAsync(d.out, 0xFF, bytes, g_gpu.stream));
      BENCH_CHECK(cub_inclusive_scan_narrow<T>(d.temp_scan, d.temp_scan_bytes, static_cast<const T*>(d.in),
                                               static_cast<T*>(d.out), n));
      unsigned long long host[2] = {0, ~0ull};
      BENCH_CHECK(cudaMemcpyAsync(g_scalars, host, sizeof(host), cudaMemcpyHostToDevice, g_gpu.stream));
      compare_kernel<T><<<g_gpu.helper_grid(n), 256, 0, g_gpu.stream>>>(static_cast<const T*>(d.out),
                                                              static_cast<const T*>(d.ref), n, 0.0, 0.0, g_scalars,
                                                              g_scalars + 1);
      BENCH_CHECK(cudaGetLastError());
      BENCH_CHECK(cudaMemcpyAsync(host, g_scalars, sizeof(host), cudaMemcpyDeviceToHost, g_gpu.stream));
      BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
      if (host[0] != 0) {
        throw std::runtime_error("CUB anchors disagree: " + cub_scan_label<T>() + " differs from " +
                                 cub_sum_label<T>() + " at " + std::to_string(host[0]) + " elements, first at " +
                                 std::to_string(host[1]));
      }
    }
    BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  } catch (...) {
    (void)cudaStreamSynchronize(g_gpu.stream);
    free_data(d);
    throw;
  }
  d.type = type_name<T>();
  d.n = n;
  g_data = d;
  return g_data;
}

template <class T>
void launch_copy(const data_set& d) {
  BENCH_CHECK(cudaMemcpyAsync(d.out, d.in, static_cast<std::size_t>(d.n) * sizeof(T), cudaMemcpyDeviceToDevice,
                              g_gpu.stream));
}

template <class T>
void launch_cub(data_set& d) {
  BENCH_CHECK(cub_inclusive_sum<T>(d.temp, d.temp_bytes, static_cast<const T*>(d.in), static_cast<T*>(d.out), d.n));
}

template <class T>
void launch_cub_scan(data_set& d) {
  BENCH_CHECK(cub_inclusive_scan_narrow<T>(d.temp_scan, d.temp_scan_bytes, static_cast<const T*>(d.in),
                                           static_cast<T*>(d.out), d.n));
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

// Iterations per repetition: enough for a stable median, few enough for a short run.
int iterations_for(i64 n, bool chained) {
  if (chained && n >= pow2(28)) return 3;   // tens of ms per call
  if (chained && n >= pow2(24)) return 10;
  if (n <= pow2(20)) return 200;
  if (n <= pow2(24)) return 50;
  if (n <= pow2(28)) return 20;
  return 10;
}

// ------------------------------------------------------------------------------------------
// Baselines: copy and CUB medians per (type, n), measured once per process.

struct baseline {
  double copy_ms = 0.0;
  double cub_ms = 0.0;                                             // InclusiveSum
  double cub_scan_ms = std::numeric_limits<double>::quiet_NaN();  // InclusiveScan(narrow_plus); int8 / int16
};
std::map<std::pair<std::string, i64>, baseline> g_baselines;

template <class T>
baseline baseline_for(i64 n) {
  const auto key = std::make_pair(std::string(type_name<T>()), n);
  if (const auto it = g_baselines.find(key); it != g_baselines.end()) return it->second;
  data_set& d = data_for<T>(n);
  launch_copy<T>(d);  // warm-up
  launch_cub<T>(d);
  if constexpr (has_cub_scan_anchor<T>()) launch_cub_scan<T>(d);
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  const int iterations = iterations_for(n, false);
  std::vector<double> copy_ms, cub_ms, cub_scan_ms;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < iterations; ++i) copy_ms.push_back(time_once_ms([&] { launch_copy<T>(d); }));
    for (int i = 0; i < iterations; ++i) cub_ms.push_back(time_once_ms([&] { launch_cub<T>(d); }));
    if constexpr (has_cub_scan_anchor<T>()) {
      for (int i = 0; i < iterations; ++i) cub_scan_ms.push_back(time_once_ms([&] { launch_cub_scan<T>(d); }));
    }
  }
  baseline b;
  b.copy_ms = median(copy_ms);
  b.cub_ms = median(cub_ms);
  if constexpr (has_cub_scan_anchor<T>()) b.cub_scan_ms = median(cub_scan_ms);
  g_baselines.emplace(key, b);
  return b;
}

// ------------------------------------------------------------------------------------------
// Rows: what each registered benchmark is, and what it measured (for the summary table).

struct row_record {
  std::string name;       // the registered name
  std::string kind;       // copy | cub | cub_scan | scankit
  std::string strategy;   // for the summary table
  std::string algorithm;  // for the summary table
  std::string type;
  i64 n = 0;
  std::size_t value_bytes = 0;
  bool checked = false;
  std::string error;
  std::vector<double> rep_ms;  // median per repetition
  double copy_ms = std::numeric_limits<double>::quiet_NaN();
  double cub_ms = std::numeric_limits<double>::quiet_NaN();
  double cub_scan_ms = std::numeric_limits<double>::quiet_NaN();  // NaN: no second anchor for this type
  std::string label;  // Google Benchmark label (anchor rows: the CUB call and its accumulator)
};
std::vector<row_record> g_rows;

void fail(benchmark::State& state, row_record& row, const std::string& why) {
  if (row.error.empty()) row.error = why;
  state.SkipWithError(why.c_str());
}

// Runs the timed iterations of one repetition and sets the counters.
template <class Launch>
void timed_loop(benchmark::State& state, row_record& row, Launch&& launch) {
  launch();  // warm-up
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(state.max_iterations));
  for (auto _ : state) {
    const double ms = time_once_ms(launch);
    state.SetIterationTime(ms * 1e-3);
    times.push_back(ms);
  }
  const double ms = median(times);
  row.rep_ms.push_back(ms);
  const double bytes = 2.0 * static_cast<double>(row.n) * static_cast<double>(row.value_bytes);
  state.counters["ms"] = ms;
  state.counters["GBps"] = bytes / (ms * 1e-3) / 1e9;
  state.counters["frac_copy"] = row.copy_ms / ms;
  if (row.kind != "copy") {
    state.counters["vs_cub"] = row.cub_ms / ms;
    if (!std::isnan(row.cub_scan_ms)) state.counters["vs_cub_scan"] = row.cub_scan_ms / ms;
  }
  if (!row.label.empty()) state.SetLabel(row.label);
}

// Compares the scankit result with CUB's; returns an empty string when they agree.
template <class T, class Launch>
std::string check_against_cub(data_set& d, Launch& launch, bool deterministic) {
  const std::size_t bytes = static_cast<std::size_t>(d.n) * sizeof(T);
  auto run_poisoned = [&] {
    BENCH_CHECK(cudaMemsetAsync(d.out, 0xFF, bytes, g_gpu.stream));
    launch();
    BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  };
  run_poisoned();

  unsigned long long host[2] = {0, ~0ull};
  BENCH_CHECK(cudaMemcpyAsync(g_scalars, host, sizeof(host), cudaMemcpyHostToDevice, g_gpu.stream));
  compare_kernel<T><<<g_gpu.helper_grid(d.n), 256, 0, g_gpu.stream>>>(static_cast<const T*>(d.out), static_cast<const T*>(d.ref),
                                                            d.n, relative_tolerance<T>(), absolute_tolerance<T>(),
                                                            g_scalars, g_scalars + 1);
  BENCH_CHECK(cudaGetLastError());
  BENCH_CHECK(cudaMemcpyAsync(host, g_scalars, sizeof(host), cudaMemcpyDeviceToHost, g_gpu.stream));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  if (host[0] != 0) {
    const i64 at = static_cast<i64>(host[1]);
    T got{}, want{};
    BENCH_CHECK(cudaMemcpy(&got, static_cast<const T*>(d.out) + at, sizeof(T), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(&want, static_cast<const T*>(d.ref) + at, sizeof(T), cudaMemcpyDeviceToHost));
    return "mismatch vs CUB: " + std::to_string(host[0]) + " of " + std::to_string(d.n) + " elements differ, first at " +
           std::to_string(at) + " (scankit " + std::to_string(static_cast<double>(got)) + ", CUB " +
           std::to_string(static_cast<double>(want)) + ")";
  }

  if (deterministic) {
    unsigned long long hashes[2] = {0, 0};
    for (unsigned long long& h : hashes) {
      BENCH_CHECK(cudaMemsetAsync(g_scalars, 0, sizeof(unsigned long long), g_gpu.stream));
      hash_kernel<T><<<g_gpu.helper_grid(d.n), 256, 0, g_gpu.stream>>>(static_cast<const T*>(d.out), d.n, g_scalars);
      BENCH_CHECK(cudaGetLastError());
      BENCH_CHECK(cudaMemcpyAsync(&h, g_scalars, sizeof(h), cudaMemcpyDeviceToHost, g_gpu.stream));
      BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
      if (&h == &hashes[0]) run_poisoned();
    }
    if (hashes[0] != hashes[1]) return "deterministic scan gave different bits on two runs";
  }
  return {};
}

// ------------------------------------------------------------------------------------------
// Benchmark bodies.

template <class T>
void bm_copy(benchmark::State& state, std::size_t row_index) {
  row_record& row = g_rows[row_index];
  try {
    const baseline b = baseline_for<T>(row.n);
    row.copy_ms = b.copy_ms;
    row.cub_ms = b.cub_ms;
    row.cub_scan_ms = b.cub_scan_ms;
    data_set& d = data_for<T>(row.n);
    timed_loop(state, row, [&] { launch_copy<T>(d); });
  } catch (const std::exception& e) {
    fail(state, row, e.what());
  }
}

template <class T>
void bm_cub(benchmark::State& state, std::size_t row_index) {
  row_record& row = g_rows[row_index];
  try {
    const baseline b = baseline_for<T>(row.n);
    row.copy_ms = b.copy_ms;
    row.cub_ms = b.cub_ms;
    row.cub_scan_ms = b.cub_scan_ms;
    data_set& d = data_for<T>(row.n);
    timed_loop(state, row, [&] { launch_cub<T>(d); });
  } catch (const std::exception& e) {
    fail(state, row, e.what());
  }
}

template <class T>
void bm_cub_scan(benchmark::State& state, std::size_t row_index) {
  row_record& row = g_rows[row_index];
  try {
    if constexpr (has_cub_scan_anchor<T>()) {
      const baseline b = baseline_for<T>(row.n);
      row.copy_ms = b.copy_ms;
      row.cub_ms = b.cub_ms;
      row.cub_scan_ms = b.cub_scan_ms;
      data_set& d = data_for<T>(row.n);
      timed_loop(state, row, [&] { launch_cub_scan<T>(d); });
    } else {
      fail(state, row, "no cub_scan anchor for this type");
    }
  } catch (const std::exception& e) {
    fail(state, row, e.what());
  }
}

template <class T>
void bm_scankit(benchmark::State& state, std::size_t row_index, scankit::scan_options options) {
  row_record& row = g_rows[row_index];
  if (!row.error.empty()) {  // an earlier repetition failed: do not time a wrong result
    state.SkipWithError(row.error.c_str());
    return;
  }
  try {
    const baseline b = baseline_for<T>(row.n);
    row.copy_ms = b.copy_ms;
    row.cub_ms = b.cub_ms;
    row.cub_scan_ms = b.cub_scan_ms;
    data_set& d = data_for<T>(row.n);
    scankit::workspace ws;  // grown by the first call, reused by every timed one
    // The production library runs the look-back; the textbook strategies and shapes are the lab's.
    const bool production =
        (options.strategy == scankit::scan_strategy::automatic ||
         options.strategy == scankit::scan_strategy::decoupled_look_back) &&
        options.items_per_thread == 0 && options.block_algorithm == scankit::block_scan_algorithm::automatic;
    auto launch = [&] {
      if (production) {
        scankit::inclusive_scan(static_cast<const T*>(d.in), static_cast<T*>(d.out), d.n, scankit::scan_op::plus,
                                g_gpu.stream, &ws, options);
      } else {
        scankit::lab::inclusive_scan(static_cast<const T*>(d.in), static_cast<T*>(d.out), d.n,
                                     scankit::scan_op::plus, g_gpu.stream, &ws, options);
      }
    };
    if (!row.checked) {
      row.checked = true;
      const std::string why = check_against_cub<T>(d, launch, options.deterministic);
      if (!why.empty()) {
        fail(state, row, why);
        return;
      }
    }
    timed_loop(state, row, launch);
  } catch (const std::exception& e) {
    fail(state, row, e.what());
  }
}

// The template API on the same data, its input read as the plain array or through a transform
// iterator (|x|: the inputs are in [0, 1), so the results equal CUB's, but the compiler cannot
// drop it). Both run the staged kernel; the transform is applied as items leave shared memory.
struct absolute_value {
  __host__ __device__ float operator()(float x) const { return fabsf(x); }
};

template <class T, bool Transform>
void bm_template(benchmark::State& state, std::size_t row_index) {
  row_record& row = g_rows[row_index];
  if (!row.error.empty()) {
    state.SkipWithError(row.error.c_str());
    return;
  }
  try {
    const baseline b = baseline_for<T>(row.n);
    row.copy_ms = b.copy_ms;
    row.cub_ms = b.cub_ms;
    row.cub_scan_ms = b.cub_scan_ms;
    data_set& d = data_for<T>(row.n);
    scankit::workspace ws;
    auto launch = [&] {
      const T* in = static_cast<const T*>(d.in);
      if constexpr (Transform) {
        scankit::device::inclusive_scan(thrust::make_transform_iterator(in, absolute_value{}), static_cast<T*>(d.out),
                                        d.n, scankit::plus_op{}, g_gpu.stream, &ws);
      } else {
        scankit::device::inclusive_scan(in, static_cast<T*>(d.out), d.n, scankit::plus_op{}, g_gpu.stream, &ws);
      }
    };
    if (!row.checked) {
      row.checked = true;
      const std::string why = check_against_cub<T>(d, launch, false);
      if (!why.empty()) {
        fail(state, row, why);
        return;
      }
    }
    timed_loop(state, row, launch);
  } catch (const std::exception& e) {
    fail(state, row, e.what());
  }
}

// ------------------------------------------------------------------------------------------
// Registration (in this order; Google Benchmark runs rows in registration order).

std::size_t add_row(const std::string& name, const std::string& kind, const std::string& strategy,
                    const std::string& algorithm, const char* type, i64 n, std::size_t value_bytes) {
  row_record row;
  row.name = name;
  row.kind = kind;
  row.strategy = strategy;
  row.algorithm = algorithm;
  row.type = type;
  row.n = n;
  row.value_bytes = value_bytes;
  g_rows.push_back(std::move(row));
  return g_rows.size() - 1;
}

template <class Fn>
void register_row(const std::string& name, int iterations, Fn&& fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn))
      ->UseManualTime()
      ->Iterations(iterations)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
}

template <class T>
void register_copy_and_cub(i64 n) {
  const std::string tail = std::string("/") + type_name<T>() + "/" + std::to_string(n);
  const std::size_t copy_row = add_row("copy" + tail, "copy", "-", "-", type_name<T>(), n, sizeof(T));
  register_row("copy" + tail, iterations_for(n, false),
               [copy_row](benchmark::State& state) { bm_copy<T>(state, copy_row); });
  const std::size_t cub_row = add_row("cub" + tail, "cub", "-", cub_sum_label<T>(true), type_name<T>(), n, sizeof(T));
  g_rows[cub_row].label = cub_sum_label<T>();
  register_row("cub" + tail, iterations_for(n, false),
               [cub_row](benchmark::State& state) { bm_cub<T>(state, cub_row); });
  if constexpr (has_cub_scan_anchor<T>()) {
    const std::size_t scan_row =
        add_row("cub_scan" + tail, "cub_scan", "-", cub_scan_label<T>(true), type_name<T>(), n, sizeof(T));
    g_rows[scan_row].label = cub_scan_label<T>();
    register_row("cub_scan" + tail, iterations_for(n, false),
                 [scan_row](benchmark::State& state) { bm_cub_scan<T>(state, scan_row); });
  }
}

template <class T>
void register_scankit(i64 n, scankit::scan_strategy strategy, scankit::block_scan_algorithm algorithm,
                      int items_per_thread = 0, bool deterministic = false) {
  scankit::scan_options options;
  options.strategy = strategy;
  options.block_algorithm = algorithm;
  options.items_per_thread = items_per_thread;
  options.deterministic = deterministic;
  const std::string tail = std::string("/") + type_name<T>() + "/" + std::to_string(n);
  std::string name, strategy_label = scankit::to_string(strategy), algorithm_label = scankit::to_string(algorithm);
  if (algorithm == scankit::block_scan_algorithm::automatic) algorithm_label = "staged";  // the default shape
  if (deterministic) {
    strategy_label = "deterministic";
    name = "scankit/deterministic/" + algorithm_label + tail;
  } else if (items_per_thread != 0) {
    name = "scankit/k" + std::to_string(items_per_thread) + "/" + strategy_label + tail;
    algorithm_label += ",k=" + std::to_string(items_per_thread);
  } else {
    name = "scankit/" + strategy_label + "/" + algorithm_label + tail;
  }
  const std::size_t row = add_row(name, "scankit", strategy_label, algorithm_label, type_name<T>(), n, sizeof(T));
  register_row(name, iterations_for(n, strategy == scankit::scan_strategy::chained),
               [row, options](benchmark::State& state) { bm_scankit<T>(state, row, options); });
}

constexpr scankit::scan_strategy k_strategies[] = {
    scankit::scan_strategy::three_launch, scankit::scan_strategy::reduce_then_scan, scankit::scan_strategy::chained,
    scankit::scan_strategy::decoupled_look_back};
constexpr scankit::block_scan_algorithm k_algorithms[] = {
    scankit::block_scan_algorithm::kogge_stone_double_buffer, scankit::block_scan_algorithm::kogge_stone_read_sync_write,
    scankit::block_scan_algorithm::brent_kung, scankit::block_scan_algorithm::warp_of_warps};
constexpr int k_coarsening[] = {1, 2, 4, 8, 16};

// copy, cub and every strategy x block algorithm for one (type, n).
template <class T>
void register_matrix(i64 n) {
  register_copy_and_cub<T>(n);
  for (const auto strategy : k_strategies) {
    for (const auto algorithm : k_algorithms) register_scankit<T>(n, strategy, algorithm);
  }
  register_scankit<T>(n, scankit::scan_strategy::decoupled_look_back, scankit::block_scan_algorithm::automatic);
}

void register_all() {
  using scankit::block_scan_algorithm;
  using scankit::scan_strategy;
  for (const int e : {16, 20, 24, 28}) {
    const i64 n = pow2(e);
    register_matrix<std::int32_t>(n);
    if (e >= 24) {
      for (const int k : k_coarsening) {
        register_scankit<std::int32_t>(n, scan_strategy::decoupled_look_back, block_scan_algorithm::warp_of_warps, k);
      }
    }
    register_matrix<std::int64_t>(n);
    register_matrix<float>(n);
    if (e == 28) {
      // The template API with a transform-iterator input against the same call on the plain array.
      for (const bool transform : {false, true}) {
        const std::string label = transform ? "transform_iterator" : "pointer";
        const std::string name = "scankit_template/" + label + "/float/" + std::to_string(n);
        const std::size_t row = add_row(name, "template", label, "staged", "float", n, sizeof(float));
        register_row(name, iterations_for(n, false), [row, transform](benchmark::State& state) {
          if (transform) {
            bm_template<float, true>(state, row);
          } else {
            bm_template<float, false>(state, row);
          }
        });
      }
      register_scankit<float>(n, scan_strategy::automatic, block_scan_algorithm::warp_of_warps, 0, true);
      register_scankit<float>(n, scan_strategy::automatic, block_scan_algorithm::automatic, 0, true);
      // The issue targets: narrow integers and double at 2^28 (register kernel, then the default).
      register_copy_and_cub<std::int8_t>(n);
      register_scankit<std::int8_t>(n, scan_strategy::decoupled_look_back, block_scan_algorithm::warp_of_warps);
      register_scankit<std::int8_t>(n, scan_strategy::decoupled_look_back, block_scan_algorithm::automatic);
      register_copy_and_cub<std::int16_t>(n);
      register_scankit<std::int16_t>(n, scan_strategy::decoupled_look_back, block_scan_algorithm::warp_of_warps);
      register_scankit<std::int16_t>(n, scan_strategy::decoupled_look_back, block_scan_algorithm::automatic);
      register_copy_and_cub<double>(n);
      register_scankit<double>(n, scan_strategy::decoupled_look_back, block_scan_algorithm::warp_of_warps);
      register_scankit<double>(n, scan_strategy::decoupled_look_back, block_scan_algorithm::automatic);
    }
  }
  // The large group (n = 2^30, 4 GiB per array); leave it out with --benchmark_filter=-/1073741824/
  const i64 large = pow2(30);
  for (int t = 0; t < 2; ++t) {
    if (t == 0) {
      register_copy_and_cub<std::int32_t>(large);
    } else {
      register_copy_and_cub<float>(large);
    }
    for (const auto strategy :
         {scan_strategy::three_launch, scan_strategy::reduce_then_scan, scan_strategy::decoupled_look_back}) {
      if (t == 0) {
        register_scankit<std::int32_t>(large, strategy, block_scan_algorithm::warp_of_warps);
      } else {
        register_scankit<float>(large, strategy, block_scan_algorithm::warp_of_warps);
      }
    }
    if (t == 0) {
      register_scankit<std::int32_t>(large, scan_strategy::decoupled_look_back, block_scan_algorithm::automatic);
    } else {
      register_scankit<float>(large, scan_strategy::decoupled_look_back, block_scan_algorithm::automatic);
    }
  }
}

// ------------------------------------------------------------------------------------------
// Summary table on stderr (after Google Benchmark's own report).

int print_summary() {
  std::fprintf(stderr,
               "\n== bench_scan summary: medians over repetitions; frac_copy = copy time / time, vs_cub = CUB time / "
               "time (same type and n; > 1 is faster than CUB) with CUB = cub::DeviceScan::InclusiveSum (int8, int16: "
               "accumulates in int32); vs_cub_scan (int8, int16) = time of cub::DeviceScan::InclusiveScan with a plus "
               "in the item type (accumulates in int8 / int16, like scankit) / time\n");
  std::fprintf(stderr, "%-8s %-20s %-28s %-6s %10s %10s %9s %9s %7s %11s\n", "kind", "strategy", "algorithm", "type",
               "n", "ms", "GB/s", "frac_copy", "vs_cub", "vs_cub_scan");
  int measured = 0, failed = 0;
  for (const row_record& row : g_rows) {
    if (row.rep_ms.empty() && row.error.empty()) continue;  // filtered out
    std::fprintf(stderr, "%-8s %-20s %-28s %-6s %10lld ", row.kind.c_str(), row.strategy.c_str(), row.algorithm.c_str(),
                 row.type.c_str(), static_cast<long long>(row.n));
    if (!row.error.empty()) {
      ++failed;
      std::fprintf(stderr, "ERROR %s\n", row.error.c_str());
      continue;
    }
    ++measured;
    const double ms = median(row.rep_ms);
    const double gbps = 2.0 * static_cast<double>(row.n) * static_cast<double>(row.value_bytes) / (ms * 1e-3) / 1e9;
    std::fprintf(stderr, "%10.4f %10.1f %9.3f ", ms, gbps, row.copy_ms / ms);
    if (row.kind == "copy") {
      std::fprintf(stderr, "%7s %11s\n", "-", "-");
    } else if (std::isnan(row.cub_scan_ms)) {
      std::fprintf(stderr, "%7.3f %11s\n", row.cub_ms / ms, "-");
    } else {
      std::fprintf(stderr, "%7.3f %11.3f\n", row.cub_ms / ms, row.cub_scan_ms / ms);
    }
  }
  std::fprintf(stderr, "== bench_scan: %d rows measured, %d failed\n", measured, failed);
  return failed;
}

void setup_gpu() {
  g_gpu.open("bench_scan");
  BENCH_CHECK(cudaMalloc(&g_scalars, 2 * sizeof(unsigned long long)));
  benchmark::AddCustomContext("cub_version", std::to_string(CUB_VERSION));
  benchmark::AddCustomContext("cub_anchor",
                              "vs_cub and cub/<type>/<n> rows: cub::DeviceScan::InclusiveSum (int8 and int16 "
                              "accumulate in int32, the item type otherwise)");
  benchmark::AddCustomContext("cub_scan_anchor",
                              "vs_cub_scan and cub_scan/<type>/<n> rows (int8, int16): cub::DeviceScan::InclusiveScan "
                              "with a plus returning the item type (accumulates in int8 / int16, as scankit does)");
}

void teardown_gpu() noexcept {
  release_data();
  if (g_scalars != nullptr) (void)cudaFree(g_scalars);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_scan", register_all, setup_gpu, print_summary, teardown_gpu});
}
