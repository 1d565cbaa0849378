// Host helpers of the graph module's sources: a few pinned host slots that device counters are
// copied into, each with an event, so the host reads one while the GPU goes on with later work.
// The slots are the thread's pinned region (scankit/detail/pinned_host_block.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include <cuda_runtime.h>

#include "scankit/detail/pinned_host_block.hpp"
#include "scankit/error.hpp"

namespace scankit::graph {

class host_slots {
 public:
  static constexpr int count = 4;

  // The calling thread's slots for the current device: its pinned region, with events made once
  // per thread and device (an event belongs to one device).
  static host_slots& of_this_thread() {
    constexpr int cached_devices = 64;
    thread_local std::array<host_slots, cached_devices> slots;
    int device = 0;
    SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
    if (device < 0 || device >= cached_devices) throw error("scankit::graph: device ordinal out of range");
    host_slots& mine = slots[static_cast<std::size_t>(device)];
    mine.prepare();
    return mine;
  }

  host_slots() = default;
  host_slots(const host_slots&) = delete;
  host_slots& operator=(const host_slots&) = delete;
  ~host_slots() {
    for (cudaEvent_t event : events_) {
      if (event != nullptr) (void)cudaEventDestroy(event);
    }
  }

  // Slot `slot` receives the value at `device_value` (at most 8 bytes), stream-ordered on `stream`.
  template <class T>
  void copy(int slot, const T* device_value, cudaStream_t stream) {
    static_assert(sizeof(T) <= sizeof(std::int64_t), "a slot holds 8 bytes");
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&values_[slot], device_value, sizeof(T), cudaMemcpyDeviceToHost, stream));
    SCANKIT_CUDA_CHECK(cudaEventRecord(events_[slot], stream));
  }

  // Waits for slot `slot`'s copy and returns the value.
  template <class T>
  T wait(int slot) {
    SCANKIT_CUDA_CHECK(cudaEventSynchronize(events_[slot]));
    T value{};
    std::memcpy(&value, &values_[slot], sizeof value);
    return value;
  }

 private:
  void prepare() {
    if (values_ != nullptr) return;
    static_assert(count * sizeof(std::int64_t) <= detail::pinned_region_bytes, "the slots fit the region");
    for (cudaEvent_t& event : events_) SCANKIT_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    values_ = static_cast<std::int64_t*>(detail::pinned_host_region(detail::pinned_region::graph_slots));
  }

  std::int64_t* values_ = nullptr;
  std::array<cudaEvent_t, count> events_{};
};

}  // namespace scankit::graph
