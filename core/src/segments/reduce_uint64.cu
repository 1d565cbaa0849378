// Precompiled reductions of uint64 values.
#include "precompiled_reduce.cuh"

SCANKIT_DEFINE_PRECOMPILED_REDUCE(std::uint64_t)
