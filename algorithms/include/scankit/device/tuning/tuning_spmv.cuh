// SpMV's tuned shapes: the merge-path tile, the vector kernel and the transpose. One entry per GPU
// generation (scankit/device/tuning/gpu_arch.hpp), numbers only: the kernels that take them are in
// device/sparse/. Each entry names the benchmark file it rests on; docs/tuning.md ("SpMV") tells
// the measurements.
#pragma once

#include "scankit/device/tuning/gpu_arch.hpp"

namespace scankit::device_detail::tuning {

template <gpu_arch Arch>
struct spmv_entry;

template <>
struct spmv_entry<gpu_arch::sm90> {
  static constexpr const char* measured_in = "bench/results/h200-2026-12-01-afab130-bench_spmv.json";

  // The merge-path tile: 512 threads x 3 positions (the shared-memory carveout just what the
  // blocks that fit by registers need).
  struct merge_path {
    static constexpr int block_threads = 512;
    static constexpr int items_per_thread = 3;
  };
  // The vector kernel: 256 threads; each group of lanes keeps 4 rows in flight and loads 2 x its
  // width nonzeros of each ahead.
  struct vector {
    static constexpr int block_threads = 256;
    static constexpr int rows_in_flight = 4;
    static constexpr int chunks = 2;
  };
  // A^T without a plan: 8 positions per thread of the atomic kernel.
  struct transpose {
    static constexpr int items_per_thread = 8;
  };
};

// The other generations, not measured yet: sm_90's entry.
template <gpu_arch Arch>
struct spmv_entry : spmv_entry<gpu_arch::sm90> {};

using spmv_tuning_table = spmv_entry<tuned_arch>;

}  // namespace scankit::device_detail::tuning
