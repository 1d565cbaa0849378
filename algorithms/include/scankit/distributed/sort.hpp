// Sorting an array sharded over the ranks of a communicator: on return the keys (and values) of
// all ranks are globally sorted and evenly sharded: rank r holds items
// even_shard(total, size, r) of the sorted sequence (shard sizes differ by at most one). The
// result equals scankit::sort_keys / sort_pairs of the concatenated shards, item for item: the
// sort is stable (equal keys keep their global input order, rank 0's first).
//
// Method: a sample sort (docs/distributed.md says why rather than an MSD partition):
//   1. every rank draws a stratified random sample of its shard (samples_per_rank items) and
//      the samples are all-gathered; every rank chooses the same size - 1 splitters from them
//      on the host (sample_sort_plan.hpp). Items are ordered by (key, source rank, index), so
//      equal keys, even an input of one repeated key, are split by position into even buckets;
//   2. every item gets its bucket (a small kernel: binary search among the splitters) and the
//      shard is partitioned by bucket with scankit's radix sort on the bucket bits (one pass);
//   3. the bucket counts are all-gathered and the buckets exchanged all-to-all (ncclSend /
//      ncclRecv in one group): rank d receives bucket d from every rank, in rank order;
//   4. the received items are sorted locally (scankit::sort_keys / sort_pairs, stable);
//   5. a rebalance moves the few items by which bucket d misses its even share (compact.hpp).
//
// Keys: int32, uint32, int64, uint64, float, double, ascending, floats in float_order::total
// (-0.0 == +0.0, NaN after +inf, as scankit's radix sort). Values: int32, uint32, float, int64,
// uint64, double. `out_capacity` is the room in keys_out (and values_out) on this rank: at least
// its even share (ceil(total / size) always suffices); if any rank has too little room, every
// rank throws scankit::error after the first gather and nothing moves. Inputs are only read;
// outputs may not overlap them.
//
// Memory: besides the inputs and outputs each rank takes, stream-ordered, about 2 bytes x 2 per
// item for bucket ids, the partitioned shard (n items), the received bucket and its sorted copy
// (about n items each with good splitters), with values alike: plan for 4 to 5 times the shard.
// Synchronisation: returns when the result is complete on `stream` (it waits with the
// communicator's timeout at each exchange; see communicator.hpp).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/distributed/communicator.hpp"
#include "scankit/distributed/shard_plan.hpp"
#include "scankit/workspace.hpp"

namespace scankit::distributed {

struct sample_sort_options {
  // Samples each rank draws (fewer when its shard is smaller). More samples: buckets closer to
  // even (less to rebalance), a larger host-side splitter choice.
  int samples_per_rank = 1024;
  // Seed of the sample positions (every rank must pass the same).
  std::uint64_t seed = 0x5ca1ab1e5eedull;
};

// The precompiled types, as lists that apply a macro to each (shared with the definitions).
#define SCANKIT_DISTRIBUTED_FOR_EACH_SORT_KEY(M) \
  M(std::int32_t) M(std::uint32_t) M(std::int64_t) M(std::uint64_t) M(float) M(double)
#define SCANKIT_DISTRIBUTED_FOR_EACH_SORT_VALUE(M, K) \
  M(K, std::int32_t) M(K, std::uint32_t) M(K, float) M(K, std::int64_t) M(K, std::uint64_t) M(K, double)

#define SCANKIT_DISTRIBUTED_DECLARE_SORT_PAIRS(K, V)                                                            \
  shard_info sort_pairs(communicator& comm, const K* keys_in, const V* values_in, std::int64_t n, K* keys_out,  \
                        V* values_out, std::int64_t out_capacity, cudaStream_t stream = nullptr,                \
                        workspace* ws = nullptr, const sample_sort_options& options = {});
#define SCANKIT_DISTRIBUTED_DECLARE_SORT(K)                                                                     \
  shard_info sort_keys(communicator& comm, const K* keys_in, std::int64_t n, K* keys_out,                       \
                       std::int64_t out_capacity, cudaStream_t stream = nullptr, workspace* ws = nullptr,       \
                       const sample_sort_options& options = {});                                                \
  SCANKIT_DISTRIBUTED_FOR_EACH_SORT_VALUE(SCANKIT_DISTRIBUTED_DECLARE_SORT_PAIRS, K)

SCANKIT_DISTRIBUTED_FOR_EACH_SORT_KEY(SCANKIT_DISTRIBUTED_DECLARE_SORT)

#undef SCANKIT_DISTRIBUTED_DECLARE_SORT
#undef SCANKIT_DISTRIBUTED_DECLARE_SORT_PAIRS

}  // namespace scankit::distributed
