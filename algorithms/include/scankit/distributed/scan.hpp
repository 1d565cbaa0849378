// Prefix sums of an array sharded over the ranks of a communicator: the global scan of the
// concatenated shards (rank 0's first), each rank writing its own part.
//
//   inclusive_scan: out[i] = x[0] op ... op x[i]         (x: the global sequence, i global)
//   exclusive_scan: out[i] = init op x[0] op ... op x[i-1]
//
// Every rank calls with its own shard (n may differ between ranks, 0 included), the same
// operator, value type and init. How: a local reduce of the shard, an all-gather of the shard
// totals (with each rank's size and a fingerprint of the call, so ranks that disagree get an
// error instead of a wrong result), the fold of the totals before this rank on the host
// (scan_offset.hpp), then ONE local pass that starts from that value: the exclusive scan takes
// it as its init; the inclusive scan in place folds it into the first item before scanning, and
// out of place runs the exclusive scan of in[1..n) with init = prefix op in[0] and writes the
// last item (prefix op shard total) itself. So the data is read twice (reduce, scan) and written
// once, as a reduce-then-scan. Out of place, the inclusive scan reads in + 1, which is not
// 16-byte aligned, so on sm_90 it runs the register kernel rather than the staged one.
//
// Values: int32, uint32, int64, uint64, float, double (the types NCCL carries); operators:
// scan_op::plus, maximum, minimum. Floating-point sums associate per shard: they may differ from
// a one-GPU scan in the last bits. out == in is allowed; other overlap is rejected.
//
// Synchronisation: the call returns when this rank's output is complete on `stream` (it waits,
// with the communicator's timeout; see communicator.hpp). It reads two or three values to the host
// (the gathered totals and in[0]). Bad arguments throw scankit::error before any launch or
// collective; communication failures throw communication_error.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/distributed/communicator.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit::distributed {

#define SCANKIT_DISTRIBUTED_DECLARE_SCAN(T)                                                                      \
  void inclusive_scan(communicator& comm, const T* in, T* out, std::int64_t n, scan_op op = scan_op::plus,        \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr);                                    \
  void exclusive_scan(communicator& comm, const T* in, T* out, std::int64_t n, T init, scan_op op = scan_op::plus, \
                      cudaStream_t stream = nullptr, workspace* ws = nullptr);

SCANKIT_DISTRIBUTED_DECLARE_SCAN(std::int32_t)
SCANKIT_DISTRIBUTED_DECLARE_SCAN(std::uint32_t)
SCANKIT_DISTRIBUTED_DECLARE_SCAN(std::int64_t)
SCANKIT_DISTRIBUTED_DECLARE_SCAN(std::uint64_t)
SCANKIT_DISTRIBUTED_DECLARE_SCAN(float)
SCANKIT_DISTRIBUTED_DECLARE_SCAN(double)

#undef SCANKIT_DISTRIBUTED_DECLARE_SCAN

namespace detail {
// The local pass of an inclusive scan that continues from `prefix` (what a rank with non-empty
// shards before it runs): out[i] = prefix op in[0] op ... op in[i], given the shard's total
// (in[0] op ... op in[n-1], as the gathered totals hold it). out == in allowed. Reads in[0] to the
// host (synchronising `stream`) and enqueues the rest. Public so that the one-GPU tests can prove
// the path that only several ranks take.
#define SCANKIT_DISTRIBUTED_DECLARE_SCAN_FROM(T)                                                              \
  void inclusive_scan_from(const T* in, T* out, std::int64_t n, T prefix, T local_total, scan_op op,          \
                           cudaStream_t stream, workspace* ws);
SCANKIT_DISTRIBUTED_DECLARE_SCAN_FROM(std::int32_t)
SCANKIT_DISTRIBUTED_DECLARE_SCAN_FROM(std::uint32_t)
SCANKIT_DISTRIBUTED_DECLARE_SCAN_FROM(std::int64_t)
SCANKIT_DISTRIBUTED_DECLARE_SCAN_FROM(std::uint64_t)
SCANKIT_DISTRIBUTED_DECLARE_SCAN_FROM(float)
SCANKIT_DISTRIBUTED_DECLARE_SCAN_FROM(double)
#undef SCANKIT_DISTRIBUTED_DECLARE_SCAN_FROM
}  // namespace detail

}  // namespace scankit::distributed
