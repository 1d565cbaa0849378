// Device layer of the radix sort: which tuned digit pass a GPU runs, `pass` or `lean_pass`
// (sort_policy.cuh), from its peak memory bandwidth per multiprocessor. The two differ for 8-byte
// keys alone and 4-byte keys with 4-byte values (tuning_sort.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include "scankit/device/tuning/tuning_sort.cuh"
#include "scankit/device/util/per_device.hpp"
#include "scankit/error.hpp"

namespace scankit::device_detail {

// Peak memory bandwidth per multiprocessor in GB/s from the driver's attributes (two transfers per
// memory clock); 0 when the driver reports no memory clock or bus width.
constexpr double peak_gbps_per_sm(int memory_clock_khz, int bus_width_bits, int multiprocessors) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0 || multiprocessors <= 0) return 0.0;
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8) / 1e9 / multiprocessors;
}

// Whether a GPU of that bandwidth runs the lean pass (an unknown bandwidth, 0: the tuned pass).
constexpr bool lean_pass_for(double gbps_per_sm) {
  return gbps_per_sm > 0.0 && gbps_per_sm < tuning::sort_tuning_table::lean_pass_below_gbps_per_sm;
}

// The choice for `device`, asked of the driver once per device.
inline bool lean_pass_preferred(int device) {
  static per_device_flag lean;
  return lean.get(device, [device] {
    int clock_khz = 0, bus_bits = 0, multiprocessors = 0;
    SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device));
    SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    return lean_pass_for(peak_gbps_per_sm(clock_khz, bus_bits, multiprocessors));
  });
}

}  // namespace scankit::device_detail
