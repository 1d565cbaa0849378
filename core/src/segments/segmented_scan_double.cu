// Precompiled segmented scans of double values.
#include "precompiled_segmented_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SEGMENTED_SCAN(double)
