// Precompiled radix sorts of int8 keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(std::int8_t) }
