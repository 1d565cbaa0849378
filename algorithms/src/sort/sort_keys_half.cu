// Precompiled radix sorts of half keys.
#include "precompiled_sort.cuh"

namespace scankit { SCANKIT_DEFINE_SORT_FOR_KEY(__half) }
