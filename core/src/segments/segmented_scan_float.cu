// Precompiled segmented scans of float values.
#include "precompiled_segmented_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN(float)
