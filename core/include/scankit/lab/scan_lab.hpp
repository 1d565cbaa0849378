// The scan lab's precompiled API (library scankit::lab, callable from g++): the same calls as
// scankit/scan.hpp, plus every textbook strategy (options.strategy: three-launch,
// reduce-then-scan, chained), every block algorithm (options.block_algorithm) for the plus
// operator, and coarsening factors 1, 2, 4, 8 and 16 items per thread (options.items_per_thread)
// for int32 and float sums. It exists to compare the textbook variants; production code calls
// scankit::inclusive_scan.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/scan.hpp"

namespace scankit::lab {

#define SCANKIT_DECLARE_LAB_SCAN(T)                                                                  \
  void inclusive_scan(const T* in, T* out, std::int64_t n, scan_op op = scan_op::plus,              \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr,                       \
                      const scan_options& options = {});                                            \
  void exclusive_scan(const T* in, T* out, std::int64_t n, T init, scan_op op = scan_op::plus,      \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr,                       \
                      const scan_options& options = {});                                            \
  std::size_t scan_workspace_bytes(const T* /*type tag*/, std::int64_t n, const scan_options& options = {});

SCANKIT_DECLARE_LAB_SCAN(std::int8_t)
SCANKIT_DECLARE_LAB_SCAN(std::uint8_t)
SCANKIT_DECLARE_LAB_SCAN(std::int16_t)
SCANKIT_DECLARE_LAB_SCAN(std::uint16_t)
SCANKIT_DECLARE_LAB_SCAN(std::int32_t)
SCANKIT_DECLARE_LAB_SCAN(std::uint32_t)
SCANKIT_DECLARE_LAB_SCAN(std::int64_t)
SCANKIT_DECLARE_LAB_SCAN(std::uint64_t)
SCANKIT_DECLARE_LAB_SCAN(float)
SCANKIT_DECLARE_LAB_SCAN(double)

#undef SCANKIT_DECLARE_LAB_SCAN

}  // namespace scankit::lab

namespace scankit {

// What the compiler and the occupancy calculator say about the register tile kernel a lab scan
// would run (the main tile kernel of the chosen strategy). Needs a CUDA device; throws
// scankit::error for options that are not precompiled for the type.
struct scan_kernel_info {
  int block_threads = 0;
  int items_per_thread = 0;
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int max_blocks_per_sm = 0;       // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  double occupancy = 0;            // resident threads / maximum threads per SM
  int block_barriers = 0;          // __syncthreads() executed by the block scan, per tile
  long long block_scan_operations = 0;  // operator applications of the block scan, per tile
};

#define SCANKIT_DECLARE_KERNEL_INFO(T) \
  scan_kernel_info describe_scan_kernel(const T* /*type tag*/, const scan_options& options = {});
SCANKIT_DECLARE_KERNEL_INFO(std::int32_t)
SCANKIT_DECLARE_KERNEL_INFO(float)
#undef SCANKIT_DECLARE_KERNEL_INFO

}  // namespace scankit
