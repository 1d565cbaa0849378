// Precompiled segmented sorts of double keys.
#include "precompiled_segmented_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SEGMENTED_SORT_FOR_KEY(double) }
