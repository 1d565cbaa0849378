// How many blocks of a kernel the current GPU holds at once: the grid of kernels that loop over
// their work (grid-stride) instead of launching a block per tile.
#pragma once

#include <algorithm>
#include <atomic>

#include <cuda_runtime.h>

#include "scankit/error.hpp"

namespace scankit::device_detail {

// Blocks of `Kernel` resident on `device` at once (asked once per device).
template <auto Kernel, int BlockThreads>
int resident_blocks(int device) {
  constexpr int cached_devices = 64;
  static std::atomic<int> known[cached_devices] = {};
  const auto ask = [device] {
    int per_sm = 0, sms = 0;
    SCANKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, BlockThreads, 0));
    SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return std::max(1, per_sm * sms);
  };
  if (device < 0 || device >= cached_devices) return ask();
  int blocks = known[device].load(std::memory_order_relaxed);
  if (blocks == 0) {
    blocks = ask();
    known[device].store(blocks, std::memory_order_relaxed);
  }
  return blocks;
}

}  // namespace scankit::device_detail
