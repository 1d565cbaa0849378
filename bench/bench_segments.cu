// bench_segments: segmented scans and reductions on the GPU — scankit against CUB and the copy
// ceiling.
//
// Workloads (Google Benchmark names <workload>/<row>; n = 2^28):
//   sum_len1000, sum_len8     inclusive segmented sums of int32 values 0..15, segments of random
//                             length (a head with probability 1/1000, 1/8)
//   reduce_i32, reduce_f32    the sum of int32 values 0..15 / of floats in [0, 1)
//   segsum_len1000, segsum_len8  the sums of the same segments, given by offsets (one per segment)
//   argmin_f32                arg-min of floats in [0, 1)
//   rbk_len8                  reduce-by-key: uint32 keys in runs of random length (mean 8), float
//                             values in [0, 1), summed
// Rows:
//   copy                 cudaMemcpyAsync D2D of the values (8 bytes per item: the copy ceiling)
//   cub_by_key           cub::DeviceScan::InclusiveSumByKey with uint32 keys (the segment ids)
//   scankit_flags        scankit::device::inclusive_segmented_scan with uint8 head flags
//   scankit_offsets      scankit::device::inclusive_segmented_scan_by_offsets with int32 offsets
//   scankit_by_key       scankit::device::inclusive_scan_by_key with CUB's uint32 keys
//   cub                  cub::DeviceReduce::Sum / ArgMin / ReduceByKey, cub::DeviceSegmentedReduce::Sum
//   scankit              scankit::device::sum / arg_min / reduce_by_key / segmented_reduce
//   shape_flags_min8, shape_offsets_min6, shape_min6, shape_flags_uncapped  the segmented scans and
//                        sums with registers capped for 8 or 6 blocks of 256 threads per
//                        multiprocessor, or not capped (the tuned shapes: flags and keys 6, offsets 8)
//   shape_*, scankit_again  the sums with other reduce shapes (each warp through its own run, other
//                        block sizes), and the tuned one again (the run's noise)
//   paired               the tuned sum with CUB's timed right before each of its launches: vs_cub
//                        is the ratio of the two medians (less exposed to drift during the run)
// Counters: ms (median), Gitems_per_s, frac_copy (the bytes the row must move, at the copy's
// bandwidth, over its time: 12 bytes per item by key, 9 by flags, 8 plus 4 per segment by
// offsets, 4 for a reduction, 4 plus 8 per segment for segment sums, 8 plus 8 per run for
// reduce-by-key), vs_cub
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
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>

#include "scankit/device/reduce.cuh"
#include "scankit/device/reduce_by_key.cuh"
#include "scankit/device/segmented_reduce.cuh"
#include "scankit/device/segmented_scan.cuh"
#include "scankit/workspace.hpp"

namespace {

using i64 = std::int64_t;
using scankit_bench::mix64;


// The tuned segmented shape for int32 (256 threads, 16 items), with registers capped so that
// MinBlocks blocks fit on a multiprocessor (0: not capped), for the shape_* rows.
template <int MinBlocks>
using capped_segmented_policy =
    scankit::device_detail::scan_policy<256, 16, scankit::block_scan_algorithm::warp_of_warps, 32, 1024, MinBlocks>;

scankit_bench::gpu_session g_gpu;  // device, stream, timing events
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

// Items of a and b (n each) that differ; waits for the stream.
unsigned long long count_mismatches(const std::int32_t* a, const std::int32_t* b, i64 n) {
  BENCH_CHECK(cudaMemsetAsync(g_mismatches, 0, sizeof(unsigned long long), g_gpu.stream));
  compare_kernel<<<1024, 256, 0, g_gpu.stream>>>(a, b, n, g_mismatches);
  BENCH_CHECK(cudaGetLastError());
  unsigned long long bad = 0;
  BENCH_CHECK(cudaMemcpyAsync(&bad, g_mismatches, sizeof(bad), cudaMemcpyDeviceToHost, g_gpu.stream));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  return bad;
}

struct workload_data {
  i64 n = 0;
  std::int32_t* values = nullptr;
  std::uint8_t* flags = nullptr;
  std::uint32_t* keys = nullptr;
  std::int32_t* cub_out = nullptr;
  std::int32_t* our_out = nullptr;
  std::int32_t* offsets = nullptr;  // the heads' positions, then n: segments + 1 items
  i64 segments = 0;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  ~workload_data() {
    for (void* p : {static_cast<void*>(values), static_cast<void*>(flags), static_cast<void*>(keys),
                    static_cast<void*>(cub_out), static_cast<void*>(our_out), static_cast<void*>(offsets), temp}) {
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

using scankit_bench::summary_row;
std::vector<summary_row> g_summary;

// A row that failed its correctness guard (or threw): in the summary, and skipped.
void fail_row(benchmark::State& state, const std::string& name, const std::string& why) {
  g_summary.push_back({name, {}, why});
  state.SkipWithError(why.c_str());
}

// A timed row: its counters and its summary line (vs_cub from the workload's CUB time).
void record_row(benchmark::State& state, const std::string& name, double ms, i64 n, double frac_copy, double cub_ms) {
  state.counters["ms"] = ms;
  state.counters["Gitems_per_s"] = n / (ms * 1e-3) / 1e9;
  state.counters["frac_copy"] = frac_copy;
  state.counters["vs_cub"] = cub_ms / ms;
  g_summary.push_back({name, {ms, n / (ms * 1e-3) / 1e9, frac_copy, cub_ms / ms}, ""});
}

// The correctness guard of a row: CUB's launch, then ours into a poisoned output, and the first
// `count` items compared; false (and the row failed) when any differ.
bool outputs_agree(benchmark::State& state, const std::string& name, const std::function<void()>& reference,
                   const std::function<void()>& ours, const std::int32_t* expected, std::int32_t* got, i64 count) {
  reference();
  BENCH_CHECK(cudaMemsetAsync(got, 0xA5, count * sizeof(std::int32_t), g_gpu.stream));
  ours();
  const unsigned long long bad = count_mismatches(expected, got, count);
  if (bad == 0) return true;
  fail_row(state, name, std::to_string(bad) + " of " + std::to_string(count) + " items differ from CUB's");
  return false;
}

// Times a row and records it; the copy row and CUB's row (`cub_row`) set the workload's anchors.
// `copy_bytes_ratio`: the bytes the row must move over the copy's.
void time_and_record(benchmark::State& state, const std::string& workload, const std::string& row,
                     const std::string& cub_row, i64 n, const std::function<void()>& launch, double copy_bytes_ratio) {
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch);
  anchors& a = g_anchors[workload];
  if (row == "copy") a.copy_ms = ms;
  if (row == cub_row) a.cub_ms = ms;
  record_row(state, workload + "/" + row, ms, n, a.copy_ms * copy_bytes_ratio / ms, a.cub_ms);
}


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
  fill_kernel<<<1024, 256, 0, g_gpu.stream>>>(d->values, d->flags, d->keys, n, mean_length);
  BENCH_CHECK(cudaGetLastError());
  thrust::inclusive_scan(thrust::cuda::par.on(g_gpu.stream), d->keys, d->keys + n, d->keys);  // segment ids
  // The offsets: the positions of the heads (selected with CUB), then n.
  BENCH_CHECK(cudaMalloc(&d->offsets, (n + 1) * sizeof(std::int32_t)));
  std::size_t select_bytes = 0, scan_bytes = 0, segmented_bytes = 0;
  i64* selected = reinterpret_cast<i64*>(g_mismatches);
  const thrust::counting_iterator<std::int32_t> positions(0);
  BENCH_CHECK(cub::DeviceSelect::Flagged(nullptr, select_bytes, positions, d->flags, d->offsets, selected, n, g_gpu.stream));
  BENCH_CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, scan_bytes, d->keys, d->values, d->cub_out, n,
                                                 cuda::std::equal_to<>{}, g_gpu.stream));
  BENCH_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, segmented_bytes, d->values, d->cub_out, n, d->offsets,
                                              d->offsets + 1, g_gpu.stream));
  d->temp_bytes = std::max({select_bytes, scan_bytes, segmented_bytes});
  BENCH_CHECK(cudaMalloc(&d->temp, d->temp_bytes + 1));
  BENCH_CHECK(cub::DeviceSelect::Flagged(d->temp, select_bytes, positions, d->flags, d->offsets, selected, n, g_gpu.stream));
  BENCH_CHECK(cudaMemcpyAsync(&d->segments, selected, sizeof(i64), cudaMemcpyDeviceToHost, g_gpu.stream));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  const auto end = static_cast<std::int32_t>(n);
  BENCH_CHECK(cudaMemcpyAsync(d->offsets + d->segments, &end, sizeof(end), cudaMemcpyHostToDevice, g_gpu.stream));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
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
      BENCH_CHECK(cudaMemcpyAsync(d.our_out, d.values, n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, g_gpu.stream));
    };
  } else if (row == "cub_by_key") {
    bytes_per_item = 12;
    launch = [&d, n] {
      BENCH_CHECK(cub::DeviceScan::InclusiveSumByKey(d.temp, d.temp_bytes, d.keys, d.values, d.cub_out, n,
                                                     cuda::std::equal_to<>{}, g_gpu.stream));
    };
  } else if (row == "scankit_flags") {
    bytes_per_item = 9;
    launch = [&d, n] {
      scankit::device::inclusive_segmented_scan(d.values, d.flags, d.our_out, n, scankit::plus_op{}, g_gpu.stream, g_ws);
    };
  } else if (row == "scankit_offsets") {
    bytes_per_item = 8 + 4.0 / mean_length;
    launch = [&d, n] {
      scankit::device::inclusive_segmented_scan_by_offsets(d.values, d.offsets, d.segments, d.our_out, n,
                                                           scankit::plus_op{}, g_gpu.stream, g_ws);
    };
  } else if (row == "shape_flags_uncapped") {
    bytes_per_item = 9;
    launch = [&d, n] {
      scankit::device::inclusive_segmented_scan<capped_segmented_policy<0>>(d.values, d.flags, d.our_out, n,
                                                                             scankit::plus_op{}, g_gpu.stream, g_ws);
    };
  } else if (row == "shape_offsets_min6") {
    bytes_per_item = 8 + 4.0 / mean_length;
    launch = [&d, n] {
      scankit::device::inclusive_segmented_scan_by_offsets<capped_segmented_policy<6>>(
          d.values, d.offsets, d.segments, d.our_out, n, scankit::plus_op{}, g_gpu.stream, g_ws);
    };
  } else if (row == "shape_flags_min8") {
    bytes_per_item = 9;
    launch = [&d, n] {
      scankit::device::inclusive_segmented_scan<capped_segmented_policy<8>>(d.values, d.flags, d.our_out, n,
                                                                             scankit::plus_op{}, g_gpu.stream, g_ws);
    };
  } else if (row == "scankit_by_key") {
    bytes_per_item = 12;
    launch = [&d, n] {
      scankit::device::inclusive_scan_by_key(d.keys, d.values, d.our_out, n, scankit::plus_op{}, scankit::equal_to_op{},
                                             g_gpu.stream, g_ws);
    };
  }
  if (row.rfind("scankit", 0) == 0 || row.rfind("shape", 0) == 0) {
    const auto cub_scan = [&d, n] {
      BENCH_CHECK(cub::DeviceScan::InclusiveSumByKey(d.temp, d.temp_bytes, d.keys, d.values, d.cub_out, n,
                                                     cuda::std::equal_to<>{}, g_gpu.stream));
    };
    if (!outputs_agree(state, workload + "/" + row, cub_scan, launch, d.cub_out, d.our_out, n)) return;
  }
  time_and_record(state, workload, row, "cub_by_key", n, launch, bytes_per_item / 8.0);
}

// Segmented sums by offsets (the sum workloads' segments): CUB's DeviceSegmentedReduce::Sum and
// scankit::device::segmented_reduce, each segment's sum compared with CUB's.
void run_segmented_reduce_row(benchmark::State& state, const std::string& workload, const std::string& row, i64 n,
                              unsigned mean_length) {
  workload_data& d = data_for(workload.substr(3), n, mean_length);  // segsum_X runs on sum_X's data
  const i64 segments = d.segments;
  const auto cub_launch = [&d, n, segments] {
    std::size_t bytes = d.temp_bytes;
    BENCH_CHECK(cub::DeviceSegmentedReduce::Sum(d.temp, bytes, d.values, d.cub_out, segments, d.offsets,
                                                d.offsets + 1, g_gpu.stream));
  };
  std::function<void()> launch;
  if (row == "copy") {
    launch = [&d, n] {
      BENCH_CHECK(cudaMemcpyAsync(d.our_out, d.values, n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, g_gpu.stream));
    };
  } else if (row == "cub") {
    launch = cub_launch;
  } else {
    launch = [&d, n, segments, row] {
      if (row == "shape_min6") {
        scankit::device::segmented_reduce<capped_segmented_policy<6>>(d.values, d.offsets, segments, d.our_out, n,
                                                                      scankit::plus_op{}, 0, g_gpu.stream, g_ws);
      } else {
        scankit::device::segmented_reduce(d.values, d.offsets, segments, d.our_out, n, scankit::plus_op{}, 0, g_gpu.stream,
                                          g_ws);
      }
    };
    if (!outputs_agree(state, workload + "/" + row, cub_launch, launch, d.cub_out, d.our_out, segments)) return;
  }
  // 4 bytes per item in, 8 per segment (its offset and its sum)
  time_and_record(state, workload, row, "cub", n, launch, row == "copy" ? 1.0 : (4.0 + 8.0 / mean_length) / 8.0);
}

void add_segmented_reduce_workload(const std::string& name, i64 n, unsigned mean_length) {
  for (const char* row : {"copy", "cub", "scankit", "shape_min6"}) {
    const std::string r = row;
    benchmark::RegisterBenchmark((name + "/" + r).c_str(),
                                 [name, r, n, mean_length](benchmark::State& s) {
                                   try {
                                     run_segmented_reduce_row(s, name, r, n, mean_length);
                                   } catch (const std::exception& e) {
                                     fail_row(s, name + "/" + r, e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(20);
  }
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
  fill_reduce_kernel<<<1024, 256, 0, g_gpu.stream>>>(d->ints, d->floats, n);
  BENCH_CHECK(cudaGetLastError());
  std::size_t a = 0, b = 0, c = 0;
  auto* r = static_cast<char*>(d->results);
  BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, a, d->ints, reinterpret_cast<std::int32_t*>(r), n, g_gpu.stream));
  BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, b, d->floats, reinterpret_cast<float*>(r), n, g_gpu.stream));
  BENCH_CHECK(cub::DeviceReduce::ArgMin(nullptr, c, d->floats, reinterpret_cast<float*>(r),
                                        reinterpret_cast<std::int64_t*>(r + 8), n, g_gpu.stream));
  d->temp_bytes = std::max(a, std::max(b, c));
  BENCH_CHECK(cudaMalloc(&d->temp, d->temp_bytes + 1));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  g_reduce = std::move(d);
  return *g_reduce;
}

// The sum with another reduce shape than the tuned one (rows shape_*): each warp through its own
// contiguous run (shape_runs), other items per thread or block sizes.
template <class T>
void sum_with_shape(const std::string& row, const T* in, T* out, i64 n) {
  namespace dd = scankit::device_detail;
  using base = dd::reduce_tuning<T>;
  const auto run = [&](auto policy) {
    dd::run_reduce<decltype(policy), T, T>("bench sum", in, out, n, true, T{},
                                           scankit::device_detail::to_accumulator<T>{}, scankit::plus_op{},
                                           g_gpu.stream, g_ws);
  };
  if (row == "shape_runs") {
    run(dd::reduce_policy<base::block_threads, base::items_per_thread, 0, false>{});
  } else if (row == "shape_1024") {
    run(dd::reduce_policy<1024, base::items_per_thread>{});
  } else if (row == "shape_1024_k32") {
    run(dd::reduce_policy<1024, base::items_per_thread * 2>{});
  } else if (row == "shape_k32") {
    run(dd::reduce_policy<base::block_threads, base::items_per_thread * 2>{});
  } else {
    throw std::runtime_error("unknown reduce shape " + row);
  }
}

void run_reduce_row(benchmark::State& state, const std::string& workload, const std::string& row, i64 n) {
  reduce_data& d = reduce_data_for(n);
  auto* cub_result = static_cast<char*>(d.results);
  auto* our_result = cub_result + 32;
  const bool ints = workload == "reduce_i32";
  const bool arg = workload == "argmin_f32";
  const std::function<void()> cub_launch = [&d, n, ints, arg, cub_result] {
    if (arg) {
      BENCH_CHECK(cub::DeviceReduce::ArgMin(d.temp, d.temp_bytes, d.floats, reinterpret_cast<float*>(cub_result),
                                            reinterpret_cast<std::int64_t*>(cub_result + 8), n, g_gpu.stream));
    } else if (ints) {
      BENCH_CHECK(cub::DeviceReduce::Sum(d.temp, d.temp_bytes, d.ints, reinterpret_cast<std::int32_t*>(cub_result), n,
                                         g_gpu.stream));
    } else {
      BENCH_CHECK(
          cub::DeviceReduce::Sum(d.temp, d.temp_bytes, d.floats, reinterpret_cast<float*>(cub_result), n, g_gpu.stream));
    }
  };
  std::function<void()> launch;
  if (row == "copy") {
    launch = [&d, n] {
      // n / 2 floats in and out: the bytes of one read of n at the copy's bandwidth.
      BENCH_CHECK(cudaMemcpyAsync(d.copy_target, d.floats, n / 2 * sizeof(float), cudaMemcpyDeviceToDevice, g_gpu.stream));
    };
  } else if (row == "cub") {
    launch = cub_launch;
  } else if (row.rfind("shape_", 0) == 0) {
    launch = [&d, n, ints, row, our_result] {
      if (ints) {
        sum_with_shape(row, d.ints, reinterpret_cast<std::int32_t*>(our_result), n);
      } else {
        sum_with_shape(row, d.floats, reinterpret_cast<float*>(our_result), n);
      }
    };
  } else {
    launch = [&d, n, ints, arg, our_result] {
      if (arg) {
        scankit::device::arg_min(d.floats, reinterpret_cast<scankit::indexed_value<float>*>(our_result), n, g_gpu.stream,
                                 g_ws);
      } else if (ints) {
        scankit::device::sum(d.ints, reinterpret_cast<std::int32_t*>(our_result), n, g_gpu.stream, g_ws);
      } else {
        scankit::device::sum(d.floats, reinterpret_cast<float*>(our_result), n, g_gpu.stream, g_ws);
      }
    };
    // Correctness guard against CUB's result.
    std::vector<char> results(64);
    BENCH_CHECK(cudaMemsetAsync(d.results, 0xA5, 64, g_gpu.stream));
    cub_launch();
    launch();
    BENCH_CHECK(cudaMemcpyAsync(results.data(), d.results, 64, cudaMemcpyDeviceToHost, g_gpu.stream));
    BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
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
      fail_row(state, workload + "/" + row, why);
      return;
    }
  }
  // paired: CUB timed right before each of our launches, the ratio from the two medians.
  std::vector<double> cub_times;
  std::function<void()> before;
  if (row == "paired") {
    before = [&] { cub_times.push_back(scankit_bench::event_time_ms(g_gpu.stream, g_gpu.start, g_gpu.stop, cub_launch)); };
  }
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch, before);
  anchors& a = g_anchors[workload];
  if (row == "copy") a.copy_ms = ms;
  if (row == "cub") a.cub_ms = ms;
  if (row == "paired" && !cub_times.empty()) {
    std::sort(cub_times.begin(), cub_times.end());
    a.cub_ms = cub_times[cub_times.size() / 2];  // this row's and the later rows' anchor
  }
  const double frac_copy = a.copy_ms / ms;
  record_row(state, workload + "/" + row, ms, n, frac_copy, a.cub_ms);
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
  fill_rbk_kernel<<<1024, 256, 0, g_gpu.stream>>>(d->keys, d->values, n);
  BENCH_CHECK(cudaGetLastError());
  thrust::inclusive_scan(thrust::cuda::par.on(g_gpu.stream), d->keys, d->keys + n, d->keys);  // run ids
  BENCH_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, d->temp_bytes, d->keys, d->keys_out[0], d->values,
                                             d->values_out[0], d->runs, cuda::std::plus<>{}, n, g_gpu.stream));
  BENCH_CHECK(cudaMalloc(&d->temp, d->temp_bytes + 1));
  BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
  g_rbk = std::move(d);
  return *g_rbk;
}

void run_rbk_row(benchmark::State& state, const std::string& workload, const std::string& row, i64 n) {
  rbk_data& d = rbk_data_for(n);
  std::function<void()> launch;
  const auto cub_launch = [&d, n] {
    BENCH_CHECK(cub::DeviceReduce::ReduceByKey(d.temp, d.temp_bytes, d.keys, d.keys_out[0], d.values, d.values_out[0],
                                               d.runs, cuda::std::plus<>{}, n, g_gpu.stream));
  };
  if (row == "copy") {
    launch = [&d, n] {
      BENCH_CHECK(cudaMemcpyAsync(d.values_out[1], d.values, n * sizeof(float), cudaMemcpyDeviceToDevice, g_gpu.stream));
    };
  } else if (row == "cub") {
    launch = cub_launch;
  } else {
    launch = [&d, n] {
      scankit::device::reduce_by_key(d.keys, d.values, d.keys_out[1], d.values_out[1], d.runs + 1, n, scankit::plus_op{},
                                     scankit::equal_to_op{}, g_gpu.stream, g_ws);
    };
    cub_launch();
    BENCH_CHECK(cudaMemsetAsync(d.keys_out[1], 0xA5, n * sizeof(std::uint32_t), g_gpu.stream));
    launch();
    std::int64_t runs[2];
    BENCH_CHECK(cudaMemcpyAsync(runs, d.runs, sizeof(runs), cudaMemcpyDeviceToHost, g_gpu.stream));
    BENCH_CHECK(cudaMemsetAsync(g_mismatches, 0, sizeof(unsigned long long), g_gpu.stream));
    compare_runs_kernel<<<1024, 256, 0, g_gpu.stream>>>(d.keys_out[0], d.values_out[0], d.keys_out[1], d.values_out[1],
                                                    d.runs, g_mismatches);
    unsigned long long bad = 0;
    BENCH_CHECK(cudaMemcpyAsync(&bad, g_mismatches, sizeof(bad), cudaMemcpyDeviceToHost, g_gpu.stream));
    BENCH_CHECK(cudaStreamSynchronize(g_gpu.stream));
    if (runs[0] != runs[1] || bad != 0) {
      const std::string why = std::to_string(runs[1]) + " runs (CUB " + std::to_string(runs[0]) + "), " +
                              std::to_string(bad) + " differ";
      fail_row(state, workload + "/" + row, why);
      return;
    }
  }
  const double ms = scankit_bench::timed_median_ms(state, g_gpu.stream, g_gpu.start, g_gpu.stop, launch);
  anchors& a = g_anchors[workload];
  if (row == "copy") a.copy_ms = ms;
  if (row == "cub") a.cub_ms = ms;
  const double frac_copy = row == "copy" ? 1.0 : a.copy_ms * (8.0 + 8.0 / 8.0) / 8.0 / ms;  // about 1/8 of items end a run
  record_row(state, workload + "/" + row, ms, n, frac_copy, a.cub_ms);
}

void add_reduce_workload(const std::string& name, i64 n) {
  std::vector<std::string> rows{"copy", "cub", "scankit"};
  if (name == "reduce_i32" || name == "reduce_f32") {
    for (const char* shape : {"shape_runs", "shape_1024", "shape_1024_k32", "shape_k32", "scankit_again", "paired"}) {
      rows.push_back(shape);
    }
  }
  for (const std::string& row : rows) {
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
                                     fail_row(s, name + "/" + r, e.what());
                                   }
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(50);
  }
}

void add_workload(const std::string& name, i64 n, unsigned mean_length) {
  for (const char* row : {"copy", "cub_by_key", "scankit_flags", "scankit_offsets", "scankit_by_key", "shape_flags_min8",
                          "shape_offsets_min6", "shape_flags_uncapped"}) {
    const std::string r = row;
    benchmark::RegisterBenchmark((name + "/" + r).c_str(),
                                 [name, r, n, mean_length](benchmark::State& s) {
                                   try {
                                     run_row(s, name, r, n, mean_length);
                                   } catch (const std::exception& e) {
                                     fail_row(s, name + "/" + r, e.what());
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
  add_segmented_reduce_workload("segsum_len1000", big, 1000);
  add_workload("sum_len8", big, 8);
  add_segmented_reduce_workload("segsum_len8", big, 8);
  add_reduce_workload("reduce_i32", big);
  add_reduce_workload("reduce_f32", big);
  add_reduce_workload("argmin_f32", big);
  add_reduce_workload("rbk_len8", big);
}

void setup_gpu() {
  g_gpu.open("bench_segments");
  BENCH_CHECK(cudaMalloc(&g_mismatches, sizeof(unsigned long long)));
  g_ws = new scankit::workspace();
}

int print_summary() {
  return scankit_bench::print_summary_table(
      36, {{"ms", 10, 4}, {"Gitems/s", 12, 2}, {"of copy", 10, 3}, {"vs CUB", 8, 3}}, g_summary);
}

void teardown_gpu() {
  g_current.reset();
  g_reduce.reset();
  g_rbk.reset();
  g_ws->release();
  delete g_ws;
  (void)cudaFree(g_mismatches);
  g_gpu.close();
}

}  // namespace

int main(int argc, char** argv) {
  return scankit_bench::run_benchmark_main(
      argc, argv, {"bench_segments", register_all, setup_gpu, print_summary, teardown_gpu});
}
