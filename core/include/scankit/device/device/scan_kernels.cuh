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
#include "scankit/device/device/tile_prefix.cuh"
#include "scankit/device/thread/thread_scan.cuh"
#include "scankit/device/tile/tile_ticket.cuh"

namespace scankit::device_detail {

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

  const optional_prefix<T> tile_prefix =
      resolve_tile_prefix<Source>(args, tile, scanned.aggregate, op, s.tile_prefix);
  const bool has_tile_prefix = tile_prefix.present;

  // This thread's prefix: the tile prefix and the totals of the threads before it.
  bool has_prefix = has_tile_prefix;
  T prefix = tile_prefix.value;
  if (threadIdx.x > 0) {
    prefix = has_tile_prefix ? op(tile_prefix.value, scanned.exclusive) : scanned.exclusive;
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
