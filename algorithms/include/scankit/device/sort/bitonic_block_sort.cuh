// Device layer of the radix sort: out-of-place sorts of at most bitonic_sort_max_keys keys of up to
// 4 bytes, by one block. Each key becomes a 64-bit word, (its bits in the sorted range << 32) |
// its index; the words are distinct, so a bitonic network over them (in shared memory) gives the
// stable order whatever the network does with equal keys. Each output position then takes its key
// (and value) from the input by the index in its word. log2(n) (log2(n) + 1) / 2 steps of one
// compare-exchange per pair and a barrier, instead of the one-block radix sort's four passes of
// block-wide digit scans: the fixed cost that dominates a sort of a thousand keys. (Above 1024 keys
// the barriers of the longer network cost more than the radix sort's passes.)
#pragma once

#include <type_traits>

#include "scankit/device/sort/radix_block_sort.cuh"
#include "scankit/device/sort/radix_histogram.cuh"

namespace scankit::device_detail {

constexpr int bitonic_sort_max_keys = 1024;  // docs/tuning.md
constexpr int bitonic_sort_threads = 1024;

// Whether a sort of these types can take the bitonic path (out of place, n small enough).
template <class Key, class BitKey>
constexpr bool bitonic_sort_key_v = sizeof(bit_key_result_t<BitKey, Key>) <= 4;

// args.n <= bitonic_sort_max_keys; the outputs do not overlap the inputs (the gather reads the
// inputs after other threads have written outputs).
template <class Key, class Value, class BitKey>
__global__ void __launch_bounds__(bitonic_sort_threads)
    bitonic_block_sort_kernel(const radix_block_sort_args<Key, Value, BitKey> args) {
  __shared__ unsigned long long words[bitonic_sort_max_keys];
  const int n = args.n_device == nullptr ? args.n : static_cast<int>(items_to_process(args.n, args.n_device));
  int size = 64;  // the network's width: a power of two, at least n
  while (size < n) size *= 2;
  for (int i = threadIdx.x; i < size; i += blockDim.x) {
    // Padding sorts after every key: real words have an index below 2^32 - 1.
    words[i] = i < n ? (static_cast<unsigned long long>(
                            sort_bits_in_range(args.keys_in[i], args.bit_key, args.passes, args.descending))
                        << 32) | static_cast<unsigned>(i)
                     : ~0ull;
  }
  __syncthreads();
  for (int k = 2; k <= size; k *= 2) {
    for (int j = k / 2; j > 0; j /= 2) {
      // Pair p compares positions lo and lo + j (lo has bit j clear); blocks of k alternate direction.
      for (int p = threadIdx.x; p < size / 2; p += blockDim.x) {
        const int lo = ((p & ~(j - 1)) << 1) | (p & (j - 1));
        const unsigned long long a = words[lo], b = words[lo + j];
        if ((a > b) == ((lo & k) == 0)) {
          words[lo] = b;
          words[lo + j] = a;
        }
      }
      __syncthreads();
    }
  }
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const auto from = static_cast<int>(static_cast<unsigned>(words[i]));
    if (args.keys_out != nullptr) args.keys_out[i] = args.keys_in[from];
    if constexpr (has_values) {
      if (args.values_out != nullptr) {
        if constexpr (std::is_integral_v<Value>) {
          args.values_out[i] = args.values_in != nullptr ? args.values_in[from] : static_cast<Value>(from);
        } else {
          args.values_out[i] = args.values_in[from];
        }
      }
    }
  }
}

}  // namespace scankit::device_detail
