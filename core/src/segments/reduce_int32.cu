// Precompiled reductions of int32 values.
#include "precompiled_reduce.cuh"

SCANKIT_DEFINE_PRECOMPILED_REDUCE(std::int32_t)
