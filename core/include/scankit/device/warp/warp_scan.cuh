// Warp layer: scans over the 32 lanes of a warp with __shfl_up_sync, registers only.
// Any trivially copyable T, any associative operator (order kept: the lower lane is the left operand).
// All 32 lanes must call these together.
#pragma once

#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

// Kogge-Stone over lanes: 5 steps, each lane ends with lanes[0..lane] combined.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T value, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    T left = shuffle_up(value, offset);
    if (lane >= offset) value = op(left, value);
  }
  return value;
}

// Lane 0 gets `init`; lane i gets init op lanes[0..i-1]. `inclusive` receives lanes[0..lane].
template <class T, class Op>
__device__ __forceinline__ T warp_exclusive_scan(T value, T init, Op op, T& inclusive) {
  inclusive = warp_inclusive_scan(value, op);
  T left = shuffle_up(inclusive, 1);
  return lane_id() == 0 ? init : op(init, left);
}

template <class T, class Op>
__device__ __forceinline__ T warp_exclusive_scan(T value, T init, Op op) {
  T inclusive;
  return warp_exclusive_scan(value, init, op, inclusive);
}

// Exclusive scan without an identity: the result is undefined on lane 0.
template <class T, class Op>
__device__ __forceinline__ T warp_exclusive_scan_unseeded(T value, Op op, T& inclusive) {
  inclusive = warp_inclusive_scan(value, op);
  return shuffle_up(inclusive, 1);
}

// Ordered reduction of the lanes whose `valid` is set, which must form a suffix [first..31] of the
// warp (the look-back's window). The result is returned on every lane. The combination tree
// depends only on `first`, so equal inputs give equal bits.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_valid_suffix(T value, bool valid, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    T left = shuffle_up(value, offset);
    bool left_valid = __shfl_up_sync(full_warp_mask, static_cast<int>(valid), offset) != 0 && lane >= offset;
    if (valid && left_valid) value = op(left, value);
  }
  return shuffle_index(value, 31);
}

// Ordered reduction of all 32 lanes, result on every lane.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T value, Op op) {
  return shuffle_index(warp_inclusive_scan(value, op), 31);
}

}  // namespace scankit::device_detail
