// The order radix sort puts keys in, as unsigned "ordered bits": a key sorts before another
// exactly when its ordered bits are smaller. Plain C++ (host and, under nvcc, device code): the
// sort's kernels and its host reference use the same definitions.
//
//   unsigned integers   the value itself
//   signed integers     the value with its sign bit flipped (two's complement: -1 < 0 < 1)
//   floating point      float_order::total: NaN (any sign, any payload) above +inf, -0.0 equal
//                       to +0.0; float_order::raw_bits: sign-magnitude (negatives flipped whole,
//                       positives with the sign bit set), so -NaN is the smallest key
//
// Any other key type sorts through a user "bit-key" functor with the same contract: a
// __host__ __device__ call operator that returns an unsigned integer (8 to 64 bits) whose order
// is the wanted order of the keys (e.g. two 32-bit members packed into 64 bits).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "scankit/operators.hpp"  // SCANKIT_HOST_DEVICE
#include "scankit/sort_options.hpp"

namespace scankit {

namespace detail {

template <std::size_t Bytes>
struct unsigned_of_size;
template <>
struct unsigned_of_size<1> { using type = std::uint8_t; };
template <>
struct unsigned_of_size<2> { using type = std::uint16_t; };
template <>
struct unsigned_of_size<4> { using type = std::uint32_t; };
template <>
struct unsigned_of_size<8> { using type = std::uint64_t; };

template <class T>
using unsigned_bits_t = typename unsigned_of_size<sizeof(T)>::type;

template <class T>
SCANKIT_HOST_DEVICE unsigned_bits_t<T> raw_bits_of(const T& key) {
  unsigned_bits_t<T> bits;
  memcpy(&bits, &key, sizeof(T));
  return bits;
}

template <class T>
constexpr bool is_sort_float_v = std::is_floating_point_v<T> || std::is_same_v<T, __half> ||
                                 std::is_same_v<T, __nv_bfloat16>;

// Exponent and mantissa masks of the floating formats (all IEEE-style: sign, exponent, mantissa).
template <class T>
struct float_format;
template <>
struct float_format<float> { static constexpr std::uint32_t exponent = 0x7f800000u, mantissa = 0x007fffffu; };
template <>
struct float_format<double> {
  static constexpr std::uint64_t exponent = 0x7ff0000000000000ull, mantissa = 0x000fffffffffffffull;
};
template <>
struct float_format<__half> { static constexpr std::uint16_t exponent = 0x7c00u, mantissa = 0x03ffu; };
template <>
struct float_format<__nv_bfloat16> { static constexpr std::uint16_t exponent = 0x7f80u, mantissa = 0x007fu; };

}  // namespace detail

// The bit-key of a floating-point type with its order fixed at compile time (what the sort's
// kernels run: the order costs no run-time test per key).
template <class Key, float_order Order>
struct float_bit_key {
  using bits_type = detail::unsigned_bits_t<Key>;

  SCANKIT_HOST_DEVICE bits_type operator()(const Key& key) const {
    static_assert(detail::is_sort_float_v<Key>, "float_bit_key is for floating-point keys");
    using signed_bits = std::make_signed_t<bits_type>;
    constexpr int top = 8 * static_cast<int>(sizeof(Key)) - 1;
    constexpr bits_type sign = static_cast<bits_type>(bits_type{1} << top);
    const bits_type bits = detail::raw_bits_of(key);
    // Negatives flipped whole, positives with the sign bit set: the mask is all ones or the sign.
    const auto negative = static_cast<bits_type>(static_cast<signed_bits>(bits) >> top);
    const auto raw = static_cast<bits_type>(bits ^ static_cast<bits_type>(negative | sign));
    if constexpr (Order == float_order::raw_bits) {
      return raw;
    } else {
      // Without a branch, as the sort's passes are bound by instructions per key: one more for
      // negatives (-0.0 lands on +0.0), then everything one exponent step down, so that the NaNs
      // of both signs (just above +inf, and wrapped past zero) sit above +inf's key; the minimum
      // folds every NaN into one key.
      using format = detail::float_format<Key>;
      constexpr auto step = static_cast<bits_type>(format::mantissa + 1);  // the lowest exponent bit
      constexpr auto nan_key = static_cast<bits_type>((format::exponent | sign) - step + 1);  // +inf's, plus one
      const auto ordered = static_cast<bits_type>(raw - negative - step);  // negative: 0 or all ones
      return ordered < nan_key ? ordered : nan_key;
    }
  }
};

// The bit-key of the built-in key types: ordered bits as described above.
template <class Key>
struct default_bit_key {
  using bits_type = detail::unsigned_bits_t<Key>;
  float_order floats = float_order::total;

  SCANKIT_HOST_DEVICE bits_type operator()(const Key& key) const {
    static_assert(std::is_integral_v<Key> || detail::is_sort_float_v<Key>,
                  "default_bit_key covers integers and floating point; give other key types a bit-key functor");
    if constexpr (std::is_integral_v<Key>) {
      constexpr bits_type sign = static_cast<bits_type>(bits_type{1} << (8 * sizeof(Key) - 1));
      bits_type bits = detail::raw_bits_of(key);
      if constexpr (std::is_signed_v<Key>) bits = static_cast<bits_type>(bits ^ sign);
      return bits;
    } else {
      return floats == float_order::total ? float_bit_key<Key, float_order::total>{}(key)
                                          : float_bit_key<Key, float_order::raw_bits>{}(key);
    }
  }
};

// The unsigned type a bit-key functor returns for a key.
template <class BitKey, class Key>
using bit_key_result_t = std::decay_t<decltype(std::declval<const BitKey&>()(std::declval<const Key&>()))>;

}  // namespace scankit
