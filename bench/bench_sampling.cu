// bench_sampling: inverse-CDF sampling on the GPU — scankit beside Thrust and the copy ceiling.
//
// Workloads and rows (Google Benchmark names <workload>/<row>):
//   draws/f32/2^24bins/2^26draws   2^26 draws from 2^24 float weights (table built beforehand)
//     thrust_upper_bound_f64   thrust::upper_bound of the 2^26 targets over the double CDF
//     thrust_upper_bound_f32   the same over a float CDF (thrust::inclusive_scan of the weights;
//                              loses bins at this size, shown as the cheapest composition)
//     scankit_sample           scankit::sample (Philox uniforms + guide table + CDF walk)
//     scankit_alias_sample     scankit::sample from an alias_table (one 8-byte read per draw)
//   build/f32/2^28             the CDF and guide table of 2^28 float weights
//     copy                     cudaMemcpyAsync D2D of 1 GiB (its GBps counts read + write)
//     thrust_scan_f64          thrust::inclusive_scan float -> double, the CDF alone
//     scankit_build            scankit::build_sampling_table
//     scankit_alias_build      scankit::build_alias_table (reduce, partition, scan, merge-path sweep)
//   build/f32/2^24             the same at 2^24 (the table of the draws workload)
//   rows/f32/256x131072        one draw per row of 256 rows of 131072 probabilities
//     copy                     cudaMemcpyAsync D2D of the matrix / 2 (moves the matrix's bytes)
//     scankit_sample_rows      scankit::sample_rows (tile sums + one re-read tile per row)
//     scankit_sample_segments  scankit::sample_segments with one draw per row (segmented scan)
//   wor/f32/2^24/k1000         1000 distinct draws from 2^24 weights without replacement
//     scankit_without_replacement  scankit::sample_without_replacement (keys + argsort)
//   top/f32/256x131072         one token per row of 256 x 131072 logits (normal, sigma 3)
//     scankit_top_p0.9         scankit::sample_rows_top, top_p = 0.9
//     scankit_top_k50          scankit::sample_rows_top, top_k = 50
//     scankit_top_k50_p0.9     both
// Counters: ms (median of the repetition's iterations); vs_thrust = thrust f64 time / time;
// frac_copy = minimal bytes / time / copy GBps, minimal bytes = weights read + CDF (8 B) and
// guide (4 B) written per bin for a build (weights read and the 8-byte entry written for an alias
// build), the matrix read for rows; vs_guide_build = scankit_build time / alias build time.
// Correctness guard: the draws are compared on the device with thrust::upper_bound of the same
// targets over scankit's CDF (bit-identical expected); rows with their bins' weights (> 0); alias
// draws are valid bins of positive weight and the first 2^16 equal the host's pick from the
// downloaded table; an alias table's aliases are bins of positive weight and its zero-weight bins
// have threshold 0.
// A mismatch marks the row failed and the exit status 1.
#include <benchmark/benchmark.h>

#include "bench_main.hpp"
#include "bench_support.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/inner_product.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include "scankit/detail/alias_fixed_point.hpp"
#include "scankit/detail/philox.hpp"
#include "scankit/detail/table_fixed_point.hpp"
#include "scankit/sampling.hpp"

namespace {

using i64 = std::int64_t;

scankit_bench::gpu_session g_gpu;  // device, stream, timing events
std::map<std::string, std::vector<double>> g_ms;  // row name -> median of each repetition
std::map<std::string, std::vector<double>> g_cold_ms;  // the same for one-iteration (sizing) calls
std::map<std::string, std::string> g_errors;

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Launch>
double timed_loop(benchmark::State& state, const std::string& name, Launch&& launch) {
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch);
  // Google Benchmark first calls a row with one iteration to size the run: those cold calls count
  // only when no longer call comes, so that they do not pull the anchors' medians (copy ratios) up.
  (state.max_iterations > 1 ? g_ms : g_cold_ms)[name].push_back(ms);
  state.counters["ms"] = ms;
  return ms;
}

double anchor_ms(const std::string& name) {
  const auto warm = g_ms.find(name);
  return warm != g_ms.end() && !warm->second.empty() ? median(warm->second) : median(g_cold_ms[name]);
}

// Uniform random weights in [0, 1) (a few zeros from rounding), generated on the device.
struct weight_of_index {
  __host__ __device__ float operator()(i64 i) const {
    return float(scankit::detail::philox_uniform(0x5eed, std::uint64_t(i)));
  }
};

struct target_of_draw {
  double total;
  std::uint64_t seed;
  __host__ __device__ double operator()(i64 k) const {
    double t = scankit::detail::philox_uniform(seed, std::uint64_t(k)) * total;
    return t < total ? t : nextafter(total, 0.0);
  }
};

struct unit_target_of_draw {  // scankit's table targets (scankit/detail/table_fixed_point.hpp)
  std::uint64_t total;
  std::uint64_t seed;
  __host__ __device__ std::uint64_t operator()(i64 k) const {
    return scankit::detail::table_target(seed, std::uint64_t(k), total);
  }
};

struct to_float {
  __host__ __device__ float operator()(double x) const { return float(x); }
};

struct to_double {
  __host__ __device__ double operator()(float x) const { return double(x); }
};

// ---- data ----------------------------------------------------------------------------------
constexpr i64 k_draw_bins = i64(1) << 24, k_draws = i64(1) << 26;
constexpr i64 k_build_bins = i64(1) << 28;
constexpr i64 k_rows = 256, k_cols = 131072;
constexpr std::uint64_t k_seed = 12345;

struct draws_data {
  thrust::device_vector<float> w;
  scankit::sampling_table table;
  scankit::alias_table alias;
  thrust::device_vector<double> targets, cdf_f64;
  thrust::device_vector<float> targets_f32, cdf_f32;
  thrust::device_vector<std::uint64_t> unit_targets;
  thrust::device_vector<std::int32_t> out;
  thrust::device_vector<i64> thrust_out;
  bool ready = false;
};
draws_data* g_draws = nullptr;

draws_data& draws() {
  if (g_draws != nullptr && g_draws->ready) return *g_draws;
  if (g_draws == nullptr) g_draws = new draws_data;
  auto& d = *g_draws;
  d.w.resize(k_draw_bins);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(k_draw_bins), d.w.begin(),
                    weight_of_index{});
  scankit::build_sampling_table(thrust::raw_pointer_cast(d.w.data()), k_draw_bins, d.table, g_gpu.stream);
  d.table.check_host(g_gpu.stream);
  std::uint64_t total_units = 0;
  BENCH_CHECK(cudaMemcpy(&total_units, d.table.cdf() + k_draw_bins - 1, sizeof total_units, cudaMemcpyDeviceToHost));
  d.unit_targets.resize(k_draws);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(k_draws), d.unit_targets.begin(),
                    unit_target_of_draw{total_units, k_seed});
  scankit::build_alias_table(thrust::raw_pointer_cast(d.w.data()), k_draw_bins, d.alias, g_gpu.stream);
  // The Thrust composition: a double CDF by thrust::inclusive_scan, a binary search per target.
  d.cdf_f64.resize(k_draw_bins);
  thrust::inclusive_scan(thrust::make_transform_iterator(d.w.begin(), to_double{}),
                         thrust::make_transform_iterator(d.w.end(), to_double{}), d.cdf_f64.begin());
  const double total = d.cdf_f64.back();
  d.targets.resize(k_draws);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(k_draws), d.targets.begin(),
                    target_of_draw{total, k_seed});
  d.cdf_f32.resize(k_draw_bins);
  thrust::inclusive_scan(d.w.begin(), d.w.end(), d.cdf_f32.begin());
  d.targets_f32.resize(k_draws);
  thrust::transform(d.targets.begin(), d.targets.end(), d.targets_f32.begin(), to_float{});
  d.out.resize(k_draws);
  d.thrust_out.resize(k_draws);
  BENCH_CHECK(cudaDeviceSynchronize());
  d.ready = true;
  return d;
}

void release_draws() {
  delete g_draws;
  g_draws = nullptr;
}

// ---- rows ----------------------------------------------------------------------------------
void bm_draws_thrust_f64(benchmark::State& state) {
  auto& d = draws();
  timed_loop(state, "draws/thrust_upper_bound_f64", [&] {
    thrust::upper_bound(thrust::cuda::par.on(g_gpu.stream), d.cdf_f64.begin(), d.cdf_f64.end(), d.targets.begin(),
                        d.targets.end(), d.thrust_out.begin());
  });
}

void bm_draws_thrust_f32(benchmark::State& state) {
  auto& d = draws();
  timed_loop(state, "draws/thrust_upper_bound_f32", [&] {
    thrust::upper_bound(thrust::cuda::par.on(g_gpu.stream), d.cdf_f32.begin(), d.cdf_f32.end(), d.targets_f32.begin(),
                        d.targets_f32.end(), d.thrust_out.begin());
  });
}

struct differs {
  __host__ __device__ bool operator()(std::int32_t a, i64 b) const { return i64(a) != b; }
};

void bm_draws_scankit(benchmark::State& state) {
  auto& d = draws();
  std::int32_t* out = thrust::raw_pointer_cast(d.out.data());
  // Guard: the same targets through thrust over scankit's CDF (integer units: exact).
  const std::uint64_t* cdf = d.table.cdf();
  thrust::upper_bound(thrust::cuda::par.on(g_gpu.stream), cdf, cdf + k_draw_bins, d.unit_targets.begin(),
                      d.unit_targets.end(), d.thrust_out.begin());
  scankit::sample(d.table, out, k_draws, k_seed, 0, g_gpu.stream);
  const i64 bad = thrust::inner_product(thrust::cuda::par.on(g_gpu.stream), d.out.begin(), d.out.end(),
                                       d.thrust_out.begin(), i64(0), thrust::plus<i64>(), differs{});
  if (bad != 0) {
    g_errors["draws/scankit_sample"] = std::to_string(bad) + " draws differ from thrust::upper_bound";
    state.SkipWithError("mismatch vs thrust");
    return;
  }
  const double ms = timed_loop(state, "draws/scankit_sample", [&] { scankit::sample(d.table, out, k_draws, k_seed, 0, g_gpu.stream); });
  state.counters["vs_thrust"] = anchor_ms("draws/thrust_upper_bound_f64") / ms;
  state.counters["vs_thrust_f32"] = anchor_ms("draws/thrust_upper_bound_f32") / ms;
  state.counters["Gdraws_per_s"] = double(k_draws) / (ms * 1e-3) / 1e9;
}

// A draw that is not a bin of positive weight.
struct bad_alias_draw {
  const float* w;
  i64 n;
  __host__ __device__ bool operator()(std::int32_t v) const { return v < 0 || v >= n || !(w[v] > 0.0f); }
};

// Whether the first `count` draws equal the host's pick from the downloaded table.
bool alias_draws_match_host(const scankit::alias_table& table, const thrust::device_vector<std::int32_t>& out,
                            i64 count, std::uint64_t seed) {
  std::vector<scankit::alias_entry> entries(static_cast<std::size_t>(table.bins()));
  BENCH_CHECK(cudaMemcpy(entries.data(), table.entries(), sizeof(scankit::alias_entry) * entries.size(),
                         cudaMemcpyDeviceToHost));
  std::vector<std::int32_t> got(static_cast<std::size_t>(count));
  thrust::copy(out.begin(), out.begin() + count, got.begin());
  for (i64 k = 0; k < count; ++k) {
    const auto c = scankit::detail::alias_choice_for(seed, std::uint64_t(k), table.bins());
    if (got[k] != scankit::detail::alias_pick(c, entries[c.bucket].threshold, entries[c.bucket].alias)) return false;
  }
  return true;
}

void bm_draws_alias(benchmark::State& state) {
  auto& d = draws();
  std::int32_t* out = thrust::raw_pointer_cast(d.out.data());
  const std::string name = "draws/scankit_alias_sample";
  scankit::sample(d.alias, out, k_draws, k_seed, 0, g_gpu.stream);
  const i64 bad = thrust::count_if(thrust::cuda::par.on(g_gpu.stream), d.out.begin(), d.out.end(),
                                   bad_alias_draw{thrust::raw_pointer_cast(d.w.data()), k_draw_bins});
  if (bad != 0 || !alias_draws_match_host(d.alias, d.out, i64(1) << 16, k_seed)) {
    g_errors[name] = std::to_string(bad) + " draws not a bin of positive weight, or differ from the host pick";
    state.SkipWithError("invalid alias draws");
    return;
  }
  const double ms = timed_loop(state, name, [&] { scankit::sample(d.alias, out, k_draws, k_seed, 0, g_gpu.stream); });
  state.counters["vs_thrust"] = anchor_ms("draws/thrust_upper_bound_f64") / ms;
  state.counters["vs_thrust_f32"] = anchor_ms("draws/thrust_upper_bound_f32") / ms;
  state.counters["vs_scankit_sample"] = anchor_ms("draws/scankit_sample") / ms;
  state.counters["Gdraws_per_s"] = double(k_draws) / (ms * 1e-3) / 1e9;
}

void bm_copy(benchmark::State& state, i64 bytes, const std::string& name) {
  void *a = nullptr, *b = nullptr;
  BENCH_CHECK(cudaMalloc(&a, bytes));
  BENCH_CHECK(cudaMalloc(&b, bytes));
  BENCH_CHECK(cudaMemset(a, 1, bytes));
  const double ms = timed_loop(state, name, [&] { BENCH_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g_gpu.stream)); });
  state.counters["GBps"] = 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
  BENCH_CHECK(cudaFree(a));
  BENCH_CHECK(cudaFree(b));
}

double copy_gbps(const std::string& name, i64 bytes) { return 2.0 * double(bytes) / (anchor_ms(name) * 1e-3) / 1e9; }

void bm_build_thrust(benchmark::State& state, i64 n) {
  thrust::device_vector<float> w(n);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(n), w.begin(), weight_of_index{});
  thrust::device_vector<double> cdf(n);
  const std::string name = "build/" + std::to_string(n) + "/thrust_scan_f64";
  const double ms = timed_loop(state, name, [&] {
    thrust::inclusive_scan(thrust::cuda::par.on(g_gpu.stream), thrust::make_transform_iterator(w.begin(), to_double{}),
                           thrust::make_transform_iterator(w.end(), to_double{}), cdf.begin());
  });
  state.counters["frac_copy"] = 12.0 * double(n) / (ms * 1e-3) / 1e9 / copy_gbps("build/copy", i64(1) << 30);
}

void bm_build_scankit(benchmark::State& state, i64 n) {
  thrust::device_vector<float> w(n);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(n), w.begin(), weight_of_index{});
  scankit::sampling_table table;
  const float* p = thrust::raw_pointer_cast(w.data());
  const std::string name = "build/" + std::to_string(n) + "/scankit_build";
  const double ms = timed_loop(state, name, [&] { scankit::build_sampling_table(p, n, table, g_gpu.stream); });
  if (table.status_host(g_gpu.stream) != scankit::sampling_status::ok) {
    g_errors[name] = "status not ok";
    state.SkipWithError("status not ok");
    return;
  }
  const double gbps = 16.0 * double(n) / (ms * 1e-3) / 1e9;
  state.counters["GBps_minimal"] = gbps;
  state.counters["frac_copy"] = gbps / copy_gbps("build/copy", i64(1) << 30);
  state.counters["vs_thrust_scan"] = anchor_ms("build/" + std::to_string(n) + "/thrust_scan_f64") / ms;
}

// An alias bucket whose alias is not a bin of positive weight, or a zero-weight bin that keeps mass.
struct bad_alias_entry {
  const scankit::alias_entry* e;
  const float* w;
  i64 n;
  __host__ __device__ bool operator()(i64 b) const {
    const scankit::alias_entry x = e[b];
    return x.alias < 0 || x.alias >= n || !(w[x.alias] > 0.0f) || (w[b] == 0.0f && x.threshold != 0);
  }
};

void bm_build_alias(benchmark::State& state, i64 n) {
  thrust::device_vector<float> w(n);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(n), w.begin(), weight_of_index{});
  scankit::alias_table table;
  scankit::workspace ws;
  const float* p = thrust::raw_pointer_cast(w.data());
  const std::string name = "build/" + std::to_string(n) + "/scankit_alias_build";
  scankit::build_alias_table(p, n, table, g_gpu.stream, &ws);
  const i64 bad = thrust::count_if(thrust::cuda::par.on(g_gpu.stream), thrust::counting_iterator<i64>(0),
                                   thrust::counting_iterator<i64>(n), bad_alias_entry{table.entries(), p, n});
  if (table.status_host(g_gpu.stream) != scankit::sampling_status::ok || bad != 0) {
    g_errors[name] = "status not ok or " + std::to_string(bad) + " bad buckets";
    state.SkipWithError("invalid alias table");
    return;
  }
  const double ms = timed_loop(state, name, [&] { scankit::build_alias_table(p, n, table, g_gpu.stream, &ws); });
  const double gbps = 12.0 * double(n) / (ms * 1e-3) / 1e9;
  state.counters["GBps_minimal"] = gbps;
  state.counters["frac_copy"] = gbps / copy_gbps("build/copy", i64(1) << 30);
  state.counters["vs_thrust_scan"] = anchor_ms("build/" + std::to_string(n) + "/thrust_scan_f64") / ms;
  state.counters["vs_guide_build"] = anchor_ms("build/" + std::to_string(n) + "/scankit_build") / ms;
}

struct row_of {
  __host__ __device__ i64 operator()(i64 i) const { return i * k_cols; }
};
struct bad_row_draw {
  const float* w;
  __host__ __device__ bool operator()(i64 r, std::int32_t c) const { return c < 0 || c >= k_cols || !(w[r * k_cols + c] > 0.0f); }
};

void bm_rows(benchmark::State& state, bool segments) {
  const i64 n = k_rows * k_cols;
  thrust::device_vector<float> w(n);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(n), w.begin(), weight_of_index{});
  thrust::device_vector<i64> offsets(k_rows + 1), draw_offsets(k_rows + 1);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(k_rows + 1), offsets.begin(), row_of{});
  thrust::sequence(draw_offsets.begin(), draw_offsets.end());
  thrust::device_vector<std::int32_t> out(k_rows);
  scankit::workspace ws;
  const float* p = thrust::raw_pointer_cast(w.data());
  std::int32_t* o = thrust::raw_pointer_cast(out.data());
  auto call = [&] {
    if (segments)
      scankit::sample_segments(p, n, thrust::raw_pointer_cast(offsets.data()), k_rows,
                               thrust::raw_pointer_cast(draw_offsets.data()), k_rows, o, k_seed, 0, g_gpu.stream, &ws);
    else
      scankit::sample_rows(p, k_rows, k_cols, o, k_seed, 0, g_gpu.stream, &ws);
  };
  const std::string name = std::string("rows/") + (segments ? "scankit_sample_segments" : "scankit_sample_rows");
  call();
  const i64 bad = thrust::inner_product(thrust::cuda::par.on(g_gpu.stream), thrust::counting_iterator<i64>(0),
                                       thrust::counting_iterator<i64>(k_rows), out.begin(), i64(0),
                                       thrust::plus<i64>(), bad_row_draw{p});
  if (bad != 0) {
    g_errors[name] = std::to_string(bad) + " rows drew an invalid column";
    state.SkipWithError("invalid draw");
    return;
  }
  const double ms = timed_loop(state, name, call);
  const double gbps = 4.0 * double(n) / (ms * 1e-3) / 1e9;
  state.counters["frac_copy"] = gbps / copy_gbps("rows/copy", 2 * n);
  state.counters["us"] = ms * 1e3;
}

void bm_without_replacement(benchmark::State& state) {
  const i64 n = k_draw_bins, k = 1000;
  thrust::device_vector<float> w(n);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(n), w.begin(), weight_of_index{});
  thrust::device_vector<std::int32_t> out(k);
  scankit::workspace ws;
  const float* p = thrust::raw_pointer_cast(w.data());
  std::int32_t* o = thrust::raw_pointer_cast(out.data());
  auto call = [&] { scankit::sample_without_replacement(p, n, k, o, k_seed, 0, g_gpu.stream, &ws); };
  call();
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));  // thrust::copy below runs on another stream
  std::vector<std::int32_t> host(k);
  thrust::copy(out.begin(), out.end(), host.begin());
  std::sort(host.begin(), host.end());
  if (host.front() < 0 || std::adjacent_find(host.begin(), host.end()) != host.end()) {
    g_errors["wor/scankit_without_replacement"] = "negative or repeated index";
    state.SkipWithError("invalid sample");
    return;
  }
  const double ms = timed_loop(state, "wor/scankit_without_replacement", call);
  state.counters["us"] = ms * 1e3;
}

// Normal logits with sigma 3 (Box-Muller on two Philox uniforms).
struct logit_of_index {
  __host__ __device__ float operator()(i64 i) const {
    const double u1 = scankit::detail::philox_uniform(0x1091, std::uint64_t(2 * i)) + 0x1.0p-54;
    const double u2 = scankit::detail::philox_uniform(0x1091, std::uint64_t(2 * i + 1));
    return float(3.0 * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
  }
};

struct bad_token {
  __host__ __device__ bool operator()(std::int32_t c) const { return c < 0 || c >= k_cols; }
};

void bm_top(benchmark::State& state, std::int64_t k, double p, const std::string& label) {
  const i64 n = k_rows * k_cols;
  thrust::device_vector<float> x(n);
  thrust::transform(thrust::counting_iterator<i64>(0), thrust::counting_iterator<i64>(n), x.begin(), logit_of_index{});
  thrust::device_vector<std::int32_t> out(k_rows);
  scankit::workspace ws;
  scankit::top_sampling_options o;
  o.top_k = k, o.top_p = p;
  const float* px = thrust::raw_pointer_cast(x.data());
  std::int32_t* po = thrust::raw_pointer_cast(out.data());
  auto call = [&] { scankit::sample_rows_top(px, k_rows, k_cols, po, o, k_seed, 0, g_gpu.stream, &ws); };
  const std::string name = "top/" + label;
  call();
  const i64 bad = thrust::count_if(thrust::cuda::par.on(g_gpu.stream), out.begin(), out.end(), bad_token{});
  if (bad != 0) {
    g_errors[name] = std::to_string(bad) + " rows drew no valid token";
    state.SkipWithError("invalid draw");
    return;
  }
  const double ms = timed_loop(state, name, call);
  state.counters["us"] = ms * 1e3;
  state.counters["frac_copy_one_read"] = 4.0 * double(n) / (ms * 1e-3) / 1e9 / copy_gbps("rows/copy", 2 * n);
}

void register_all() {
  auto add = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.2);
  };
  add("draws/f32/2^24bins/2^26draws/thrust_upper_bound_f64", bm_draws_thrust_f64);
  add("draws/f32/2^24bins/2^26draws/thrust_upper_bound_f32", bm_draws_thrust_f32);
  add("draws/f32/2^24bins/2^26draws/scankit_sample", bm_draws_scankit);
  add("draws/f32/2^24bins/2^26draws/scankit_alias_sample", [](benchmark::State& s) {
    bm_draws_alias(s);
    release_draws();
  });
  add("build/copy_1GiB/copy", [](benchmark::State& s) { bm_copy(s, i64(1) << 30, "build/copy"); });
  for (i64 n : {k_build_bins, k_draw_bins}) {
    const std::string size = n == k_build_bins ? "2^28" : "2^24";
    add("build/f32/" + size + "/thrust_scan_f64", [n](benchmark::State& s) { bm_build_thrust(s, n); });
    add("build/f32/" + size + "/scankit_build", [n](benchmark::State& s) { bm_build_scankit(s, n); });
    add("build/f32/" + size + "/scankit_alias_build", [n](benchmark::State& s) { bm_build_alias(s, n); });
  }
  add("rows/f32/256x131072/copy", [](benchmark::State& s) { bm_copy(s, 2 * k_rows * k_cols, "rows/copy"); });
  add("rows/f32/256x131072/scankit_sample_rows", [](benchmark::State& s) { bm_rows(s, false); });
  add("rows/f32/256x131072/scankit_sample_segments", [](benchmark::State& s) { bm_rows(s, true); });
  add("top/f32/256x131072/scankit_top_p0.9", [](benchmark::State& s) { bm_top(s, 0, 0.9, "scankit_top_p0.9"); });
  add("top/f32/256x131072/scankit_top_k50", [](benchmark::State& s) { bm_top(s, 50, 1.0, "scankit_top_k50"); });
  add("top/f32/256x131072/scankit_top_k50_p0.9", [](benchmark::State& s) { bm_top(s, 50, 0.9, "scankit_top_k50_p0.9"); });
  add("wor/f32/2^24/k1000/scankit_without_replacement", bm_without_replacement);
}

int print_summary() {
  std::fprintf(stderr, "\n== bench_sampling summary (medians over repetitions)\n");
  for (const auto& [name, reps] : g_ms) std::fprintf(stderr, "  %-45s %10.4f ms\n", name.c_str(), anchor_ms(name));
  const double draws_ms = anchor_ms("draws/scankit_sample");
  std::fprintf(stderr, "  draws: %.2fx thrust::upper_bound (f64 CDF), %.2fx (f32 CDF)\n",
               anchor_ms("draws/thrust_upper_bound_f64") / draws_ms, anchor_ms("draws/thrust_upper_bound_f32") / draws_ms);
  const double alias_ms = anchor_ms("draws/scankit_alias_sample");
  std::fprintf(stderr, "  alias draws: %.2fx thrust::upper_bound (f64 CDF), %.2fx (f32 CDF), %.2fx scankit_sample\n",
               anchor_ms("draws/thrust_upper_bound_f64") / alias_ms, anchor_ms("draws/thrust_upper_bound_f32") / alias_ms,
               draws_ms / alias_ms);
  const std::string b28 = "build/" + std::to_string(k_build_bins) + "/scankit_build";
  std::fprintf(stderr, "  build 2^28: %.3f of copy (16 B per bin moved at copy bandwidth)\n",
               16.0 * double(k_build_bins) / (anchor_ms(b28) * 1e-3) / 1e9 / copy_gbps("build/copy", i64(1) << 30));
  const std::string a28 = "build/" + std::to_string(k_build_bins) + "/scankit_alias_build";
  std::fprintf(stderr, "  alias build 2^28: %.3f ms, %.3f of copy (12 B per bin), %.2fx the guide table's build\n",
               anchor_ms(a28), 12.0 * double(k_build_bins) / (anchor_ms(a28) * 1e-3) / 1e9 / copy_gbps("build/copy", i64(1) << 30),
               anchor_ms(b28) / anchor_ms(a28));
  std::fprintf(stderr, "  rows 256x131072: %.1f us (sample_rows), %.1f us (sample_segments)\n",
               anchor_ms("rows/scankit_sample_rows") * 1e3, anchor_ms("rows/scankit_sample_segments") * 1e3);
  std::fprintf(stderr, "  without replacement 1000 of 2^24: %.1f us\n", anchor_ms("wor/scankit_without_replacement") * 1e3);
  std::fprintf(stderr, "  top 256x131072: top_p 0.9 %.1f us, top_k 50 %.1f us, both %.1f us\n",
               anchor_ms("top/scankit_top_p0.9") * 1e3, anchor_ms("top/scankit_top_k50") * 1e3,
               anchor_ms("top/scankit_top_k50_p0.9") * 1e3);
  for (const auto& [name, why] : g_errors) std::fprintf(stderr, "  FAILED %s: %s\n", name.c_str(), why.c_str());
  return static_cast<int>(g_errors.size());
}

void setup_gpu() {
  g_gpu.open("bench_sampling");
}

void teardown_gpu() noexcept {
  release_draws();
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(argc, argv,
                                           {"bench_sampling", register_all, setup_gpu, print_summary, teardown_gpu});
}
