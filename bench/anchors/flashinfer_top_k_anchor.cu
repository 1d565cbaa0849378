// FlashInfer's top-k (flashinfer::sampling::TopKDispatch, 0.6.18 headers) on bench_top_k's
// workloads: values and int32 indices, sorted output (as bench_top_k's sorted rows), with and
// without its deterministic mode. Build and run: README.md here.
#include <flashinfer/sampling.cuh>  // includes topk.cuh after the helpers it needs

#include "anchor_common.cuh"

namespace fis = flashinfer::sampling;

int main() {
  fis::RadixRowState* row_states = nullptr;
  const std::size_t row_states_bytes = 1u << 20;  // as FlashInfer's Python layer caches it
  ANCHOR_CHECK(cudaMalloc(&row_states, row_states_bytes));
  ANCHOR_CHECK(cudaMemset(row_states, 0, row_states_bytes));
  for (const anchor_workload& w : anchor_workloads) {
    const std::int64_t n = w.rows * w.cols;
    float *keys = nullptr, *values = nullptr;
    int* indices = nullptr;
    ANCHOR_CHECK(cudaMalloc(&keys, n * sizeof(float)));
    ANCHOR_CHECK(cudaMalloc(&values, w.rows * w.k * sizeof(float)));
    ANCHOR_CHECK(cudaMalloc(&indices, w.rows * w.k * sizeof(int)));
    anchor_fill_kernel<<<2048, 256>>>(keys, n, 1234);
    ANCHOR_CHECK(cudaGetLastError());
    for (bool deterministic : {false, true}) {
      const bool filtered = fis::ShouldUseFilteredTopK<float>(static_cast<uint32_t>(w.rows), static_cast<uint32_t>(w.k),
                                                              static_cast<uint32_t>(w.cols), deterministic,
                                                              fis::TopKTieBreak::None);
      const double ms = anchor_median_ms([&] {
        ANCHOR_CHECK((fis::TopKDispatch<float, int>(keys, indices, values, static_cast<uint32_t>(w.rows),
                                                    static_cast<uint32_t>(w.k), static_cast<uint32_t>(w.cols),
                                                    row_states, w.sorted, deterministic, fis::TopKTieBreak::None,
                                                    nullptr)));
      });
      anchor_print("flashinfer_TopKDispatch", w.name,
                   std::string(w.sorted ? "sorted" : "unsorted") + (deterministic ? " deterministic" : "") +
                       (filtered ? " (filtered)" : " (radix multi-CTA)"),
                   ms);
    }
    ANCHOR_CHECK(cudaFree(keys));
    ANCHOR_CHECK(cudaFree(values));
    ANCHOR_CHECK(cudaFree(indices));
  }
  ANCHOR_CHECK(cudaFree(row_states));
  return 0;
}
