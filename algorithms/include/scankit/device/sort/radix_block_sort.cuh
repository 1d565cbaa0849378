// Device layer of the radix sort: small arrays sorted by one block, or by one cluster of blocks
// (sm_90 and later), in one launch.
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
//
// A cluster of C blocks splits the keys into C chunks of 2^chunk_log2 positions, block b holding
// positions [b 2^chunk_log2, (b + 1) 2^chunk_log2): one block's rank work bounds a small sort's
// time, and C blocks share it. Each block publishes its count of each digit; a digit's keys in
// blocks before b go before block b's, so a key's position is the digit's start in the cluster,
// plus the earlier blocks' count of the digit, plus its rank in its block (stable). Keys move to
// the block that holds their new position through distributed shared memory; at the end each
// block writes its chunk.

#pragma once

#include <type_traits>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#include <cooperative_groups.h>
#endif

#include "scankit/device/sort/packed_fields.cuh"
#include "scankit/device/sort/radix_digits.cuh"
#include "scankit/device/sort/radix_histogram.cuh"
#include "scankit/device/sort/radix_pass_kernel.cuh"
#include "scankit/device/sort/radix_rank.cuh"
#include "scankit/device/sort/sort_policy.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/warp/warp_scan.cuh"
#include "scankit/operators.hpp"

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
  int chunk_log2 = 30;  // positions per block (log2): a cluster's chunk; one block keeps the default
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

// Positions are 16-bit fields (packed_fields), so a cluster sorts at most 2^16 keys.
constexpr int radix_cluster_max_keys = 1 << 16;

// The blocks that sort together: the launch's cluster when Clustered (sm_90 and later; a plain
// launch is a cluster of one), else this block alone. sync() is a barrier of every thread of every
// block; its arrive and wait have release and acquire semantics at cluster scope, so the shared
// memory writes of any block before sync() are visible to every block after it.
template <bool Clustered>
struct radix_sort_blocks {
  __device__ static int count() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (Clustered) return static_cast<int>(cooperative_groups::this_cluster().num_blocks());
#endif
    return 1;
  }
  __device__ static int rank() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (Clustered) return static_cast<int>(cooperative_groups::this_cluster().block_rank());
#endif
    return 0;
  }
  __device__ static void sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (Clustered) {
      cooperative_groups::this_cluster().sync();
      return;
    }
#endif
    __syncthreads();
  }
  // Block `block`'s copy of this block's shared variable at p.
  template <class T>
  __device__ static T* map(T* p, int block) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (Clustered) return cooperative_groups::this_cluster().map_shared_rank(p, static_cast<unsigned>(block));
#endif
    return p;
  }
};

// The blocks of a cluster sort args.n <= Policy::tile_items x (blocks) keys (and values): the body
// of the one-block and the cluster sort, and of the segmented sort's blocks
// (segmented_sort_kernels.cuh), each on its own segment. The arguments are taken by value, as the
// kernel takes them: by reference the one-block sort's PTX changed (its kernel parameters were read
// through a pointer).
template <class Policy, class Key, class Value, class BitKey, bool Clustered = false>
__device__ __forceinline__ void radix_block_sort_tile(const radix_block_sort_args<Key, Value, BitKey> args) {
  // A device count is read by every thread (one load per warp; nothing in this launch writes it).
  const int n = args.n_device == nullptr ? args.n : static_cast<int>(items_to_process(args.n, args.n_device));
  constexpr int I = Policy::items_per_thread;
  constexpr int R = Policy::radix;
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  constexpr int W = Policy::warps;
  constexpr int digit_warps = R / 32;  // the warps whose threads hold one digit each in the scan
  using blocks = radix_sort_blocks<Clustered>;
  // Each warp's row of digit counters: zero when a pass starts (the warp clears its own row before
  // the first pass and after it has ranked, or skipped, each pass), then its counts, then the
  // digits' starts for its keys.
  __shared__ unsigned warp_counts[W][R];
  // Clusters: this block's count of each digit, by pass parity.
  __shared__ unsigned block_counts[2][Clustered ? R : 1];
  __shared__ unsigned group_totals[digit_warps];  // the cluster's keys of each group of 32 digits
  extern __shared__ __align__(16) unsigned char exchange_bytes[];
  Key* exchange_keys = reinterpret_cast<Key*>(exchange_bytes);
  Value* exchange_values =
      reinterpret_cast<Value*>(exchange_bytes + sizeof(Key) * (Policy::tile_items + Policy::tile_items / 32));

  // This block's positions: [begin, begin + mine) (one block alone: all of them).
  const int block_count = blocks::count();
  const int block = blocks::rank();
  const int chunk_log2 = args.chunk_log2;
  const int begin = block << chunk_log2;
  const int mine = max(0, min(n - begin, 1 << chunk_log2));
  // Each warp takes `rows` rows of 32 keys, as few as its block's keys allow, so that small sorts
  // rank few rows.
  const int rows = (mine + 32 * Policy::warps - 1) / (32 * Policy::warps);
  const int warp = warp_id();
  const int first = warp * 32 * rows + lane_id();  // item j of this thread: block position first + 32 j
  const auto valid = [&](int j) { return j < rows && first + 32 * j < mine; };
  Key keys[I];
  Value values[I];
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (valid(j)) keys[j] = args.keys_in[begin + first + 32 * j];
  }
  if constexpr (has_values) {
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (valid(j)) {
        const int at = begin + first + 32 * j;
        if constexpr (std::is_integral_v<Value>) {
          values[j] = args.values_in != nullptr ? args.values_in[at] : static_cast<Value>(at);
        } else {
          values[j] = args.values_in[at];
        }
      }
    }
  }

  unsigned* masks = nullptr;  // the rank's mask words (Policy::rank_by_atomic_or), this warp's
  if constexpr (Policy::rank_by_atomic_or) {
    masks = reinterpret_cast<unsigned*>(exchange_bytes +
                                        rank_masks_offset<Policy>(radix_block_exchange_bytes<Policy, Key, Value>())) +
            warp * R;
  }
  // Only this warp touches its row between the barriers below that order the digit threads'
  // accesses to it, so clearing it needs no barrier of its own.
  const auto clear_warp_row = [&] {
    __syncwarp();  // every lane of this warp is done with the row (the rank or the skip)
#pragma unroll
    for (int d = lane_id(); d < R; d += 32) warp_counts[warp][d] = 0;
    __syncwarp();  // cleared before any lane's next count
  };
  if constexpr (Policy::rank_by_atomic_or) {
#pragma unroll
    for (int d = lane_id(); d < R; d += 32) masks[d] = 0;
  }
  clear_warp_row();
  const int pass_count = args.passes.count();
  bool last_skipped = false;
  for (int pass = 0; pass < pass_count; ++pass) {
    const radix_digit<Key, BitKey> digit_of = args.passes.template digit<Key>(pass, args.bit_key, args.descending);
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
    __syncthreads();  // every warp's counts are in; the previous pass has read the exchange back
    // The thread of each digit: its warps' counts become their exclusive prefixes (in registers
    // for up to 16 warps, else in place); `count` is the block's count, `total` the cluster's and
    // `before` that of the blocks before this one.
    constexpr bool prefixes_in_registers = W <= 16;
    unsigned before_warp[prefixes_in_registers ? W : 1];
    unsigned count = 0;
    if (threadIdx.x < R) {
#pragma unroll
      for (int w = 0; w < W; ++w) {
        const unsigned c = warp_counts[w][threadIdx.x];
        if constexpr (prefixes_in_registers) {
          before_warp[w] = count;
        } else {
          warp_counts[w][threadIdx.x] = count;
        }
        count += c;
      }
    }
    unsigned total = count, before = 0;
    if (Clustered && block_count > 1) {
      // Other blocks read these counts after this barrier and before they arrive at the next pass's;
      // this block writes its counts of pass p + 2 only after passing that one. The parity keeps
      // the two apart without a second barrier in passes that skip.
      unsigned* published = block_counts[pass & 1];
      if (threadIdx.x < R) published[threadIdx.x] = count;
      blocks::sync();  // every block's counts are published; every block has loaded its keys
      if (threadIdx.x < R) {
        // Unrolled to the largest cluster, so that the remote loads are all in flight at once.
        total = 0;
#pragma unroll
        for (int k = 0; k < Policy::cluster_max_blocks; ++k) {
          if (k < block_count) {
            const unsigned c = blocks::map(published, k)[threadIdx.x];
            before += k < block ? c : 0u;
            total += c;
          }
        }
      }
    }
    // The digits' starts: a scan of the totals within each group of 32 digits, and the groups'
    // totals through shared memory after the barrier that also decides the skip. group_totals is
    // read between that barrier and the next, and written again only after the next pass's first.
    unsigned within_group = 0;
    if (threadIdx.x < R) {
      unsigned group_inclusive;
      within_group = warp_exclusive_scan_unseeded(total, plus_op{}, group_inclusive);
      if (lane_id() == 0) within_group = 0;
      if (lane_id() == 31) group_totals[warp] = group_inclusive;
    }
    // Every block of a cluster sees the same totals, so all skip the same passes.
    const bool skip = __syncthreads_or(threadIdx.x < R && total == static_cast<unsigned>(n));
    if (skip) {
      last_skipped = true;
      clear_warp_row();  // the digit threads read every row before the barrier above
      continue;
    }
    last_skipped = false;
    if (threadIdx.x < R) {
      unsigned digit_start = before + within_group;
#pragma unroll
      for (int g = 0; g < digit_warps; ++g) digit_start += g < warp ? group_totals[g] : 0u;
#pragma unroll
      for (int w = 0; w < W; ++w) {
        if constexpr (prefixes_in_registers) {
          warp_counts[w][threadIdx.x] = digit_start + before_warp[w];
        } else {
          warp_counts[w][threadIdx.x] += digit_start;
        }
      }
    }
    __syncthreads();  // the starts are in every warp's row
    packed_fields<I, 16> positions;  // in the sorted order of this pass (< 2^16)
    warp_rank_digits<I, Policy::radix_bits, false, false, decltype(valid), Policy::rank_by_atomic_or>(
        digits, positions, warp_counts[warp], valid, rows, masks);
    clear_warp_row();
    // Each key goes to the block that holds its position, into that block's exchange. Every block
    // loaded its keys before the barrier above, so no key lands in an exchange still being read.
    const int chunk_mask = (1 << chunk_log2) - 1;
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (valid(j)) {
        const int position = positions.get(j);
        const int slot = radix_exchange_slot(position & chunk_mask);
        const int owner = position >> chunk_log2;
        blocks::map(exchange_keys, owner)[slot] = keys[j];
        if constexpr (has_values) blocks::map(exchange_values, owner)[slot] = values[j];
      }
    }
    if (block_count > 1) {
      blocks::sync();  // every key has arrived
    } else {
      __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (valid(j)) {
        const int slot = radix_exchange_slot(first + 32 * j);
        keys[j] = exchange_keys[slot];
        if constexpr (has_values) values[j] = exchange_values[slot];
      }
    }
  }
  // After a last pass that skipped, other blocks may still read this block's counts: none exits
  // before all have read them.
  if (block_count > 1 && last_skipped) blocks::sync();
  __syncthreads();  // in place (double-buffered, even pass count): every load is done
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (valid(j)) {
      const int at = begin + first + 32 * j;
      if (args.keys_out != nullptr) args.keys_out[at] = keys[j];
      if constexpr (has_values) {
        if (args.values_out != nullptr) args.values_out[at] = values[j];
      }
    }
  }
}

// Sorts args.n keys in one block (a plain launch of one block) or in one cluster of blocks
// (Clustered: a grid of one cluster of ceil(n / 2^args.chunk_log2) blocks; sm_90 and later).
template <class Policy, class Key, class Value, class BitKey, bool Clustered = false>
__global__ void __launch_bounds__(Policy::block_threads)
    radix_block_sort_kernel(const radix_block_sort_args<Key, Value, BitKey> args) {
  radix_block_sort_tile<Policy, Key, Value, BitKey, Clustered>(args);
}

}  // namespace scankit::device_detail
