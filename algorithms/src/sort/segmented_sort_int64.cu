// Precompiled segmented sorts of int64 keys.
#include "precompiled_segmented_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SEGMENTED_SORT_FOR_KEY(std::int64_t) }
