// Prefix sums over device arrays: the precompiled host API (callable from g++-compiled code).
//
//   inclusive_scan: out[i] = in[0] op in[1] op ... op in[i]
//   exclusive_scan: out[i] = init op in[0] op ... op in[i-1]   (out[0] = init)
//
// Pointers are device pointers; `n` is a 64-bit count; work is enqueued on `stream` and the call
// returns without synchronising. `out == in` (in place) is allowed; any other overlap is rejected.
// With `ws == nullptr` temporary storage is taken and returned stream-ordered (cudaMallocAsync);
// pass a scankit::workspace to reuse it across calls (it also saves an initialisation launch).
// Bad arguments throw scankit::error before anything is enqueued; CUDA failures throw
// scankit::cuda_error. For custom value types and operators use scankit/device/scan.cuh (nvcc).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/error.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_DECLARE_SCAN(T)                                                                      \
  void inclusive_scan(const T* in, T* out, std::int64_t n, scan_op op = scan_op::plus,              \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr,                       \
                      const scan_options& options = {});                                            \
  void exclusive_scan(const T* in, T* out, std::int64_t n, T init, scan_op op = scan_op::plus,      \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr,                       \
                      const scan_options& options = {});                                            \
  std::size_t scan_workspace_bytes(const T* /*type tag*/, std::int64_t n, const scan_options& options = {});

SCANKIT_DECLARE_SCAN(std::int8_t)
SCANKIT_DECLARE_SCAN(std::uint8_t)
SCANKIT_DECLARE_SCAN(std::int16_t)
SCANKIT_DECLARE_SCAN(std::uint16_t)
SCANKIT_DECLARE_SCAN(std::int32_t)
SCANKIT_DECLARE_SCAN(std::uint32_t)
SCANKIT_DECLARE_SCAN(std::int64_t)
SCANKIT_DECLARE_SCAN(std::uint64_t)
SCANKIT_DECLARE_SCAN(float)
SCANKIT_DECLARE_SCAN(double)

#undef SCANKIT_DECLARE_SCAN

// What the compiler and the occupancy calculator say about the kernel a scan would run
// (the main tile kernel of the chosen strategy). Needs a CUDA device; throws scankit::error for
// options that are not precompiled for the type.
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

// True when a CUDA device is visible to this process (no exception; for apps and tests).
bool cuda_device_available() noexcept;

}  // namespace scankit
