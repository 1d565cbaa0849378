// The sample sort's kernels: gathering the sampled keys' ordered bits, and giving every item its
// destination bucket. Small and few on purpose: everything else the sort runs is scankit's
// precompiled radix sort.
#include "sort_kernels.hpp"

#include <cuda/std/cstdint>

#include "scankit/device/util/launch.cuh"
#include "scankit/sort_key_order.hpp"

namespace scankit::distributed::detail {

namespace {

constexpr int block_threads = 256;
// Enough blocks to fill any supported GPU; the loops stride over the rest.
constexpr std::int64_t max_blocks = 4096;

unsigned grid_for(std::int64_t n) {
  const std::int64_t blocks = (n + block_threads - 1) / block_threads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > max_blocks ? max_blocks : blocks));
}

template <class K>
__device__ __forceinline__ std::uint64_t ordered_bits(const K& key) {
  return static_cast<std::uint64_t>(default_bit_key<K>{}(key));  // float_order::total by default
}

template <class K>
__global__ void gather_sample_bits_kernel(const K* keys, const std::int64_t* positions, std::int64_t count,
                                          std::uint64_t* out) {
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k < count;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[k] = ordered_bits(keys[positions[k]]);
  }
}

// (bits, rank, index) < splitter in the composite order.
__device__ __forceinline__ bool before(std::uint64_t bits, std::int64_t rank, std::int64_t index, const sort_position& s) {
  if (bits != s.bits) return bits < s.bits;
  if (rank != s.rank) return rank < s.rank;
  return index < s.index;
}

// Splitters and per-block bucket counts live in shared memory. Counting: shared atomics within
// the block, then one global atomicAdd per non-empty bucket. Relaxed atomics suffice: nothing
// reads the counts before the kernel has finished (the host copies them after the stream).
template <class K>
__global__ void assign_buckets_kernel(const K* keys, std::int64_t n, int rank, const sort_position* splitters,
                                      int splitter_count, std::uint16_t* buckets, unsigned long long* counts) {
  extern __shared__ unsigned long long shared_words[];
  auto* shared_splitters = reinterpret_cast<sort_position*>(shared_words);
  auto* block_counts = reinterpret_cast<unsigned int*>(shared_splitters + splitter_count);
  for (int i = threadIdx.x; i < splitter_count; i += blockDim.x) shared_splitters[i] = splitters[i];
  for (int i = threadIdx.x; i <= splitter_count; i += blockDim.x) block_counts[i] = 0;
  __syncthreads();
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t bits = ordered_bits(keys[i]);
    // upper_bound: the number of splitters <= the item.
    int lo = 0, hi = splitter_count;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (before(bits, rank, i, shared_splitters[mid])) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    buckets[i] = static_cast<std::uint16_t>(lo);
    atomicAdd(&block_counts[lo], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b <= splitter_count; b += blockDim.x) {
    if (block_counts[b] != 0) atomicAdd(&counts[b], static_cast<unsigned long long>(block_counts[b]));
  }
}

}  // namespace

template <class K>
void gather_sample_bits(const K* keys, const std::int64_t* positions, std::int64_t count, std::uint64_t* out,
                        cudaStream_t stream) {
  if (count == 0) return;
  device_detail::launch_kernel("scankit::distributed gather_sample_bits", gather_sample_bits_kernel<K>,
                               dim3(grid_for(count)), dim3(block_threads), stream, keys, positions, count, out);
}

template <class K>
void assign_buckets(const K* keys, std::int64_t n, int rank, const sort_position* splitters, int splitter_count,
                    std::uint16_t* buckets, unsigned long long* counts, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t smem = static_cast<std::size_t>(splitter_count) * sizeof(sort_position) +
                           static_cast<std::size_t>(splitter_count + 1) * sizeof(unsigned int);
  device_detail::launch_kernel_smem("scankit::distributed assign_buckets", assign_buckets_kernel<K>,
                                    dim3(grid_for(n)), dim3(block_threads), smem, stream, keys, n, rank, splitters,
                                    splitter_count, buckets, counts);
}

#define SCANKIT_DISTRIBUTED_INSTANTIATE_SORT_KERNELS(K)                                                          \
  template void gather_sample_bits<K>(const K*, const std::int64_t*, std::int64_t, std::uint64_t*, cudaStream_t); \
  template void assign_buckets<K>(const K*, std::int64_t, int, const sort_position*, int, std::uint16_t*,         \
                                  unsigned long long*, cudaStream_t);

SCANKIT_DISTRIBUTED_INSTANTIATE_SORT_KERNELS(std::int32_t)
SCANKIT_DISTRIBUTED_INSTANTIATE_SORT_KERNELS(std::uint32_t)
SCANKIT_DISTRIBUTED_INSTANTIATE_SORT_KERNELS(std::int64_t)
SCANKIT_DISTRIBUTED_INSTANTIATE_SORT_KERNELS(std::uint64_t)
SCANKIT_DISTRIBUTED_INSTANTIATE_SORT_KERNELS(float)
SCANKIT_DISTRIBUTED_INSTANTIATE_SORT_KERNELS(double)

#undef SCANKIT_DISTRIBUTED_INSTANTIATE_SORT_KERNELS

}  // namespace scankit::distributed::detail
