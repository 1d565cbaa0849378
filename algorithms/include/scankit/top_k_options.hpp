// Choices a caller can make about top-k. Plain C++: usable from g++-compiled code.
#pragma once

#include <cstdint>

#include "scankit/sort_options.hpp"

namespace scankit {

struct top_k_options {
  bool largest = true;  // the k largest keys, largest first (false: the k smallest, smallest first)
  // true: each row's result in order, equal keys by index (smaller first). false (select_k): the
  // same set in an unspecified order, which may differ between runs.
  bool sorted = true;
  float_order floats = float_order::total;  // where NaNs and -0.0 rank (scankit/sort_options.hpp)
  // Device array of one k per row, or null. Row r keeps min(max(k_per_row[r], 0), k) items; its
  // output row still has k slots (the rest are padding, as for rows shorter than k).
  const std::int32_t* k_per_row = nullptr;
};

}  // namespace scankit
