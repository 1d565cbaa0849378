// Argument checks shared by every host entry point. They run before anything is enqueued.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "scankit/error.hpp"

namespace scankit::detail {

inline void check_count(const char* function, std::int64_t n) {
  if (n < 0) throw error(std::string(function) + ": n = " + std::to_string(n) + " is negative");
}

inline void check_pointer(const char* function, const char* name, const void* p, std::int64_t n) {
  if (p == nullptr && n > 0) {
    throw error(std::string(function) + ": " + name + " is null but n = " + std::to_string(n));
  }
}

// Input and output may be the same array (in place) or disjoint; anything else is rejected.
inline void check_overlap(const char* function, const void* in, const void* out, std::int64_t n,
                          std::size_t in_item_bytes, std::size_t out_item_bytes) {
  if (n <= 0 || in == out) return;
  const auto a = reinterpret_cast<std::uintptr_t>(in);
  const auto b = reinterpret_cast<std::uintptr_t>(out);
  const auto a_end = a + static_cast<std::uintptr_t>(n) * in_item_bytes;
  const auto b_end = b + static_cast<std::uintptr_t>(n) * out_item_bytes;
  if (a < b_end && b < a_end) {
    throw error(std::string(function) + ": in and out overlap partially (in place needs out == in)");
  }
}

inline void check_unary_arguments(const char* function, const void* in, const void* out, std::int64_t n,
                                  std::size_t item_bytes) {
  check_count(function, n);
  check_pointer(function, "in", in, n);
  check_pointer(function, "out", out, n);
  check_overlap(function, in, out, n, item_bytes, item_bytes);
}

}  // namespace scankit::detail
