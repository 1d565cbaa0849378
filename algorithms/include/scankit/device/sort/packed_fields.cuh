// Device layer of the radix sort: small per-item fields packed into registers.
//
// A pass keeps, per item, its digit (8 bits) and later its position in the tile (under 2^16)
// across barriers. One 32-bit register per field and item would cost the kernel the registers
// that decide how many blocks fit on a multiprocessor; packed, 4 digits or 2 positions share a
// register. Indices are compile-time constants in the unrolled loops, so get and set compile to
// shifts and masks (or bit-field instructions).
#pragma once

namespace scankit::device_detail {

template <int Count, int Bits>
struct packed_fields {
  static_assert(Bits == 8 || Bits == 16, "8- or 16-bit fields");
  static constexpr int per_word = 32 / Bits;
  static constexpr unsigned mask = (1u << Bits) - 1u;
  unsigned words[(Count + per_word - 1) / per_word];

  // Fields must be set in order of j, starting at a word boundary (the first set of a word
  // overwrites it).
  __device__ __forceinline__ void set(int j, unsigned value) {
    const int shift = (j % per_word) * Bits;
    if (shift == 0) {
      words[j / per_word] = value & mask;
    } else {
      words[j / per_word] |= (value & mask) << shift;
    }
  }
  __device__ __forceinline__ unsigned get(int j) const { return (words[j / per_word] >> ((j % per_word) * Bits)) & mask; }
};

}  // namespace scankit::device_detail
