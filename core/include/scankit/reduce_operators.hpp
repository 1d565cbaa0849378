// The operators of arg-min and arg-max (plain C++, host and, under nvcc, device code): the kernels
// and the host reference use the same definitions.
//
// An item is an (index, value) pair. Values compare with operator<, except that a NaN beats every
// number (as numpy.argmin/argmax and torch.argmin/argmax report a NaN); among equal values (and
// among NaNs) the earliest index wins. Ties are broken by the indices, not by which operand comes
// first, so the operators are associative and commutative: any grouping finds the first
// occurrence.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "scankit/operators.hpp"

namespace scankit {

template <class T>
struct indexed_value {
  std::int64_t index;
  T value;
};

namespace detail {
template <class T>
SCANKIT_HOST_DEVICE bool is_nan_value(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}
}  // namespace detail

struct arg_min_op {
  template <class T>
  SCANKIT_HOST_DEVICE indexed_value<T> operator()(const indexed_value<T>& a, const indexed_value<T>& b) const {
    const bool a_nan = detail::is_nan_value(a.value), b_nan = detail::is_nan_value(b.value);
    if (a_nan != b_nan) return a_nan ? a : b;
    if (a_nan || a.value == b.value) return a.index <= b.index ? a : b;
    return b.value < a.value ? b : a;
  }
};

struct arg_max_op {
  template <class T>
  SCANKIT_HOST_DEVICE indexed_value<T> operator()(const indexed_value<T>& a, const indexed_value<T>& b) const {
    const bool a_nan = detail::is_nan_value(a.value), b_nan = detail::is_nan_value(b.value);
    if (a_nan != b_nan) return a_nan ? a : b;
    if (a_nan || a.value == b.value) return a.index <= b.index ? a : b;
    return a.value < b.value ? b : a;
  }
};

template <>
struct is_commutative<arg_min_op> : std::true_type {};
template <>
struct is_commutative<arg_max_op> : std::true_type {};

}  // namespace scankit
