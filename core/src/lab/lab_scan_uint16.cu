// The scan lab's precompiled overloads for uint16.
#include "precompiled_scan_lab.cuh"

SCANKIT_DEFINE_LAB_SCAN(std::uint16_t)
