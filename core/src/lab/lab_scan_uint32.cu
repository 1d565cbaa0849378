// The scan lab's precompiled overloads for uint32.
#include "precompiled_scan_lab.cuh"

SCANKIT_DEFINE_LAB_SCAN(std::uint32_t)
