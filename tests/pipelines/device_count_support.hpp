// What the device-count tests share: a count cell in device memory, the clamp every call applies,
// the counts worth trying for a bound, and the check that outputs past the count kept their poison.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/gpu_test.hpp"

namespace scankit::testing {

// A count in device memory, set from the host before each call.
class device_count_cell {
 public:
  device_count_cell() : cell_(1) {}
  const std::int64_t* set(std::int64_t value) {
    cell_.upload({value});
    return cell_.data();
  }
  std::int64_t* data() { return cell_.data(); }

 private:
  device_buffer<std::int64_t> cell_;
};

// The items a call must process: the count clamped to [0, bound].
inline std::int64_t processed(std::int64_t count, std::int64_t bound) { return std::clamp<std::int64_t>(count, 0, bound); }

// Counts to try for a bound: the edges, tile-sized neighbourhoods, random ones, and out of range.
inline std::vector<std::int64_t> counts_for(std::int64_t bound, std::mt19937_64& rng) {
  std::vector<std::int64_t> counts = {0, 1, 2, 31, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8193, bound - 1, bound,
                                      bound + 17, -5};
  std::uniform_int_distribution<std::int64_t> any(0, bound);
  for (int i = 0; i < 4; ++i) counts.push_back(any(rng));
  counts.erase(std::remove_if(counts.begin(), counts.end(),
                              [&](std::int64_t c) { return c > bound + 17 || (c > bound && c != bound + 17); }),
               counts.end());
  return counts;
}

// Output items [from, size) still hold the 0xA5 poison.
template <class T>
void expect_poisoned_from(const std::vector<T>& out, std::int64_t from, const std::string& what) {
  unsigned char poison[sizeof(T)];
  std::memset(poison, 0xA5, sizeof(T));
  for (std::size_t i = static_cast<std::size_t>(from); i < out.size(); ++i) {
    if (std::memcmp(&out[i], poison, sizeof(T)) != 0) {
      ADD_FAILURE() << what << ": item " << i << " past the count " << from << " was written";
      return;
    }
  }
}

}  // namespace scankit::testing
