// Precompiled radix sorts of bfloat16 keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(__nv_bfloat16) }
