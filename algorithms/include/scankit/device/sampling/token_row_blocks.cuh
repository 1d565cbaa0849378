// The blocks that share one row of the token sampler: one block (the default), or a cluster of up
// to 8 (sm_90 and later) when the rows are too few to fill the GPU. A cluster splits the row's
// chunks between its blocks and combines their results through distributed shared memory, with
// maxima and integer sums only, so the token is the same as one block's.
#pragma once

#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#include <cooperative_groups.h>
#endif

namespace scankit::device_detail::sampling {

// Groups [begin, end) of four tokens that a block reads (chunks of eight groups never straddle),
// or the whole row, known at compile time.
struct token_slice {
  std::int64_t begin = 0;
  std::int64_t end = INT64_MAX;
};
struct token_whole_row {};
// The slice's tokens [first, last) in a row of `vocab`.
__device__ __forceinline__ std::int64_t token_first(token_whole_row) { return 0; }
__device__ __forceinline__ std::int64_t token_last(token_whole_row, std::int64_t vocab) { return vocab; }
__device__ __forceinline__ std::int64_t token_first(const token_slice& s) { return 4 * s.begin; }
__device__ __forceinline__ std::int64_t token_last(const token_slice& s, std::int64_t vocab) {
  return 4 * s.end < vocab ? 4 * s.end : vocab;
}

// What the row's blocks combine, each block's own in its shared row state: a bad-value flag, the
// largest value's entry, the race's entry and the kept mass.
struct token_row_results {
  unsigned long long flag = 0, max_entry = 0, race_entry = 0, kept_mass = 0;
};

template <bool Clustered>
struct token_row_blocks {
  __device__ static unsigned rank() { return 0; }
  __device__ static std::int64_t row() { return blockIdx.x; }
  __device__ static token_whole_row slice(std::int64_t) { return {}; }
  // The row's results: the flags or'ed, the entries' maxima and the masses' sum over its blocks,
  // from fields each block wrote and made visible with __syncthreads (every thread calls it).
  __device__ static token_row_results combine(const token_row_results* mine) { return *mine; }
};

template <>
struct token_row_blocks<true> {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __device__ static unsigned rank() { return cooperative_groups::this_cluster().block_rank(); }
  __device__ static unsigned count() { return cooperative_groups::this_cluster().num_blocks(); }
#else
  __device__ static unsigned rank() { return 0; }  // never launched below sm_90 (sampling_tokens.cu)
  __device__ static unsigned count() { return 1; }
#endif
  __device__ static std::int64_t row() { return blockIdx.x / count(); }
  __device__ static token_slice slice(std::int64_t vocab) {
    const std::int64_t groups = (vocab + 3) / 4;
    const std::int64_t chunks = (groups + 7) / 8;
    const std::int64_t per_block = (chunks + count() - 1) / count();
    const std::int64_t begin = 8 * per_block * rank();
    const std::int64_t end = begin + 8 * per_block;
    return token_slice{begin < groups ? begin : groups, end < groups ? end : groups};
  }
  // Every thread of every block of the cluster calls this. The first cluster barrier (arrive has
  // release, wait acquire semantics at cluster scope) makes each block's fields visible to the
  // others; the second keeps every block's fields alive and unchanged until all blocks have read
  // them, so a block may then write them again or exit.
  __device__ static token_row_results combine(const token_row_results* mine) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    cluster.sync();
    token_row_results all;
    for (unsigned b = 0; b < cluster.num_blocks(); ++b) {
      const token_row_results* theirs = cluster.map_shared_rank(mine, b);
      all.flag |= theirs->flag;
      all.max_entry = theirs->max_entry > all.max_entry ? theirs->max_entry : all.max_entry;
      all.race_entry = theirs->race_entry > all.race_entry ? theirs->race_entry : all.race_entry;
      all.kept_mass += theirs->kept_mass;
    }
    cluster.sync();
    return all;
#else
    return *mine;
#endif
  }
};

}  // namespace scankit::device_detail::sampling
