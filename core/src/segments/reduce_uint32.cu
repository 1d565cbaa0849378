// Precompiled reductions of uint32 values.
#include "precompiled_reduce.cuh"

SCANKIT_DEFINE_PRECOMPILED_REDUCE(std::uint32_t)
