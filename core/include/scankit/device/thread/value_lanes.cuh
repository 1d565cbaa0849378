// Thread layer: V independent values scanned side by side.
//
// A staged tile is read in "striped vectors": thread t owns the 16-byte chunk t of every stripe
// of BlockThreads chunks, so each stripe is a small scan of its own. Scanning the V stripe
// partials of every thread as one value_lanes<T, V> with a lane-wise operator does all V block
// scans at once, through any block scan, with the same barriers as one.
#pragma once

namespace scankit::device_detail {

template <class T, int V>
struct value_lanes {
  T lane[V];
};

// op applied lane by lane (each lane keeps the left/right order, so non-commutative operators
// stay correct).
template <class Op>
struct lanewise {
  Op op;
  template <class Lanes>
  __device__ __forceinline__ Lanes operator()(const Lanes& left, const Lanes& right) const {
    Lanes result;
#pragma unroll
    for (int v = 0; v < static_cast<int>(sizeof(Lanes::lane) / sizeof(Lanes::lane[0])); ++v) {
      result.lane[v] = op(left.lane[v], right.lane[v]);
    }
    return result;
  }
};

}  // namespace scankit::device_detail
