// The scan lab's precompiled overloads for int8.
#include "precompiled_scan_lab.cuh"

SCANKIT_DEFINE_LAB_SCAN(std::int8_t)
