// Device layer of the radix sort: one digit pass, tile by tile.
//
// The pass first works out its route (radix_pass_route.cuh): a pass whose digit is the same for
// every key returns at once. Otherwise each block takes one tile of Policy::tile_items keys and
//   1. loads them (each warp a contiguous run) and counts them per warp and digit (shared atomics);
//   2. turns the warp counts into the tile's digit counts, and publishes them at once (onesweep):
//      later tiles can pass this one in their look-back while it still ranks its keys;
//   3. by a block scan over the digits, gives every (warp, digit) the tile index where its keys
//      start, and ranks the keys from there (radix_rank.cuh), writing them into shared memory in
//      sorted order; a full tile whose keys all share one digit skips the ranking and, after
//      step 4, writes its keys and values straight from the registers (its order is sorted);
//   4. finds where each digit's keys of this tile start in the output:
//      - onesweep: a decoupled look-back per digit over the earlier tiles (channel_look_back.cuh,
//        one thread per digit, all digits at once), added to where the digit starts overall
//        (radix_histogram.cuh); tile ids come from the ticket, so the earlier tiles have started;
//        it comes after the ranking so that the tiles before have had time to publish prefixes;
//      - reduce-then-scan: read from the exclusive scan of every tile's counts (digit-major);
//   5. copies the keys from shared memory to the output, neighbouring threads storing neighbouring
//      positions of one digit's run; then the values the same way (the values of argsort's first
//      pass that runs are the keys' indices, generated here).
// Full tiles and the last, partial one are compiled apart: the full ones test no bounds.
//
// Memory order: the look-back communicates only counts, each in the same single-copy-atomic word
// as its status (multi_channel_tile_state.cuh). Keys and values written here, and the trivial
// mask, are read only by later launches (stream order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/sort/packed_fields.cuh"
#include "scankit/device/sort/radix_digits.cuh"
#include "scankit/device/sort/radix_pass_route.cuh"
#include "scankit/device/sort/radix_rank.cuh"
#include "scankit/device/tile/channel_look_back.cuh"
#include "scankit/device/tile/multi_channel_tile_state.cuh"
#include "scankit/device/tile/tile_extent.cuh"
#include "scankit/device/tile/tile_ticket.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/l2_prefetch.cuh"

namespace scankit::device_detail {

enum class radix_offsets_source { onesweep, reduce_then_scan };

template <class Key, class Value, class BitKey>
struct radix_pass_args {
  // The sort's source and its two buffers (whole arrays); radix_pass_route.cuh says which one
  // this pass reads and writes.
  const Key* keys_source;
  Key* key_buffers[2];
  const Value* values_source;  // null: the keys' indices (argsort's first pass that runs)
  Value* value_buffers[2];
  long long first;  // this launch's first key (one portion of the array)
  long long n;      // keys in this launch (at most, with a device count)
  // The sort's count in device memory (device_count.cuh) and its bound, or nullptr: the launch
  // then takes the keys of [first, first + n) below the count.
  const std::int64_t* n_device;
  long long bound;
  radix_digit<Key, BitKey> digit;
  // Bit p: pass p's digit is the same for every key (written by radix_digit_starts_kernel);
  // null: every pass runs (reduce-then-scan).
  const unsigned* trivial_passes;
  int pass;
  int passes;
  bool double_buffered;
  // onesweep: where each digit's keys of this launch start in the output, and (written by the
  // launch's last tile) where they start for the next launch.
  const unsigned long long* digit_starts;
  unsigned long long* next_digit_starts;
  // reduce-then-scan: the exclusive scan of the tiles' counts, [digit][tile].
  const unsigned long long* tile_offsets;
  // onesweep: the look-back.
  single_pass_header* header;
  multi_channel_tile_state<unsigned> state;
  std::size_t region_slots;
  unsigned tiles;
  look_back_backoff backoff;
};

// The arrays one pass reads and writes (its route).
template <class Key, class Value>
struct radix_pass_arrays {
  const Key* keys_in;  // this launch's keys (offset to its first key)
  Key* keys_out;       // the whole output array
  const Value* values_in;  // this launch's values; null: the keys' indices
  Value* values_out;
};

template <class Policy, class Value>
struct radix_pass_storage {
  using block_scan = block_scan_warp_of_warps<unsigned, Policy::block_threads>;
  static constexpr int value_digits = std::is_same_v<Value, radix_no_values> ? 1 : Policy::radix;
  unsigned warp_counts[Policy::warps][Policy::radix];  // counts, then exclusive over the warps
  // Per digit, the address in the output of the keys' (values') element that tile index 0 would
  // take: a key's store then costs one multiply-add for its address, where a 64-bit position
  // would cost an add and a shift of 64 bits (radix_slot). Addresses as integers, since tile
  // index 0 of a digit may lie before the array's start.
  std::uintptr_t key_dest[Policy::radix];
  std::uintptr_t value_dest[value_digits];
  typename block_scan::storage scan;
  tile_ticket ticket;
  unsigned single_digit;  // the digit of every key of a full tile, or Policy::radix
};

// Whether a pass pads its exchange (radix_exchange_slot): keys-only sorts do; with values the
// slots cost registers that the tuned pair shapes do not have (spills), and pairs were measured
// faster without (docs/notes/2026-12-01-radix-sort-second-round.md).
template <class Key, class Value>
constexpr bool radix_pads_exchange() {
  return std::is_same_v<Value, radix_no_values>;
}

// The exchange's bytes: the tile's keys (then values) in sorted order.
template <class Policy, class Key, class Value>
constexpr std::size_t radix_exchange_only_bytes() {
  constexpr std::size_t value_bytes = std::is_same_v<Value, radix_no_values> ? 0 : sizeof(Value);
  constexpr std::size_t item_bytes = sizeof(Key) > value_bytes ? sizeof(Key) : value_bytes;
  constexpr int padding = radix_pads_exchange<Key, Value>() ? Policy::tile_items / 32 : 0;
  return static_cast<std::size_t>(Policy::tile_items + padding) * item_bytes;
}

// Dynamic shared memory of a pass: the exchange, then the rank's mask words (radix_rank.cuh),
// zeroed once per block and left zero by the rank.
template <class Policy, class Key, class Value>
constexpr std::size_t radix_exchange_bytes() {
  return with_rank_masks<Policy>(radix_exchange_only_bytes<Policy, Key, Value>());
}

// The rank's mask words of a pass (Policy::rank_by_atomic_or).
template <class Policy, class Key, class Value>
__device__ __forceinline__ unsigned* radix_pass_masks(unsigned char* exchange_bytes) {
  return reinterpret_cast<unsigned*>(exchange_bytes +
                                     rank_masks_offset<Policy>(radix_exchange_only_bytes<Policy, Key, Value>()));
}

// The output element of tile index `index` for a digit whose destination address is `dest`.
template <class T>
__device__ __forceinline__ T& radix_slot(std::uintptr_t dest, int index) {
  return *reinterpret_cast<T*>(dest + static_cast<std::uintptr_t>(static_cast<unsigned>(index)) * sizeof(T));
}

// Value of item `index` of the launch (argsort's generated indices when values_in is null).
template <class Key, class Value, class BitKey>
__device__ __forceinline__ Value radix_load_value(const radix_pass_args<Key, Value, BitKey>& args,
                                                  const radix_pass_arrays<Key, Value>& arrays, long long index) {
  if constexpr (std::is_integral_v<Value>) {
    return arrays.values_in != nullptr ? arrays.values_in[index] : static_cast<Value>(args.first + index);
  } else {
    return arrays.values_in[index];
  }
}

// Step 4 of a tile: s.key_dest[d] (and s.value_dest[d]) = the address in the output of the tile's
// keys (values) of digit d, less the tile index where they start (digit_start, this thread's
// digit for threadIdx.x < radix). Ends with a block barrier after the block's last access to the
// tile states.
template <class Policy, radix_offsets_source Source, class Key, class Value, class BitKey>
__device__ __forceinline__ void radix_find_digit_bases(const radix_pass_args<Key, Value, BitKey>& args,
                                                       const radix_pass_arrays<Key, Value>& arrays,
                                                       radix_pass_storage<Policy, Value>& s, tile_ticket ticket,
                                                       unsigned count, unsigned digit_start) {
  if (threadIdx.x < Policy::radix) {
    unsigned long long before;
    if constexpr (Source == radix_offsets_source::onesweep) {
      const auto state = args.state.with_epoch(ticket.epoch);
      unsigned earlier = 0;
      if (ticket.tile != 0) earlier = channel_look_back<Policy::look_back_window>(state, ticket.tile, threadIdx.x, args.backoff);
      state.publish(ticket.tile, threadIdx.x, flag_prefix, earlier + count);
      before = args.digit_starts[threadIdx.x] + earlier;
      if (ticket.tile == args.tiles - 1 && args.next_digit_starts != nullptr) {
        args.next_digit_starts[threadIdx.x] = before + count;
      }
    } else {
      before = args.tile_offsets[static_cast<std::size_t>(threadIdx.x) * args.tiles + ticket.tile];
    }
    const long long base = static_cast<long long>(before) - static_cast<long long>(digit_start);
    s.key_dest[threadIdx.x] = reinterpret_cast<std::uintptr_t>(arrays.keys_out) + base * sizeof(Key);
    if constexpr (!std::is_same_v<Value, radix_no_values>) {
      s.value_dest[threadIdx.x] = reinterpret_cast<std::uintptr_t>(arrays.values_out) + base * sizeof(Value);
    }
  }
  __syncthreads();
  if constexpr (Source == radix_offsets_source::onesweep) {
    // Every thread's last state access is before the barrier above.
    if (threadIdx.x == 0) finish_tile_states(args.header, ticket, args.tiles, args.state.slots, args.region_slots);
  }
}

template <class Policy, radix_offsets_source Source, bool Full, class Key, class Value, class BitKey>
__device__ __forceinline__ void radix_pass_tile(const radix_pass_args<Key, Value, BitKey>& args,
                                                const radix_pass_arrays<Key, Value>& arrays,
                                                radix_pass_storage<Policy, Value>& s, unsigned char* exchange_bytes,
                                                tile_ticket ticket, int valid) {
  constexpr int B = Policy::block_threads;
  constexpr int I = Policy::items_per_thread;
  constexpr int R = Policy::radix;
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  using storage_t = radix_pass_storage<Policy, Value>;
  const long long tile_base = static_cast<long long>(ticket.tile) * Policy::tile_items;
  const int warp = warp_id();
  const int first = warp * 32 * I + lane_id();  // tile index of this thread's item 0; item j at + 32 j
  const auto in_tile = [&](int j) { return Full || first + 32 * j < valid; };

  // 1. Load, then count, in two loops: written as one, the compiler emits each key's load after
  // the previous key's atomic, and the loads no longer overlap.
  Key keys[I];
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (in_tile(j)) keys[j] = arrays.keys_in[tile_base + first + 32 * j];
  }
  packed_fields<I, 8> digits;
#pragma unroll
  for (int j = 0; j < I; ++j) {
    unsigned digit = 0;  // beyond the tile: never counted, never ranked (in_tile)
    if (in_tile(j)) {
      digit = args.digit(keys[j]);
      atomicAdd(&s.warp_counts[warp][digit], 1u);
    }
    digits.set(j, digit);
  }
  __syncthreads();

  // 2. The tile's digit counts, published (onesweep); warp counts become exclusive over the warps.
  // Thread d < R owns digit d. A full tile whose keys all share one digit says so.
  unsigned count = 0;
  if (threadIdx.x < R) {
#pragma unroll
    for (int w = 0; w < Policy::warps; ++w) {
      const unsigned c = s.warp_counts[w][threadIdx.x];
      s.warp_counts[w][threadIdx.x] = count;
      count += c;
    }
    if constexpr (Source == radix_offsets_source::onesweep) {
      if (ticket.tile != 0) args.state.with_epoch(ticket.epoch).publish(ticket.tile, threadIdx.x, flag_aggregate, count);
    }
    if (Full && count == Policy::tile_items) s.single_digit = threadIdx.x;
  }

  // 3. Where each digit starts in the tile (the scan's barriers also publish s.single_digit).
  const block_scan_result<unsigned> starts = storage_t::block_scan::scan(count, s.scan, plus_op{});
  const unsigned digit_start = threadIdx.x == 0 ? 0u : starts.exclusive;

  if constexpr (Full) {
    const unsigned single = s.single_digit;
    if (single < R) {
      // One digit: the tile's order is already its sorted order. Straight to the output, keys and
      // values from the registers, no ranking.
      radix_find_digit_bases<Policy, Source>(args, arrays, s, ticket, count, digit_start);
      const std::uintptr_t key_dest = s.key_dest[single];
#pragma unroll
      for (int j = 0; j < I; ++j) radix_slot<Key>(key_dest, first + 32 * j) = keys[j];
      if constexpr (has_values) {
        Value values[I];  // all loads before the first store (the arrays might alias, for all the compiler knows)
#pragma unroll
        for (int j = 0; j < I; ++j) values[j] = radix_load_value(args, arrays, tile_base + first + 32 * j);
        const std::uintptr_t value_dest = s.value_dest[single];
#pragma unroll
        for (int j = 0; j < I; ++j) radix_slot<Value>(value_dest, first + 32 * j) = values[j];
      }
      return;
    }
  }

  // Ranks: every (warp, digit) from where it starts in the tile; keys into shared memory.
  if (threadIdx.x < R) {
#pragma unroll
    for (int w = 0; w < Policy::warps; ++w) s.warp_counts[w][threadIdx.x] += digit_start;
  }
  __syncthreads();
  packed_fields<I, 16> positions;
  unsigned* warp_masks = nullptr;
  if constexpr (Policy::rank_by_atomic_or) {
    warp_masks = radix_pass_masks<Policy, Key, Value>(exchange_bytes) + warp * Policy::radix;
  }
  warp_rank_digits<I, Policy::radix_bits, Full, radix_pads_exchange<Key, Value>(), decltype(in_tile),
                   Policy::rank_by_atomic_or>(digits, positions, s.warp_counts[warp], in_tile, I, warp_masks);
  Key* exchange_keys = reinterpret_cast<Key*>(exchange_bytes);
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (in_tile(j)) exchange_keys[positions.get(j)] = keys[j];  // positions are exchange slots when padded
  }

  // 4. Where the tile's keys of each digit go.
  radix_find_digit_bases<Policy, Source>(args, arrays, s, ticket, count, digit_start);

  // 5. Keys out, then values.
  constexpr bool pad = radix_pads_exchange<Key, Value>();
  packed_fields<I, 8> out_digits;
#pragma unroll
  for (int k = 0; k < I; ++k) {
    const int index = k * B + static_cast<int>(threadIdx.x);
    unsigned digit = 0;
    if (Full || index < valid) {
      const Key key = exchange_keys[pad ? radix_exchange_slot(index) : index];
      digit = args.digit(key);
      radix_slot<Key>(s.key_dest[digit], index) = key;
    }
    if constexpr (has_values) out_digits.set(k, digit);
  }
  if constexpr (has_values) {
    Value values[I];
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (in_tile(j)) values[j] = radix_load_value(args, arrays, tile_base + first + 32 * j);
    }
    __syncthreads();  // every key has left the exchange
    Value* exchange_values = reinterpret_cast<Value*>(exchange_bytes);
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (in_tile(j)) exchange_values[positions.get(j)] = values[j];  // unpadded with values
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < I; ++k) {
      const int index = k * B + static_cast<int>(threadIdx.x);
      if (Full || index < valid) {
        radix_slot<Value>(s.value_dest[out_digits.get(k)], index) = exchange_values[index];
      }
    }
  }
}

// The L2 prefetch of a later tile (Policy::prefetch_tiles_ahead): one bulk request per array,
// each by one thread of its own warp.
template <class Policy, class Key, class Value>
__device__ __forceinline__ void radix_prefetch_ahead(const radix_pass_arrays<Key, Value>& arrays, long long n,
                                                     unsigned tile) {
  if constexpr (Policy::prefetch_tiles_ahead > 0) {
    const long long ahead = (static_cast<long long>(tile) + Policy::prefetch_tiles_ahead) * Policy::tile_items;
    if (ahead + Policy::tile_items <= n) {
      if (threadIdx.x == 32) prefetch_l2(arrays.keys_in + ahead, Policy::tile_items * sizeof(Key));
      if constexpr (!std::is_same_v<Value, radix_no_values>) {
        if (threadIdx.x == 64 && arrays.values_in != nullptr) {
          prefetch_l2(arrays.values_in + ahead, Policy::tile_items * sizeof(Value));
        }
      }
    }
  }
}

template <class Policy, radix_offsets_source Source, class Key, class Value, class BitKey>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks_per_sm)
    radix_pass_kernel(const radix_pass_args<Key, Value, BitKey> args) {
  __shared__ radix_pass_storage<Policy, Value> s;
  extern __shared__ __align__(16) unsigned char exchange_bytes[];
  // Every thread works out the pass's route itself (one broadcast load and a few operations).
  const radix_pass_route route = route_radix_pass(args.trivial_passes != nullptr ? *args.trivial_passes : 0u,
                                                  args.pass, args.passes, args.double_buffered);
  if (threadIdx.x == 0) {
    s.ticket = Source == radix_offsets_source::onesweep ? draw_tile_ticket(args.header, args.tiles)
                                                        : tile_ticket{blockIdx.x, 0};
    s.single_digit = Policy::radix;
  }
  for (int i = threadIdx.x; i < Policy::warps * Policy::radix; i += Policy::block_threads) {
    (&s.warp_counts[0][0])[i] = 0;
    if constexpr (Policy::rank_by_atomic_or) {
      radix_pass_masks<Policy, Key, Value>(exchange_bytes)[i] = 0;
    }
  }
  __syncthreads();
  const tile_ticket ticket = s.ticket;
  // This launch's keys: all n, or those of them below a count read on the device.
  long long n = args.n;
  if (args.n_device != nullptr) {
    const long long left = items_to_process(args.bound, args.n_device) - args.first;
    n = left < 0 ? 0 : (left < n ? left : n);
  }
  // A skipped pass, or a tile past the device count: no tile state is touched.
  if (!route.run || static_cast<long long>(ticket.tile) * Policy::tile_items >= n) {
    if constexpr (Source == radix_offsets_source::onesweep) {
      if (threadIdx.x == 0) finish_tile_states(args.header, ticket, args.tiles, args.state.slots, args.region_slots);
    }
    return;
  }
  radix_pass_arrays<Key, Value> arrays;
  arrays.keys_in = (route.read < 0 ? args.keys_source : route.read == 0 ? args.key_buffers[0] : args.key_buffers[1]) +
                   args.first;
  arrays.keys_out = route.write == 0 ? args.key_buffers[0] : args.key_buffers[1];
  arrays.values_in = nullptr;
  arrays.values_out = nullptr;
  if constexpr (!std::is_same_v<Value, radix_no_values>) {
    const Value* values = route.read < 0 ? args.values_source : route.read == 0 ? args.value_buffers[0] : args.value_buffers[1];
    arrays.values_in = values != nullptr ? values + args.first : nullptr;
    arrays.values_out = route.write == 0 ? args.value_buffers[0] : args.value_buffers[1];
  }
  const long long remaining = n - static_cast<long long>(ticket.tile) * Policy::tile_items;
  radix_prefetch_ahead<Policy>(arrays, n, ticket.tile);
  if (remaining >= Policy::tile_items) {
    radix_pass_tile<Policy, Source, true>(args, arrays, s, exchange_bytes, ticket, Policy::tile_items);
  } else {
    radix_pass_tile<Policy, Source, false>(args, arrays, s, exchange_bytes, ticket, static_cast<int>(remaining));
  }
}

// Reduce-then-scan, step 1 of a pass: counts[digit * tiles + tile] = the tile's keys with that
// digit (Policy's tiles).
template <class Policy, class Key, class BitKey>
__global__ void __launch_bounds__(Policy::block_threads)
    radix_tile_counts_kernel(const Key* keys, long long n, radix_digit<Key, BitKey> digit, unsigned tiles,
                             unsigned long long* counts) {
  __shared__ unsigned histogram[Policy::radix];
  for (int i = threadIdx.x; i < Policy::radix; i += Policy::block_threads) histogram[i] = 0;
  __syncthreads();
  const auto [base, valid] = tile_extent_of<Policy::tile_items>(blockIdx.x, n);
  for (int i = threadIdx.x; i < valid; i += Policy::block_threads) atomicAdd(&histogram[digit(keys[base + i])], 1u);
  __syncthreads();
  for (int d = threadIdx.x; d < Policy::radix; d += Policy::block_threads) {
    counts[static_cast<std::size_t>(d) * tiles + blockIdx.x] = histogram[d];
  }
}

}  // namespace scankit::device_detail
