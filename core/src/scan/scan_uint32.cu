// Precompiled scan overloads for uint32.
#include "precompiled_scan.cuh"

SCANKIT_DEFINE_PRECOMPILED_SCAN(std::uint32_t)
SCANKIT_DEFINE_OFFSETS_SUM(std::uint32_t)
