// Tuning sweep of the radix sort's rank: how it finds a row's lanes of one digit (one ballot per
// digit bit, the tuned way, against one shared atomicOr per key; radix_rank.cuh). The digit pass
// for u32 keys, u32 pairs, u64 keys and u64 pairs (and the lean pass where it differs from the
// tuned one), and the one-block sort of 4096 and 16384 u32
// keys, on uniform keys, keys of 8 distinct values and keys below 2^20, beside cudaMemcpy D2D of
// the same keys and cub::DeviceRadixSort on the same data.
// Every variant's output is checked against CUB's first, bit for bit.
//
//   tune_sort [--json FILE] [--log2n 28] [--reps 20] [--small-only]
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
#include "scankit/device/util/launch_cluster.cuh"
#include "scankit/workspace.hpp"
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

// The tuned pass shape of (Key, Value), with the rank's match chosen.
template <class Key, class Value, bool AtomicOr>
struct pass_with_match {
  using t = scankit::device_detail::radix_sort_tuning<sizeof(Key), scankit::device_detail::sort_value_bytes<Value>>;
  using e = typename t::entry;
  using type = scankit::device_detail::radix_pass_policy<e::block_threads, e::items_per_thread, e::radix_bits,
                                                         e::min_blocks_per_sm, 32, 1024, e::look_back_window,
                                                         e::small_sorts_in_one_block, e::prefetch_tiles_ahead, AtomicOr>;
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
  run(pass_with_match<Key, Value, false>{}, "ballots");
  run(pass_with_match<Key, Value, true>{}, "atomic_or");
  // The lean pass (radix_pass_choice.cuh), where it differs: the dispatch runs it on GPUs of less
  // memory bandwidth per multiprocessor.
  using tuning = scankit::device_detail::radix_sort_tuning<sizeof(Key), scankit::device_detail::sort_value_bytes<Value>>;
  if constexpr (!std::is_same_v<typename tuning::pass, typename tuning::lean_pass>) {
    struct lean {
      using type = typename tuning::lean_pass;
    };
    run(lean{}, "lean");
  }
  if constexpr (sizeof(Key) == 4 && !pairs) {
    // The atomicOr match holds fewer registers: a longer tile may now fit 3 blocks per SM.
    using e = typename pass_with_match<Key, Value, true>::e;
    struct longer {
      using type = scankit::device_detail::radix_pass_policy<e::block_threads, 28, e::radix_bits, e::min_blocks_per_sm, 32,
                                                             1024, e::look_back_window, e::small_sorts_in_one_block,
                                                             e::prefetch_tiles_ahead, true>;
    };
    run(longer{}, "atomic_or x28");
  }
  ws.release();
  SCANKIT_CUDA_CHECK(cudaFree(cub_temp));
  for (void* p : {static_cast<void*>(keys), static_cast<void*>(out), static_cast<void*>(ref), static_cast<void*>(values),
                  static_cast<void*>(values_out), static_cast<void*>(values_ref)}) {
    if (p != nullptr) SCANKIT_CUDA_CHECK(cudaFree(p));
  }
}

using u32_block_args =
    scankit::device_detail::radix_block_sort_args<std::uint32_t, scankit::device_detail::radix_no_values,
                                                  scankit::default_bit_key<std::uint32_t>>;

// The arguments of a small sort of n u32 keys over every bit.
u32_block_args small_sort_args(const std::uint32_t* keys, std::uint32_t* out, int n) {
  u32_block_args args{};
  args.keys_in = keys;
  args.keys_out = out;
  args.n = n;
  args.passes = scankit::device_detail::radix_passes{0, 32, 8};
  return args;
}

// The one-block sort (radix_block_sort.cuh) of n u32 keys in a block of Threads x Items, with each
// match, launched directly (the sort's dispatch takes its block shape from the tuning table); with
// ChunkLog2 > 0, the cluster sort of 2^ChunkLog2 positions per block (above 8 blocks, a
// non-portable cluster).
template <int Threads, int Items, bool AtomicOr, int ChunkLog2 = 0>
double one_block_ms(const std::uint32_t* keys, std::uint32_t* out, int n) {
  using P = scankit::device_detail::radix_block_sort_policy<Threads, Items, AtomicOr, 2048, 16>;
  using bit_key = scankit::default_bit_key<std::uint32_t>;
  u32_block_args args = small_sort_args(keys, out, n);
  constexpr std::size_t smem = scankit::device_detail::radix_block_sort_bytes<P, std::uint32_t,
                                                                               scankit::device_detail::radix_no_values>();
  constexpr auto kernel = scankit::device_detail::radix_block_sort_kernel<P, std::uint32_t,
                                                                         scankit::device_detail::radix_no_values, bit_key,
                                                                         (ChunkLog2 > 0)>;
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  scankit::device_detail::allow_dynamic_shared_memory<kernel>(device, smem);
  if constexpr (ChunkLog2 > 0) {
    args.chunk_log2 = ChunkLog2;
    const unsigned blocks = static_cast<unsigned>((n + (1 << ChunkLog2) - 1) >> ChunkLog2);
    if (blocks > scankit::device_detail::portable_cluster_blocks) {
      scankit::device_detail::allow_nonportable_clusters<kernel>(device);
      if (!scankit::device_detail::cluster_fits<kernel>(device, blocks, P::block_threads, smem)) return -1.0;
    }
    return scankit_bench::median_ms([&] {
      scankit::device_detail::launch_kernel_cluster("radix_block_sort_kernel (cluster)", kernel, dim3(blocks),
                                                    dim3(P::block_threads), blocks, smem, nullptr, args);
    }, reps);
  } else {
    return scankit_bench::median_ms([&] { kernel<<<1, P::block_threads, smem>>>(args); }, reps);
  }
}

// The sort's own dispatch (scankit::device::sort_keys, the tuned shapes): what a caller gets.
double dispatch_ms(const std::uint32_t* keys, std::uint32_t* out, int n) {
  static scankit::workspace ws;
  return scankit_bench::median_ms([&] { scankit::device::sort_keys(keys, out, n, nullptr, &ws); }, reps);
}

// A block shape of the one-block sort: its name, its tile and its timing.
struct block_shape {
  const char* name;
  int tile;  // the most keys it sorts
  double (*ms)(const std::uint32_t*, std::uint32_t*, int);
  int least = 0;  // the fewest keys it is meant for (a cluster of at least 2 blocks)
};

void sweep_one_block(int n, int distribution) {
  const char* distributions[] = {"uniform", "8 distinct", "below 2^20"};
  const std::string workload = "u32 keys one block " + std::to_string(n) + ", " + distributions[distribution];
  auto* keys = device_array<std::uint32_t>(n);
  auto* out = device_array<std::uint32_t>(n);
  auto* ref = device_array<std::uint32_t>(n);
  fill_keys<<<64, 256>>>(keys, n, distribution);
  std::size_t bytes = 0;
  SCANKIT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, ref, n));
  void* temp = nullptr;
  SCANKIT_CUDA_CHECK(cudaMalloc(&temp, bytes));
  const double cub_ms =
      scankit_bench::median_ms([&] { SCANKIT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, bytes, keys, ref, n)); }, reps);
  rows.push_back({workload, "cub", cub_ms, n / cub_ms * 1e3, 1.0, 0.0, true});
  std::printf("%-40s %-18s %8.4f ms\n", workload.c_str(), "cub", cub_ms);
  const block_shape shapes[] = {
      {"dispatch", 1 << 16, dispatch_ms},
      {"ballots 1024x16", 16384, one_block_ms<1024, 16, false>},
      {"ballots 512x8", 4096, one_block_ms<512, 8, false>},
      {"ballots 1024x4", 4096, one_block_ms<1024, 4, false>},
      {"atomic-or 512x8", 4096, one_block_ms<512, 8, true>},
      {"atomic-or 384x11", 4224, one_block_ms<384, 11, true>},
      {"atomic-or 256x16", 4096, one_block_ms<256, 16, true>},
      {"atomic-or 256x4", 1024, one_block_ms<256, 4, true>},
      {"ballots 256x16", 4096, one_block_ms<256, 16, false>},
      {"ballots 256x8", 2048, one_block_ms<256, 8, false>},
      {"ballots 256x4", 1024, one_block_ms<256, 4, false>},
      {"cluster 256x8 c1k", 16 << 10, one_block_ms<256, 8, false, 10>, 1 + (1 << 10)},
      {"cluster 256x16 c1k", 16 << 10, one_block_ms<256, 16, false, 10>, 1 + (1 << 10)},
      {"cluster 256x16 c1k atomic-or", 16 << 10, one_block_ms<256, 16, true, 10>, 1 + (1 << 10)},
      {"cluster 256x16 c2k", 16 << 11, one_block_ms<256, 16, false, 11>, 1 + (1 << 11)},
      {"cluster 512x8 c2k", 16 << 11, one_block_ms<512, 8, false, 11>, 1 + (1 << 11)},
      {"cluster 512x8 c4k", 16 << 12, one_block_ms<512, 8, false, 12>, 1 + (1 << 12)},
      {"cluster 256x16 c4k", 16 << 12, one_block_ms<256, 16, false, 12>, 1 + (1 << 12)},
      {"cluster 512x16 c8k", 8 << 13, one_block_ms<512, 16, false, 13>, 1 + (1 << 13)},
  };
  for (const block_shape& shape : shapes) {
    if (n > shape.tile || n < shape.least) continue;
    SCANKIT_CUDA_CHECK(cudaMemset(out, 0xA5, n * sizeof(std::uint32_t)));
    const double ms = shape.ms(keys, out, n);
    SCANKIT_CUDA_CHECK(cudaDeviceSynchronize());
    if (ms < 0) {  // a cluster this GPU cannot hold
      std::printf("%-40s %-18s does not fit\n", workload.c_str(), shape.name);
      continue;
    }
    const bool ok = same_bits(out, ref, n);
    rows.push_back({workload, shape.name, ms, n / ms * 1e3, cub_ms / ms, 0.0, ok});
    std::printf("%-40s %-18s %8.4f ms  %.2fx CUB%s\n", workload.c_str(), shape.name, ms, cub_ms / ms,
                ok ? "" : "  MISMATCH");
  }
  SCANKIT_CUDA_CHECK(cudaFree(temp));
  for (void* p : {static_cast<void*>(keys), static_cast<void*>(out), static_cast<void*>(ref)}) SCANKIT_CUDA_CHECK(cudaFree(p));
}

}  // namespace

int main(int argc, char** argv) {
  const char* json = nullptr;
  int log2n = 28;
  bool small_only = false;  // only the one-block sorts
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
    else if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--small-only")) small_only = true;
    else {
      std::fprintf(stderr, "usage: tune_sort [--json FILE] [--log2n 28] [--reps 20] [--small-only]\n");
      return 2;
    }
  }
  if (!scankit::cuda_device_available()) {
    std::printf("tune_sort: no CUDA device\n");
    return 0;
  }
  const long long n = 1ll << log2n;
  for (int distribution = 0; distribution < 3 && !small_only; ++distribution) {
    sweep<std::uint32_t, void>("u32 keys", n, distribution);
    sweep<std::uint32_t, std::uint32_t>("u32 pairs", n, distribution);
    sweep<std::uint64_t, void>("u64 keys", n, distribution);
    sweep<std::uint64_t, std::uint64_t>("u64 pairs", n, distribution);
  }
  for (int distribution = 0; distribution < 3; ++distribution) {
    for (int small_n : {1024, 4096, 8192, 16384, 32768, 65536}) sweep_one_block(small_n, distribution);
  }
  const std::string head = scankit_bench::format("\"benchmark\": \"tune_sort\", \"n\": %lld", n);
  return scankit_bench::finish_sweep(json, head, rows, [](const row& r) {
    return scankit_bench::format("\"workload\": \"%s\", \"variant\": \"%s\", \"ms\": %.4f, \"keys_per_s\": %.4g, "
                                 "\"vs_cub\": %.4f, \"of_copy\": %.4f",
                                 r.workload.c_str(), r.variant.c_str(), r.ms, r.keys_per_s, r.vs_cub, r.of_copy);
  });
}
