// The module's own building blocks on a communicator (internal): device scratch, the agreement
// on a call, gathers of host values and byte exchanges from a plan. Every function that
// communicates waits for its stream (communicator::wait) before it returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "scankit/device_buffer.hpp"
#include "scankit/distributed/communicator.hpp"
#include "scankit/distributed/shard_plan.hpp"

namespace scankit::distributed::detail {

// The name of a value type in messages and call fingerprints (the types NCCL carries).
template <class T>
const char* type_name();
template <> inline const char* type_name<std::int32_t>() { return "int32"; }
template <> inline const char* type_name<std::uint32_t>() { return "uint32"; }
template <> inline const char* type_name<std::int64_t>() { return "int64"; }
template <> inline const char* type_name<std::uint64_t>() { return "uint64"; }
template <> inline const char* type_name<float>() { return "float"; }
template <> inline const char* type_name<double>() { return "double"; }

// Device memory of one call, from the call's memory resource, returned stream-ordered: after an
// abort the stream may hold a stopped NCCL kernel, and the return simply follows it.
class device_scratch {
 public:
  device_scratch(std::size_t bytes, cudaStream_t stream)
      : memory_(bytes, stream, ::scankit::detail::resource_for_call(stream)) {}
  template <class T = void>
  T* get() const noexcept {
    return static_cast<T*>(memory_.data());
  }

 private:
  device_buffer memory_;
};

// A fingerprint of a call (its name, value types and options) that all ranks must share.
std::int64_t call_signature(const std::string& description);

// What each rank tells the others at the start of a call: the signature and up to three values
// (sizes, capacities). Fixed size, so ranks that disagree still run matching collectives.
struct call_record {
  std::int64_t signature = 0;
  std::int64_t values[3] = {0, 0, 0};
};

// Gathers every rank's record (rank order) and checks that all signatures agree; on a mismatch
// every rank throws the same communication_error (naming the first rank that differs) and the
// communicator stays usable.
std::vector<call_record> agree_on_call(communicator& comm, const call_record& mine, cudaStream_t stream,
                                       const std::string& operation);

// Throws communication_error on every rank when the records' signatures differ.
void check_signatures(const communicator& comm, const std::vector<call_record>& records, const std::string& operation);

// All-gather of `count` int64 host values per rank: returns size * count values, rank-major.
std::vector<std::int64_t> all_gather_host(communicator& comm, const std::vector<std::int64_t>& mine,
                                          cudaStream_t stream, const std::string& operation);

// Runs an exchange plan on items of `item_bytes`: sends from `send_base`, receives into
// `recv_base` (device memory; the local part is a device-to-device copy), as one NCCL group.
void run_exchange(communicator& comm, const exchange_plan& plan, const void* send_base, void* recv_base,
                  std::size_t item_bytes, cudaStream_t stream, const std::string& operation);

// Moves a sharded array whose sizes (one per rank) every rank knows into even shards; `out`
// must hold this rank's even share. Defined in rebalance.cpp; the sort ends with it.
shard_info rebalance_known_sizes(communicator& comm, const std::vector<std::int64_t>& sizes, const void* in, void* out,
                                 std::size_t item_bytes, cudaStream_t stream, const std::string& operation);

// Copies `bytes` from device to host after the stream has been waited for.
void copy_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream);

// The checks every call on an input and an output array of n items makes before any launch or
// collective: a usable communicator, n >= 0, no null array with n > 0, no overlap but out == in.
void check_in_out(const communicator& comm, const void* in, const void* out, std::int64_t n, std::size_t item_bytes,
                  const std::string& where);

// Whether [a, a + a_bytes) and [b, b + b_bytes) overlap without being the same start.
bool partially_overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes);
bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes);

}  // namespace scankit::distributed::detail
