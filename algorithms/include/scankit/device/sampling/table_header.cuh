// The header at the start of a sampling table's device memory.
#pragma once

#include <cstdint>

namespace scankit::device_detail::sampling {

struct table_header {
  double total;             // cdf[bins - 1]
  double scale;             // guide_size / total: the guide cell of x is min(guide_size - 1, floor(x * scale))
  std::int64_t bins;
  std::int64_t guide_size;
  std::int32_t status;      // scankit::sampling_status
};

// The guide cell of a CDF value or a target. Monotone in x (a product rounded, then truncated),
// which is all the guide table's correctness needs; build and draw use this one expression.
__host__ __device__ __forceinline__ std::int64_t guide_cell(double x, double scale, std::int64_t guide_size) {
  const double c = x * scale;
  return c >= double(guide_size - 1) ? guide_size - 1 : static_cast<std::int64_t>(c);
}

// Guide entries are filled by their bins in pieces of this many; a bin that owns more than one
// piece's worth is "wide" and is filled by a separate, balanced pass (so no thread loops long).
constexpr std::int64_t guide_piece = 256;

}  // namespace scankit::device_detail::sampling
