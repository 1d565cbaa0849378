// The header at the start of a sampling table's device memory, and the position function that the
// table's build and its draws share.
#pragma once

#include <cstdint>

namespace scankit::device_detail::sampling {

struct table_header {
  double total;              // cdf[bins - 1]
  double scale;              // guide_size * 2^16 / total (see guide_position)
  std::int64_t bins;
  std::int64_t guide_size;
  std::int32_t status;       // scankit::sampling_status
};

// Bins per guide cell: a draw reads its cell's two guide entries and the 16-bit codes of about this
// many bins, so that at 2^24 bins the guide (2^21 entries) and the codes (32 MiB) stay in L2.
constexpr std::int64_t bins_per_cell = 8;

// The fixed-point position of a CDF value or a target: x * guide_size * 2^16 / total, truncated,
// capped below guide_size * 2^16. Bits 16 and up are the guide cell, the low 16 bits a bin's code.
// It is monotone in x (a rounded product, then truncation), which is all that exactness needs:
// position(e) > position(t) proves e > t, and position(e) < position(t) proves e < t; only equal
// positions need the double CDF. Scaling by 2^16 is exact, so the cell is floor(x * cells / total).
__host__ __device__ __forceinline__ std::int64_t guide_position(double x, double scale, std::int64_t guide_size) {
  const double p = x * scale;
  const double cap = double(guide_size) * 65536.0 - 1.0;
  return p >= cap ? static_cast<std::int64_t>(cap) : static_cast<std::int64_t>(p);
}

__host__ __device__ __forceinline__ std::int64_t guide_cell(double x, double scale, std::int64_t guide_size) {
  return guide_position(x, scale, guide_size) >> 16;
}

// Guide entries are filled by their bins in pieces of this many; a bin that owns more than one
// piece's worth is "wide" and is filled by a separate, balanced pass (so no thread loops long).
constexpr std::int64_t guide_piece = 256;

}  // namespace scankit::device_detail::sampling
