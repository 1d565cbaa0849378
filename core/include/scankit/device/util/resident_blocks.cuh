// How many blocks of a kernel the current GPU holds at once: the grid of kernels that loop over
// their work (grid-stride) instead of launching a block per tile.
#pragma once

#include <algorithm>
#include <cstddef>

#include <cuda_runtime.h>

#include "scankit/device/util/per_device.hpp"
#include "scankit/error.hpp"

namespace scankit::device_detail {

// Blocks of `Kernel` with `Smem` bytes of dynamic shared memory resident on `device` at once
// (asked once per device).
template <auto Kernel, int BlockThreads, std::size_t Smem = 0>
int resident_blocks(int device) {
  static per_device<int> known;
  return known.get(device, [device] {
    int per_sm = 0, sms = 0;
    SCANKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, BlockThreads, Smem));
    SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return std::max(1, per_sm * sms);
  });
}

}  // namespace scankit::device_detail
