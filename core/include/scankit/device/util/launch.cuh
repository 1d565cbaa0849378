// A kernel launch that reports its own failure.
//
// <<<...>>> reports a failed launch only through cudaGetLastError, which would also consume (and
// misattribute) an error the caller left pending; cudaLaunchKernelEx returns the launch's own
// result and leaves everything else alone.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include "scankit/device/util/per_device.hpp"
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
  static per_device<std::size_t> allowed;
  if (bytes == 0 || allowed.known(device) >= bytes) return;
  const cudaError_t code =
      cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (code != cudaSuccess) throw cuda_error(code, "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)");
  allowed.remember(device, bytes);
}

}  // namespace scankit::device_detail
