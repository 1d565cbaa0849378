// Precompiled radix sorts of int16 keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(std::int16_t) }
