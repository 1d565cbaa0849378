// Stream compaction of an array sharded over the ranks of a communicator, and the rebalance that
// evens out shards.
//
//   select_if / select_flagged   each rank keeps its selected items, in order, at the front of
//                                its own `out` (scankit's single-GPU select, stable); the counts
//                                are all-gathered so every rank learns where its part of the
//                                global result starts (shard_info::global_offset) and the total.
//                                The global result is the concatenation of the ranks' outputs.
//   rebalance                    moves the items of a sharded array so that rank r ends with
//                                even_shard(total, size, r) items (sizes differ by at most one),
//                                keeping the global order: ncclSend/ncclRecv in one group, each
//                                rank exchanging only with the ranks its old and new ranges
//                                overlap (shard_plan.hpp, plan_redistribution).
//
// Selection and rebalance are separate calls so that a caller who does not need even shards
// pays for no exchange:
//
//   auto kept = scankit::distributed::select_if(comm, d_in, d_sel, n, pred, stream);
//   auto even = scankit::distributed::rebalance(comm, d_sel, kept.count, d_even, capacity, stream);
//
// Synchronisation: each call returns when its result is complete on `stream`, having waited with
// the communicator's timeout (communicator.hpp). Bad arguments throw scankit::error before any
// launch or collective, except a rebalance capacity below the rank's new share, which only the
// gathered sizes reveal: then every rank throws scankit::error after that gather and nothing
// moves. Communication failures throw communication_error.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/compact_options.hpp"
#include "scankit/distributed/communicator.hpp"
#include "scankit/distributed/shard_plan.hpp"
#include "scankit/workspace.hpp"

namespace scankit::distributed {

#define SCANKIT_DISTRIBUTED_DECLARE_SELECT(T)                                                                     \
  shard_info select_if(communicator& comm, const T* in, T* out, std::int64_t n, keep_in_range<T> pred,            \
                       cudaStream_t stream = nullptr, workspace* ws = nullptr, const compact_options& options = {}); \
  shard_info select_flagged(communicator& comm, const T* in, const std::uint8_t* flags, T* out, std::int64_t n,  \
                            cudaStream_t stream = nullptr, workspace* ws = nullptr,                              \
                            const compact_options& options = {});

SCANKIT_DISTRIBUTED_DECLARE_SELECT(std::int32_t)
SCANKIT_DISTRIBUTED_DECLARE_SELECT(std::uint32_t)
SCANKIT_DISTRIBUTED_DECLARE_SELECT(std::int64_t)
SCANKIT_DISTRIBUTED_DECLARE_SELECT(std::uint64_t)
SCANKIT_DISTRIBUTED_DECLARE_SELECT(float)
SCANKIT_DISTRIBUTED_DECLARE_SELECT(double)

#undef SCANKIT_DISTRIBUTED_DECLARE_SELECT

// Items of `item_bytes` bytes each (any trivially copyable type): `n` of them at `in` on this
// rank, moved into `out` (room for `out_capacity` items) so that every rank ends with its even
// share. in and out must not overlap. Returns this rank's new count and place.
shard_info rebalance(communicator& comm, const void* in, std::int64_t n, void* out, std::int64_t out_capacity,
                     std::size_t item_bytes, cudaStream_t stream = nullptr);

template <class T>
shard_info rebalance(communicator& comm, const T* in, std::int64_t n, T* out, std::int64_t out_capacity,
                     cudaStream_t stream = nullptr) {
  return rebalance(comm, static_cast<const void*>(in), n, static_cast<void*>(out), out_capacity, sizeof(T), stream);
}

}  // namespace scankit::distributed
