// Precompiled sampling for double weights: table build, rows and segments.
#include "precompiled_sampling.cuh"

SCANKIT_DEFINE_SAMPLING(double)
