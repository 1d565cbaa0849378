// Shared by the translation units of the precompiled compaction overloads.
//
// To keep the number of compiled kernels small, types that select the same way share one
// instantiation: select_flagged and the items of select_by_stencil move items as unsigned
// integers of the same size (selection never looks at their value), unique compares signed and
// unsigned integers of one size as the same bits, and unique_by_key moves values by size. Every
// instantiation holds three kernels: the single pass and the two kernels of the three-step
// strategy (which also reaches the precompiled uint32 / uint64 scans of the core library).
#pragma once

#include <cstddef>
#include <cstdint>

#include "scankit/compact.hpp"
#include "scankit/device/partition.cuh"
#include "scankit/device/select.cuh"
#include "scankit/device/unique.cuh"

namespace scankit::precompiled {

template <std::size_t Bytes>
struct unsigned_of_size;
template <>
struct unsigned_of_size<1> {
  using type = std::uint8_t;
};
template <>
struct unsigned_of_size<2> {
  using type = std::uint16_t;
};
template <>
struct unsigned_of_size<4> {
  using type = std::uint32_t;
};
template <>
struct unsigned_of_size<8> {
  using type = std::uint64_t;
};
template <>
struct unsigned_of_size<16> {
  using type = item16;
};

// The item type of the shared instantiation for T.
template <class T>
using bits_of = typename unsigned_of_size<sizeof(T)>::type;

template <class T>
const bits_of<T>* as_bits(const T* p) {
  return reinterpret_cast<const bits_of<T>*>(p);
}
template <class T>
bits_of<T>* as_bits(T* p) {
  return reinterpret_cast<bits_of<T>*>(p);
}

}  // namespace scankit::precompiled
