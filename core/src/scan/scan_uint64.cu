// Precompiled scan overloads for uint64.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::uint64_t)
SCANKIT_DEFINE_OFFSETS_SUM(std::uint64_t)
