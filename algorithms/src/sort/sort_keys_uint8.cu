// Precompiled radix sorts of uint8 keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(std::uint8_t) }
