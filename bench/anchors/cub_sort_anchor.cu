// cub::DeviceRadixSort::SortKeys from CCCL 3.6 (the cuda-cccl 1.2.1 wheel's headers) on the keys-only
// rows of bench_sort that the toolkit's CUB is also timed on: uniform random uint8, uint16, uint32
// and uint64 keys at 2^28, uint32 keys at 2^10 to 2^20, and SortPairs of uint32 and uint64 keys and
// values of their width at 2^28 (every bit random, as bench_sort draws them: the same hash of the
// index; the timing does not depend on which random keys). One JSON line per row.
#include <cstdint>
#include <string>

#include <cub/device/device_radix_sort.cuh>

#include "anchor_common.cuh"

template <class K>
__global__ void anchor_fill_bits_kernel(K* keys, std::int64_t n, std::uint64_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] = static_cast<K>(anchor_mix64(seed ^ anchor_mix64(static_cast<std::uint64_t>(i))));
  }
}

template <class K>
void time_sort_keys(const std::string& workload, std::int64_t n) {
  K *in = nullptr, *out = nullptr;
  ANCHOR_CHECK(cudaMalloc(&in, n * sizeof(K)));
  ANCHOR_CHECK(cudaMalloc(&out, n * sizeof(K)));
  anchor_fill_bits_kernel<<<1024, 256>>>(in, n, 7);
  ANCHOR_CHECK(cudaGetLastError());
  std::size_t bytes = 0;
  ANCHOR_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, n));
  void* temp = nullptr;
  ANCHOR_CHECK(cudaMalloc(&temp, bytes));
  const double ms = anchor_median_ms([&] { ANCHOR_CHECK(cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, n)); });
  anchor_print("cub_3.6_DeviceRadixSort", workload.c_str(), "SortKeys", ms);
  ANCHOR_CHECK(cudaFree(temp));
  ANCHOR_CHECK(cudaFree(in));
  ANCHOR_CHECK(cudaFree(out));
}

template <class K>
void time_sort_pairs(const std::string& workload, std::int64_t n) {
  K *in = nullptr, *out = nullptr, *values_in = nullptr, *values_out = nullptr;
  ANCHOR_CHECK(cudaMalloc(&in, n * sizeof(K)));
  ANCHOR_CHECK(cudaMalloc(&out, n * sizeof(K)));
  ANCHOR_CHECK(cudaMalloc(&values_in, n * sizeof(K)));
  ANCHOR_CHECK(cudaMalloc(&values_out, n * sizeof(K)));
  anchor_fill_bits_kernel<<<1024, 256>>>(in, n, 7);
  anchor_fill_bits_kernel<<<1024, 256>>>(values_in, n, 11);
  ANCHOR_CHECK(cudaGetLastError());
  std::size_t bytes = 0;
  ANCHOR_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, in, out, values_in, values_out, n));
  void* temp = nullptr;
  ANCHOR_CHECK(cudaMalloc(&temp, bytes));
  const double ms = anchor_median_ms(
      [&] { ANCHOR_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, in, out, values_in, values_out, n)); });
  anchor_print("cub_3.6_DeviceRadixSort", workload.c_str(), "SortPairs", ms);
  for (void* p : {temp, static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(values_in),
                  static_cast<void*>(values_out)}) {
    ANCHOR_CHECK(cudaFree(p));
  }
}

int main() {
  const std::int64_t big = std::int64_t{1} << 28;
  time_sort_keys<std::uint8_t>("u8", big);
  time_sort_keys<std::uint16_t>("u16", big);
  time_sort_keys<std::uint32_t>("u32", big);
  time_sort_keys<std::uint64_t>("u64", big);
  time_sort_pairs<std::uint32_t>("u32_pairs", big);
  time_sort_pairs<std::uint64_t>("u64_pairs", big);
  for (int log_n : {10, 12, 14, 16, 20}) time_sort_keys<std::uint32_t>("u32_2p" + std::to_string(log_n), std::int64_t{1} << log_n);
  return 0;
}
