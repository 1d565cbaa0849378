// Precompiled reduce-by-key of 4-byte values.
#include "precompiled_reduce_by_key.cuh"

SCANKIT_DEFINE_PRECOMPILED_REDUCE_BY_KEY_VALUES(std::int32_t)
SCANKIT_DEFINE_PRECOMPILED_REDUCE_BY_KEY_VALUES(float)
