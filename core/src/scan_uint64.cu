// Precompiled scan overloads for uint64.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::uint64_t)
