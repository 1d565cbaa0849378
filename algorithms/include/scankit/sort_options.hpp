// Choices a caller can make about a radix sort. Plain C++: usable from g++-compiled code.
#pragma once

#include <string>

namespace scankit {

enum class sort_order {
  ascending,
  descending  // the reverse order; equal keys still keep their input order (stable)
};

// How floating-point keys (float, double, __half, __nv_bfloat16) are ordered.
enum class float_order {
  // -inf < ... < -0.0 == +0.0 < ... < +inf < NaN: -0.0 and +0.0 are equal (they keep their input
  // order), and every NaN, whatever its sign bit and payload, sorts after +inf (first when
  // descending). Keys are moved bit for bit: a NaN keeps its payload, -0.0 stays -0.0.
  total,
  // The raw sign-magnitude order, as cub::DeviceRadixSort: -NaN < -inf < ... < -0.0 < +0.0 < ...
  // < +inf < +NaN.
  raw_bits
};

enum class sort_strategy {
  automatic,        // onesweep; a counting sort for keys-only sorts of 8- and 16-bit keys (sort.hpp)
  onesweep,         // one histogram pass over all digits, then one pass per digit with a look-back
  reduce_then_scan  // per digit: histogram of every tile, a scan of the counts, scatter
};

struct sort_options {
  sort_order order = sort_order::ascending;
  // Sort by bits [begin_bit, end_bit) of the key's ordered bits (for integers: of the value, sign
  // bit flipped for signed types; for floats: of the order above). end_bit == -1 (the default)
  // means every bit; other negative values are an error.
  int begin_bit = 0;
  int end_bit = -1;
  float_order floats = float_order::total;
  sort_strategy strategy = sort_strategy::automatic;
};

const char* to_string(sort_strategy s) noexcept;
// Parses the names printed by to_string; throws scankit::error on an unknown name.
sort_strategy parse_sort_strategy(const std::string& name);

}  // namespace scankit
