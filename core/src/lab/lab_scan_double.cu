// The scan lab's precompiled overloads for double.
#include "precompiled_scan_lab.cuh"

SCANKIT_DEFINE_LAB_SCAN(double)
