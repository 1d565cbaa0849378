// The L2 size of the current device, for choices that depend on what stays in L2 (SpMV's column
// blocks, the alias table's sliced draws).
#pragma once

#include <cuda_runtime.h>

#include "scankit/error.hpp"

namespace scankit::device_detail {

// Bytes of L2 of the current device (two runtime queries).
inline long long l2_bytes_of_current_device() {
  int device = 0, bytes = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
  return bytes;
}

}  // namespace scankit::device_detail
