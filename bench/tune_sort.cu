// Tuning sweep of the radix sort's digit width: the tuned 8-bit pass against digits of 10 and 11
// bits (fewer passes; wide digits: radix_pass_kernel.cuh), for u32 keys, u32 pairs, u64 keys and
// u64 pairs, on uniform keys, keys of 8 distinct values and keys below 2^20, beside cudaMemcpy D2D
// of the same keys and cub::DeviceRadixSort on the same data.
// Every variant's output is checked against CUB's first, bit for bit.
//
//   tune_sort [--json FILE] [--log2n 28] [--reps 20]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include "median_time.hpp"
#include "sweep_result.hpp"

#include "scankit/device/sort.cuh"
#include "scankit/error.hpp"
#include "scankit/scan.hpp"  // cuda_device_available

namespace {

struct row {
  std::string workload, variant;
  double ms, keys_per_s, vs_cub, of_copy;
  bool ok;
};
std::vector<row> rows;
int reps = 20;

// Keys of a distribution, generated on the device (a hash of the index).
template <class Key>
__global__ void fill_keys(Key* keys, long long n, int distribution) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned long long h = static_cast<unsigned long long>(i) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    if (distribution == 1) h &= 7;              // 8 distinct values
    if (distribution == 2) h &= (1ull << 20) - 1;  // below 2^20
    keys[i] = static_cast<Key>(h);
  }
}

template <class T>
T* device_array(long long n) {
  T* p = nullptr;
  SCANKIT_CUDA_CHECK(cudaMalloc(&p, static_cast<std::size_t>(n) * sizeof(T)));
  return p;
}

template <class T>
bool same_bits(const T* a, const T* b, long long n) {
  std::vector<T> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  SCANKIT_CUDA_CHECK(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  SCANKIT_CUDA_CHECK(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  return std::memcmp(x.data(), y.data(), static_cast<std::size_t>(n) * sizeof(T)) == 0;
}

// The tuned pass shape of (Key, Value) with digits of Bits bits, Items keys per thread (0: the
// tuned count), MinBlocks blocks per SM (0: the tuned cap) and a look-back window of Window
// predecessors (0: the tuned window).
template <class Key, class Value, int Bits, int Items = 0, int MinBlocks = 0, int Window = 0>
struct pass_with_digits {
  using t = scankit::device_detail::radix_sort_tuning<sizeof(Key), scankit::device_detail::sort_value_bytes<Value>>;
  using e = typename t::entry;
  using type = scankit::device_detail::radix_pass_policy<
      e::block_threads, Items != 0 ? Items : e::items_per_thread, Bits, MinBlocks != 0 ? MinBlocks : e::min_blocks_per_sm,
      32, 1024, Window != 0 ? Window : e::look_back_window, e::small_sorts_in_one_block, e::prefetch_tiles_ahead, false>;
};

template <class Key, class Value>
void sweep(const char* type_name, long long n, int distribution) {
  constexpr bool pairs = !std::is_void_v<Value>;
  using V = std::conditional_t<pairs, Value, Key>;  // unused storage for keys-only
  const char* distributions[] = {"uniform", "8 distinct", "below 2^20"};
  const std::string workload = std::string(type_name) + ", " + distributions[distribution];
  Key* keys = device_array<Key>(n);
  Key* out = device_array<Key>(n);
  Key* ref = device_array<Key>(n);
  V* values = pairs ? device_array<V>(n) : nullptr;
  V* values_out = pairs ? device_array<V>(n) : nullptr;
  V* values_ref = pairs ? device_array<V>(n) : nullptr;
  fill_keys<<<1024, 256>>>(keys, n, distribution);
  if constexpr (pairs) fill_keys<<<1024, 256>>>(values, n, 0);
  SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());

  std::size_t cub_bytes = 0;
  void* cub_temp = nullptr;
  const auto cub_sort = [&](void* temp, std::size_t& bytes) {
    if constexpr (pairs) {
      SCANKIT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, ref, values, values_ref, n));
    } else {
      SCANKIT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, bytes, keys, ref, n));
    }
  };
  cub_sort(nullptr, cub_bytes);
  SCANKIT_CUDA_CHECK(cudaMalloc(&cub_temp, cub_bytes));
  const double cub_ms = scankit_bench::median_ms([&] { cub_sort(cub_temp, cub_bytes); }, reps);
  const double copy_ms = scankit_bench::median_ms(
      [&] { SCANKIT_CUDA_CHECK(cudaMemcpyAsync(out, keys, n * sizeof(Key), cudaMemcpyDeviceToDevice)); }, reps);
  rows.push_back({workload, "cub", cub_ms, n / cub_ms * 1e3, 1.0, copy_ms / cub_ms, true});

  scankit::workspace ws;
  const auto run = [&](auto policy_tag, const char* variant) {
    using P = typename decltype(policy_tag)::type;
    const auto sort = [&] {
      if constexpr (pairs) {
        scankit::device::sort_pairs<P>(keys, out, values, values_out, n, nullptr, &ws);
      } else {
        scankit::device::sort_keys<P>(keys, out, n, nullptr, &ws);
      }
    };
    SCANKIT_CUDA_CHECK(cudaMemset(out, 0xA5, n * sizeof(Key)));
    sort();
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    bool ok = same_bits(out, ref, n);
    if constexpr (pairs) ok = ok && same_bits(values_out, values_ref, n);
    const double ms = ok ? scankit_bench::median_ms(sort, reps) : 0.0;
    rows.push_back({workload, variant, ms, ok ? n / ms * 1e3 : 0.0, ok ? cub_ms / ms : 0.0, ok ? copy_ms / ms : 0.0, ok});
    std::printf("%-28s %-10s %8.3f ms  %.2fx CUB  %.3f of copy%s\n", workload.c_str(), variant, ms, ok ? cub_ms / ms : 0.0,
                ok ? copy_ms / ms : 0.0, ok ? "" : "  MISMATCH");
  };
  std::printf("%-28s %-10s %8.3f ms  (copy %.3f ms)\n", workload.c_str(), "cub", cub_ms, copy_ms);
  run(pass_with_digits<Key, Value, 8>{}, "8 bits");
  run(pass_with_digits<Key, Value, 10>{}, "10 bits");
  run(pass_with_digits<Key, Value, 10, 0, 0, 2>{}, "10 bits w2");
  run(pass_with_digits<Key, Value, 11, 0, 2>{}, "11 bits");
  run(pass_with_digits<Key, Value, 11, 0, 2, 2>{}, "11 bits w2");
  ws.release();
  SCANKIT_CUDA_CHECK(cudaFree(cub_temp));
  for (void* p : {static_cast<void*>(keys), static_cast<void*>(out), static_cast<void*>(ref), static_cast<void*>(values),
                  static_cast<void*>(values_out), static_cast<void*>(values_ref)}) {
    if (p != nullptr) SCANKIT_CUDA_CHECK(cudaFree(p));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* json = nullptr;
  int log2n = 28;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: tune_sort [--json FILE] [--log2n 28] [--reps 20]\n");
      return 2;
    }
  }
  if (!scankit::cuda_device_available()) {
    std::printf("tune_sort: no CUDA device\n");
    return 0;
  }
  const long long n = 1ll << log2n;
  for (int distribution = 0; distribution < 3; ++distribution) {
    sweep<std::uint32_t, void>("u32 keys", n, distribution);
    sweep<std::uint32_t, std::uint32_t>("u32 pairs", n, distribution);
    sweep<std::uint64_t, void>("u64 keys", n, distribution);
    sweep<std::uint64_t, std::uint64_t>("u64 pairs", n, distribution);
  }
  const std::string head = scankit_bench::format("\"benchmark\": \"tune_sort\", \"n\": %lld", n);
  return scankit_bench::finish_sweep(json, head, rows, [](const row& r) {
    return scankit_bench::format("\"workload\": \"%s\", \"variant\": \"%s\", \"ms\": %.4f, \"keys_per_s\": %.4g, "
                                 "\"vs_cub\": %.4f, \"of_copy\": %.4f",
                                 r.workload.c_str(), r.variant.c_str(), r.ms, r.keys_per_s, r.vs_cub, r.of_copy);
  });
}
