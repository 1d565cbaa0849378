// Precompiled scan overloads for int8.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::int8_t)
