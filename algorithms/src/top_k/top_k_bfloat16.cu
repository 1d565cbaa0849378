// Precompiled top-k of bfloat16 keys.
#include "precompiled_top_k.cuh"

namespace scankit { SCANKIT_DEFINE_TOP_K_FOR_KEY(__nv_bfloat16) }
