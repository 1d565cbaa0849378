// Precompiled radix sorts of 1-byte keys (one set of kernels for all of them).
#include "precompiled_sort.cuh"

namespace scankit {
SCANKIT_DEFINE_SORT_FOR_KEY(std::int8_t)
SCANKIT_DEFINE_SORT_FOR_KEY(std::uint8_t)
}  // namespace scankit
