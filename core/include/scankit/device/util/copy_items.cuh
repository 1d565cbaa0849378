// Device layer: copying an array whose length may be a count in device memory (device_count.cuh).
// A host count takes cudaMemcpyAsync; a device count takes a grid-stride kernel sized for the
// bound, which copies only the items below the count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"

namespace scankit::device_detail {

template <class T>
__global__ void copy_items_kernel(const T* in, T* out, long long bound, const std::int64_t* n_device) {
  const long long n = items_to_process(bound, n_device);
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

template <class T>
void copy_items(const T* in, T* out, item_count count, cudaStream_t stream) {
  if (count.bound == 0) return;
  if (count.device == nullptr) {
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(out, in, static_cast<std::size_t>(count.bound) * sizeof(T),
                                       cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const auto grid = static_cast<unsigned>(std::min<long long>((count.bound + 255) / 256, 1 << 16));
  launch_kernel("copy_items_kernel", copy_items_kernel<T>, grid, 256, stream, in, out, count.bound, count.device);
}

}  // namespace scankit::device_detail
