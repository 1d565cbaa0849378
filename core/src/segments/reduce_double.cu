// Precompiled reductions of double values.
#include "precompiled_reduce.cuh"

SCANKIT_DEFINE_PRECOMPILED_REDUCE(double)
