// Device layer of the radix sort: the counting sort of keys-only sorts of 8- and 16-bit keys whose
// ordered bits are a one-to-one image of the key (integers; half and bfloat16 in the raw-bit
// order). Equal ordered bits then mean equal keys, so the sorted output is each key value written
// as often as it occurs, in order: stable by construction, and no key is moved.
//
//   counting_table_kernel      bin -> the key whose ordered bits (complemented when descending)
//                              are that bin: the inverse of the bit-key, for every key value
//   counting_histogram_kernel  occurrences of every bin, in shared memory per block (16-bit keys:
//                              in sweeps over a range of bins each, as 2^16 32-bit counters do
//                              not fit), added to the global counts
//   counting_starts_kernel     one block: the exclusive scan of the counts (each bin's first
//                              output position)
//   counting_fill_kernel       each warp writes a contiguous range of the output: it finds the bin
//                              at its first position (a 32-way search of the starts), then walks
//                              the bins, writing each run with the whole warp
// Bytes moved: the keys read once per sweep and written once (2 and 4 bytes a key for 8- and
// 16-bit keys with one sweep; 16-bit keys take two sweeps on GPUs with 128 KiB of shared memory
// per block), against 2 to 3 reads and writes per digit pass of the radix sort.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/dispatch/single_pass_setup.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/util/shuffle.cuh"
#include "scankit/error.hpp"
#include "scankit/sort_key_order.hpp"

namespace scankit::device_detail {

// Keys-only sorts of at least this many keys count (below it the radix sort's one-block and
// onesweep paths need fewer launches).
constexpr long long counting_sort_min_keys = 1ll << 16;
constexpr int counting_threads = 1024;

// Whether BitKey is the default order of Key and maps keys one-to-one to at most 16 ordered bits
// (float orders other than raw_bits merge -0.0 with +0.0 and every NaN: not one-to-one).
template <class Key, class BitKey>
constexpr bool counting_sort_key_v =
    sizeof(Key) <= 2 && ((std::is_integral_v<Key> && std::is_same_v<BitKey, default_bit_key<Key>>) ||
                         std::is_same_v<BitKey, float_bit_key<Key, float_order::raw_bits>>);

template <class Key>
constexpr unsigned counting_bins = sizeof(Key) <= 2 ? 1u << (8 * sizeof(Key) % 32) : 0u;

template <class Key>
using counting_bits_t = detail::unsigned_bits_t<Key>;

template <class Key, class BitKey>
__device__ __forceinline__ unsigned counting_bin(counting_bits_t<Key> bits, const BitKey& bit_key, bool descending) {
  Key key;
  memcpy(&key, &bits, sizeof(Key));
  const unsigned ordered = static_cast<unsigned>(bit_key(key));
  return descending ? ~ordered & (counting_bins<Key> - 1) : ordered;
}

template <class Key, class BitKey>
__global__ void counting_table_kernel(counting_bits_t<Key>* table, BitKey bit_key, bool descending) {
  const unsigned bits = blockIdx.x * blockDim.x + threadIdx.x;
  if (bits < counting_bins<Key>) {
    const auto key_bits = static_cast<counting_bits_t<Key>>(bits);
    table[counting_bin<Key>(key_bits, bit_key, descending)] = key_bits;
  }
}

// Counts of bins [bin_lo, bin_lo + sweep_bins) into `counts`. A thread counts the keys of one
// 16-byte load as runs (equal neighbours add once), so sorted and repetitive keys do not serialise
// on one shared counter. A block's counters are 32-bit: it sees fewer than 2^32 keys (n / grid).
template <class Key, class BitKey>
__global__ void __launch_bounds__(counting_threads)
    counting_histogram_kernel(const Key* keys, long long n, BitKey bit_key, bool descending, unsigned bin_lo,
                              unsigned sweep_bins, unsigned long long* counts) {
  using bits_t = counting_bits_t<Key>;
  extern __shared__ unsigned histogram[];
  for (unsigned i = threadIdx.x; i < sweep_bins; i += blockDim.x) histogram[i] = 0;
  __syncthreads();
  const auto add = [&](unsigned bin, unsigned run) {
    const unsigned slot = bin - bin_lo;  // wraps below bin_lo
    if (slot < sweep_bins) atomicAdd(&histogram[slot], run);
  };
  const auto* bits = reinterpret_cast<const bits_t*>(keys);
  constexpr int per_load = 16 / sizeof(Key);
  // Keys before the first 16-byte boundary and after the last whole load go one by one.
  const auto misalign = static_cast<long long>(reinterpret_cast<std::uintptr_t>(keys) % 16 / sizeof(Key));
  const long long head = std::min(n, misalign == 0 ? 0 : per_load - misalign);
  const long long loads = (n - head) / per_load;
  const long long tail_from = head + loads * per_load;
  const long long thread = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = thread; i < head + (n - tail_from); i += threads) {
    add(counting_bin<Key>(bits[i < head ? i : tail_from + (i - head)], bit_key, descending), 1);
  }
  const auto* vectors = reinterpret_cast<const uint4*>(bits + head);
  for (long long v = thread; v < loads; v += threads) {
    const uint4 word = vectors[v];
    bits_t unpacked[per_load];
    memcpy(unpacked, &word, sizeof(word));
    unsigned run_bin = counting_bin<Key>(unpacked[0], bit_key, descending), run = 1;
#pragma unroll
    for (int j = 1; j < per_load; ++j) {
      const unsigned bin = counting_bin<Key>(unpacked[j], bit_key, descending);
      if (bin == run_bin) {
        ++run;
      } else {
        add(run_bin, run);
        run_bin = bin;
        run = 1;
      }
    }
    add(run_bin, run);
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < sweep_bins; i += blockDim.x) {
    if (histogram[i] != 0) atomicAdd(&counts[bin_lo + i], static_cast<unsigned long long>(histogram[i]));
  }
}

// starts[b] = the keys in bins below b, for b in [0, bins]; one block of counting_threads. (A
// template, as every kernel in a header: the units that count each hold their own copy.)
template <class Key>
__global__ void __launch_bounds__(counting_threads)
    counting_starts_kernel(const unsigned long long* counts, unsigned bins, unsigned long long* starts) {
  using block_scan = block_scan_warp_of_warps<unsigned long long, counting_threads>;
  __shared__ typename block_scan::storage scan_storage;
  const unsigned per_thread = (bins + counting_threads - 1) / counting_threads;
  const unsigned first = threadIdx.x * per_thread;
  unsigned long long sum = 0;
  for (unsigned b = first; b < first + per_thread && b < bins; ++b) sum += counts[b];
  const block_scan_result<unsigned long long> scanned = block_scan::scan(sum, scan_storage, plus_op{});
  unsigned long long at = threadIdx.x == 0 ? 0ull : scanned.exclusive;  // undefined on thread 0
  for (unsigned b = first; b < first + per_thread && b < bins; ++b) {
    starts[b] = at;
    at += counts[b];
  }
  if (threadIdx.x == 0) starts[bins] = scanned.aggregate;
}

// Warp w writes output positions [w * chunk, min(n, (w + 1) * chunk)).
template <class Key>
__global__ void __launch_bounds__(256)
    counting_fill_kernel(const unsigned long long* starts, const counting_bits_t<Key>* table, unsigned bins,
                         Key* keys_out, long long n, long long chunk) {
  using bits_t = counting_bits_t<Key>;
  const long long warp = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  const long long lo = warp * chunk;
  if (lo >= n) return;  // the whole warp leaves together
  const long long hi = std::min(n, lo + chunk);
  const int lane = lane_id();
  // The last bin whose start is at most lo (starts[0] = 0 <= lo keeps one candidate): each step
  // probes 32 evenly spaced candidates and keeps the last that qualifies.
  unsigned first = 0, count = bins;
  while (count > 1) {
    const unsigned step = (count + 31) / 32;
    const unsigned probe = first + static_cast<unsigned>(lane) * step;
    const bool ok = probe < first + count && starts[probe] <= static_cast<unsigned long long>(lo);
    const unsigned qualified = __ballot_sync(full_warp_mask, ok);
    const unsigned last = 31u - static_cast<unsigned>(__clz(qualified));
    const unsigned next = first + last * step;
    count = std::min(step, first + count - next);
    first = next;
  }
  auto* out = reinterpret_cast<bits_t*>(keys_out);
  long long at = lo;
  for (unsigned bin = first; at < hi; bin += 32) {
    // 32 bins' ends and keys at once; the warp writes each bin's run in turn.
    const unsigned mine = bin + static_cast<unsigned>(lane);
    const long long end_mine = mine < bins ? static_cast<long long>(starts[mine + 1]) : n;
    const unsigned key_mine = mine < bins ? static_cast<unsigned>(table[mine]) : 0u;
    for (int j = 0; j < 32 && at < hi; ++j) {
      const long long end = std::min(hi, shuffle_index(end_mine, j));
      const auto key = static_cast<bits_t>(shuffle_index(key_mine, j));
      for (long long i = at + lane; i < end; i += 32) out[i] = key;
      at = std::max(at, end);
    }
  }
}

// Scratch of one counting sort: counts, starts and the table.
template <class Key>
constexpr std::size_t counting_sort_scratch_bytes() {
  constexpr std::size_t bins = counting_bins<Key>;
  return round_up_256(bins * sizeof(unsigned long long)) +
         round_up_256((bins + 1) * sizeof(unsigned long long)) +
         round_up_256(bins * sizeof(counting_bits_t<Key>));
}

// Sorts n >= 1 keys from keys_in into keys_out with `scratch` (counting_sort_scratch_bytes).
template <class Key, class BitKey>
void run_counting_sort(const Key* keys_in, Key* keys_out, long long n, bool descending, const BitKey& bit_key,
                       void* scratch, int device, cudaStream_t stream) {
  constexpr unsigned bins = counting_bins<Key>;
  auto* at = static_cast<unsigned char*>(scratch);
  auto* counts = reinterpret_cast<unsigned long long*>(at);
  auto* starts = reinterpret_cast<unsigned long long*>(at + round_up_256(bins * sizeof(unsigned long long)));
  auto* table = reinterpret_cast<counting_bits_t<Key>*>(
      at + round_up_256(bins * sizeof(unsigned long long)) +
      round_up_256((bins + 1) * sizeof(unsigned long long)));

  int sms = 0, smem_optin = 0;
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // Bins per sweep: all of them when their counters fit, else the largest power of two that does.
  unsigned sweep_bins = bins;
  while (static_cast<std::size_t>(sweep_bins) * sizeof(unsigned) > static_cast<std::size_t>(smem_optin)) sweep_bins /= 2;
  const std::size_t smem = static_cast<std::size_t>(sweep_bins) * sizeof(unsigned);
  constexpr auto histogram_kernel = counting_histogram_kernel<Key, BitKey>;
  allow_dynamic_shared_memory<histogram_kernel>(device, smem);
  // One block per SM when the counters take most of its shared memory; a block per 16 loads a
  // thread at most, so small sorts do not clear and flush every SM's counters.
  const long long per_sm = smem > 48 * 1024 ? 1 : 2;
  const long long by_size = (n + 16ll * counting_threads * (16 / sizeof(Key)) - 1) /
                            (16ll * counting_threads * (16 / static_cast<long long>(sizeof(Key))));
  const auto histogram_grid = static_cast<unsigned>(std::max(1ll, std::min(per_sm * sms, by_size)));

  SCANKIT_CUDA_CHECK(cudaMemsetAsync(counts, 0, bins * sizeof(unsigned long long), stream));
  launch_kernel("counting_table_kernel (sort)", counting_table_kernel<Key, BitKey>, (bins + 255) / 256, 256, stream,
                table, bit_key, descending);
  for (unsigned bin_lo = 0; bin_lo < bins; bin_lo += sweep_bins) {
    launch_kernel_smem("counting_histogram_kernel (sort)", histogram_kernel, histogram_grid, counting_threads, smem,
                       stream, keys_in, n, bit_key, descending, bin_lo, sweep_bins, counts);
  }
  launch_kernel("counting_starts_kernel (sort)", counting_starts_kernel<Key>, 1, counting_threads, stream, counts, bins,
                starts);
  // Each warp writes at least 1024 keys; at most 64 warps per SM at once are enough to keep the
  // stores in flight.
  constexpr long long fill_threads = 256;
  const long long warps = std::max(1ll, std::min(static_cast<long long>(sms) * 64, (n + 1023) / 1024));
  const long long chunk = (n + warps - 1) / warps;
  const long long fill_blocks = (warps * 32 + fill_threads - 1) / fill_threads;
  launch_kernel("counting_fill_kernel (sort)", counting_fill_kernel<Key>, static_cast<unsigned>(fill_blocks),
                static_cast<unsigned>(fill_threads), stream, starts, table, bins, keys_out, n, chunk);
}

}  // namespace scankit::device_detail
