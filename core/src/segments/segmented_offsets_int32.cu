// Precompiled segmented scans and reductions by offsets of int32 values.
#include "precompiled_segmented_offsets.cuh"

SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS(std::int32_t)
