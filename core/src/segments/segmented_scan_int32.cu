// Precompiled segmented scans of int32 values.
#include "precompiled_segmented_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN(std::int32_t)
