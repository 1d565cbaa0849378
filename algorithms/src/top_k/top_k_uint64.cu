// Precompiled top-k of uint64 keys.
#include "precompiled_top_k.cuh"

namespace scankit { SCANKIT_DEFINE_TOP_K_FOR_KEY(std::uint64_t) }
