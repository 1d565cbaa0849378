// Precompiled radix sorts of uint32 keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(std::uint32_t) }
