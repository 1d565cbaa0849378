// The sample sort's two kernels (internal; defined in sort_kernels.cu for the six key types,
// callable from host code compiled with g++).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/distributed/sample_sort_plan.hpp"

namespace scankit::distributed::detail {

// out[k] = the ordered bits (radix sort order, float_order::total) of keys[positions[k]], k < count.
template <class K>
void gather_sample_bits(const K* keys, const std::int64_t* positions, std::int64_t count, std::uint64_t* out,
                        cudaStream_t stream);

// buckets[i] = the number of splitters <= (bits of keys[i], rank, i) in the composite order of
// sample_sort_plan.hpp, and counts[b] += the items of bucket b (counts zeroed by the caller).
// At most max_sort_ranks buckets.
constexpr int max_sort_ranks = 1024;
template <class K>
void assign_buckets(const K* keys, std::int64_t n, int rank, const sort_position* splitters, int splitter_count,
                    std::uint16_t* buckets, unsigned long long* counts, cudaStream_t stream);

}  // namespace scankit::distributed::detail
