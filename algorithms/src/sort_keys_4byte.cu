// Precompiled radix sorts of 4-byte keys (one set of kernels for all of them).
#include "precompiled_sort.cuh"

namespace scankit {
SCANKIT_DEFINE_SORT_FOR_KEY(std::int32_t)
SCANKIT_DEFINE_SORT_FOR_KEY(std::uint32_t)
SCANKIT_DEFINE_SORT_FOR_KEY(float)
}  // namespace scankit
