// Distributed inclusive and exclusive scans (scankit/distributed/scan.hpp): host code over the
// precompiled reduce and scan and one NCCL all-gather.
#include "scankit/distributed/scan.hpp"

#include <nccl.h>

#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "collectives.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/distributed/scan_offset.hpp"
#include "scankit/error.hpp"
#include "scankit/reduce.hpp"
#include "scankit/scan.hpp"

namespace scankit::distributed {

namespace {

// One rank's contribution to the gather: the call's fingerprint, the shard size, the total.
struct total_record {
  std::int64_t signature;
  std::int64_t n;
  unsigned char total[8];
};
static_assert(sizeof(total_record) == 24, "total_record is gathered as 24 bytes");

template <class T>
void check_arguments(communicator& comm, const T* in, const T* out, std::int64_t n, scan_op op, const std::string& where) {
  detail::check_in_out(comm, in, out, n, sizeof(T), where);
  if (!scan_op_supported(op)) throw error(where + ": operator not supported (plus, maximum, minimum)");
}

template <class T>
void scan_from(const T* in, T* out, std::int64_t n, T prefix, T local_total, scan_op op, cudaStream_t stream,
               workspace* ws) {
  const char* where = "scankit::distributed::detail::inclusive_scan_from";
  if (n < 0) throw error(std::string(where) + ": negative n " + std::to_string(n));
  if (n > 0 && (in == nullptr || out == nullptr)) throw error(std::string(where) + ": null array with n > 0");
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  if (detail::partially_overlap(in, bytes, out, bytes)) throw error(std::string(where) + ": in and out overlap");
  if (!scan_op_supported(op)) throw error(std::string(where) + ": operator not supported (plus, maximum, minimum)");
  if (n == 0) return;
  T first;
  detail::copy_to_host(&first, in, sizeof(T), stream);
  const T head = scan_combine(op, prefix, first);
  if (out == in || n == 1) {
    // In place the input may be changed: the first item becomes prefix op in[0], and the plain
    // scan carries it through the shard. The copy is ordered before the scan on `stream` (and
    // pageable host memory is staged before cudaMemcpyAsync returns, so `head` may go).
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(out, &head, sizeof(T), cudaMemcpyHostToDevice, stream));
    if (n > 1) scankit::inclusive_scan(out, out, n, op, stream, ws);
    return;
  }
  // Out of place: out[i] = prefix op in[0..i] is the exclusive scan of in[1..n) from `head` for
  // i < n - 1, and prefix op total for the last item, which that scan does not write.
  scankit::exclusive_scan(in + 1, out, n - 1, head, op, stream, ws);
  const T last = scan_combine(op, prefix, local_total);
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(out + (n - 1), &last, sizeof(T), cudaMemcpyHostToDevice, stream));
}

template <class T>
void distributed_scan(communicator& comm, const T* in, T* out, std::int64_t n, scan_op op, std::optional<T> init,
                      cudaStream_t stream, workspace* ws) {
  const bool inclusive = !init.has_value();
  const std::string name = std::string("scankit::distributed::") + (inclusive ? "inclusive_scan" : "exclusive_scan");
  const ::scankit::detail::nvtx_range nvtx(name.c_str());
  check_arguments(comm, in, out, n, op, name);
  const auto ranks = static_cast<std::size_t>(comm.size());

  // 1. This shard's total, next to the fingerprint and the size: one record of 24 bytes.
  total_record mine{};
  mine.signature = detail::call_signature(name + "/" + detail::type_name<T>() + "/" + std::to_string(static_cast<int>(op)));
  mine.n = n;
  detail::device_scratch buffer((ranks + 1) * sizeof(total_record), stream);
  auto* send = buffer.get<total_record>();
  auto* recv = send + 1;
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(send, &mine, offsetof(total_record, total), cudaMemcpyHostToDevice, stream));
  scankit::reduce(in, reinterpret_cast<T*>(send->total), n, scan_identity<T>(op), op, stream, ws);

  // 2. Everyone's records. The wait also covers the reduce: the totals are final on return.
  const std::string step = name + ": all-gather of the shard totals";
  comm.complete(ncclAllGather(send, recv, sizeof(total_record), ncclUint8, comm.native(), stream), step.c_str());
  comm.wait(stream, step.c_str());
  std::vector<total_record> records(ranks);
  detail::copy_to_host(records.data(), recv, ranks * sizeof(total_record), stream);
  std::vector<detail::call_record> calls(ranks);
  std::vector<std::int64_t> sizes(ranks);
  std::vector<T> totals(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    calls[r].signature = records[r].signature;
    sizes[r] = records[r].n;
    std::memcpy(&totals[r], records[r].total, sizeof(T));
  }
  detail::check_signatures(comm, calls, name);
  if (n == 0) return;

  // 3. The value this rank starts from, then one local pass that applies it.
  const std::optional<T> prefix = rank_prefix(sizes, totals, comm.rank(), op, init);
  if (!inclusive) {
    scankit::exclusive_scan(in, out, n, *prefix, op, stream, ws);
  } else if (!prefix) {  // nothing before this shard: the local scan is the global one
    scankit::inclusive_scan(in, out, n, op, stream, ws);
  } else {
    detail::inclusive_scan_from(in, out, n, *prefix, totals[static_cast<std::size_t>(comm.rank())], op, stream, ws);
  }
  // Local work only from here, but waiting keeps the promise of the header: the output is complete.
  comm.wait(stream, name.c_str());
}

}  // namespace

#define SCANKIT_DISTRIBUTED_DEFINE_SCAN(T)                                                                      \
  void inclusive_scan(communicator& comm, const T* in, T* out, std::int64_t n, scan_op op, cudaStream_t stream, \
                      workspace* ws) {                                                                          \
    distributed_scan<T>(comm, in, out, n, op, std::nullopt, stream, ws);                                        \
  }                                                                                                             \
  void exclusive_scan(communicator& comm, const T* in, T* out, std::int64_t n, T init, scan_op op,              \
                      cudaStream_t stream, workspace* ws) {                                                     \
    distributed_scan<T>(comm, in, out, n, op, std::optional<T>(init), stream, ws);                              \
  }

#define SCANKIT_DISTRIBUTED_DEFINE_SCAN_FROM(T)                                                                \
  void detail::inclusive_scan_from(const T* in, T* out, std::int64_t n, T prefix, T local_total, scan_op op,  \
                                   cudaStream_t stream, workspace* ws) {                                      \
    scan_from<T>(in, out, n, prefix, local_total, op, stream, ws);                                            \
  }
SCANKIT_DISTRIBUTED_DEFINE_SCAN_FROM(std::int32_t)
SCANKIT_DISTRIBUTED_DEFINE_SCAN_FROM(std::uint32_t)
SCANKIT_DISTRIBUTED_DEFINE_SCAN_FROM(std::int64_t)
SCANKIT_DISTRIBUTED_DEFINE_SCAN_FROM(std::uint64_t)
SCANKIT_DISTRIBUTED_DEFINE_SCAN_FROM(float)
SCANKIT_DISTRIBUTED_DEFINE_SCAN_FROM(double)
#undef SCANKIT_DISTRIBUTED_DEFINE_SCAN_FROM

SCANKIT_DISTRIBUTED_DEFINE_SCAN(std::int32_t)
SCANKIT_DISTRIBUTED_DEFINE_SCAN(std::uint32_t)
SCANKIT_DISTRIBUTED_DEFINE_SCAN(std::int64_t)
SCANKIT_DISTRIBUTED_DEFINE_SCAN(std::uint64_t)
SCANKIT_DISTRIBUTED_DEFINE_SCAN(float)
SCANKIT_DISTRIBUTED_DEFINE_SCAN(double)

#undef SCANKIT_DISTRIBUTED_DEFINE_SCAN

}  // namespace scankit::distributed
