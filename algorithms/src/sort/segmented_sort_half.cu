// Precompiled segmented sorts of half keys.
#include "precompiled_segmented_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SEGMENTED_SORT_FOR_KEY(__half) }
