// Host reference of the radix sort (plain C++): std::stable_sort by the same order, for tests and
// for the apps on machines without a GPU. Slow and obviously correct.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "scankit/sort_key_order.hpp"
#include "scankit/sort_options.hpp"

namespace scankit::reference {

// The sort key of `key` under `options`: its ordered bits in [begin_bit, end_bit), complemented
// when descending.
template <class Key, class BitKey = default_bit_key<Key>>
std::uint64_t sort_rank(const Key& key, const sort_options& options, BitKey bit_key = {}) {
  if constexpr (std::is_same_v<BitKey, default_bit_key<Key>>) bit_key.floats = options.floats;
  const int bits = 8 * static_cast<int>(sizeof(bit_key_result_t<BitKey, Key>));
  const int end = options.end_bit < 0 ? bits : options.end_bit;
  const int width = end - options.begin_bit;
  if (width <= 0) return 0;
  std::uint64_t value = static_cast<std::uint64_t>(bit_key(key)) >> options.begin_bit;
  if (width < 64) value &= (std::uint64_t{1} << width) - 1;
  if (options.order == sort_order::descending) value = ~value & (width < 64 ? (std::uint64_t{1} << width) - 1 : ~0ull);
  return value;
}

// The permutation that stably sorts `keys`: result[i] = input position of the i-th key.
template <class Key, class BitKey = default_bit_key<Key>>
std::vector<std::int64_t> argsort(const std::vector<Key>& keys, const sort_options& options = {}, BitKey bit_key = {}) {
  std::vector<std::uint64_t> ranks(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) ranks[i] = sort_rank(keys[i], options, bit_key);
  std::vector<std::int64_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return ranks[a] < ranks[b]; });
  return order;
}

template <class T>
std::vector<T> permute(const std::vector<T>& items, const std::vector<std::int64_t>& order) {
  std::vector<T> out(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) out[i] = items[static_cast<std::size_t>(order[i])];
  return out;
}

template <class Key, class BitKey = default_bit_key<Key>>
std::vector<Key> sort_keys(const std::vector<Key>& keys, const sort_options& options = {}, BitKey bit_key = {}) {
  return permute(keys, argsort(keys, options, bit_key));
}

}  // namespace scankit::reference
