// Precompiled segmented sorts of bfloat16 keys.
#include "precompiled_segmented_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SEGMENTED_SORT_FOR_KEY(__nv_bfloat16) }
