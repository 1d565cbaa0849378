// Precompiled radix sorts of float keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(float) }
