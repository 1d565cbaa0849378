// Precompiled reductions of float values.
#include "precompiled_reduce.cuh"

SCANKIT_DEFINE_PRECOMPILED_REDUCE(float)
