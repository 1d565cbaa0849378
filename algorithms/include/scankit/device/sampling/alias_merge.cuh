// The buckets of an alias table from the sweep of Huebschle-Schneider and Sanders ("Parallel
// Weighted Random Sampling", ACM TOMS 2022, PSA), in closed form by merge path.
//
// Units: a bucket holds 2^32; bin i has q_i (alias_fixed_point.hpp). Lights l_0 < l_1 < ... (q <=
// 2^32, deficit d_k = 2^32 - q) and heavies h_0 < h_1 < ... (excess e_j = q - 2^32 >= 1), in index
// order. D(k) = d_0 + ... + d_{k-1} (exclusive), E(j) = e_0 + ... + e_j (inclusive): exact integers,
// D non-decreasing, E increasing.
//
// The sequential sweep (alias_reference.hpp) gives each light in order its deficit from the
// current heavy; a heavy whose remaining mass drops to 2^32 or below turns light and takes its own
// deficit from the next heavy. Heavy j is current while the lights served so far, D(k), stay below
// E(j) (all of heavies 0..j's excess, each heavy's overdraw being repaid by the next one). So:
//   light k:  alias = h_j, j = #{m : E(m) <= D(k)} (clamped to the last heavy), threshold q_{l_k};
//   heavy j:  with k = #{lights : D(k') < E(j)}, it has overdrawn o_j = D(k) - E(j), 0 <= o_j <
//             d_{k-1} <= 2^32: threshold 2^32 - o_j, alias h_{j+1}.
// Check: heavy j receives 2^32 - o_j + o_{j-1} + (D(k_j) - D(k_{j-1})) = 2^32 + E(j) - E(j-1) =
// q_{h_j}. Both counts are the merge of the two sequences with ties to the heavy: in that merge,
// light k is preceded by j heavies and heavy j by k lights. Merge path splits the merge into tiles.
// Rounding: sum d != sum e by at most about n/2 units. The last heavy gets a full bucket (it
// absorbs the difference); a light beyond every E gets the last heavy; a heavy the lights never
// overdraw (o_j <= 0) is full. Thresholds are 2^32 - d (a zero weight: 0, never kept) and aliases
// are heavies (positive weight), so a zero-weight bin is never drawn.
//
// Keys come from one prefix S over partition_if's order: order[0, L) the lights in index order,
// order[L, n) the heavies in REVERSE order (heavy j at n - 1 - j), S[p] = sum of deviations of
// order[0 .. p]. Then D(k) = S[k - 1] and E(j) = S[n - 1] - S[n - 2 - j] (S[-1] = 0), modulo 2^64:
// S[n - 1] can reach 2^64, but every D and E is below 2^63, so the wrapped differences are exact.
#pragma once

#include <cstdint>

#include "scankit/detail/alias_fixed_point.hpp"
#include "scankit/device/sampling/alias_header.cuh"
#include "scankit/sampling.hpp"

namespace scankit::device_detail::sampling {

constexpr int alias_merge_threads = 256;
constexpr int alias_merge_items = 8;  // merge items per thread
constexpr std::int64_t alias_merge_tile = std::int64_t(alias_merge_threads) * alias_merge_items;

struct alias_sweep {
  const std::int32_t* order;
  const std::uint64_t* prefix;
  std::int64_t n, lights, heavies;

  __device__ std::uint64_t at(std::int64_t p) const { return p < 0 ? 0 : prefix[p]; }
  __device__ std::uint64_t light_key(std::int64_t k) const { return at(k - 1); }  // D(k), k <= lights
  __device__ std::uint64_t heavy_key(std::int64_t j) const { return at(n - 1) - at(n - 2 - j); }  // E(j)
  __device__ std::int32_t light_bin(std::int64_t k) const { return order[k]; }
  __device__ std::int32_t heavy_bin(std::int64_t j) const { return order[n - 1 - j]; }

  // Light k (deficit d) preceded by j heavies in the merge.
  __device__ alias_entry light_entry(std::int64_t k, std::uint64_t d, std::int64_t j) const {
    const std::int32_t bin = light_bin(k);
    if (d == 0 || heavies == 0) return alias_entry{scankit::detail::alias_full, bin};
    return alias_entry{static_cast<std::uint32_t>(scankit::detail::alias_unit - d),
                       heavy_bin(j < heavies ? j : heavies - 1)};
  }

  // Heavy j with E(j) = e, preceded by k lights, D(k) = dk.
  __device__ alias_entry heavy_entry(std::int64_t j, std::uint64_t dk, std::uint64_t e) const {
    const std::int32_t bin = heavy_bin(j);
    const auto overdraw = static_cast<std::int64_t>(dk - e);
    if (j == heavies - 1 || overdraw <= 0) return alias_entry{scankit::detail::alias_full, bin};
    const std::int64_t unit = static_cast<std::int64_t>(scankit::detail::alias_unit);
    return alias_entry{static_cast<std::uint32_t>(overdraw < unit ? unit - overdraw : 0), heavy_bin(j + 1)};
  }
};

// Lights among the first d items of the merge of light keys and heavy keys (ties: heavy first).
template <class LightKey, class HeavyKey>
__device__ std::int64_t alias_merge_split(std::int64_t d, std::int64_t lights, std::int64_t heavies, LightKey light,
                                          HeavyKey heavy) {
  std::int64_t lo = d > heavies ? d - heavies : 0, hi = d < lights ? d : lights;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (light(mid) < heavy(d - 1 - mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Block b merges items [b tile, (b + 1) tile): two global splits, the tile's keys into shared
// memory, then a split and alias_merge_items merge steps per thread.
__global__ void __launch_bounds__(alias_merge_threads) alias_merge_kernel(const alias_header* header,
                                                                          std::int64_t n,
                                                                          const std::int32_t* order,
                                                                          const std::uint64_t* prefix,
                                                                          alias_entry* entries) {
  __shared__ std::uint64_t keys[alias_merge_tile + 1];
  __shared__ std::int64_t bounds[2];
  if (header->status != 0) return;  // the same for every block: no barrier is left waiting
  // n from the host and the light count clamped to it: every index below stays inside the table.
  const std::int64_t lights = min(max(header->lights, std::int64_t(0)), n);
  const alias_sweep s{order, prefix, n, lights, n - lights};
  const std::int64_t d0 = std::int64_t(blockIdx.x) * alias_merge_tile;
  const std::int64_t d1 = min(n, d0 + alias_merge_tile);
  if (threadIdx.x < 2)
    bounds[threadIdx.x] = alias_merge_split(
        threadIdx.x == 0 ? d0 : d1, s.lights, s.heavies, [&](std::int64_t k) { return s.light_key(k); },
        [&](std::int64_t j) { return s.heavy_key(j); });
  __syncthreads();
  const std::int64_t k0 = bounds[0], j0 = d0 - k0;
  const std::int64_t light_count = bounds[1] - k0, heavy_count = (d1 - bounds[1]) - j0;
  // keys[0 .. light_count]: D(k0 .. k1), one past the tile's lights (a heavy's overdraw may need
  // D(k1)); then E(j0 .. j1 - 1).
  for (std::int64_t i = threadIdx.x; i <= light_count + heavy_count; i += alias_merge_threads)
    keys[i] = i <= light_count ? s.light_key(k0 + i) : s.heavy_key(j0 + i - light_count - 1);
  __syncthreads();
  const std::uint64_t* lk = keys;
  const std::uint64_t* hk = keys + light_count + 1;
  const std::int64_t t = std::int64_t(threadIdx.x) * alias_merge_items;
  if (t >= light_count + heavy_count) return;
  std::int64_t kl = alias_merge_split(
      t, light_count, heavy_count, [&](std::int64_t k) { return lk[k]; }, [&](std::int64_t j) { return hk[j]; });
  std::int64_t jl = t - kl;
  for (int step = 0; step < alias_merge_items && kl + jl < light_count + heavy_count; ++step) {
    if (kl < light_count && (jl >= heavy_count || lk[kl] < hk[jl])) {
      const alias_entry e = s.light_entry(k0 + kl, lk[kl + 1] - lk[kl], j0 + jl);
      entries[s.light_bin(k0 + kl)] = e;
      ++kl;
    } else {
      entries[s.heavy_bin(j0 + jl)] = s.heavy_entry(j0 + jl, lk[kl], hk[jl]);
      ++jl;
    }
  }
}

}  // namespace scankit::device_detail::sampling
