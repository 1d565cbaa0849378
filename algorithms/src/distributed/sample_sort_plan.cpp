// Host logic of the distributed sample sort (scankit/distributed/sample_sort_plan.hpp).
#include "scankit/distributed/sample_sort_plan.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "scankit/distributed/shard_plan.hpp"
#include "scankit/error.hpp"

namespace scankit::distributed {

namespace {

// splitmix64: a well-mixed hash, enough to place one sample per stratum.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// k * n / m without overflow (k <= m, n < 2^63).
std::int64_t stratum_start(std::int64_t k, std::int64_t n, std::int64_t m) {
  return static_cast<std::int64_t>(static_cast<unsigned __int128>(k) * static_cast<unsigned __int128>(n) /
                                   static_cast<unsigned __int128>(m));
}

}  // namespace

sort_position sort_position_after_all() {
  return {std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::int64_t>::max(),
          std::numeric_limits<std::int64_t>::max()};
}

std::int64_t samples_taken(std::int64_t n, int samples_per_rank) {
  if (n < 0) throw error("scankit::distributed::samples_taken: negative shard size " + std::to_string(n));
  if (samples_per_rank < 1) {
    throw error("scankit::distributed: samples_per_rank must be at least 1, got " + std::to_string(samples_per_rank));
  }
  return std::min<std::int64_t>(n, samples_per_rank);
}

std::vector<std::int64_t> sample_positions(std::int64_t n, int samples_per_rank, std::uint64_t seed, int rank) {
  const std::int64_t m = samples_taken(n, samples_per_rank);
  std::vector<std::int64_t> positions(static_cast<std::size_t>(m));
  for (std::int64_t k = 0; k < m; ++k) {
    const std::int64_t begin = stratum_start(k, n, m), end = stratum_start(k + 1, n, m);  // end > begin: m <= n
    const std::uint64_t h = mix(seed ^ mix(static_cast<std::uint64_t>(rank) * 0x100000001b3ull + static_cast<std::uint64_t>(k)));
    positions[static_cast<std::size_t>(k)] = begin + static_cast<std::int64_t>(h % static_cast<std::uint64_t>(end - begin));
  }
  return positions;
}

std::vector<std::int64_t> sample_weights(std::int64_t n, int samples_per_rank) {
  const std::int64_t m = samples_taken(n, samples_per_rank);
  std::vector<std::int64_t> weights(static_cast<std::size_t>(m));
  for (std::int64_t k = 0; k < m; ++k) weights[static_cast<std::size_t>(k)] = stratum_start(k + 1, n, m) - stratum_start(k, n, m);
  return weights;
}

std::vector<sort_position> choose_splitters(std::vector<sort_position> samples, const std::vector<std::int64_t>& weights,
                                            int ranks) {
  const char* where = "scankit::distributed::choose_splitters";
  if (ranks < 1) throw error(std::string(where) + ": ranks must be at least 1");
  if (samples.size() != weights.size()) {
    throw error(std::string(where) + ": " + std::to_string(samples.size()) + " samples but " +
                std::to_string(weights.size()) + " weights");
  }
  std::vector<std::size_t> order(samples.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return samples[a] < samples[b]; });
  const auto offsets = shard_offsets(weights);  // rejects negative weights and overflow
  const std::int64_t total = offsets.back();

  std::vector<sort_position> splitters;
  splitters.reserve(static_cast<std::size_t>(ranks - 1));
  std::size_t j = 0;  // targets ascend, so one walk over the sorted samples serves them all
  unsigned __int128 before = 0;  // weight of the samples before order[j]
  for (int k = 1; k < ranks; ++k) {
    const auto target = static_cast<unsigned __int128>(even_shard(total, ranks, k).begin);
    // First sample whose midpoint (before + weight / 2) reaches the target, in doubled units.
    while (j < order.size() && 2 * before + static_cast<unsigned __int128>(weights[order[j]]) < 2 * target) {
      before += static_cast<unsigned __int128>(weights[order[j]]);
      ++j;
    }
    splitters.push_back(j < order.size() ? samples[order[j]] : sort_position_after_all());
  }
  return splitters;
}

int bucket_of(const sort_position& item, const std::vector<sort_position>& splitters) {
  return static_cast<int>(std::upper_bound(splitters.begin(), splitters.end(), item) - splitters.begin());
}

}  // namespace scankit::distributed
