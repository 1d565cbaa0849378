// Device layer of the radix sort: out-of-place sorts of at most bitonic_sort_max_keys keys of up to
// 4 bytes, by one block. Each key becomes a 64-bit word, (its bits in the sorted range << 32) |
// its index; the words are distinct, so a bitonic network over them (in shared memory) gives the
// stable order whatever the network does with equal keys. Each output position then takes its key
// (and value) from the input by the index in its word. log2(n) (log2(n) + 1) / 2 steps of one
// compare-exchange per pair, most of them in registers, instead of the one-block radix sort's
// four passes of block-wide digit scans: the fixed cost that dominates a sort of a few thousand
// keys.
#pragma once

#include <type_traits>

#include "scankit/device/sort/radix_block_sort.cuh"
#include "scankit/device/sort/radix_histogram.cuh"
#include "scankit/device/util/shuffle.cuh"

namespace scankit::device_detail {

constexpr int bitonic_sort_max_keys = 4096;
constexpr int bitonic_sort_threads = 1024;

// Whether a sort of these types can take the bitonic path (out of place, n small enough).
template <class Key, class BitKey>
constexpr bool bitonic_sort_key_v = sizeof(bit_key_result_t<BitKey, Key>) <= 4;

// args.n <= bitonic_sort_max_keys; the outputs do not overlap the inputs (the gather reads the
// inputs after other threads have written outputs).
//
// The block holds the network's width (1024, 2048 or 4096 words) in registers: thread `lane` of
// warp w holds rows r < rows of its warp's 32 x rows words, word (w * rows + r) * 32 + lane. A
// step that compares words j apart takes a shuffle when j < 32, the thread's own registers when j
// spans its rows, and shared memory (two barriers) only when j crosses warps: 15 of the 55 to 78
// steps, which is what a barrier per step cost.
template <class Key, class Value, class BitKey>
__global__ void __launch_bounds__(bitonic_sort_threads)
    bitonic_block_sort_kernel(const radix_block_sort_args<Key, Value, BitKey> args) {
  constexpr int max_rows = bitonic_sort_max_keys / bitonic_sort_threads;
  __shared__ unsigned long long exchange[bitonic_sort_max_keys];
  const int n = args.n;
  int size = bitonic_sort_threads;  // the network's width: a power of two, at least n
  while (size < n) size *= 2;
  const int rows = size / bitonic_sort_threads;
  const int lane = lane_id();
  const auto word_at = [&](int r) { return (warp_id() * rows + r) * 32 + lane; };
  unsigned long long words[max_rows];
#pragma unroll
  for (int r = 0; r < max_rows; ++r) {
    const int e = word_at(r);
    // Padding sorts after every key: real words have an index below 2^32 - 1.
    words[r] = r < rows && e < n ? (static_cast<unsigned long long>(sort_bits_in_range(
                                        args.keys_in[e], args.bit_key, args.passes, args.descending))
                                    << 32) | static_cast<unsigned>(e)
                                  : ~0ull;
  }
  for (int k = 2; k <= size; k *= 2) {
    for (int j = k / 2; j > 0; j /= 2) {
      if (j >= 32 * rows) {  // across warps
        __syncthreads();     // the last exchange's reads are done
#pragma unroll
        for (int r = 0; r < max_rows; ++r) {
          if (r < rows) exchange[word_at(r)] = words[r];
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < max_rows; ++r) {
          if (r < rows) {
            const int e = word_at(r);
            const unsigned long long other = exchange[e ^ j];
            const bool keep_smaller = ((e & j) == 0) == ((e & k) == 0);
            words[r] = keep_smaller ? (other < words[r] ? other : words[r]) : (other > words[r] ? other : words[r]);
          }
        }
      } else if (j >= 32) {  // between a thread's rows
        const int m = j / 32;
#pragma unroll
        for (int r = 0; r < max_rows; ++r) {
          if (r < rows && (r & m) == 0) {
            const unsigned long long a = words[r], b = words[r | m];
            if ((a > b) == ((word_at(r) & k) == 0)) {
              words[r] = b;
              words[r | m] = a;
            }
          }
        }
      } else {  // within a row: lanes j apart
#pragma unroll
        for (int r = 0; r < max_rows; ++r) {
          if (r < rows) {
            const int e = word_at(r);
            const unsigned long long other = shuffle_index(words[r], lane ^ j);
            const bool keep_smaller = ((e & j) == 0) == ((e & k) == 0);
            words[r] = keep_smaller ? (other < words[r] ? other : words[r]) : (other > words[r] ? other : words[r]);
          }
        }
      }
    }
  }
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
#pragma unroll
  for (int r = 0; r < max_rows; ++r) {
    const int e = word_at(r);
    if (r < rows && e < n) {
      const auto from = static_cast<int>(static_cast<unsigned>(words[r]));
      if (args.keys_out != nullptr) args.keys_out[e] = args.keys_in[from];
      if constexpr (has_values) {
        if (args.values_out != nullptr) {
          if constexpr (std::is_integral_v<Value>) {
            args.values_out[e] = args.values_in != nullptr ? args.values_in[from] : static_cast<Value>(from);
          } else {
            args.values_out[e] = args.values_in[from];
          }
        }
      }
    }
  }
}

}  // namespace scankit::device_detail
