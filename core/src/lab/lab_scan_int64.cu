// The scan lab's precompiled overloads for int64.
#include "precompiled_scan_lab.cuh"

SCANKIT_DEFINE_LAB_SCAN(std::int64_t)
