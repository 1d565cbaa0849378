// The one key every top-k step compares: a row's item as an unsigned "rank key" that is larger
// exactly when the item comes earlier in the result.
//
//   rank = (ordered bits, inverted for the k smallest) << 32 | (2^32 - 1 - index in the row)
//
// The ordered bits are the sort's (scankit/sort_key_order.hpp: the float order included), so
// NaNs land where the sort puts them; the low word breaks ties toward the smaller index. Rank keys
// of one row are therefore all distinct, and a threshold on them selects exactly k items: the
// result is the same on every run whatever order the threads meet the items in. Zero is never a
// rank key (the index part is nonzero for rows below 2^32 - 1 items), so it marks "no item".
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/sort_key_order.hpp"

namespace scankit::device_detail::top_k {

// 64-bit rank keys for keys of up to 32 bits, 128-bit ones for 64-bit keys.
template <class Key>
using rank_t = std::conditional_t<(sizeof(Key) <= 4), std::uint64_t, unsigned __int128>;

template <class Key>
constexpr int rank_bits = 8 * static_cast<int>(sizeof(Key)) + 32;

// The high word of a rank key: the ordered bits alone.
template <class Key>
using rank_high_t = std::conditional_t<(sizeof(Key) <= 4), std::uint32_t, std::uint64_t>;

constexpr std::uint32_t index_mask = 0xffffffffu;

// Rows longer than this cannot give every item a nonzero index part.
constexpr std::int64_t max_row_items = static_cast<std::int64_t>(index_mask) - 1;

template <class Key>
struct rank_of_key {
  default_bit_key<Key> bit_key;
  bool largest;

  __device__ __forceinline__ rank_high_t<Key> high(const Key& key) const {
    using bits_type = detail::unsigned_bits_t<Key>;
    const bits_type bits = bit_key(key);
    return static_cast<rank_high_t<Key>>(largest ? bits : static_cast<bits_type>(~bits));
  }

  __device__ __forceinline__ rank_t<Key> operator()(const Key& key, std::int64_t index) const {
    return (static_cast<rank_t<Key>>(high(key)) << 32) | (index_mask - static_cast<std::uint32_t>(index));
  }
};

template <class Rank>
__device__ __forceinline__ std::int64_t index_of_rank(Rank rank) {
  return static_cast<std::int64_t>(index_mask - static_cast<std::uint32_t>(rank));
}

// Where the rows lie: row r is [begin(r), end(r)) of the keys, from CSR offsets (int32 or int64)
// or, without offsets, rows of `cols` items one after another.
struct row_layout {
  const void* offsets = nullptr;
  bool wide_offsets = false;
  std::int64_t cols = 0;

  __device__ __forceinline__ std::int64_t at(std::int64_t r) const {
    if (offsets == nullptr) return r * cols;
    return wide_offsets ? static_cast<const std::int64_t*>(offsets)[r]
                        : static_cast<std::int64_t>(static_cast<const std::int32_t*>(offsets)[r]);
  }
};

}  // namespace scankit::device_detail::top_k
