// Host reference of the segmented scan (plain C++, sequential): the definition the GPU results
// are tested against.
#pragma once

#include <cstddef>
#include <vector>

namespace scankit::reference {

// heads[i] != 0: item i starts a segment (item 0 always does). out[i] = values[h] op ... op values[i].
template <class T, class Head, class Op>
std::vector<T> inclusive_segmented_scan(const std::vector<T>& values, const std::vector<Head>& heads, Op op) {
  std::vector<T> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    out[i] = (i == 0 || heads[i] != Head{}) ? values[i] : static_cast<T>(op(out[i - 1], values[i]));
  }
  return out;
}

// out[h] = init at a head h; out[i] = init op values[h] op ... op values[i - 1] after it.
template <class T, class Head, class Op>
std::vector<T> exclusive_segmented_scan(const std::vector<T>& values, const std::vector<Head>& heads, const T& init,
                                        Op op) {
  std::vector<T> out(values.size());
  T running{};
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool head = i == 0 || heads[i] != Head{};
    out[i] = head ? init : static_cast<T>(op(init, running));
    running = head ? values[i] : static_cast<T>(op(running, values[i]));
  }
  return out;
}

// The heads of runs of equal keys: heads[i] = 1 where keys[i] differs from keys[i - 1] (and at 0).
template <class Key, class Equal>
std::vector<unsigned char> key_change_heads(const std::vector<Key>& keys, Equal equal) {
  std::vector<unsigned char> heads(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) heads[i] = (i == 0 || !equal(keys[i - 1], keys[i])) ? 1 : 0;
  return heads;
}

// Heads from CSR-style offsets: heads[p] = 1 for every offset p in [0, n) (item 0 starts a
// segment whatever the offsets say, as in the scans).
template <class Offset>
std::vector<unsigned char> offset_heads(const std::vector<Offset>& offsets, std::size_t n) {
  std::vector<unsigned char> heads(n, 0);
  for (const Offset p : offsets) {
    if (p >= 0 && static_cast<std::size_t>(p) < n) heads[static_cast<std::size_t>(p)] = 1;
  }
  return heads;
}

// out[s] = values[offsets[s]] op ... op values[offsets[s + 1] - 1]; empty_value when empty.
template <class T, class Offset, class Op>
std::vector<T> segmented_reduce(const std::vector<T>& values, const std::vector<Offset>& offsets, Op op,
                                const T& empty_value) {
  std::vector<T> out(offsets.empty() ? 0 : offsets.size() - 1);
  for (std::size_t s = 0; s < out.size(); ++s) {
    const auto begin = static_cast<std::size_t>(offsets[s]);
    const auto end = static_cast<std::size_t>(offsets[s + 1]);
    if (begin >= end) {
      out[s] = empty_value;
      continue;
    }
    T total = values[begin];
    for (std::size_t i = begin + 1; i < end; ++i) total = static_cast<T>(op(total, values[i]));
    out[s] = total;
  }
  return out;
}

}  // namespace scankit::reference
