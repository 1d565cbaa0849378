// The built-in associative operators, usable on the host and (under nvcc) on the device.
// None of scankit's algorithms assume commutativity: `op(a, b)` always has `a` on the left,
// i.e. earlier in the sequence.
#pragma once

#include <type_traits>

#include "scankit/scan_options.hpp"

#if defined(__CUDACC__)
#define SCANKIT_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SCANKIT_HOST_DEVICE inline
#endif

namespace scankit {

// Results are cast back to T so that narrow integers wrap instead of widening to int.
struct plus_op {
  template <class T>
  SCANKIT_HOST_DEVICE T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};
struct maximum_op {
  template <class T>
  SCANKIT_HOST_DEVICE T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct minimum_op {
  template <class T>
  SCANKIT_HOST_DEVICE T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct bit_and_op {
  template <class T>
  SCANKIT_HOST_DEVICE T operator()(const T& a, const T& b) const { return static_cast<T>(a & b); }
};
struct bit_or_op {
  template <class T>
  SCANKIT_HOST_DEVICE T operator()(const T& a, const T& b) const { return static_cast<T>(a | b); }
};
struct bit_xor_op {
  template <class T>
  SCANKIT_HOST_DEVICE T operator()(const T& a, const T& b) const { return static_cast<T>(a ^ b); }
};

// Whether op(a, b) == op(b, a) for all a, b: a reduction may then combine the items in any
// grouping of its own (a fixed one: results stay the same from run to run). False unless
// specialised; true for the built-in operators (floating-point + included: a + b == b + a).
template <class Op>
struct is_commutative : std::false_type {};
template <>
struct is_commutative<plus_op> : std::true_type {};
template <>
struct is_commutative<maximum_op> : std::true_type {};
template <>
struct is_commutative<minimum_op> : std::true_type {};
template <>
struct is_commutative<bit_and_op> : std::true_type {};
template <>
struct is_commutative<bit_or_op> : std::true_type {};
template <>
struct is_commutative<bit_xor_op> : std::true_type {};

// Which built-in operators make sense for T (bitwise ones need an integral type).
template <class T>
constexpr bool op_supported(scan_op op) {
  switch (op) {
    case scan_op::bit_and:
    case scan_op::bit_or:
    case scan_op::bit_xor:
      return std::is_integral_v<T>;
    default:
      return true;
  }
}

}  // namespace scankit
