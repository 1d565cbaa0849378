// Precompiled radix sorts of 2-byte keys (one set of kernels for all of them).
#include "precompiled_sort.cuh"

namespace scankit {
SCANKIT_DEFINE_SORT_FOR_KEY(std::int16_t)
SCANKIT_DEFINE_SORT_FOR_KEY(std::uint16_t)
SCANKIT_DEFINE_SORT_FOR_KEY(__half)
SCANKIT_DEFINE_SORT_FOR_KEY(__nv_bfloat16)
}  // namespace scankit
