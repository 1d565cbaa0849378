// Device layer of the radix sort: small arrays sorted by one block in one launch.
//
// Up to Policy::tile_items keys (and their values) fit one block: every pass runs in shared
// memory, with no histogram kernel, no look-back and no launch per pass, which is what a few
// thousand keys cost in the multi-block sort (seven launches, each a few microseconds). A pass
// is the pass kernel's tile without the global part: count per warp and digit, a block scan over
// the digits, the warp-level multisplit rank (radix_rank.cuh), and the keys and values exchanged
// through shared memory into sorted order; each thread then takes its items back from the sorted
// order, warp-striped as they were loaded, so the next pass ranks them in that order (stable).
// Each warp holds as few rows of 32 keys as n allows (the rank's chain of rows is the latency).
// A pass whose digit is the same for every key changes nothing and is skipped.
#pragma once

#include <type_traits>

#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/sort/packed_fields.cuh"
#include "scankit/device/sort/radix_digits.cuh"
#include "scankit/device/sort/radix_histogram.cuh"
#include "scankit/device/sort/radix_pass_kernel.cuh"
#include "scankit/device/sort/radix_rank.cuh"
#include "scankit/device/sort/sort_policy.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

template <class Key, class Value, class BitKey>
struct radix_block_sort_args {
  const Key* keys_in;
  Key* keys_out;
  const Value* values_in;  // null: the keys' indices (argsort)
  Value* values_out;       // null: keys only
  int n;
  radix_passes passes;
  BitKey bit_key;
  bool descending;
  const std::int64_t* n_device = nullptr;  // the count in device memory (device_count.cuh), n its bound
};

// The exchanges' bytes: the keys', then the values' (both padded as the pass kernel's).
template <class Policy, class Key, class Value>
constexpr std::size_t radix_block_exchange_bytes() {
  constexpr std::size_t value_bytes = std::is_same_v<Value, radix_no_values> ? 0 : sizeof(Value);
  return static_cast<std::size_t>(Policy::tile_items + Policy::tile_items / 32) * (sizeof(Key) + value_bytes);
}

// Dynamic shared memory: the exchanges, then the rank's mask words (radix_rank.cuh), zeroed at
// the first pass and left zero by the rank.
template <class Policy, class Key, class Value>
constexpr std::size_t radix_block_sort_bytes() {
  return with_rank_masks<Policy>(radix_block_exchange_bytes<Policy, Key, Value>());
}

// One block sorts args.n <= Policy::tile_items keys (and values): the body of the one-block sort,
// and of the segmented sort's blocks (segmented_sort_kernels.cuh), each on its own segment. The
// arguments are taken by value, as the kernel takes them: by reference the one-block sort's PTX
// changed (its kernel parameters were read through a pointer).
template <class Policy, class Key, class Value, class BitKey>
__device__ __forceinline__ void radix_block_sort_tile(const radix_block_sort_args<Key, Value, BitKey> args) {
  // A device count is read by every thread (one load per warp; nothing in this launch writes it).
  const int n = args.n_device == nullptr ? args.n : static_cast<int>(items_to_process(args.n, args.n_device));
  constexpr int I = Policy::items_per_thread;
  constexpr int R = Policy::radix;
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  using block_scan = block_scan_warp_of_warps<unsigned, Policy::block_threads>;
  __shared__ unsigned warp_counts[Policy::warps][R];
  __shared__ typename block_scan::storage scan_storage;
  extern __shared__ __align__(16) unsigned char exchange_bytes[];
  Key* exchange_keys = reinterpret_cast<Key*>(exchange_bytes);
  Value* exchange_values =
      reinterpret_cast<Value*>(exchange_bytes + sizeof(Key) * (Policy::tile_items + Policy::tile_items / 32));

  // Each warp takes `rows` rows of 32 keys, as few as n allows, so that small sorts rank few rows.
  const int rows = (n + 32 * Policy::warps - 1) / (32 * Policy::warps);
  const int warp = warp_id();
  const int first = warp * 32 * rows + lane_id();  // item j of this thread: first + 32 j
  const auto valid = [&](int j) { return j < rows && first + 32 * j < n; };
  Key keys[I];
  Value values[I];
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (valid(j)) keys[j] = args.keys_in[first + 32 * j];
  }
  if constexpr (has_values) {
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (valid(j)) {
        if constexpr (std::is_integral_v<Value>) {
          values[j] = args.values_in != nullptr ? args.values_in[first + 32 * j] : static_cast<Value>(first + 32 * j);
        } else {
          values[j] = args.values_in[first + 32 * j];
        }
      }
    }
  }

  unsigned* masks = nullptr;  // the rank's mask words (Policy::rank_by_atomic_or)
  if constexpr (Policy::rank_by_atomic_or) {
    masks = reinterpret_cast<unsigned*>(exchange_bytes +
                                        rank_masks_offset<Policy>(radix_block_exchange_bytes<Policy, Key, Value>()));
  }
  const int pass_count = args.passes.count();
  for (int pass = 0; pass < pass_count; ++pass) {
    const radix_digit<Key, BitKey> digit_of = args.passes.template digit<Key>(pass, args.bit_key, args.descending);
    for (int i = threadIdx.x; i < Policy::warps * R; i += Policy::block_threads) {
      (&warp_counts[0][0])[i] = 0;
      if constexpr (Policy::rank_by_atomic_or) {
        if (pass == 0) masks[i] = 0;
      }
    }
    __syncthreads();  // also: the previous pass has read the exchange back
    packed_fields<I, 8> digits;
#pragma unroll
    for (int j = 0; j < I; ++j) {
      unsigned digit = 0;
      if (valid(j)) {
        digit = digit_of(keys[j]);
        atomicAdd(&warp_counts[warp][digit], 1u);
      }
      digits.set(j, digit);
    }
    __syncthreads();
    unsigned count = 0;
    if (threadIdx.x < R) {
#pragma unroll
      for (int w = 0; w < Policy::warps; ++w) {
        const unsigned c = warp_counts[w][threadIdx.x];
        warp_counts[w][threadIdx.x] = count;
        count += c;
      }
    }
    if (__syncthreads_or(threadIdx.x < R && count == static_cast<unsigned>(n))) continue;
    const block_scan_result<unsigned> starts = block_scan::scan(count, scan_storage, plus_op{});
    const unsigned digit_start = threadIdx.x == 0 ? 0u : starts.exclusive;
    if (threadIdx.x < R) {
#pragma unroll
      for (int w = 0; w < Policy::warps; ++w) warp_counts[w][threadIdx.x] += digit_start;
    }
    __syncthreads();
    packed_fields<I, 16> positions;
    warp_rank_digits<I, Policy::radix_bits, false, true, decltype(valid), Policy::rank_by_atomic_or>(
        digits, positions, warp_counts[warp], valid, rows, Policy::rank_by_atomic_or ? masks + warp * R : nullptr);
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (valid(j)) {
        const int slot = positions.get(j);  // an exchange slot
        exchange_keys[slot] = keys[j];
        if constexpr (has_values) exchange_values[slot] = values[j];
      }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (valid(j)) {
        const int slot = radix_exchange_slot(first + 32 * j);
        keys[j] = exchange_keys[slot];
        if constexpr (has_values) values[j] = exchange_values[slot];
      }
    }
  }
  __syncthreads();  // in place (double-buffered, even pass count): every load is done
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (valid(j)) {
      if (args.keys_out != nullptr) args.keys_out[first + 32 * j] = keys[j];
      if constexpr (has_values) {
        if (args.values_out != nullptr) args.values_out[first + 32 * j] = values[j];
      }
    }
  }
}

template <class Policy, class Key, class Value, class BitKey>
__global__ void __launch_bounds__(Policy::block_threads)
    radix_block_sort_kernel(const radix_block_sort_args<Key, Value, BitKey> args) {
  radix_block_sort_tile<Policy>(args);
}

}  // namespace scankit::device_detail
