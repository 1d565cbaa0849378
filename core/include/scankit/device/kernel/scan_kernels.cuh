// Device layer: the register tile kernel, and the two helper kernels of the multi-launch
// strategies (scan_textbook.cuh).
//
//   scan_tiles_kernel   one tile per block: load, serial scan of K items per thread, block scan,
//                       tile prefix (from nowhere, a seed, an array of scanned totals, the
//                       predecessor (chained) or the look-back (decoupled)), store. It runs on
//                       every GPU and takes any input and output iterator.
//   reduce_tiles_kernel one total per tile (reduce-then-scan's first pass).
//   add_tile_prefix_kernel  three-launch's last pass.
#pragma once

#include <cstdint>
#include <iterator>
#include <type_traits>

#include "scankit/device/block/block_scan.cuh"
#include "scankit/device/block/tile_io.cuh"
#include "scankit/device/kernel/scan_tiles_args.cuh"
#include "scankit/device/thread/thread_scan.cuh"
#include "scankit/device/tile/tile_extent.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

template <class Policy, class T>
struct tile_kernel_storage {
  using io = tile_io<T, Policy::items_per_thread, Policy::block_threads>;
  using block_scan = block_scan_t<Policy::algorithm, T, Policy::block_threads>;
  typename io::storage io_storage;
  typename block_scan::storage scan_storage;
  tile_prefix_slots<T> slots;
};

// items[k] = in[base + threadIdx.x * K + k] converted to T (a partial tile repeats its first item
// past the end: those only feed results that are never stored). Contiguous arrays of T take
// tile_io's vector path; other iterators are read item by item.
template <class Io, int K, class T, class In>
__device__ __forceinline__ void load_tile(In in, long long base, int valid, T (&items)[K], typename Io::storage& s) {
  if constexpr (std::is_same_v<In, const T*>) {
    if (valid == Io::tile_items) {
      Io::load_full(in + base, items, s, Io::aligned(in));
    } else {
      Io::load_partial(in + base, items, valid);
    }
  } else {
    const long long first = base + static_cast<long long>(threadIdx.x) * K;
    const T filler = static_cast<T>(in[base]);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      items[k] = static_cast<int>(threadIdx.x) * K + k < valid ? static_cast<T>(in[first + k]) : filler;
    }
  }
}

template <class Io, int K, class T, class Out>
__device__ __forceinline__ void store_tile(Out out, long long base, int valid, const T (&items)[K],
                                           typename Io::storage& s) {
  if constexpr (std::is_same_v<Out, T*>) {
    if (valid == Io::tile_items) {
      Io::store_full(out + base, items, s, Io::aligned(out));
    } else {
      Io::store_partial(out + base, items, valid);
    }
  } else {
    const long long first = base + static_cast<long long>(threadIdx.x) * K;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (static_cast<int>(threadIdx.x) * K + k < valid) out[first + k] = items[k];
    }
  }
}

// The register cap of a tile kernel: the policy's, except for the deterministic look-back, whose
// window of aggregates spills under the 4-byte cap; it runs uncapped (docs/tuning.md).
template <class Policy, tile_prefix_source Source>
constexpr int scan_tiles_min_blocks_per_sm() {
  return Source == tile_prefix_source::deterministic_look_back ? 0 : Policy::min_blocks_per_sm;
}

template <class Policy, tile_prefix_source Source, class T, class In, class Out, class Op>
__global__ void __launch_bounds__(Policy::block_threads, (scan_tiles_min_blocks_per_sm<Policy, Source>()))
    scan_tiles_kernel(const scan_tiles_args<T, In, Out> args, Op op) {
  constexpr int K = Policy::items_per_thread;
  constexpr bool single_pass = Source != tile_prefix_source::independent;
  using storage_t = tile_kernel_storage<Policy, T>;
  using io = typename storage_t::io;
  using block_scan = typename storage_t::block_scan;
  using prefix_op = tile_prefix_op<T, Op, look_back_shape_for<Source>, false>;  // scans fence nothing else
  __shared__ storage_t s;
  __shared__ long long device_n;  // the count read on the device, when there is one

  if (single_pass || args.n_device != nullptr) {
    if (threadIdx.x == 0) {
      const long long n = items_to_process(args.n, args.n_device);  // loaded before the ticket: both in flight
      if constexpr (single_pass) s.slots.ticket = args.pass.draw();
      if (args.n_device != nullptr) device_n = n;
    }
    __syncthreads();
  }
  // The tile id, from shared memory or the block index.
  const auto tile_id = [&]() -> long long {
    if constexpr (single_pass) {
      return s.slots.ticket.tile;
    } else {
      return blockIdx.x;
    }
  };
  const auto items = [&]() -> long long { return args.n_device != nullptr ? device_n : args.n; };
  const long long tile = tile_id();
  if (args.n_device != nullptr && tile >= tiles_of<Policy::tile_items>(device_n)) {
    leave_past_count(args.pass, single_pass, s.slots.ticket);
    return;
  }
  const tile_extent extent = tile_extent_of<Policy::tile_items>(tile, items());

  T values[K];
  load_tile<io>(args.in, extent.base, extent.valid, values, s.io_storage);
  const block_scan_result<T> scanned = block_scan::scan(thread_reduce(values, op), s.scan_storage, op);

  optional_prefix<T> tile_prefix;
  if constexpr (single_pass) {
    // Made here, not with the ticket: the epoch comes from shared memory instead of occupying a
    // register through the load and the block scan.
    const prefix_op prefix(args.pass, s.slots.ticket, op, args.has_seed, args.seed);
    tile_prefix = prefix.template resolve<whole_block_barrier>(scanned.aggregate, s.slots.prefix);
  } else {
    tile_prefix = independent_tile_prefix(args, tile, scanned.aggregate);
  }
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
      thread_exclusive_scan(values, prefix, op);
    } else {
      thread_exclusive_scan_unseeded(values, op);  // item 0 is fixed up by the caller's next pass
    }
  } else {
    if (has_prefix) {
      thread_inclusive_scan(values, prefix, op);
    } else {
      thread_inclusive_scan(values, op);
    }
  }
  // Register-capped shapes (a minimum of blocks per SM) read the tile id again for the store:
  // the extent kept live across the block scan and the look-back spills there.
  constexpr bool capped = scan_tiles_min_blocks_per_sm<Policy, Source>() > 0;
  const tile_extent out_extent = capped ? tile_extent_of<Policy::tile_items>(tile_id(), items()) : extent;
  store_tile<io>(args.out, out_extent.base, out_extent.valid, values, s.io_storage);
}

template <class Policy, class T, class In, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    reduce_tiles_kernel(In in, long long n, T* tile_totals, Op op) {
  constexpr int K = Policy::items_per_thread;
  using storage_t = tile_kernel_storage<Policy, T>;
  using io = typename storage_t::io;
  __shared__ storage_t s;
  const auto [base, valid] = tile_extent_of<Policy::tile_items>(blockIdx.x, n);
  T items[K];
  load_tile<io>(in, base, valid, items, s.io_storage);
  const block_scan_result<T> scanned = storage_t::block_scan::scan(thread_reduce(items, op), s.scan_storage, op);
  if (threadIdx.x == 0) tile_totals[blockIdx.x] = scanned.aggregate;
}

// Three-launch, last pass: out[i] = prefix op out[i] over tile `first_tile + blockIdx.x`, where
// the prefix is the tile's entry in the scanned totals. For an exclusive scan the tile's first
// item (left unset by the first pass) becomes the prefix itself. The output must be readable:
// three-launch scans into an array of T.
template <class Policy, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
    add_tile_prefix_kernel(T* out, long long n, const T* scanned_totals, bool exclusive, long long first_tile, Op op) {
  const long long tile = first_tile + blockIdx.x;
  const T prefix = exclusive ? scanned_totals[tile] : scanned_totals[tile - 1];
  const auto [base, valid] = tile_extent_of<Policy::tile_items>(tile, n);
  for (int i = static_cast<int>(threadIdx.x); i < valid; i += Policy::block_threads) {
    T& item = out[base + i];
    item = (exclusive && i == 0) ? prefix : op(prefix, item);
  }
}

}  // namespace scankit::device_detail
