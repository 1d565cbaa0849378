// Counts that a launch reads from device memory (scankit::device_n): the grid and the workspace
// were sized on the host for the bound, and every block learns the real count when it runs.
#pragma once

#include <cstdint>
#include <string>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/device_n.hpp"
#include "scankit/error.hpp"

namespace scankit::device_detail {

// What the template API takes for a length: a host count, or a scankit::device_n. It converts to
// its bound, which is what every host-side check and size sees; only the kernels read `device`.
struct item_count {
  std::int64_t bound = 0;
  const std::int64_t* device = nullptr;  // the count in device memory, or nullptr

  item_count(std::int64_t n) : bound(n) {}  // NOLINT(google-explicit-constructor): any host count
  item_count(const device_n& n) : bound(n.bound), device(n.count) {  // NOLINT(google-explicit-constructor)
    if (n.count == nullptr) throw error("scankit: device_n.count is null");
  }
  operator std::int64_t() const { return bound; }  // NOLINT(google-explicit-constructor)
};

// The items a launch processes: `bound` itself without a device count, else the count clamped to
// [0, bound]. The count was written by an earlier launch (or copy) in stream order, so a plain
// load sees it: kernel boundaries order the writer's stores before this launch's loads.
__device__ __forceinline__ long long items_to_process(long long bound, const std::int64_t* device_count) {
  if (device_count == nullptr) return bound;
  const long long count = *device_count;
  return count < 0 ? 0 : (count > bound ? bound : count);
}

// A block whose tile lies past the count read on the device leaves through here (all threads may
// call it; thread 0 acts). It still reports its ticket to the single-pass protocol when the launch
// has one (single_pass), so that the epoch-wrap clearing counts every block: the block touches no
// tile state, and tiles only wait on lower tickets, so none waits on it.
template <class Pass, class Ticket>
__device__ __forceinline__ void leave_past_count(const Pass& pass, bool single_pass, const Ticket& ticket) {
  if (threadIdx.x == 0 && single_pass) pass.finish_idle(ticket);
}

// The same for a call with a count output (select, unique, reduce-by-key): the block of tile 0
// (the count read is 0) writes 0 there, since no tile will.
template <class Pass, class Ticket>
__device__ __forceinline__ void leave_past_count(const Pass& pass, bool single_pass, const Ticket& ticket,
                                                 long long tile, std::int64_t* count_out) {
  if (threadIdx.x == 0) {
    if (single_pass) pass.finish_idle(ticket);
    if (tile == 0) *count_out = 0;
  }
}

}  // namespace scankit::device_detail

namespace scankit::detail {

// A device_n is checked like a host count (its bound), and its pointer must be set.
inline void check_device_n(const char* function, const device_n& n) {
  check_count(function, n.bound);
  if (n.count == nullptr) throw error(std::string(function) + ": device_n.count is null");
}

// A call may not read its length from memory that it writes.
inline void check_count_not_written(const char* function, const device_n& n, const void* count_out) {
  if (count_out != nullptr && static_cast<const void*>(n.count) == count_out) {
    throw error(std::string(function) + ": device_n.count is also the call's count output");
  }
}

}  // namespace scankit::detail
