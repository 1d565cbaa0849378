// Host logic of shard layouts and exchange plans (scankit/distributed/shard_plan.hpp).
#include "scankit/distributed/shard_plan.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "scankit/error.hpp"

namespace scankit::distributed {

namespace {

void check_ranks(int ranks, int rank, const char* where) {
  if (ranks < 1) throw error(std::string(where) + ": ranks must be at least 1, got " + std::to_string(ranks));
  if (rank < 0 || rank >= ranks) {
    throw error(std::string(where) + ": rank " + std::to_string(rank) + " is outside [0, " + std::to_string(ranks) + ")");
  }
}

}  // namespace

item_range even_shard(std::int64_t total, int ranks, int rank) {
  check_ranks(ranks, rank, "scankit::distributed::even_shard");
  if (total < 0) throw error("scankit::distributed::even_shard: negative total " + std::to_string(total));
  const std::int64_t base = total / ranks, extra = total % ranks;
  // rank * base <= total, so nothing here overflows.
  const std::int64_t begin = rank * base + std::min<std::int64_t>(rank, extra);
  return {begin, begin + base + (rank < extra ? 1 : 0)};
}

std::vector<std::int64_t> even_shard_sizes(std::int64_t total, int ranks) {
  check_ranks(ranks, 0, "scankit::distributed::even_shard_sizes");
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) sizes[static_cast<std::size_t>(r)] = even_shard(total, ranks, r).size();
  return sizes;
}

std::vector<std::int64_t> shard_offsets(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> offsets(sizes.size() + 1, 0);
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    if (sizes[r] < 0) {
      throw error("scankit::distributed::shard_offsets: shard " + std::to_string(r) + " has negative size " +
                  std::to_string(sizes[r]));
    }
    if (offsets[r] > std::numeric_limits<std::int64_t>::max() - sizes[r]) {
      throw error("scankit::distributed::shard_offsets: the total overflows int64 at shard " + std::to_string(r));
    }
    offsets[r + 1] = offsets[r] + sizes[r];
  }
  return offsets;
}

std::int64_t exchange_plan::sent() const noexcept {
  std::int64_t s = 0;
  for (const auto& t : sends) s += t.count;
  return s;
}

std::int64_t exchange_plan::received() const noexcept {
  std::int64_t s = 0;
  for (const auto& t : receives) s += t.count;
  return s;
}

exchange_plan plan_redistribution(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to,
                                  int rank) {
  const char* where = "scankit::distributed::plan_redistribution";
  if (from.size() != to.size()) {
    throw error(std::string(where) + ": " + std::to_string(from.size()) + " source shards but " +
                std::to_string(to.size()) + " destination shards");
  }
  check_ranks(static_cast<int>(from.size()), rank, where);
  const auto src = shard_offsets(from), dst = shard_offsets(to);
  if (src.back() != dst.back()) {
    throw error(std::string(where) + ": totals differ (" + std::to_string(src.back()) + " items before, " +
                std::to_string(dst.back()) + " after)");
  }
  const int ranks = static_cast<int>(from.size());
  const auto r = static_cast<std::size_t>(rank);
  exchange_plan plan;
  // The overlap of [src[r], src[r+1]) with every destination range, and of every source range
  // with [dst[r], dst[r+1]): offsets are relative to the start of this rank's buffer.
  for (int p = 0; p < ranks; ++p) {
    const auto q = static_cast<std::size_t>(p);
    const std::int64_t send_begin = std::max(src[r], dst[q]), send_end = std::min(src[r + 1], dst[q + 1]);
    if (send_end > send_begin) plan.sends.push_back({p, send_begin - src[r], send_end - send_begin});
    const std::int64_t recv_begin = std::max(src[q], dst[r]), recv_end = std::min(src[q + 1], dst[r + 1]);
    if (recv_end > recv_begin) plan.receives.push_back({p, recv_begin - dst[r], recv_end - recv_begin});
  }
  return plan;
}

exchange_plan plan_all_to_all(const std::vector<std::int64_t>& counts, int ranks, int rank) {
  const char* where = "scankit::distributed::plan_all_to_all";
  check_ranks(ranks, rank, where);
  const auto n = static_cast<std::size_t>(ranks);
  if (counts.size() != n * n) {
    throw error(std::string(where) + ": expected " + std::to_string(n * n) + " counts for " + std::to_string(ranks) +
                " ranks, got " + std::to_string(counts.size()));
  }
  std::vector<std::int64_t> row(n), column(n);
  for (std::size_t p = 0; p < n; ++p) {
    row[p] = counts[static_cast<std::size_t>(rank) * n + p];
    column[p] = counts[p * n + static_cast<std::size_t>(rank)];
  }
  const auto send_at = shard_offsets(row), recv_at = shard_offsets(column);  // also rejects negatives
  exchange_plan plan;
  for (std::size_t p = 0; p < n; ++p) {
    if (row[p] > 0) plan.sends.push_back({static_cast<int>(p), send_at[p], row[p]});
    if (column[p] > 0) plan.receives.push_back({static_cast<int>(p), recv_at[p], column[p]});
  }
  return plan;
}

}  // namespace scankit::distributed
