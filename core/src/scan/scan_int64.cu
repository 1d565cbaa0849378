// Precompiled scan overloads for int64.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::int64_t)
