#include "scankit/device_features.hpp"

#include <array>
#include <atomic>

#include <cuda_runtime_api.h>

#include "scankit/error.hpp"

namespace scankit {
namespace {

std::atomic<bool> portable_forced{false};

// Per device: 0 unknown, 1 without bulk copy, 2 with. Devices beyond the table are asked each time.
constexpr int cached_devices = 64;
std::array<std::atomic<int>, cached_devices> bulk_copy_by_device{};

bool ask_bulk_copy(int device) {
  int major = 0;
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

}  // namespace

bool staged_kernels_available() {
  if (portable_forced.load(std::memory_order_relaxed)) return false;
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  return staged_kernels_available(device);
}

bool staged_kernels_available(int device) {
  if (portable_forced.load(std::memory_order_relaxed)) return false;
  if (device < 0 || device >= cached_devices) return ask_bulk_copy(device);
  int known = bulk_copy_by_device[device].load(std::memory_order_relaxed);
  if (known == 0) {
    known = ask_bulk_copy(device) ? 2 : 1;
    bulk_copy_by_device[device].store(known, std::memory_order_relaxed);
  }
  return known == 2;
}

void force_portable_kernels(bool force) noexcept { portable_forced.store(force, std::memory_order_relaxed); }

bool portable_kernels_forced() noexcept { return portable_forced.load(std::memory_order_relaxed); }

}  // namespace scankit
