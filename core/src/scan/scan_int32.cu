// Precompiled scan overloads for int32.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::int32_t)
