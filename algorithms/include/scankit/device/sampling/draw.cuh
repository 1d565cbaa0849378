// What the draw kernels share: the clamp of a double target (rows, segments) and the launch shape
// of the table and alias draws (the alias draws keep more in flight: alias_draw.cuh).
#pragma once

#include <cmath>
#include <cstdint>

#include "scankit/detail/philox.hpp"

namespace scankit::device_detail::sampling {

// u * total can round up to total itself; the largest double below total keeps the target inside
// the last non-zero bin.
__device__ __forceinline__ double clamp_target(double target, double total) {
  return target < total ? target : nextafter(total, 0.0);
}

constexpr int draw_threads = 256;
constexpr int draws_per_thread = 4;  // the table draws' independent lookups in flight per thread

}  // namespace scankit::device_detail::sampling
