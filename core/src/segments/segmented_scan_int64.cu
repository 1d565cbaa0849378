// Precompiled segmented scans of int64 values.
#include "precompiled_segmented_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN(std::int64_t)
