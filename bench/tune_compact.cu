// Tuning sweep for single-pass compaction: tile shapes of the register kernel (block size x items
// per thread) and of the staged kernel (block size x chunks), L2 prefetch distance, look-back warp
// and back-off of select_if and unique, timed beside cudaMemcpy D2D and cub::DeviceSelect on the same data. Each
// variant's count and output are checked against CUB's first.
//
//   tune_compact [--json FILE] [--log2n 28] [--reps 20] [--tiles-only | --backoff-only | --tuned-only]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

#include "median_time.hpp"
#include "sweep_result.hpp"

#include "scankit/device/select.cuh"
#include "scankit/device/unique.cuh"
#include "scankit/error.hpp"
#include "scankit/scan.hpp"  // cuda_device_available

namespace {

struct row {
  std::string workload, variant;
  double ms, frac_copy, vs_cub;
  bool ok;
};
std::vector<row> rows;
int reps = 20;

double median_ms(const std::function<void()>& f) { return scankit_bench::median_ms(f, reps); }

template <class T>
struct below {
  T threshold;
  __host__ __device__ bool operator()(const T& x) const { return x < threshold; }
};

// One workload: n items, CUB's result and timing, a copy of the bytes read + written.
template <class T>
struct workload {
  std::string name;
  long long n;
  bool unique;
  T threshold;
  T *in = nullptr, *out = nullptr, *ref = nullptr;
  std::int64_t *count = nullptr, *ref_count = nullptr;
  double copy_ms = 0, cub_ms = 0;
  std::int64_t kept = 0;
  scankit::workspace ws;

  workload(std::string label, long long items, double keep, bool is_unique)
      : name(std::move(label)), n(items), unique(is_unique) {
    SCANKIT_CUDA_CHECK(cudaMalloc(&in, n * sizeof(T)));
    SCANKIT_CUDA_CHECK(cudaMalloc(&out, n * sizeof(T)));
    SCANKIT_CUDA_CHECK(cudaMalloc(&ref, n * sizeof(T)));
    SCANKIT_CUDA_CHECK(cudaMalloc(&count, sizeof(std::int64_t)));
    SCANKIT_CUDA_CHECK(cudaMalloc(&ref_count, sizeof(std::int64_t)));
    std::vector<T> host(static_cast<std::size_t>(n));
    std::uint64_t x = 88172645463325252ull;
    for (long long i = 0; i < n; ++i) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      // unique: runs of about 4 equal keys; select: uniform values
      host[static_cast<std::size_t>(i)] = is_unique ? static_cast<T>((i >> 2) * 2654435761ull % 1000003ull) : static_cast<T>(x);
    }
    threshold = static_cast<T>(keep * static_cast<double>(static_cast<T>(~T{0})));
    SCANKIT_CUDA_CHECK(cudaMemcpy(in, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    std::size_t temp_bytes = 0;
    void* temp = nullptr;
    auto run_cub = [&] {
      if (unique) {
        SCANKIT_CUDA_CHECK(cub::DeviceSelect::Unique(temp, temp_bytes, in, ref, ref_count, n));
      } else {
        SCANKIT_CUDA_CHECK(cub::DeviceSelect::If(temp, temp_bytes, in, ref, ref_count, n, below<T>{threshold}));
      }
    };
    run_cub();
    SCANKIT_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
    cub_ms = median_ms(run_cub);
    SCANKIT_CUDA_CHECK(cudaFree(temp));
    SCANKIT_CUDA_CHECK(cudaMemcpy(&kept, ref_count, sizeof(kept), cudaMemcpyDeviceToHost));
    const std::size_t bytes = static_cast<std::size_t>(n + kept) * sizeof(T);  // read + written
    copy_ms = median_ms([&] { SCANKIT_CUDA_CHECK(cudaMemcpyAsync(out, in, bytes / 2, cudaMemcpyDeviceToDevice)); });
    rows.push_back({name, "cub", cub_ms, copy_ms / cub_ms, 1.0, true});
    print(rows.back());
  }
  ~workload() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(ref);
    cudaFree(count);
    cudaFree(ref_count);
  }

  static void print(const row& r) {
    std::printf("%-22s %-18s %8.3f ms  %.3f of copy  %.2fx CUB  %s\n", r.workload.c_str(), r.variant.c_str(), r.ms,
                r.frac_copy, r.vs_cub, r.ok ? "" : "MISMATCH");
    std::fflush(stdout);
  }

  // B threads x K items per tile (register kernel); the L2 prefetch runs AheadMiB ahead (0:
  // none); look-back back-off from First ns doubling to Max ns.
  template <int B, int K, int AheadMiB = 4, unsigned First = 32, unsigned Max = 1024, bool LookBackWarp = false>
  void variant() {
    std::string label = "b" + std::to_string(B) + " k" + std::to_string(K) + " L2 " + std::to_string(AheadMiB) + " MiB";
    if (First != 32 || Max != 1024) label += " backoff " + std::to_string(First) + "-" + std::to_string(Max);
    if (LookBackWarp) label += " look-back warp";
    measure<scankit::device_detail::compact_policy<B, K, First, Max, (AheadMiB << 20), LookBackWarp>>(label);
  }

  // The staged kernel: B threads x V 16-byte chunks, __launch_bounds__ minimum MinBlocks.
  template <int B, int V, int MinBlocks = 1, bool LookBackWarp = false, int AheadMiB = 4>
  void staged() {
    std::string label = "staged b" + std::to_string(B) + " v" + std::to_string(V) + " minb" + std::to_string(MinBlocks);
    if (AheadMiB != 4) label += " L2 " + std::to_string(AheadMiB) + " MiB";
    if (LookBackWarp) label += " look-back warp";
    measure<scankit::device::staged_compact<B, V, MinBlocks, LookBackWarp, (AheadMiB << 20)>>(label);
  }

  // The tuned staged shape with the look-back's back-off from First ns doubling to Max ns.
  template <unsigned First, unsigned Max>
  void staged_backoff() {
    using tuning = scankit::device_detail::staged_compact_tuning<sizeof(T)>;
    measure<scankit::device_detail::staged_compact_policy<tuning::block_threads, tuning::chunks_per_thread,
                                                          static_cast<int>(sizeof(T)), tuning::min_blocks_per_sm,
                                                          (4 << 20), false, First, Max>>(
        "tuned staged, back-off " + std::to_string(First) + "-" + std::to_string(Max) + " ns");
  }

  void backoff_sweep() {
    for (int round = 0; round < 2; ++round) {
      staged_backoff<32, 1024>();
      staged_backoff<128, 512>();
      staged_backoff<256, 512>();
      staged_backoff<512, 512>();
      staged_backoff<0, 0>();
    }
  }

  template <class Policy>
  void measure(const std::string& label) {
    auto launch = [&] {
      if (unique) {
        scankit::device::unique<Policy>(in, out, count, n, nullptr, &ws);
      } else {
        scankit::device::select_if<Policy>(in, out, count, n, below<T>{threshold}, nullptr, &ws);
      }
    };
    SCANKIT_CUDA_CHECK(cudaMemset(out, 0xA5, n * sizeof(T)));
    launch();
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    std::int64_t got = -1;
    SCANKIT_CUDA_CHECK(cudaMemcpy(&got, count, sizeof(got), cudaMemcpyDeviceToHost));
    bool ok = got == kept;
    if (ok) {
      std::vector<T> a(static_cast<std::size_t>(kept)), b(static_cast<std::size_t>(kept));
      SCANKIT_CUDA_CHECK(cudaMemcpy(a.data(), out, kept * sizeof(T), cudaMemcpyDeviceToHost));
      SCANKIT_CUDA_CHECK(cudaMemcpy(b.data(), ref, kept * sizeof(T), cudaMemcpyDeviceToHost));
      ok = a == b;
    }
    const double ms = median_ms(launch);
    rows.push_back({name, label, ms, copy_ms / ms, cub_ms / ms, ok});
    print(rows.back());
  }

  // 4-byte items: the register kernel's tuned 256 x 32 (32 KiB tiles) with and without prefetch
  // and with the look-back warp, then staged shapes (8 chunks of 256 threads: 32 KiB).
  void sweep() {
    variant<256, 32, 0>();
    variant<256, 32, 4>();
    variant<224, 32, 4, 32, 1024, true>();
    staged<256, 8>();
    staged<256, 8, 6>();
    staged<256, 8, 5, true>();
    staged<224, 8, 6, true>();
    staged<128, 16, 6>();
    staged<256, 8, 6, false, 0>();
    staged<256, 8, 6, false, 8>();
  }

  // The tuned staged shape alone, twice (an A/B of two builds runs this in each).
  void tuned_twice() {
    using tuning = scankit::device_detail::staged_compact_tuning<sizeof(T)>;
    staged<tuning::block_threads, tuning::chunks_per_thread, tuning::min_blocks_per_sm>();
    staged<tuning::block_threads, tuning::chunks_per_thread, tuning::min_blocks_per_sm>();
  }

  // Larger staged tiles than the tuned 32 KiB: more bytes resident per SM (6 x 36 KiB, 5 x 44 KiB)
  // and fewer look-backs per byte. The tuned shape runs first and last (run-to-run spread).
  void tile_size_sweep() {
    staged<256, 8, 6>();
    staged<256, 9, 6>();
    staged<224, 10, 6>();
    staged<192, 12, 6>();
    staged<256, 10, 5>();
    staged<256, 11, 5>();
    staged<256, 9, 6, true>();
    staged<256, 8, 6>();
  }
};

// Every shape of every workload (the default run).
void full_sweep(long long n) {
  { workload<std::uint32_t>("select u32 50%", n, 0.5, false).sweep(); }
  { workload<std::uint32_t>("select u32 1%", n, 0.01, false).sweep(); }
  { workload<std::uint32_t>("select u32 99%", n, 0.99, false).sweep(); }
  {
    workload<std::uint64_t> w("select u64 50%", n, 0.5, false);
    w.variant<256, 16, 4>();
    w.variant<128, 32>();
    w.staged<256, 8>();
    w.staged<256, 8, 6>();
    w.staged<224, 8, 6, true>();
    w.staged<128, 16, 6>();
  }
  { workload<std::uint32_t>("unique u32 runs ~4", n, 0, true).sweep(); }
  for (const double keep : {0.5}) {
    workload<std::uint8_t> w8("select u8 50%", n, keep, false);
    w8.variant<256, 32>();
    w8.staged<256, 8, 1>();
    w8.staged<256, 8, 5>();
    w8.staged<256, 8, 6>();
    workload<std::uint16_t> w16("select u16 50%", n, keep, false);
    w16.variant<256, 32>();
    w16.staged<256, 8, 1>();
    w16.staged<256, 8, 5>();
    w16.staged<256, 8, 6>();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28;
  const char* json = nullptr;
  bool tiles_only = false;    // only the larger staged tiles
  bool backoff_only = false;  // only the look-back back-off of the tuned staged shape
  bool tuned_only = false;    // only the tuned staged shape, twice per workload
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--tiles-only")) tiles_only = true;
    else if (!std::strcmp(argv[i], "--backoff-only")) backoff_only = true;
    else if (!std::strcmp(argv[i], "--tuned-only")) tuned_only = true;
  }
  if (!scankit::cuda_device_available()) {
    std::puts("tune_compact: no CUDA device");
    return 3;
  }
  const long long n = 1ll << log2n;
  // The workloads of the focused sweeps, each built in turn and handed to `sweep` (u8 and u16
  // only with --tuned-only).
  // (A compile-time flag: the other sweeps are not instantiated for 1- and 2-byte items.)
  const auto each_workload = [n](auto small_items, const auto& sweep) {
    { workload<std::uint32_t> w("select u32 50%", n, 0.5, false); sweep(w); }
    { workload<std::uint32_t> w("select u32 1%", n, 0.01, false); sweep(w); }
    { workload<std::uint32_t> w("select u32 99%", n, 0.99, false); sweep(w); }
    { workload<std::uint64_t> w("select u64 50%", n, 0.5, false); sweep(w); }
    { workload<std::uint32_t> w("unique u32 runs ~4", n, 0, true); sweep(w); }
    if constexpr (decltype(small_items)::value) {
      { workload<std::uint8_t> w("select u8 50%", n, 0.5, false); sweep(w); }
      { workload<std::uint16_t> w("select u16 50%", n, 0.5, false); sweep(w); }
    }
  };
  if (tuned_only) {
    each_workload(std::true_type{}, [](auto& w) { w.tuned_twice(); });
  } else if (backoff_only) {
    each_workload(std::false_type{}, [](auto& w) { w.backoff_sweep(); });
  } else if (tiles_only) {
    each_workload(std::false_type{}, [](auto& w) { w.tile_size_sweep(); });
  } else {
    full_sweep(n);
  }
  return scankit_bench::finish_sweep(json, scankit_bench::format("\"n\": %lld", n), rows, [](const row& r) {
    return scankit_bench::format(
        "\"workload\": \"%s\", \"variant\": \"%s\", \"ms\": %.5f, \"frac_copy\": %.4f, \"vs_cub\": %.4f",
        r.workload.c_str(), r.variant.c_str(), r.ms, r.frac_copy, r.vs_cub);
  });
}
