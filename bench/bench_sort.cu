// bench_sort: radix sort on the GPU — scankit against cub::DeviceRadixSort and the copy ceiling.
//
// Workloads (Google Benchmark names <workload>/<row>; n = 2^28 unless the name says otherwise):
//   u32, u32_u32, u64, u64_u64, u8, u16, f32     uniform random keys (and values): every bit
//                                                random; f32 uniform in [-1, 1)
//   u32_8distinct                                 8 distinct key values
//   u32_sorted                                    already sorted keys
//   u32_below2p20                                 keys < 2^20 (the top 12 bits zero), no bit range
//   u64_zipf                                      Zipf(1.1) ranks over [1, 2^28] (the continuous
//                                                 law's inverse CDF, rounded down), each rank a
//                                                 random 64-bit key; 7.8% of the keys are the
//                                                 most common one
//   argsort_f32_i32                               argsort of f32 keys to int32 indices (CUB anchor:
//                                                 SortPairs with a prepared 0..n-1 value array)
//   u32_2p16, u32_2p20                            latency
// Rows:
//   copy                      cudaMemcpyAsync D2D of the keys and values (the floor of one pass)
//   cub                       cub::DeviceRadixSort::SortKeys / SortPairs (out of place)
//   scankit_onesweep          scankit::sort_keys / sort_pairs / argsort with the onesweep strategy
//   scankit_reduce_then_scan  the same with the reduce-then-scan strategy
//   scankit_automatic         u8, u16: the automatic strategy (the default), a counting sort
//   scankit_total_order       f32: float_order::total (the default; every other row sorts floats
//                             by raw bits, CUB's order)
//   shape_multi_block         small sizes: the tuned shape without the one-block path
//   shape_no_prefetch         u32, u64, u32_sorted: without the L2 prefetch of later tiles
// Counters: ms (median of the iterations), Gkeys_per_s, frac_floor (the time a copy of the keys
// and values once in, once out would take / this time: what fraction of the memory floor the sort
// reaches), vs_cub (CUB time / this time, > 1: faster than CUB).
// Correctness guard: each scankit row's output is compared on the device with CUB's (stable
// sorts of the same keys give the same keys and values) before it is timed; a mismatch fails it.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include "scankit/device/sort.cuh"
#include "scankit/sort.hpp"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;
using scankit_bench::mix64;


scankit_bench::gpu_session g_gpu;  // device, stream, timing events
unsigned long long* g_mismatches = nullptr;
scankit::workspace* g_ws = nullptr;

enum class keys_kind { uniform, f32_unit, distinct8, sorted, below2p20, iota, zipf };

// A Zipf(1.1) rank in [1, 2^28] from a uniform 64-bit word: the inverse of the continuous power
// law's CDF, (1 + u (N^-0.1 - 1))^-10, rounded down.
__device__ inline std::uint64_t zipf_rank(std::uint64_t r) {
  const double u = static_cast<double>(r >> 11) * 0x1p-53;
  const double top = 268435456.0;  // N = 2^28
  const double x = pow(1.0 + u * (pow(top, -0.1) - 1.0), -10.0);
  return static_cast<std::uint64_t>(x < top ? x : top);
}

template <class T>
__global__ void fill_kernel(T* data, i64 n, std::uint64_t seed, keys_kind kind) {
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = mix64(seed ^ mix64(static_cast<std::uint64_t>(i)));
    T v;
    switch (kind) {
      case keys_kind::f32_unit: v = static_cast<T>(static_cast<float>(r >> 40) / 16777216.0f * 2.0f - 1.0f); break;
      case keys_kind::distinct8: v = static_cast<T>(mix64(r % 8)); break;
      case keys_kind::sorted: v = static_cast<T>(i); break;
      case keys_kind::below2p20: v = static_cast<T>(r & 0xfffffu); break;
      case keys_kind::iota: v = static_cast<T>(i); break;
      case keys_kind::zipf: v = static_cast<T>(mix64(zipf_rank(r))); break;
      default: v = static_cast<T>(r); break;
    }
    data[i] = v;
  }
}

template <class T>
void fill(T* data, i64 n, std::uint64_t seed, keys_kind kind) {
  fill_kernel<T><<<2048, 256, 0, g_gpu.stream>>>(data, n, seed, kind);
  BENCH_CHECK(cudaGetLastError());
}

template <class T>
unsigned long long mismatches(const T* a, const T* b, i64 n) {
  return scankit_bench::bitwise_mismatches(a, b, n, g_mismatches, g_gpu.stream);
}



// ---- workloads ------------------------------------------------------------------------------------

struct anchors {
  scankit_bench::anchor_times copy, cub;
};
std::map<std::string, anchors> g_anchors;

using scankit_bench::summary_row;
std::vector<summary_row> g_summary;

std::shared_ptr<void> g_current;  // the data of the workload being measured
std::string g_current_name;

// One workload's buffers: keys (and values) in, CUB's output, scankit's output, CUB's temp.
template <class K, class V>
struct workload_data {
  i64 n = 0;
  K *keys = nullptr, *cub_keys = nullptr, *our_keys = nullptr;
  V *values = nullptr, *cub_values = nullptr, *our_values = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  ~workload_data() {
    for (void* p : {static_cast<void*>(keys), static_cast<void*>(cub_keys), static_cast<void*>(our_keys),
                    static_cast<void*>(values), static_cast<void*>(cub_values), static_cast<void*>(our_values), temp}) {
      if (p) (void)cudaFree(p);
    }
  }
};

template <class V>
constexpr std::size_t sort_value_bytes = sizeof(V);
template <>
inline constexpr std::size_t sort_value_bytes<void> = 0;

template <class K, class V, class P>
std::function<void()> launch_with_policy(const K* keys_in, K* keys_out, const V* values_in, V* values_out, i64 n) {
  return [=] {
    scankit::sort_options options;
    options.floats = scankit::float_order::raw_bits;  // CUB's order, as the other rows
    if constexpr (std::is_void_v<V>) {
      scankit::device::sort_keys<P>(keys_in, keys_out, n, g_gpu.stream, g_ws, options);
    } else {
      scankit::device::sort_pairs<P>(keys_in, keys_out, values_in, values_out, n, g_gpu.stream, g_ws, options);
    }
  };
}

// Rows of other pass shapes (template API). shape_multi_block: the tuned shape without the
// one-block path for small inputs, what a small sort would cost in the multi-block pipeline.
// shape_no_prefetch: a keys-only sort without its L2 prefetch of later tiles.
template <class K, class V>
std::function<void()> shape_launch(const std::string& row, const K* keys_in, K* keys_out, const V* values_in,
                                   V* values_out, i64 n) {
  using tuned = scankit::device_detail::radix_sort_tuning<sizeof(K), sort_value_bytes<V>>;
  constexpr int I = tuned::items_per_thread, M = tuned::min_blocks_per_sm, A = tuned::prefetch_tiles_ahead;
  if (row == "shape_multi_block") {
    using P = scankit::device_detail::radix_pass_policy<384, I, 8, M, 32, 1024, 4, false, A>;
    return launch_with_policy<K, V, P>(keys_in, keys_out, values_in, values_out, n);
  }
  if constexpr (std::is_void_v<V> && (std::is_same_v<K, std::uint32_t> || std::is_same_v<K, std::uint64_t>)) {
    if (row == "shape_no_prefetch") {
      using P = scankit::device_detail::radix_pass_policy<384, I, 8, M, 32, 1024, 4, true, 0>;
      return launch_with_policy<K, V, P>(keys_in, keys_out, values_in, values_out, n);
    }
  }
  return {};
}

// V = void: keys only. Argsort: V = int32_t, the values in are 0..n-1 (CUB) or generated (scankit).
template <class K, class V>
void run_workload(benchmark::State& state, const std::string& workload, const std::string& row, i64 n, keys_kind kind,
                  bool argsort) {
  constexpr bool pairs = !std::is_void_v<V>;
  using VV = std::conditional_t<pairs, V, char>;
  // One workload's data at a time (g_current), replaced when the workload changes.
  auto* held = g_current_name == workload ? static_cast<workload_data<K, VV>*>(g_current.get()) : nullptr;
  if (held == nullptr) {
    g_current.reset();
    BENCH_CHECK(cudaDeviceSynchronize());
    auto fresh = std::make_shared<workload_data<K, VV>>();
    g_current = fresh;
    g_current_name = workload;
    held = fresh.get();
    workload_data<K, VV>& d = *held;
    d.n = n;
    BENCH_CHECK(cudaMalloc(&d.keys, n * sizeof(K)));
    BENCH_CHECK(cudaMalloc(&d.cub_keys, n * sizeof(K)));
    BENCH_CHECK(cudaMalloc(&d.our_keys, n * sizeof(K)));
    fill(d.keys, n, mix64(std::hash<std::string>{}(workload)), kind);
    if constexpr (pairs) {
      BENCH_CHECK(cudaMalloc(&d.values, n * sizeof(V)));
      BENCH_CHECK(cudaMalloc(&d.cub_values, n * sizeof(V)));
      BENCH_CHECK(cudaMalloc(&d.our_values, n * sizeof(V)));
      fill(d.values, n, 7, argsort ? keys_kind::iota : keys_kind::uniform);
      BENCH_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, d.temp_bytes, d.keys, d.cub_keys, d.values, d.cub_values,
                                                  n, 0, 8 * sizeof(K), g_gpu.stream));
    } else {
      BENCH_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, d.temp_bytes, d.keys, d.cub_keys, n, 0, 8 * sizeof(K), g_gpu.stream));
    }
    BENCH_CHECK(cudaMalloc(&d.temp, std::max<std::size_t>(d.temp_bytes, 1)));
  }
  workload_data<K, VV>& d = *held;
  const double floor_bytes = 2.0 * n * (sizeof(K) + (pairs ? sizeof(VV) : 0));

  std::function<void()> launch;
  if (row == "copy") {
    launch = [&] {
      BENCH_CHECK(cudaMemcpyAsync(d.our_keys, d.keys, n * sizeof(K), cudaMemcpyDeviceToDevice, g_gpu.stream));
      if constexpr (pairs) {
        BENCH_CHECK(cudaMemcpyAsync(d.our_values, d.values, n * sizeof(VV), cudaMemcpyDeviceToDevice, g_gpu.stream));
      }
    };
  } else if (row == "cub") {
    launch = [&] {
      if constexpr (pairs) {
        BENCH_CHECK(cub::DeviceRadixSort::SortPairs(d.temp, d.temp_bytes, d.keys, d.cub_keys, d.values, d.cub_values, n,
                                                    0, 8 * sizeof(K), g_gpu.stream));
      } else {
        BENCH_CHECK(cub::DeviceRadixSort::SortKeys(d.temp, d.temp_bytes, d.keys, d.cub_keys, n, 0, 8 * sizeof(K), g_gpu.stream));
      }
    };
  } else if (row.rfind("shape_", 0) == 0) {
    if constexpr (pairs) {
      if (!argsort) launch = shape_launch<K, V>(row, d.keys, d.our_keys, d.values, d.our_values, n);
    } else {
      launch = shape_launch<K, void>(row, d.keys, d.our_keys, nullptr, nullptr, n);
    }
    if (!launch) throw std::runtime_error("no such shape row for this workload");
  } else {
    scankit::sort_options options;
    options.strategy = row == "scankit_reduce_then_scan" ? scankit::sort_strategy::reduce_then_scan
                       : row == "scankit_automatic"      ? scankit::sort_strategy::automatic
                                                         : scankit::sort_strategy::onesweep;
    // CUB's order, so the outputs compare; scankit_total_order: the default order (the same result
    // on keys without NaNs or -0.0).
    options.floats = row == "scankit_total_order" ? scankit::float_order::total : scankit::float_order::raw_bits;
    launch = [&d, n, options, argsort] {
      if constexpr (pairs) {
        if constexpr (std::is_same_v<VV, std::int32_t> || std::is_same_v<VV, std::int64_t>) {
          if (argsort) {
            scankit::argsort(d.keys, d.our_keys, d.our_values, n, g_gpu.stream, g_ws, options);
            return;
          }
        }
        {
          scankit::sort_pairs(d.keys, d.our_keys, d.values, d.our_values, n, g_gpu.stream, g_ws, options);
        }
      } else {
        scankit::sort_keys(d.keys, d.our_keys, n, g_gpu.stream, g_ws, options);
      }
    };
  }
  if (row != "copy" && row != "cub") {
    // Checked against CUB's output (run first) before timing.
    BENCH_CHECK(cudaMemsetAsync(d.our_keys, 0xA5, n * sizeof(K), g_gpu.stream));
    if constexpr (pairs) BENCH_CHECK(cudaMemsetAsync(d.our_values, 0xA5, n * sizeof(VV), g_gpu.stream));
    launch();
    unsigned long long bad = mismatches(d.our_keys, d.cub_keys, n);
    if constexpr (pairs) bad += mismatches(d.our_values, d.cub_values, n);
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
  state.counters["ms"] = ms;
  state.counters["Gkeys_per_s"] = n / (ms * 1e-3) / 1e9;
  state.counters["frac_floor"] = a.copy.median() / ms;
  state.counters["vs_cub"] = a.cub.median() / ms;
  g_summary.push_back({workload + "/" + row, {ms, n / (ms * 1e-3) / 1e9, a.copy.median() / ms, a.cub.median() / ms}, ""});
  (void)floor_bytes;
}

template <class K, class V>
void add_workload(const std::string& name, i64 n, keys_kind kind, bool argsort = false,
                  std::vector<std::string> extra_rows = {}) {
  std::vector<std::string> rows = {"copy", "cub", "scankit_onesweep", "scankit_reduce_then_scan"};
  rows.insert(rows.end(), extra_rows.begin(), extra_rows.end());
  for (const std::string& row : rows) {
    const std::string r = row;
    benchmark::RegisterBenchmark((name + "/" + r).c_str(),
                                 [name, r, n, kind, argsort](benchmark::State& s) {
                                   try {
                                     run_workload<K, V>(s, name, r, n, kind, argsort);
                                   } catch (const std::exception& e) {
                                     g_summary.push_back({name + "/" + r, {}, e.what()});
                                     s.SkipWithError(e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(n >= (i64{1} << 26) ? 20 : 200);
  }
}

void register_all() {
  const i64 big = i64{1} << 28;
  const std::vector<std::string> no_prefetch = {"shape_no_prefetch"};
  add_workload<std::uint32_t, void>("u32", big, keys_kind::uniform, false, no_prefetch);
  add_workload<std::uint32_t, std::uint32_t>("u32_u32", big, keys_kind::uniform);
  add_workload<std::uint64_t, void>("u64", big, keys_kind::uniform, false, no_prefetch);
  add_workload<std::uint64_t, std::uint64_t>("u64_u64", big, keys_kind::uniform);
  add_workload<std::uint8_t, void>("u8", big, keys_kind::uniform, false, {"scankit_automatic"});
  add_workload<std::uint16_t, void>("u16", big, keys_kind::uniform, false, {"scankit_automatic"});
  add_workload<float, void>("f32", big, keys_kind::f32_unit, false, {"scankit_total_order"});
  add_workload<std::uint32_t, void>("u32_8distinct", big, keys_kind::distinct8);
  add_workload<std::uint32_t, void>("u32_sorted", big, keys_kind::sorted, false, no_prefetch);
  add_workload<std::uint32_t, void>("u32_below2p20", big, keys_kind::below2p20);
  add_workload<std::uint64_t, void>("u64_zipf", big, keys_kind::zipf);
  add_workload<float, std::int32_t>("argsort_f32_i32", big, keys_kind::f32_unit, true);
  // Latency: small sorts (one block up to 16384 keys of 4 bytes) beside the multi-block pipeline.
  for (int log_n : {10, 12, 14, 16, 20}) {
    add_workload<std::uint32_t, void>("u32_2p" + std::to_string(log_n), i64{1} << log_n, keys_kind::uniform, false,
                                      {"shape_multi_block"});
  }
  add_workload<std::uint64_t, std::uint64_t>("u64_u64_2p12", i64{1} << 12, keys_kind::uniform, false,
                                             {"shape_multi_block"});
}

void setup_gpu() {
  g_gpu.open("bench_sort");
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
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_sort", register_all, setup_gpu, print_summary, teardown_gpu});
}
