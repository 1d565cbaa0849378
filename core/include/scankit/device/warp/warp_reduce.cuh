// Warp layer: an ordered reduction over the lanes that hold a value.
#pragma once

#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

// A value, or nothing (a lane, thread or block that had no items: user operators need no
// identity).
template <class T>
struct optional_value {
  bool present;
  T value;
};

// Combines a and b (a earlier in the sequence), either of which may be empty.
template <class T, class Op>
__device__ __forceinline__ optional_value<T> combine_present(const optional_value<T>& a, const optional_value<T>& b,
                                                              Op op) {
  if (!b.present) return a;
  if (!a.present) return b;
  return {true, static_cast<T>(op(a.value, b.value))};
}

// Ordered reduction of the lanes' values, skipping empty lanes; the result is on lane 0. Offsets
// 1, 2, 4, 8, 16: at each step lane i (a multiple of twice the offset) combines its run of lanes
// with the run that follows it, so every combination has the earlier run on the left (any
// associative operator, commutative or not) and the tree depends only on which lanes hold values.
template <class T, class Op>
__device__ __forceinline__ optional_value<T> warp_reduce_present(optional_value<T> item, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const T right = shuffle_down(item.value, offset);
    const bool right_present = __shfl_down_sync(full_warp_mask, static_cast<int>(item.present), offset) != 0 &&
                               lane + offset < 32;
    item = combine_present(item, optional_value<T>{right_present, right}, op);
  }
  return item;
}

}  // namespace scankit::device_detail
