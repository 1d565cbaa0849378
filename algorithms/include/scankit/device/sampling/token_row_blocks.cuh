// The blocks that share one row of the token sampler: one block (the default), or a cluster of up
// to 8 (sm_90 and later) when the rows are too few to fill the GPU. A cluster splits the row's
// chunks between its blocks and combines their results through distributed shared memory, with
// maxima, integer sums and gathered candidates only, so every block of the cluster holds what one
// block would have held, computes the same thresholds from it, and the token is the same as one
// block's.
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
  // The cluster-wide forms below: one block holds the row's values already.
  __device__ static void sum_arrays(std::uint32_t*, std::uint32_t*, int, std::uint32_t*, unsigned long long* = nullptr,
                                    int = 0) {}
  __device__ static int gather(unsigned long long*, const int* count, unsigned long long*) { return *count; }
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
    const token_row_results all = fields_over(cluster, static_cast<int>(cluster.num_blocks()), mine);
    barrier_after_reads(all.flag, all.max_entry, all.race_entry, all.kept_mass);
    return all;
#else
    return *mine;
#endif
  }
  // combine(mine), and sum_arrays(a, b, n, scratch, words, count), in the barriers of sum_arrays.
  __device__ static token_row_results combine_with_histogram(const token_row_results* mine, unsigned long long* words,
                                                             int count, std::uint32_t* a, std::uint32_t* b, int n,
                                                             std::uint32_t* scratch) {
    return exchange(mine, a, b, n, scratch, words, count);
  }
  // Arrays a and b of n words, each block's own counts, summed over the cluster in place, and the
  // maxima of `count` (at most blockDim.x) words over the cluster, in place.
  __device__ static void sum_arrays(std::uint32_t* a, std::uint32_t* b, int n, std::uint32_t* scratch,
                                    unsigned long long* words = nullptr, int count = 0) {
    exchange(nullptr, a, b, n, scratch, words, count);
  }

  // The largest cluster (token_launch.cuh's). Loops over a cluster's blocks unroll to it, each
  // step predicated on the cluster's size, so that a thread issues all its remote loads before it
  // uses any: it waits for distributed shared memory once per loop, not once per block.
  static constexpr int max_blocks = 8;

 private:
  // Remote words a thread loads before it uses them, when it copies or adds arrays: enough for the
  // bins' 2048 words over a block of 384 threads in one round trip.
  static constexpr int batch = 6;

  // use(i, load(i)) for this thread's i < n (i = threadIdx.x + m blockDim.x), `batch` loads at a
  // time, all issued before the first use: remote loads then wait for one round trip per batch.
  template <class Load, class Use>
  __device__ static void batched(int n, Load load, Use use) {
    const int step = static_cast<int>(blockDim.x);
    for (int base = static_cast<int>(threadIdx.x); base < n; base += batch * step) {
      decltype(load(0)) x[batch] = {};
#pragma unroll
      for (int j = 0; j < batch; ++j) {
        if (base + j * step < n) x[j] = load(base + j * step);
      }
#pragma unroll
      for (int j = 0; j < batch; ++j) {
        if (base + j * step < n) use(base + j * step, x[j]);
      }
    }
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Every block's fields combined, in every lane of the calling warp (the whole warp calls it; the
  // cluster's size is a power of two up to 8): lane l reads block l mod 8, so that each octet of
  // lanes holds them all after one round trip, and a butterfly over the octet combines them.
  __device__ static token_row_results fields_over(cooperative_groups::cluster_group& cluster, int blocks,
                                                  const token_row_results* mine) {
    const int k = static_cast<int>(threadIdx.x & 7);
    token_row_results x;
    if (k < blocks) x = *cluster.map_shared_rank(mine, static_cast<unsigned>(k));
#pragma unroll
    for (int o = 1; o < max_blocks; o <<= 1) {
      token_row_results y;
      y.flag = __shfl_xor_sync(0xffffffffu, x.flag, o);
      y.max_entry = __shfl_xor_sync(0xffffffffu, x.max_entry, o);
      y.race_entry = __shfl_xor_sync(0xffffffffu, x.race_entry, o);
      y.kept_mass = __shfl_xor_sync(0xffffffffu, x.kept_mass, o);
      add(x, y);
    }
    return x;
  }
  // The cluster barrier after which a block overwrites (or leaves) what the others have read, and
  // that publishes nothing: its arrive is relaxed, without the fence of a releasing arrive (a wait
  // for every memory access of the thread to be performed at GPU scope). What makes it safe is that
  // every remote read is complete before its thread arrives: each value read is either stored to
  // the block's own shared memory before the barrier (a store waits for its data), or shuffled to
  // other lanes (a shuffle waits for its operand), or passed in here (an asm operand must be in a
  // register before the asm issues), and threads issue in order.
  // The wait keeps its acquire semantics. Nothing a thread stores before it is published, not even
  // to its own block: what a block writes for its other threads needs a block barrier after it.
  __device__ static void barrier_after_reads(unsigned long long x0, unsigned long long x1 = 0,
                                             unsigned long long x2 = 0, unsigned long long x3 = 0,
                                             unsigned long long x4 = 0) {
    asm volatile("barrier.cluster.arrive.relaxed;\n\t"
                 "barrier.cluster.wait;" ::"l"(x0), "l"(x1), "l"(x2), "l"(x3), "l"(x4) : "memory");
  }
#endif
  // One block's results into the row's: flags or'ed, entries' maxima, masses summed.
  __device__ static void add(token_row_results& all, const token_row_results& theirs) {
    all.flag |= theirs.flag;
    all.max_entry = theirs.max_entry > all.max_entry ? theirs.max_entry : all.max_entry;
    all.race_entry = theirs.race_entry > all.race_entry ? theirs.race_entry : all.race_entry;
    all.kept_mass += theirs.kept_mass;
  }
  // The sums: each block sums its share of the words over all blocks into `scratch` (2n words of
  // its shared memory that nothing else uses meanwhile), then every block copies every share.
  // Integer sums and maxima, so the order of the terms does not matter. Every thread of every
  // block calls it, after its block has written its fields, words and counts: the first cluster
  // barrier (arrive has release, wait acquire semantics at cluster scope) publishes them; after
  // the second no block reads another's fields, words or counts any more (and the shares are
  // published), so they may be overwritten; after the third none reads another's shares, so the
  // caller may reuse `scratch`. The maxima are written last and published by a block barrier.
  // Clusters of two take exchange_pair.
  __device__ static token_row_results exchange(const token_row_results* mine, std::uint32_t* a, std::uint32_t* b,
                                               int n, std::uint32_t* scratch, unsigned long long* words, int count) {
    token_row_results all;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    const int blocks = static_cast<int>(cluster.num_blocks());
    if (blocks == 2) return exchange_pair(cluster, mine, a, b, n, scratch, words, count);
    const int share = (n + blocks - 1) / blocks;
    const int first = share * static_cast<int>(cluster.block_rank());
    const int last = first + share < n ? first + share : n;
    cluster.sync();
    for (int i = first + static_cast<int>(threadIdx.x); i < last; i += static_cast<int>(blockDim.x)) {
      std::uint32_t xa[max_blocks], xb[max_blocks];
#pragma unroll
      for (int k = 0; k < max_blocks; ++k) {
        xa[k] = k < blocks ? cluster.map_shared_rank(a, k)[i] : 0u;
        xb[k] = k < blocks ? cluster.map_shared_rank(b, k)[i] : 0u;
      }
      std::uint32_t sa = 0, sb = 0;
#pragma unroll
      for (int k = 0; k < max_blocks; ++k) sa += xa[k], sb += xb[k];
      scratch[i] = sa;
      scratch[n + i] = sb;
    }
    const unsigned long long w = add_fields(cluster, blocks, mine, all, words, count);
    cluster.sync();
    batched(n, [&](int i) {
      const std::uint32_t* owner = cluster.map_shared_rank(scratch, i / share);
      return uint2{owner[i], owner[n + i]};
    }, [&](int i, uint2 x) { a[i] = x.x, b[i] = x.y; });
    // Not barrier_after_reads: this barrier also publishes a and b, just written, to the block's
    // other threads.
    cluster.sync();
    if (static_cast<int>(threadIdx.x) < count) words[threadIdx.x] = w;
    if (count > 0) __syncthreads();
#endif
    return all;
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Between exchange's first two cluster barriers: every block's fields combined into `all` (when
  // `mine` is given), and for thread i < count the maximum of word i over the blocks (returned).
  // Every thread calls it.
  __device__ static unsigned long long add_fields(cooperative_groups::cluster_group& cluster, int blocks,
                                                  const token_row_results* mine, token_row_results& all,
                                                  unsigned long long* words, int count) {
    if (mine != nullptr) all = fields_over(cluster, blocks, mine);
    unsigned long long w = 0;
    if (static_cast<int>(threadIdx.x) < count) {
      unsigned long long x[max_blocks];
#pragma unroll
      for (int k = 0; k < max_blocks; ++k) x[k] = k < blocks ? cluster.map_shared_rank(words, k)[threadIdx.x] : 0ull;
#pragma unroll
      for (int k = 0; k < max_blocks; ++k) w = x[k] > w ? x[k] : w;
    }
    return w;
  }
  // exchange for a cluster of two blocks: each adds the other's words to its own through scratch,
  // one remote read per word and two cluster barriers instead of two reads and three. The first
  // barrier publishes both blocks' fields, words and counts; after the second neither reads the
  // other's any more, so each overwrites its own, and a block barrier publishes them.
  __device__ static token_row_results exchange_pair(cooperative_groups::cluster_group& cluster,
                                                    const token_row_results* mine, std::uint32_t* a, std::uint32_t* b,
                                                    int n, std::uint32_t* scratch, unsigned long long* words,
                                                    int count) {
    token_row_results all;
    cluster.sync();
    const unsigned other = 1u - cluster.block_rank();
    const std::uint32_t* other_a = cluster.map_shared_rank(a, other);
    const std::uint32_t* other_b = cluster.map_shared_rank(b, other);
    batched(n, [&](int i) { return uint2{other_a[i], other_b[i]}; },
            [&](int i, uint2 x) { scratch[i] = a[i] + x.x, scratch[n + i] = b[i] + x.y; });
    const unsigned long long w = add_fields(cluster, 2, mine, all, words, count);
    // The words' sums are in scratch.
    barrier_after_reads(w, all.flag, all.max_entry, all.race_entry, all.kept_mass);
    for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) {
      a[i] = scratch[i];
      b[i] = scratch[n + i];
    }
    if (static_cast<int>(threadIdx.x) < count) words[threadIdx.x] = w;
    __syncthreads();
    return all;
  }
#endif

 public:
  // Every block's `*count` entries, gathered in rank order into `entry` of every block; returns their
  // number. `scratch` holds the gathered entries between the barriers (the caller knows that they
  // fit both). Barriers as in sum_arrays: after the second, no block reads another's entries.
  __device__ static int gather(unsigned long long* entry, const int* count, unsigned long long* scratch) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    const int blocks = static_cast<int>(cluster.num_blocks());
    cluster.sync();
    // Every block's count, then the entries in batches, each entry's block found from the counts'
    // prefix sums (the block k with first[k] <= i < first[k + 1]; an empty block is passed over).
    int first[max_blocks];
#pragma unroll
    for (int k = 0; k < max_blocks; ++k) first[k] = k < blocks ? *cluster.map_shared_rank(count, k) : 0;
    int total = 0;
#pragma unroll
    for (int k = 0; k < max_blocks; ++k) {
      const int c = first[k];
      first[k] = total;
      total += c;
    }
    batched(total, [&](int i) {
      int k = 0, k_first = 0;  // selects: an array indexed at run time would live in local memory
#pragma unroll
      for (int m = 1; m < max_blocks; ++m) {
        if (m < blocks && first[m] <= i) k = m, k_first = first[m];
      }
      return cluster.map_shared_rank(entry, static_cast<unsigned>(k))[i - k_first];
    }, [&](int i, unsigned long long x) { scratch[i] = x; });
    // Not barrier_after_reads: this barrier also publishes scratch, whose words other threads of
    // the block wrote (the blocks' counts offset them), to the copy below.
    cluster.sync();
    for (int i = static_cast<int>(threadIdx.x); i < total; i += static_cast<int>(blockDim.x)) entry[i] = scratch[i];
    __syncthreads();
    return total;
#else
    return *count;
#endif
  }
};

}  // namespace scankit::device_detail::sampling
