// Precompiled sampling for float weights: table build, rows and segments.
#include "precompiled_sampling.cuh"

SCANKIT_DEFINE_SAMPLING(float)
