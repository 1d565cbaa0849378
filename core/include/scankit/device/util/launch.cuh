// A kernel launch that reports its own failure.
//
// <<<...>>> reports a failed launch only through cudaGetLastError, which would also consume (and
// misattribute) an error the caller left pending; cudaLaunchKernelEx returns the launch's own
// result and leaves everything else alone.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include "scankit/error.hpp"

namespace scankit::device_detail {

// `name` names the kernel in the error; args are converted to the kernel's parameter types;
// `dynamic_smem_bytes` of dynamic shared memory (above 48 KiB the kernel must have opted in with
// cudaFuncAttributeMaxDynamicSharedMemorySize).
template <class... Params, class... Args>
void launch_kernel_smem(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block,
                        std::size_t dynamic_smem_bytes, cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = dynamic_smem_bytes;
  config.stream = stream;
  const cudaError_t code = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  if (code != cudaSuccess) throw cuda_error(code, std::string("launch of ") + name);
}

template <class... Params, class... Args>
void launch_kernel(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                   Args&&... args) {
  launch_kernel_smem(name, kernel, grid, block, 0, stream, std::forward<Args>(args)...);
}

// Lets a kernel take `bytes` of dynamic shared memory beside its static shared memory, which
// above 48 KiB together needs the kernel's opt-in (asked once per kernel, size and device).
template <auto Kernel>
void allow_dynamic_shared_memory(int device, std::size_t bytes) {
  constexpr int cached_devices = 64;
  static std::atomic<std::size_t> allowed[cached_devices] = {};
  if (device >= 0 && device < cached_devices && allowed[device].load(std::memory_order_relaxed) >= bytes) return;
  const cudaError_t code =
      cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (code != cudaSuccess) throw cuda_error(code, "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)");
  if (device >= 0 && device < cached_devices) allowed[device].store(bytes, std::memory_order_relaxed);
}

}  // namespace scankit::device_detail
