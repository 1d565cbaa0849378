// Device layer of the radix sort: which digit of a key a pass sorts by.
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/sort_key_order.hpp"

namespace scankit::device_detail {

// The value type of a keys-only sort.
struct radix_no_values {};

// Digit `mask` of a key's ordered bits shifted right by `shift`, complemented first when
// descending (flip all ones: the complement reverses the order; the ranking stays stable).
template <class Key, class BitKey>
struct radix_digit {
  using bits_type = bit_key_result_t<BitKey, Key>;
  static_assert(std::is_integral_v<bits_type> && std::is_unsigned_v<bits_type> && sizeof(bits_type) <= 8,
                "a bit-key returns an unsigned integer of at most 64 bits");
  BitKey bit_key;
  bits_type flip;
  int shift;
  unsigned mask;

  __device__ __forceinline__ unsigned operator()(const Key& key) const {
    return static_cast<unsigned>(static_cast<bits_type>(bit_key(key) ^ flip) >> shift) & mask;
  }
};

}  // namespace scankit::device_detail
