// Argument checks of top-k (plain C++). They run before anything is enqueued, so a rejected call
// leaves the caller's buffers and the stream untouched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "scankit/detail/compact_arguments.hpp"  // array_extent, check_disjoint
#include "scankit/error.hpp"

namespace scankit::detail {

// The longest row top-k takes: each item's index in its row must leave room for a "no item" mark.
constexpr std::int64_t top_k_max_row_items = 0xffffffffLL - 1;

struct top_k_arrays {
  const void* keys;
  std::size_t key_bytes;
  std::int64_t items;  // keys the rows span
  const void* values_out;
  const void* indices_out;
  std::size_t index_bytes;
  std::int64_t slots;  // rows * k
};

inline void check_top_k_count(const char* function, const char* name, std::int64_t value) {
  if (value < 0) throw error(std::string(function) + ": " + name + " = " + std::to_string(value) + " is negative");
}

// The longest row: int32 indices address fewer than 2^31 items of a row.
inline void check_top_k_row_items(const char* function, std::int64_t row_items, std::size_t index_bytes) {
  const std::int64_t limit = index_bytes == 4 ? std::numeric_limits<std::int32_t>::max() : top_k_max_row_items;
  if (row_items > limit) {
    throw error(std::string(function) + ": rows of " + std::to_string(row_items) + " items are longer than " +
                std::to_string(limit) + (index_bytes == 4 ? " (int32 indices; use int64)" : ""));
  }
}

inline void check_top_k_arrays(const char* function, const top_k_arrays& a) {
  if (a.slots == 0) return;
  if (a.values_out == nullptr && a.indices_out == nullptr) {
    throw error(std::string(function) + ": values_out and indices_out are both null");
  }
  if (a.items > 0 && a.keys == nullptr) {
    throw error(std::string(function) + ": keys is null with " + std::to_string(a.items) + " items");
  }
  std::vector<array_extent> arrays{extent("keys", a.keys, a.items, a.key_bytes)};
  if (a.values_out != nullptr) arrays.push_back(extent("values_out", a.values_out, a.slots, a.key_bytes));
  if (a.indices_out != nullptr) arrays.push_back(extent("indices_out", a.indices_out, a.slots, a.index_bytes));
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    for (std::size_t j = i + 1; j < arrays.size(); ++j) check_disjoint(function, arrays[i], arrays[j]);
  }
}

}  // namespace scankit::detail
