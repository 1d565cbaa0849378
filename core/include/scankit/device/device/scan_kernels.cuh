// Device layer: the kernels every scan strategy is assembled from.
//
//   scan_tiles_kernel   one tile per block: load, serial scan of K items per thread, block scan,
//                       tile prefix (from nowhere, a seed, an array of scanned totals, the
//                       predecessor (chained) or the look-back (decoupled)), store.
//   reduce_tiles_kernel one total per tile (reduce-then-scan's first pass).
//   add_tile_prefix_kernel  three-launch's last pass.
#pragma once

#include <cstdint>

#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/block/tile_io.cuh"
#include "scankit/device/thread/thread_scan.cuh"
#include "scankit/device/tile/look_back.cuh"
#include "scankit/device/tile/tile_state.cuh"
#include "scankit/device/tile/tile_ticket.cuh"

namespace scankit::device_detail {

// Where a tile's prefix comes from.
enum class tile_prefix_source {
  independent,         // none, or args.seed (tile 0), or args.tile_prefixes (scanned totals)
  chained,             // the predecessor's published inclusive prefix
  decoupled_look_back, // the look-back over published aggregates and prefixes
  deterministic_look_back  // a look-back with a fixed association (group leaders publish prefixes)
};

// Tiles per group of the deterministic look-back: one leader-to-leader hop per group. At about
// 0.7 us per hop and 8 ns of copy time per 16 KiB tile on the H200, 256 tiles per hop keeps the
// chain well under the memory time.
constexpr int deterministic_group_tiles = 256;

template <class T>
struct scan_tiles_args {
  const T* in;
  T* out;
  long long n;
  long long tiles;
  bool exclusive;             // write exclusive results (out[i] excludes in[i])
  bool has_seed;              // `seed` goes in front of everything (exclusive scan's init)
  T seed;
  const T* tile_prefixes;     // independent: scanned tile totals, or nullptr
  bool tile_prefixes_exclusive;  // prefix of tile t is tile_prefixes[t] (else tile_prefixes[t-1], t > 0)
  T* tile_totals;             // independent: each tile's aggregate is written here, or nullptr
  std::uint32_t* ticket;      // single pass: tile ticket counter
  tile_state<T> state;        // single pass: published tile states
  look_back_backoff backoff;
};

template <class Policy, class T>
struct tile_kernel_storage {
  using io = tile_io<T, Policy::items_per_thread, Policy::block_threads>;
  using block_scan = block_scan_t<Policy::algorithm, T, Policy::block_threads>;
  typename io::storage io_storage;
  typename block_scan::storage scan_storage;
  T tile_prefix;
  std::uint32_t tile_id;
};

template <class Policy, tile_prefix_source Source, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads) scan_tiles_kernel(scan_tiles_args<T> args, Op op) {
  constexpr int K = Policy::items_per_thread;
  using storage_t = tile_kernel_storage<Policy, T>;
  using io = typename storage_t::io;
  using block_scan = typename storage_t::block_scan;
  __shared__ storage_t s;

  long long tile;
  if constexpr (Source == tile_prefix_source::independent) {
    tile = blockIdx.x;
  } else {
    if (threadIdx.x == 0) s.tile_id = draw_tile_ticket(args.ticket, static_cast<std::uint32_t>(args.tiles));
    __syncthreads();
    tile = s.tile_id;
  }

  const long long base = tile * Policy::tile_items;
  const long long remaining = args.n - base;
  const int valid = remaining < Policy::tile_items ? static_cast<int>(remaining) : Policy::tile_items;
  const bool full = valid == Policy::tile_items;

  T items[K];
  if (full) {
    io::load_full(args.in + base, items, s.io_storage, io::aligned(args.in));
  } else {
    io::load_partial(args.in + base, items, valid);
  }

  const block_scan_result<T> scanned = block_scan::scan(thread_reduce(items, op), s.scan_storage, op);

  // The tile's exclusive prefix, if it has one.
  bool has_tile_prefix = false;
  T tile_prefix = scanned.aggregate;  // any value; only read when has_tile_prefix
  if constexpr (Source == tile_prefix_source::independent) {
    if (args.tile_prefixes != nullptr) {
      if (args.tile_prefixes_exclusive) {
        has_tile_prefix = true;
        tile_prefix = args.tile_prefixes[tile];
      } else if (tile > 0) {
        has_tile_prefix = true;
        tile_prefix = args.tile_prefixes[tile - 1];
      }
    } else if (args.has_seed && tile == 0) {
      has_tile_prefix = true;
      tile_prefix = args.seed;
    }
    if (args.tile_totals != nullptr && threadIdx.x == 0) args.tile_totals[tile] = scanned.aggregate;
  } else {
    if (tile == 0) {
      has_tile_prefix = args.has_seed;
      tile_prefix = args.seed;
      if (threadIdx.x == 0) {
        args.state.publish(0, flag_prefix, args.has_seed ? op(args.seed, scanned.aggregate) : scanned.aggregate);
      }
    } else {
      if constexpr (Source == tile_prefix_source::decoupled_look_back) {
        if (threadIdx.x < 32) {
          if (threadIdx.x == 0) args.state.publish(tile, flag_aggregate, scanned.aggregate);
          const T prefix = decoupled_look_back<T>(args.state, tile, op, args.backoff);
          if (threadIdx.x == 0) {
            args.state.publish(tile, flag_prefix, op(prefix, scanned.aggregate));
            s.tile_prefix = prefix;
          }
        }
      } else if constexpr (Source == tile_prefix_source::deterministic_look_back) {
        if (threadIdx.x < 32) {
          const bool leader = tile % deterministic_group_tiles == 0;
          if (threadIdx.x == 0 && !leader) args.state.publish(tile, flag_aggregate, scanned.aggregate);
          const T prefix = deterministic_look_back<deterministic_group_tiles, T>(args.state, tile, op, args.backoff);
          if (threadIdx.x == 0) {
            if (leader) args.state.publish(tile, flag_prefix, op(prefix, scanned.aggregate));
            s.tile_prefix = prefix;
          }
        }
      } else {
        if (threadIdx.x == 0) {
          const T prefix = chained_wait_for_predecessor<T>(args.state, tile, args.backoff);
          args.state.publish(tile, flag_prefix, op(prefix, scanned.aggregate));
          s.tile_prefix = prefix;
        }
      }
      __syncthreads();
      has_tile_prefix = true;
      tile_prefix = s.tile_prefix;
    }
  }

  // This thread's prefix: the tile prefix and the totals of the threads before it.
  bool has_prefix = has_tile_prefix;
  T prefix = tile_prefix;
  if (threadIdx.x > 0) {
    prefix = has_tile_prefix ? op(tile_prefix, scanned.exclusive) : scanned.exclusive;
    has_prefix = true;
  }

  if (args.exclusive) {
    if (has_prefix) {
      thread_exclusive_scan(items, prefix, op);
    } else {
      thread_exclusive_scan_unseeded(items, op);  // item 0 is fixed up by the caller's next pass
    }
  } else {
    if (has_prefix) {
      thread_inclusive_scan(items, prefix, op);
    } else {
      thread_inclusive_scan(items, op);
    }
  }

  if (full) {
    io::store_full(args.out + base, items, s.io_storage, io::aligned(args.out));
  } else {
    io::store_partial(args.out + base, items, valid);
  }
}

template <class Policy, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    reduce_tiles_kernel(const T* in, long long n, T* tile_totals, Op op) {
  constexpr int K = Policy::items_per_thread;
  using storage_t = tile_kernel_storage<Policy, T>;
  using io = typename storage_t::io;
  __shared__ storage_t s;
  const long long base = static_cast<long long>(blockIdx.x) * Policy::tile_items;
  const long long remaining = n - base;
  T items[K];
  if (remaining >= Policy::tile_items) {
    io::load_full(in + base, items, s.io_storage, io::aligned(in));
  } else {
    io::load_partial(in + base, items, static_cast<int>(remaining));
  }
  const block_scan_result<T> scanned = storage_t::block_scan::scan(thread_reduce(items, op), s.scan_storage, op);
  if (threadIdx.x == 0) tile_totals[blockIdx.x] = scanned.aggregate;
}

// Three-launch, last pass: out[i] = prefix op out[i] over tile `first_tile + blockIdx.x`, where
// the prefix is the tile's entry in the scanned totals. For an exclusive scan the tile's first
// item (left unset by the first pass) becomes the prefix itself.
template <class Policy, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    add_tile_prefix_kernel(T* out, long long n, const T* scanned_totals, bool exclusive, long long first_tile, Op op) {
  const long long tile = first_tile + blockIdx.x;
  const T prefix = exclusive ? scanned_totals[tile] : scanned_totals[tile - 1];
  const long long base = tile * Policy::tile_items;
  const long long remaining = n - base;
  const int valid = remaining < Policy::tile_items ? static_cast<int>(remaining) : Policy::tile_items;
  for (int i = static_cast<int>(threadIdx.x); i < valid; i += Policy::block_threads) {
    T& item = out[base + i];
    item = (exclusive && i == 0) ? prefix : op(prefix, item);
  }
}

}  // namespace scankit::device_detail
