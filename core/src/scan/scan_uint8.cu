// Precompiled scan overloads for uint8.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::uint8_t)
