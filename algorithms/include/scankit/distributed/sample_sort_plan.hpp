// The host logic of the distributed sample sort: which items each rank samples, and the splitters
// chosen from all ranks' samples. Pure host code, checked by host tests.
//
// Ties: every item is ranked by the composite (ordered key bits, source rank, index in the source
// shard). That is a strict total order, and it is exactly the order a stable sort of the
// concatenated shards produces (equal keys keep their global input order: lower rank first, then
// lower index). Splitters are composites too, so equal keys are split between ranks by position
// and an input whose keys are all equal still ends in even buckets.
#pragma once

#include <cstdint>
#include <vector>

namespace scankit::distributed {

// An item's place in the composite order. `bits` are the key's ordered bits (the radix sort's
// order, scankit/sort_key_order.hpp: default_bit_key, float_order::total), widened to 64 bits.
struct sort_position {
  std::uint64_t bits = 0;
  std::int64_t rank = 0;
  std::int64_t index = 0;
  friend bool operator<(const sort_position& a, const sort_position& b) {
    if (a.bits != b.bits) return a.bits < b.bits;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.index < b.index;
  }
  friend bool operator==(const sort_position& a, const sort_position& b) {
    return a.bits == b.bits && a.rank == b.rank && a.index == b.index;
  }
  friend bool operator<=(const sort_position& a, const sort_position& b) { return !(b < a); }
};

// Above every real item (used for a splitter past the end: its bucket stays empty).
sort_position sort_position_after_all();

// How many items a shard of n items samples: min(n, samples_per_rank).
std::int64_t samples_taken(std::int64_t n, int samples_per_rank);

// Stratified random sample of a shard of n items: the shard is cut into samples_taken(n, s)
// strata [k*n/m, (k+1)*n/m) and one position is drawn in each from a hash of (seed, rank, k), so
// every rank can recompute every other rank's positions from its size alone. Ascending.
std::vector<std::int64_t> sample_positions(std::int64_t n, int samples_per_rank, std::uint64_t seed, int rank);

// The stratum sizes of the same sample: how many items each sample stands for (they sum to n).
std::vector<std::int64_t> sample_weights(std::int64_t n, int samples_per_rank);

// ranks - 1 splitters, ascending. Bucket d holds the items x with splitter[d-1] <= x < splitter[d]
// (see bucket_of). Splitter k is the first sample, in composite order, whose weighted position
// (the weight of the samples before it plus half its own) reaches the start of even shard k; when
// no sample does it is sort_position_after_all(). With every item sampled (weights of 1) the
// buckets are exactly the even shards. `samples` and `weights` have one entry per sample.
std::vector<sort_position> choose_splitters(std::vector<sort_position> samples, const std::vector<std::int64_t>& weights,
                                            int ranks);

// The bucket of an item: the number of splitters <= the item (0 .. splitters.size()).
int bucket_of(const sort_position& item, const std::vector<sort_position>& splitters);

}  // namespace scankit::distributed
