// What every block scan returns to its caller.
#pragma once

namespace scankit::device_detail {

// For the value v_t of thread t:
//   exclusive = v_0 op ... op v_{t-1}   (undefined on thread 0: there is no identity element)
//   aggregate = v_0 op ... op v_{B-1}   (the same on every thread)
template <class T>
struct block_scan_result {
  T exclusive;
  T aggregate;
};

}  // namespace scankit::device_detail
