// Precompiled radix sorts of int64 keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(std::int64_t) }
