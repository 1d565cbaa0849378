// A kernel launch in thread block clusters (sm_90 and later) that reports its own failure, as
// launch_kernel_smem (launch.cuh) does for plain launches.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include "scankit/error.hpp"

namespace scankit::device_detail {

// Clusters of `cluster_blocks` blocks along x; gridDim.x must be a multiple of it.
template <class... Params, class... Args>
void launch_kernel_cluster(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, unsigned cluster_blocks,
                           std::size_t dynamic_smem_bytes, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = cluster_blocks;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = dynamic_smem_bytes;
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  const cudaError_t code = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
  if (code != cudaSuccess) throw cuda_error(code, std::string("launch of ") + name);
}

}  // namespace scankit::device_detail
