// cub::DeviceTopK::MaxPairs (CCCL 3.6, from the cuda-cccl 1.2.1 wheel's headers) on the one-row
// workloads of bench_top_k: values = the keys' positions. The only configuration CUB implements:
// unsorted output, no run-to-run guarantee (asked for explicitly). Build and run: README.md here.
#include <cub/device/device_topk.cuh>
#include <cuda/execution>
#include <thrust/iterator/counting_iterator.h>

#include "anchor_common.cuh"

int main() {
  for (const anchor_workload& w : anchor_workloads) {
    if (w.rows != 1) continue;  // DeviceTopK takes one row
    const std::int64_t n = w.cols;
    float *keys = nullptr, *keys_out = nullptr;
    int* values_out = nullptr;
    ANCHOR_CHECK(cudaMalloc(&keys, n * sizeof(float)));
    ANCHOR_CHECK(cudaMalloc(&keys_out, w.k * sizeof(float)));
    ANCHOR_CHECK(cudaMalloc(&values_out, w.k * sizeof(int)));
    anchor_fill_kernel<<<2048, 256>>>(keys, n, 1234);
    ANCHOR_CHECK(cudaGetLastError());
    const thrust::counting_iterator<int> positions(0);
    // The one configuration this CUB implements, which must be asked for explicitly.
    const auto env = cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                              cuda::execution::output_ordering::unsorted);
    std::size_t temp_bytes = 0;
    ANCHOR_CHECK(cub::DeviceTopK::MaxPairs(nullptr, temp_bytes, keys, keys_out, positions, values_out, n, w.k, env));
    void* temp = nullptr;
    ANCHOR_CHECK(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
    const double ms = anchor_median_ms([&] {
      ANCHOR_CHECK(cub::DeviceTopK::MaxPairs(temp, temp_bytes, keys, keys_out, positions, values_out, n, w.k, env));
    });
    anchor_print("cub_DeviceTopK_MaxPairs", w.name, "cccl-3.6 default (unsorted)", ms);
    ANCHOR_CHECK(cudaFree(temp));
    ANCHOR_CHECK(cudaFree(keys));
    ANCHOR_CHECK(cudaFree(keys_out));
    ANCHOR_CHECK(cudaFree(values_out));
  }
  return 0;
}
