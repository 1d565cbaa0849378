// What the launch paths ask the driver about a device (occupancy, attributes, opt-ins), kept per
// device ordinal for the life of the process, so that calls after the first ask nothing.
#pragma once

#include <atomic>

namespace scankit::device_detail {

// Device ordinals from here on are asked every time.
inline constexpr int cached_devices = 64;

// One answer of integer type T per device. 0 means "not asked yet", so an answer is never 0
// (per_device_flag stores 1 and 2). Each slot is a fact of its own that publishes no other
// memory, so relaxed loads and stores suffice: two threads that ask at once store the same answer.
template <class T>
class per_device {
 public:
  // The answer kept for `device`; 0 when none is kept.
  T known(int device) const { return cacheable(device) ? slots_[device].load(std::memory_order_relaxed) : T{}; }

  void remember(int device, T answer) {
    if (cacheable(device)) slots_[device].store(answer, std::memory_order_relaxed);
  }

  // The answer for `device`, from `ask()` the first time.
  template <class Ask>
  T get(int device, Ask&& ask) {
    T answer = known(device);
    if (answer == T{}) {
      answer = ask();
      remember(device, answer);
    }
    return answer;
  }

 private:
  static constexpr bool cacheable(int device) { return device >= 0 && device < cached_devices; }
  std::atomic<T> slots_[cached_devices] = {};
};

// A yes-or-no answer per device.
class per_device_flag {
 public:
  template <class Ask>
  bool get(int device, Ask&& ask) {
    return answers_.get(device, [&ask] { return ask() ? 2 : 1; }) == 2;
  }

 private:
  per_device<int> answers_;
};

}  // namespace scankit::device_detail
