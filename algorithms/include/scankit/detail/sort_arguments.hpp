// Argument checks of the radix sort API (plain C++). They run before anything is enqueued, so a
// rejected call leaves the caller's buffers and the stream untouched.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "scankit/detail/compact_arguments.hpp"  // array_extent, overlaps
#include "scankit/error.hpp"
#include "scankit/sort_options.hpp"

namespace scankit::detail {

// The bit range a sort of keys with `key_bits` ordered bits takes: [begin_bit, end_bit), end_bit == -1
// meaning key_bits. Throws unless 0 <= begin_bit <= end_bit <= key_bits (so other negative values too).
inline void resolve_bit_range(const char* function, const sort_options& options, int key_bits, int& begin_bit,
                              int& end_bit) {
  begin_bit = options.begin_bit;
  end_bit = options.end_bit == -1 ? key_bits : options.end_bit;
  if (begin_bit < 0 || begin_bit > end_bit || end_bit > key_bits) {
    throw error(std::string(function) + ": bit range [" + std::to_string(options.begin_bit) + ", " +
                std::to_string(options.end_bit) + ") is outside the key's " + std::to_string(key_bits) +
                " bits (need 0 <= begin_bit <= end_bit <= " + std::to_string(key_bits) + ")");
  }
}

inline void check_sort_count(const char* function, std::int64_t n) {
  if (n < 0) throw error(std::string(function) + ": n = " + std::to_string(n) + " is negative");
}

// Every array must be non-null when n > 0, and no two may share a byte.
inline void check_sort_arrays(const char* function, std::int64_t n, std::initializer_list<array_extent> arrays) {
  if (n == 0) return;
  for (const array_extent& a : arrays) {
    if (a.data == nullptr) throw error(std::string(function) + ": " + a.name + " is null with n = " + std::to_string(n));
  }
  for (auto a = arrays.begin(); a != arrays.end(); ++a) {
    for (auto b = a + 1; b != arrays.end(); ++b) check_disjoint(function, *a, *b);
  }
}

}  // namespace scankit::detail
