// Precompiled top-k of double keys.
#include "precompiled_top_k.cuh"

namespace scankit { SCANKIT_DEFINE_TOP_K_FOR_KEY(double) }
