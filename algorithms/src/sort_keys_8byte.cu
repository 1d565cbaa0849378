// Precompiled radix sorts of 8-byte keys (one set of kernels for all of them).
#include "precompiled_sort.cuh"

namespace scankit {
SCANKIT_DEFINE_SORT_FOR_KEY(std::int64_t)
SCANKIT_DEFINE_SORT_FOR_KEY(std::uint64_t)
SCANKIT_DEFINE_SORT_FOR_KEY(double)
}  // namespace scankit
