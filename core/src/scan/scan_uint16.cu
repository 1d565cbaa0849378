// Precompiled scan overloads for uint16.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::uint16_t)
