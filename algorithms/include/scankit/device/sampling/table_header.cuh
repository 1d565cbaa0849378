// The header at the start of a sampling table's device memory, and the guide geometry that the
// table's build and its draws share (the fixed point itself: scankit/detail/table_fixed_point.hpp).
//
// Guide cells are 2^shift units wide: cell(x) = x >> shift. A bin's 16-bit code is its end's
// position inside its cell in 2^16 steps: position(x) = x >> (shift - 16), cell = position >> 16,
// code = position & 0xffff. Positions are exact
// and monotone in x, so code(e) > code(t) within one cell proves e > t and code(e) < code(t)
// proves e < t; only equal codes need the CDF itself.
#pragma once

#include <cstdint>

namespace scankit::device_detail::sampling {

// Where a build stands (table_build.cuh has the sequence): each launch runs only in its mode.
enum class table_mode : std::int32_t {
  done = 0,          // the table is final (or the status is not ok)
  fast = 1,          // the one-pass build, at the unit and cell size chosen from a sample
  guide_repair = 2,  // the CDF is right, the cells were not: codes and guide are rewritten
  full = 3,          // the units were not: exact total, then the one pass again
};

// Flags the build's launches raise (atomicOr).
constexpr std::uint32_t flag_bad_weight = 1u;
constexpr std::uint32_t flag_beyond = 2u;  // a weight of 2^59 units or more (16 of them could overflow)

struct table_header {
  double total;               // total_units * 2^unit_exponent (total_host)
  std::uint64_t total_units;  // cdf[bins - 1]
  std::int64_t bins;
  std::int64_t guide_capacity;  // cells the guide can hold; it has guide_capacity + 2 entries
  std::int32_t unit_exponent;
  std::int32_t shift;
  std::int32_t status;  // scankit::sampling_status
  std::int32_t mode;    // table_mode
  std::uint32_t flags;
};

// Cells of about bins_per_cell bins: a draw reads its cell's two guide entries and the 16-bit codes
// of about that many bins, so that at 2^24 bins the guide and the codes (32 MiB) stay in L2.
constexpr std::int64_t bins_per_cell = 8;

// shift >= 16 always (guide_shift_for), so a position is x >> (shift - 16).
__host__ __device__ __forceinline__ std::uint64_t guide_position(std::uint64_t x, int shift) {
  return x >> (shift - 16);
}

__host__ __device__ __forceinline__ std::int64_t guide_cell(std::uint64_t x, int shift) {
  return static_cast<std::int64_t>(x >> shift);
}

// floor(log2(x)) for x >= 1.
__host__ __device__ __forceinline__ int floor_log2(std::uint64_t x) {
#ifdef __CUDA_ARCH__
  return 63 - __clzll(static_cast<long long>(x));
#else
  return 63 - __builtin_clzll(x);
#endif
}

// The cell size for totals below 2^bits units: the smallest shift that keeps the cells within the
// largest power of two <= capacity (so a total between 2^(bits-1) and 2^bits fills a quarter to
// all of the guide), and at least 16 (cells of 2^16 units at the finest, so codes are plain bits).
__host__ __device__ __forceinline__ int guide_shift_for(int bits, std::int64_t capacity) {
  const int room = floor_log2(static_cast<std::uint64_t>(capacity));
  return bits - room > 16 ? bits - room : 16;
}

// Guide entries are filled by their bins in pieces of this many; a bin that owns more than one
// piece's worth is "wide" and is filled by a separate, balanced pass (so no thread loops long).
constexpr std::int64_t guide_piece = 256;

}  // namespace scankit::device_detail::sampling
