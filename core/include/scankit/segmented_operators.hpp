// The segmented operator: how a segmented scan rides on an ordinary one. Plain C++ (host and,
// under nvcc, device code): the kernels and the host reference use the same definitions.
//
// A segmented scan restarts at the first item of every segment (its head). Pair each value with
// a head flag; then
//
//   (a, head_a) . (b, head_b) = (head_b ? b : a op b,  head_a | head_b)
//
// is associative whenever `op` is (commutativity is neither needed nor assumed), and an ordinary
// scan of the pairs is the segmented scan of the values: the value part of item i's inclusive
// result is the combination of its segment's items up to i. The flag of a combination says
// whether a head lies inside it, so a tile's aggregate tells its successors whether their
// segment started in it (Schwartz; Blelloch, "Prefix sums and their applications", 1990).
#pragma once

#include <cstdint>

#include "scankit/operators.hpp"

namespace scankit {

// A value and whether a segment starts at it (or, for a combination of items, inside it).
// `head` is 32 bits wide so that a pair of a 4-byte value packs into 8 bytes without padding.
template <class T>
struct segment_item {
  T value;
  std::uint32_t head;
};

template <class Op>
struct segmented_op {
  Op op;

  template <class T>
  SCANKIT_HOST_DEVICE segment_item<T> operator()(const segment_item<T>& a, const segment_item<T>& b) const {
    return {b.head != 0 ? b.value : static_cast<T>(op(a.value, b.value)), a.head | b.head};
  }
};

// The segmented operator that counts heads instead of or-ing them: the count of an item's
// inclusive result is its segment's number (from 1), which reduce-by-key uses as the output slot.
template <class Op>
struct counting_segmented_op {
  Op op;

  template <class T>
  SCANKIT_HOST_DEVICE segment_item<T> operator()(const segment_item<T>& a, const segment_item<T>& b) const {
    return {b.head != 0 ? b.value : static_cast<T>(op(a.value, b.value)), a.head + b.head};
  }
};

// Equal keys continue a segment (scan-by-key's default key comparison).
struct equal_to_op {
  template <class T>
  SCANKIT_HOST_DEVICE bool operator()(const T& a, const T& b) const { return a == b; }
};

}  // namespace scankit
