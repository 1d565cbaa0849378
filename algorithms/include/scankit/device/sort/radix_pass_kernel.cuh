// Device layer of the radix sort: one digit pass, tile by tile.
//
// Each block takes one tile of Policy::tile_items keys and
//   1. loads them (each warp a contiguous run) and counts them per warp and digit (shared atomics);
//   2. turns the warp counts into the tile's digit counts, and publishes them at once (onesweep):
//      later tiles can pass this one in their look-back while it still ranks its keys;
//   3. by a block scan over the digits, gives every (warp, digit) the tile index where its keys
//      start, and ranks the keys from there (radix_rank.cuh), writing them into shared memory in
//      sorted order;
//   4. finds where each digit's keys of this tile start in the output:
//      - onesweep: a decoupled look-back per digit over the earlier tiles (channel_look_back.cuh,
//        one thread per digit, all digits at once), added to where the digit starts overall
//        (radix_histogram.cuh); tile ids come from the ticket, so the earlier tiles have started;
//        it comes after the ranking so that the tiles before have had time to publish prefixes;
//      - reduce-then-scan: read from the exclusive scan of every tile's counts (digit-major);
//   5. copies the keys from shared memory to the output, neighbouring threads storing neighbouring
//      positions of one digit's run; then the values the same way (the values of argsort's first
//      pass are the keys' indices, generated here).
// Full tiles and the last, partial one are compiled apart: the full ones test no bounds.
//
// Memory order: the look-back communicates only counts, each in the same single-copy-atomic word
// as its status (multi_channel_tile_state.cuh). Keys and values written here are read only by the
// next launch (stream order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/sort/packed_fields.cuh"
#include "scankit/device/sort/radix_digits.cuh"
#include "scankit/device/sort/radix_rank.cuh"
#include "scankit/device/tile/channel_look_back.cuh"
#include "scankit/device/tile/multi_channel_tile_state.cuh"
#include "scankit/device/tile/tile_ticket.cuh"

namespace scankit::device_detail {

// The value type of a keys-only sort.
struct radix_no_values {};

enum class radix_offsets_source { onesweep, reduce_then_scan };

template <class Key, class Value, class BitKey>
struct radix_pass_args {
  const Key* keys_in;      // this launch's keys (one portion of the array)
  Key* keys_out;           // the whole output array
  const Value* values_in;  // this launch's values; null: the keys' indices (argsort's first pass)
  Value* values_out;
  long long n;             // keys in this launch
  long long index_base;    // index of keys_in[0] in the array (for generated indices)
  radix_digit<Key, BitKey> digit;
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

template <class Policy>
struct radix_pass_storage {
  using block_scan = block_scan_warp_of_warps<unsigned, Policy::block_threads>;
  unsigned warp_counts[Policy::warps][Policy::radix];  // counts, then exclusive over the warps
  unsigned digit_start[Policy::radix];                 // in the tile
  long long digit_base[Policy::radix];                 // output position of tile index 0, per digit
  typename block_scan::storage scan;
  tile_ticket ticket;
};

// Dynamic shared memory of a pass: the tile's keys (then values) in sorted order.
template <class Policy, class Key, class Value>
constexpr std::size_t radix_exchange_bytes() {
  constexpr std::size_t value_bytes = std::is_same_v<Value, radix_no_values> ? 0 : sizeof(Value);
  return static_cast<std::size_t>(Policy::tile_items) * (sizeof(Key) > value_bytes ? sizeof(Key) : value_bytes);
}

template <class Policy, radix_offsets_source Source, bool Full, class Key, class Value, class BitKey>
__device__ __forceinline__ void radix_pass_tile(const radix_pass_args<Key, Value, BitKey>& args,
                                                radix_pass_storage<Policy>& s, unsigned char* exchange_bytes,
                                                tile_ticket ticket, int valid) {
  constexpr int B = Policy::block_threads;
  constexpr int I = Policy::items_per_thread;
  constexpr int R = Policy::radix;
  constexpr bool has_values = !std::is_same_v<Value, radix_no_values>;
  using storage_t = radix_pass_storage<Policy>;
  const long long tile_base = static_cast<long long>(ticket.tile) * Policy::tile_items;
  const int warp = warp_id();
  const int first = warp * 32 * I + lane_id();  // tile index of this thread's item 0; item j at + 32 j
  const auto in_tile = [&](int j) { return Full || first + 32 * j < valid; };

  // 1. Load and count.
  Key keys[I];
  packed_fields<I, 8> digits;
#pragma unroll
  for (int j = 0; j < I; ++j) {
    unsigned digit = 0;  // beyond the tile: never counted, never ranked (in_tile)
    if (in_tile(j)) {
      keys[j] = args.keys_in[tile_base + first + 32 * j];
      digit = args.digit(keys[j]);
      atomicAdd(&s.warp_counts[warp][digit], 1u);
    }
    digits.set(j, digit);
  }
  __syncthreads();

  // 2. The tile's digit counts, published (onesweep); warp counts become exclusive over the warps.
  // Thread d < R owns digit d.
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
  }

  // 3. Where each (warp, digit) starts in the tile, then the ranks, keys into shared memory.
  const block_scan_result<unsigned> starts = storage_t::block_scan::scan(count, s.scan, plus_op{});
  const unsigned digit_start = threadIdx.x == 0 ? 0u : starts.exclusive;
  if (threadIdx.x < R) {
#pragma unroll
    for (int w = 0; w < Policy::warps; ++w) s.warp_counts[w][threadIdx.x] += digit_start;
  }
  __syncthreads();
  packed_fields<I, 16> positions;
  warp_rank_digits<I, Policy::radix_bits, Full>(digits, positions, s.warp_counts[warp], in_tile);
  Key* exchange_keys = reinterpret_cast<Key*>(exchange_bytes);
#pragma unroll
  for (int j = 0; j < I; ++j) {
    if (in_tile(j)) exchange_keys[positions.get(j)] = keys[j];
  }

  // 4. Where the tile's keys of each digit go.
  if (threadIdx.x < R) {
    unsigned long long before;
    if constexpr (Source == radix_offsets_source::onesweep) {
      const auto state = args.state.with_epoch(ticket.epoch);
      unsigned earlier = 0;
      if (ticket.tile != 0) earlier = channel_look_back(state, ticket.tile, threadIdx.x, args.backoff);
      state.publish(ticket.tile, threadIdx.x, flag_prefix, earlier + count);
      before = args.digit_starts[threadIdx.x] + earlier;
      if (ticket.tile == args.tiles - 1 && args.next_digit_starts != nullptr) {
        args.next_digit_starts[threadIdx.x] = before + count;
      }
    } else {
      before = args.tile_offsets[static_cast<std::size_t>(threadIdx.x) * args.tiles + ticket.tile];
    }
    s.digit_base[threadIdx.x] = static_cast<long long>(before) - static_cast<long long>(digit_start);
  }
  __syncthreads();
  if constexpr (Source == radix_offsets_source::onesweep) {
    // Every thread's last state access is before the barrier above.
    if (threadIdx.x == 0) finish_tile_states(args.header, ticket, args.tiles, args.state.slots, args.region_slots);
  }

  // 5. Keys out, then values.
  packed_fields<I, 8> out_digits;
#pragma unroll
  for (int k = 0; k < I; ++k) {
    const int index = k * B + static_cast<int>(threadIdx.x);
    unsigned digit = 0;
    if (Full || index < valid) {
      const Key key = exchange_keys[index];
      digit = args.digit(key);
      args.keys_out[s.digit_base[digit] + index] = key;
    }
    if constexpr (has_values) out_digits.set(k, digit);
  }
  if constexpr (has_values) {
    Value values[I];
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (in_tile(j)) {
        const long long index = tile_base + first + 32 * j;
        if constexpr (std::is_integral_v<Value>) {
          values[j] = args.values_in != nullptr ? args.values_in[index] : static_cast<Value>(args.index_base + index);
        } else {
          values[j] = args.values_in[index];
        }
      }
    }
    __syncthreads();  // every key has left the exchange
    Value* exchange_values = reinterpret_cast<Value*>(exchange_bytes);
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (in_tile(j)) exchange_values[positions.get(j)] = values[j];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < I; ++k) {
      const int index = k * B + static_cast<int>(threadIdx.x);
      if (Full || index < valid) args.values_out[s.digit_base[out_digits.get(k)] + index] = exchange_values[index];
    }
  }
}

template <class Policy, radix_offsets_source Source, class Key, class Value, class BitKey>
__global__ void __launch_bounds__(Policy::block_threads, Policy::min_blocks_per_sm)
    radix_pass_kernel(const radix_pass_args<Key, Value, BitKey> args) {
  __shared__ radix_pass_storage<Policy> s;
  extern __shared__ __align__(16) unsigned char exchange_bytes[];
  if (threadIdx.x == 0) {
    s.ticket = Source == radix_offsets_source::onesweep ? draw_tile_ticket(args.header, args.tiles)
                                                        : tile_ticket{blockIdx.x, 0};
  }
  for (int i = threadIdx.x; i < Policy::warps * Policy::radix; i += Policy::block_threads) {
    (&s.warp_counts[0][0])[i] = 0;
  }
  __syncthreads();
  const tile_ticket ticket = s.ticket;
  const long long remaining = args.n - static_cast<long long>(ticket.tile) * Policy::tile_items;
  if (remaining >= Policy::tile_items) {
    radix_pass_tile<Policy, Source, true>(args, s, exchange_bytes, ticket, Policy::tile_items);
  } else {
    radix_pass_tile<Policy, Source, false>(args, s, exchange_bytes, ticket, static_cast<int>(remaining));
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
  const long long base = static_cast<long long>(blockIdx.x) * Policy::tile_items;
  const long long remaining = n - base;
  const int valid = remaining < Policy::tile_items ? static_cast<int>(remaining) : Policy::tile_items;
  for (int i = threadIdx.x; i < valid; i += Policy::block_threads) atomicAdd(&histogram[digit(keys[base + i])], 1u);
  __syncthreads();
  for (int d = threadIdx.x; d < Policy::radix; d += Policy::block_threads) {
    counts[static_cast<std::size_t>(d) * tiles + blockIdx.x] = histogram[d];
  }
}

}  // namespace scankit::device_detail
