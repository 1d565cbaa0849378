// Tuning sweep for the single-pass scan: block size, items per thread and look-back back-off of
// the decoupled look-back kernel, per value size, timed beside cudaMemcpy D2D and
// cub::DeviceScan::InclusiveSum on the same data. Each variant is checked against CUB first.
//
//   tune_scan [--json FILE] [--log2n 28] [--reps 20]
// Prints one line per variant (ms, fraction of copy bandwidth, speed-up over CUB).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include "scankit/device/scan.cuh"
#include "scankit/scan.hpp"

namespace {

using scankit::block_scan_algorithm;
using scankit::device_detail::scan_policy;
using scankit::device_detail::scan_strategies;
using scankit::device_detail::tile_prefix_source;

struct result_row {
  std::string type, variant;
  long long n;
  double ms, frac_copy, vs_cub;
  bool ok;
};

std::vector<result_row> rows;
int reps = 20;

double median_ms(const std::function<void()>& f) {
  cudaEvent_t a, b;
  SCANKIT_CUDA_CHECK(cudaEventCreate(&a));
  SCANKIT_CUDA_CHECK(cudaEventCreate(&b));
  f();
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    SCANKIT_CUDA_CHECK(cudaEventRecord(a));
    f();
    SCANKIT_CUDA_CHECK(cudaEventRecord(b));
    SCANKIT_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SCANKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
struct type_bench {
  const char* name;
  long long n;
  T* in = nullptr;
  T* out = nullptr;
  T* ref = nullptr;
  double copy_ms = 0, cub_ms = 0;
  scankit::workspace ws;

  type_bench(const char* type_name, long long count) : name(type_name), n(count) {
    SCANKIT_CUDA_CHECK(cudaMalloc(&in, n * sizeof(T)));
    SCANKIT_CUDA_CHECK(cudaMalloc(&out, n * sizeof(T)));
    SCANKIT_CUDA_CHECK(cudaMalloc(&ref, n * sizeof(T)));
    std::vector<T> host(static_cast<std::size_t>(n));
    std::uint64_t x = 88172645463325252ull;
    for (auto& v : host) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      v = static_cast<T>(static_cast<int>(x % 17) - 8);
    }
    SCANKIT_CUDA_CHECK(cudaMemcpy(in, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    copy_ms = median_ms([&] { SCANKIT_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
    std::size_t temp_bytes = 0;
    SCANKIT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, ref, n));
    void* temp = nullptr;
    SCANKIT_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    cub_ms = median_ms([&] { SCANKIT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, ref, n)); });
    SCANKIT_CUDA_CHECK(cudaFree(temp));
    rows.push_back({name, "copy", n, copy_ms, 1.0, cub_ms / copy_ms, true});
    rows.push_back({name, "cub", n, cub_ms, copy_ms / cub_ms, 1.0, true});
    print(rows[rows.size() - 2]);
    print(rows.back());
  }
  ~type_bench() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(ref);
  }

  static void print(const result_row& r) {
    std::printf("%-7s n=2^%-2d %-34s %8.3f ms  %.3f of copy  %.2fx CUB  %s\n", r.type.c_str(),
                static_cast<int>(std::log2(static_cast<double>(r.n))), r.variant.c_str(), r.ms, r.frac_copy, r.vs_cub,
                r.ok ? "" : "MISMATCH");
    std::fflush(stdout);
  }

  template <class Policy>
  void variant(const std::string& label) {
    using strategies = scan_strategies<Policy, T, scankit::plus_op>;
    std::size_t slots = 0, scratch = 0;
    strategies::workspace_needs(scankit::scan_strategy::decoupled_look_back, n, slots, scratch);
    auto launch = [&] {
      const scankit::workspace_view view = ws.prepare(slots, scratch, nullptr);
      strategies::template single_pass<tile_prefix_source::decoupled_look_back>(in, out, n, false, T{},
                                                                               scankit::plus_op{}, view, nullptr);
    };
    SCANKIT_CUDA_CHECK(cudaMemset(out, 0xA5, n * sizeof(T)));
    launch();
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
    SCANKIT_CUDA_CHECK(cudaMemcpy(a.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
    SCANKIT_CUDA_CHECK(cudaMemcpy(b.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
    const bool ok = std::memcmp(a.data(), b.data(), n * sizeof(T)) == 0;
    const double ms = median_ms(launch);
    rows.push_back({name, label, n, ms, copy_ms / ms, cub_ms / ms, ok});
    print(rows.back());
  }
};

template <int B, int K, unsigned First = 32, unsigned Max = 1024>
using p = scan_policy<B, K, block_scan_algorithm::warp_of_warps, First, Max>;

std::string label(int b, int k, unsigned first = 32, unsigned max = 1024) {
  return "decoupled b" + std::to_string(b) + " k" + std::to_string(k) + " backoff " + std::to_string(first) + "-" +
         std::to_string(max);
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28;
  const char* json = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  if (!scankit::cuda_device_available()) {
    std::puts("tune_scan: no CUDA device");
    return 3;
  }
  const long long n = 1ll << log2n;
  {
    type_bench<std::int32_t> t("int32", n);
    t.variant<p<256, 16>>(label(256, 16));
    t.variant<p<256, 16, 0, 0>>(label(256, 16, 0, 0));
    t.variant<p<256, 16, 64, 4096>>(label(256, 16, 64, 4096));
    t.variant<p<128, 32>>(label(128, 32));
    t.variant<p<512, 8>>(label(512, 8));
    t.variant<p<128, 16>>(label(128, 16));
    t.variant<p<256, 8>>(label(256, 8));
    t.variant<p<256, 12>>(label(256, 12));
    t.variant<p<256, 24>>(label(256, 24));
  }
  {
    type_bench<std::int64_t> t("int64", n);
    t.variant<p<256, 8>>(label(256, 8));
    t.variant<p<128, 16>>(label(128, 16));
    t.variant<p<512, 4>>(label(512, 4));
    t.variant<p<256, 4>>(label(256, 4));
  }
  {
    type_bench<std::int8_t> t("int8", n);
    t.variant<p<256, 64>>(label(256, 64));
    t.variant<p<512, 32>>(label(512, 32));
    t.variant<p<256, 32>>(label(256, 32));
  }
  {
    type_bench<std::int16_t> t("int16", n);
    t.variant<p<256, 32>>(label(256, 32));
    t.variant<p<512, 16>>(label(512, 16));
    t.variant<p<128, 64>>(label(128, 64));
  }
  if (json != nullptr) {
    FILE* f = std::fopen(json, "w");
    if (f == nullptr) return 1;
    cudaDeviceProp prop{};
    SCANKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::fprintf(f, "{\n  \"gpu\": \"%s\",\n  \"rows\": [\n", prop.name);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      std::fprintf(f, "    {\"type\": \"%s\", \"variant\": \"%s\", \"n\": %lld, \"ms\": %.5f, \"frac_copy\": %.4f, \"vs_cub\": %.4f, \"ok\": %s}%s\n",
                   r.type.c_str(), r.variant.c_str(), r.n, r.ms, r.frac_copy, r.vs_cub, r.ok ? "true" : "false",
                   i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
  }
  for (const auto& r : rows)
    if (!r.ok) return 1;
  return 0;
}
