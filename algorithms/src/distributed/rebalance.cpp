// Even shards from uneven ones (scankit/distributed/compact.hpp, rebalance): a gather of the
// sizes, the host plan (shard_plan.hpp) and one group of sends and receives.
#include <string>

#include "collectives.hpp"
#include "scankit/distributed/compact.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/error.hpp"

namespace scankit::distributed {

namespace detail {

// Shared with the sort: moves a sharded array whose sizes everyone knows into even shards.
shard_info rebalance_known_sizes(communicator& comm, const std::vector<std::int64_t>& sizes, const void* in, void* out,
                                 std::size_t item_bytes, cudaStream_t stream, const std::string& operation) {
  const auto offsets = shard_offsets(sizes);
  const std::int64_t total = offsets.back();
  const auto target = even_shard_sizes(total, comm.size());
  const auto plan = plan_redistribution(sizes, target, comm.rank());
  run_exchange(comm, plan, in, out, item_bytes, stream, operation);
  const item_range mine = even_shard(total, comm.size(), comm.rank());
  return {mine.size(), mine.begin, total};
}

}  // namespace detail

shard_info rebalance(communicator& comm, const void* in, std::int64_t n, void* out, std::int64_t out_capacity,
                     std::size_t item_bytes, cudaStream_t stream) {
  const std::string name = "scankit::distributed::rebalance/" + std::to_string(item_bytes);
  const ::scankit::detail::nvtx_range nvtx(name.c_str());
  comm.check_ready(name.c_str());
  if (item_bytes == 0) throw error(name + ": item_bytes must be positive");
  if (n < 0 || out_capacity < 0) throw error(name + ": negative n or capacity");
  if (n > 0 && in == nullptr) throw error(name + ": null input with n > 0");
  if (out_capacity > 0 && out == nullptr) throw error(name + ": null output with a positive capacity");
  if (detail::overlap(in, static_cast<std::size_t>(n) * item_bytes, out,
                      static_cast<std::size_t>(out_capacity) * item_bytes)) {
    throw error(name + ": in and out overlap");
  }
  detail::call_record mine;
  mine.signature = detail::call_signature(name);
  mine.values[0] = n;
  mine.values[1] = out_capacity;
  const auto records = detail::agree_on_call(comm, mine, stream, name + ": all-gather of the sizes");
  std::vector<std::int64_t> sizes(records.size());
  for (std::size_t r = 0; r < records.size(); ++r) sizes[r] = records[r].values[0];
  const std::int64_t total = shard_offsets(sizes).back();
  // Every rank checks every capacity, so all of them throw together and nothing moves.
  for (int r = 0; r < comm.size(); ++r) {
    const std::int64_t share = even_shard(total, comm.size(), r).size();
    if (records[static_cast<std::size_t>(r)].values[1] < share) {
      throw error(name + ": rank " + std::to_string(r) + " has room for " +
                  std::to_string(records[static_cast<std::size_t>(r)].values[1]) + " items but its share is " +
                  std::to_string(share) + " (of " + std::to_string(total) + ")");
    }
  }
  return detail::rebalance_known_sizes(comm, sizes, in, out, item_bytes, stream, name + ": exchange");
}

}  // namespace scankit::distributed
