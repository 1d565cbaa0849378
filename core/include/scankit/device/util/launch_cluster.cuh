// Kernel launches in thread block clusters (sm_90 and later) that report their own failure, as
// launch_kernel_smem (launch.cuh) does for plain launches, and whether a cluster fits the device.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include "scankit/device/util/per_device.hpp"
#include "scankit/error.hpp"

namespace scankit::device_detail {

// A launch configuration in clusters of `cluster_blocks` blocks along x (gridDim.x a multiple of
// it). Not copyable: the configuration points at the cluster attribute beside it.
struct cluster_launch_config {
  cudaLaunchAttribute cluster{};
  cudaLaunchConfig_t config{};
  cluster_launch_config(dim3 grid, dim3 block, unsigned cluster_blocks, std::size_t dynamic_smem_bytes,
                        cudaStream_t stream) {
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = cluster_blocks;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = dynamic_smem_bytes;
    config.stream = stream;
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  cluster_launch_config(const cluster_launch_config&) = delete;
  cluster_launch_config& operator=(const cluster_launch_config&) = delete;
};

template <class... Params, class... Args>
void launch_kernel_cluster(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block, unsigned cluster_blocks,
                           std::size_t dynamic_smem_bytes, cudaStream_t stream, Args&&... args) {
  const cluster_launch_config launch(grid, block, cluster_blocks, dynamic_smem_bytes, stream);
  const cudaError_t code = cudaLaunchKernelEx(&launch.config, kernel, std::forward<Args>(args)...);
  if (code != cudaSuccess) throw cuda_error(code, std::string("launch of ") + name);
}

// Whether the device runs thread block clusters (sm_90 and later).
inline bool device_has_clusters(int device) {
  int major = 0;
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

// The cluster sizes above 8 (up to 16 blocks), which a kernel must opt into, for `device` (once
// per kernel and device); a GPU that has none says so at the launch or in cluster_fits.
// Opt in from the function that launches (as with allow_dynamic_shared_memory): nvcc gives a
// template kernel's host stub internal linkage, so two translation units that instantiate it hold
// two kernels, while the linker keeps one copy of a header function template for the whole
// program. An opt-in given from another function template may reach the other unit's kernel.
constexpr unsigned portable_cluster_blocks = 8;
template <auto Kernel>
void allow_nonportable_clusters(int device) {
  static per_device_flag allowed;
  allowed.get(device, [] {
    const cudaError_t code = cudaFuncSetAttribute(Kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (code != cudaSuccess) throw cuda_error(code, "cudaFuncSetAttribute(cudaFuncAttributeNonPortableClusterSizeAllowed)");
    return true;
  });
}

// How many clusters of `cluster_blocks` blocks of Kernel (block_threads threads, `bytes` of
// dynamic shared memory, already allowed; above 8 blocks, allow_nonportable_clusters first) the
// device runs at once: a cluster's blocks run on the multiprocessors of one GPU processing cluster,
// which a partition of the GPU (MIG) may not have. Asked once per kernel, device and size (up to 16
// blocks): the answer is kept without `bytes`, so a caller asks each kernel with one size of
// shared memory only (a kernel launched with more or less would need its own key). A failed query
// (it may report an earlier launch's error, which stays for the caller to see) counts as none, and
// is asked again.
template <auto Kernel>
int resident_clusters(int device, unsigned cluster_blocks, unsigned block_threads, std::size_t bytes) {
  constexpr unsigned cached_sizes = 17;
  static per_device<int> known[cached_sizes];  // by cluster size: the count + 1
  const int kept = cluster_blocks < cached_sizes ? known[cluster_blocks].known(device) : 0;
  if (kept != 0) return kept - 1;
  const cluster_launch_config launch(dim3(cluster_blocks), dim3(block_threads), cluster_blocks, bytes, nullptr);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, Kernel, &launch.config) != cudaSuccess) return 0;
  if (cluster_blocks < cached_sizes) known[cluster_blocks].remember(device, clusters + 1);
  return clusters;
}

// Whether one cluster of `cluster_blocks` blocks of Kernel fits the device (resident_clusters).
template <auto Kernel>
bool cluster_fits(int device, unsigned cluster_blocks, unsigned block_threads, std::size_t bytes) {
  return resident_clusters<Kernel>(device, cluster_blocks, block_threads, bytes) > 0;
}

}  // namespace scankit::device_detail
