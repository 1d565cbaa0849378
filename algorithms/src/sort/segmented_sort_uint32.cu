// Precompiled segmented sorts of uint32 keys.
#include "precompiled_segmented_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SEGMENTED_SORT_FOR_KEY(std::uint32_t) }
