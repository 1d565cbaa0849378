// Precompiled radix sorts of uint16 keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(std::uint16_t) }
