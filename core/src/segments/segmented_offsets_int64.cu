// Precompiled segmented scans and reductions by offsets of int64 values.
#include "precompiled_segmented_offsets.cuh"

SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_BY_OFFSETS(std::int64_t)
