// Where the items of a sharded array live, and which items move where when shards are reshaped:
// pure host logic (no CUDA, no NCCL), shared by the distributed scan, compaction and sort and
// checked by host tests.
//
// A sharded array is one global sequence cut into consecutive pieces, one per rank in rank order:
// rank r holds global items [offsets[r], offsets[r + 1]). Shards may differ in size and may be
// empty. All counts are 64-bit items; totals beyond 2^31 (and 2^32) are ordinary.
#pragma once

#include <cstdint>
#include <vector>

namespace scankit::distributed {

// A half-open range of global item positions.
struct item_range {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const noexcept { return end - begin; }
};

// What a distributed call leaves on one rank: `count` items of the global result, which start at
// global position `global_offset`; `global_count` items on all ranks together.
struct shard_info {
  std::int64_t count = 0;
  std::int64_t global_offset = 0;
  std::int64_t global_count = 0;
};

// The share of rank `rank` when `total` items are spread evenly over `ranks` ranks: the first
// total % ranks ranks hold one item more than the others, so sizes differ by at most one and
// every item has exactly one owner. Throws scankit::error for total < 0, ranks < 1 or a rank
// outside [0, ranks).
item_range even_shard(std::int64_t total, int ranks, int rank);

// The sizes of all even shards (even_shard(total, ranks, r).size() for every r).
std::vector<std::int64_t> even_shard_sizes(std::int64_t total, int ranks);

// Exclusive prefix sum of shard sizes, with the total last: offsets[r] is the global position of
// rank r's first item, offsets[size()] the total. Throws scankit::error for a negative size or a
// total that overflows int64.
std::vector<std::int64_t> shard_offsets(const std::vector<std::int64_t>& sizes);

// One message of an exchange, seen from the rank that runs it: `count` items with `peer`, starting
// at item `offset` of this rank's buffer (the send buffer for a send, the receive buffer for a
// receive). peer == this rank is a local copy (it appears once in sends and once in receives).
struct transfer {
  int peer = 0;
  std::int64_t offset = 0;
  std::int64_t count = 0;
  friend bool operator==(const transfer& a, const transfer& b) {
    return a.peer == b.peer && a.offset == b.offset && a.count == b.count;
  }
};

// What one rank sends and receives in one exchange. Both lists are in peer order and never hold
// a zero-count message; the receives tile [0, received()) of the receive buffer without gaps.
struct exchange_plan {
  std::vector<transfer> sends;
  std::vector<transfer> receives;
  std::int64_t sent() const noexcept;
  std::int64_t received() const noexcept;
};

// Reshapes a sharded array without reordering it: shards of sizes `from` become shards of sizes
// `to` (equal totals, one entry per rank), each rank keeping the global order. Rank s sends to
// rank d the items that lie both in s's old range and d's new range. Throws scankit::error when
// the sizes disagree in count or total, or a size is negative.
exchange_plan plan_redistribution(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to,
                                  int rank);

// An all-to-all with counts: counts[s * ranks + d] items go from rank s to rank d. Each source's
// send buffer holds its messages back to back in destination order; each destination receives
// them back to back in source order (so a destination sees the sources' data in rank order).
// Throws scankit::error for a wrong matrix size or a negative count.
exchange_plan plan_all_to_all(const std::vector<std::int64_t>& counts, int ranks, int rank);

}  // namespace scankit::distributed
