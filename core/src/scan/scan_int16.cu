// Precompiled scan overloads for int16.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::int16_t)
