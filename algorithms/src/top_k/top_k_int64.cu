// Precompiled top-k of int64 keys.
#include "precompiled_top_k.cuh"

namespace scankit { SCANKIT_DEFINE_TOP_K_FOR_KEY(std::int64_t) }
