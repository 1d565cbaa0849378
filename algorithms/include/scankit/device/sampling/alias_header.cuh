// The header of an alias table and what the build's passes share: the total and its fixed-point
// scale, the light/heavy test and each bin's deviation from the average (both from the same q, so
// the partition and the prefix sum always agree on which bins are light). No kernels: tests
// include it to read and alter a table's header.
#pragma once

#include <cmath>
#include <cstdint>

#include "scankit/detail/alias_fixed_point.hpp"
#include "scankit/device/sampling/segments.cuh"
#include "scankit/sampling.hpp"

namespace scankit::device_detail::sampling {

struct alias_header {
  double total;         // the weights' sum (written by the reduction, then checked)
  double scale;         // detail::alias_scale::scale
  std::int64_t bins;
  std::int64_t lights;  // written by the partition: bins with q <= 2^32
  std::int32_t shift;   // detail::alias_scale::shift
  std::int32_t status;  // scankit::sampling_status
};

__device__ __forceinline__ std::uint64_t alias_q(double w, const alias_header* h) {
  return scankit::detail::alias_fixed_weight(w, scankit::detail::alias_scale{h->shift, h->scale});
}

// The checked weight of bin i (NaN for a bad one, segments.cuh's checked_weight), by index: the
// reduction takes it as a transform of a counting iterator (scankit::device::reduce does not yet
// take a transform of an array, which it would stage).
template <class T>
struct alias_checked_weight {
  const T* w;
  __device__ double operator()(std::int64_t i) const { return checked_weight<T>{}(w[i]); }
};

// Partition predicate over bin indices: light bins first.
template <class T>
struct alias_is_light {
  const T* w;
  const alias_header* header;
  __device__ bool operator()(std::int32_t bin) const {
    return alias_q(static_cast<double>(w[bin]), header) <= scankit::detail::alias_unit;
  }
};

// The prefix sum's item for bin: the deficit 2^32 - q of a light bin, the excess q - 2^32 of a
// heavy one (every excess is at least 1).
template <class T>
struct alias_deviation {
  const T* w;
  const alias_header* header;
  __device__ std::uint64_t operator()(std::int32_t bin) const {
    const std::uint64_t q = alias_q(static_cast<double>(w[bin]), header);
    return q <= scankit::detail::alias_unit ? scankit::detail::alias_unit - q : q - scankit::detail::alias_unit;
  }
};

}  // namespace scankit::device_detail::sampling
