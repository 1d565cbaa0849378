// Precompiled reductions of int64 values.
#include "precompiled_reduce.cuh"

SCANKIT_DEFINE_PRECOMPILED_REDUCE(std::int64_t)
