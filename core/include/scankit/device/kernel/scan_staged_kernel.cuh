// Device layer: the single-pass tile kernel with the tile staged in shared memory (sm_90 bulk
// copy), the default for 1-, 2-, 4-, 8- and 16-byte values on 16-byte-aligned arrays.
//
// Why a second tile kernel: the register kernel (scan_tiles_kernel) holds its whole tile in
// registers while warp 0 looks back, which limits it to 5 blocks per SM and leaves the memory
// system idle while blocks wait (ncu at 2^24: 56-63% of stalls at the post-look-back barrier).
// Here the tile waits in shared memory and each thread keeps only V partial values, so many more
// blocks (and their loads) are in flight per SM.
//
// Layout: the tile is V stripes of BlockThreads 16-byte chunks; thread t reads chunk t of each
// stripe (conflict-free shared-memory reads, coalesced 16-byte global stores). Each thread
// reduces its chunk of every stripe, one block scan of value_lanes<T, V> scans all stripes at
// once, and the stripes are chained in order: stripe v's prefix is the tile prefix followed by
// the totals of stripes 0..v-1.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "scankit/device/block/block_barrier.cuh"
#include "scankit/device/block/block_scan_warp_of_warps.cuh"
#include "scankit/device/block/tile_stage.cuh"
#include "scankit/device/kernel/scan_tiles_args.cuh"
#include "scankit/device/kernel/staged_input.cuh"
#include "scankit/device/thread/thread_scan.cuh"
#include "scankit/device/thread/value_lanes.cuh"
#include "scankit/device/util/device_count.cuh"

namespace scankit::device_detail {

// Value types the staged kernel takes: whole values per 16-byte chunk.
template <class T>
constexpr bool stageable = sizeof(T) <= 16 && 16 % sizeof(T) == 0;

template <class StagedPolicy, class T>
struct staged_shape {
  static_assert(stageable<T>, "the staged kernel needs a value size that divides 16 bytes");
  static constexpr int block_threads = StagedPolicy::block_threads;
  static constexpr int stripes = StagedPolicy::chunks_per_thread;
  static constexpr int items_per_chunk = 16 / static_cast<int>(sizeof(T));
  static constexpr int tile_items = block_threads * stripes * items_per_chunk;
};

// The barrier of the threads that scan: the whole block, or, beside a look-back warp, a named
// barrier that leaves that warp out.
template <class StagedPolicy>
using staged_scan_barrier = std::conditional_t<StagedPolicy::look_back_warp,
                                               named_block_barrier<StagedPolicy::block_threads>, whole_block_barrier>;

// Raw: the type of the staged input items (T itself, or what a staged_input transforms into T).
template <class StagedPolicy, class T, class Raw = T>
struct staged_kernel_storage {
  using shape = staged_shape<StagedPolicy, T>;
  using barrier = staged_scan_barrier<StagedPolicy>;
  using stage = tile_stage<Raw, shape::tile_items, shape::block_threads, barrier>;
  using lanes = value_lanes<T, shape::stripes>;
  using block_scan = block_scan_warp_of_warps<lanes, shape::block_threads, barrier>;
  typename stage::storage staged;
  typename block_scan::storage scan_storage;
  tile_prefix_slots<T> slots;
};

// The tile's total: the stripe totals combined in stripe order.
template <class T, int V, class Op>
__device__ __forceinline__ T combine_lanes(const value_lanes<T, V>& totals, Op op) {
  T total = totals.lane[0];
#pragma unroll
  for (int v = 1; v < V; ++v) total = op(total, totals.lane[v]);
  return total;
}

// The second half of both staged kernels: every thread scans its chunk of each stripe behind the
// stripe's prefix and stores it. Stripe v's prefix is the tile prefix followed by the totals of
// stripes 0..v-1; `exclusive_partials` is the block scan of the threads' stripe partials.
// `load_items(v, items)` fetches the thread's chunk of stripe v (from shared memory or registers);
// `stripe_total(v)` gives stripe v's total.
template <class Shape, class T, class In, class Op, class LoadItems, class StripeTotal>
__device__ __forceinline__ void store_scanned_stripes(const scan_tiles_args<T, In, T*>& args, long long n,
                                                      long long tile, const optional_prefix<T>& tile_prefix,
                                                      const value_lanes<T, Shape::stripes>& exclusive_partials, Op op,
                                                      LoadItems load_items, StripeTotal stripe_total) {
  constexpr int B = Shape::block_threads;
  constexpr int P = Shape::items_per_chunk;
  const int thread = static_cast<int>(threadIdx.x);
  const long long base = tile * Shape::tile_items;
  const long long remaining = n - base;
  const bool full = remaining >= Shape::tile_items;
  int4* out_chunks = reinterpret_cast<int4*>(args.out + base);

  bool has_stripe_prefix = tile_prefix.present;
  T stripe_prefix = tile_prefix.value;
#pragma unroll
  for (int v = 0; v < Shape::stripes; ++v) {
    bool has_prefix = has_stripe_prefix;
    T prefix = stripe_prefix;
    if (thread > 0) {  // thread 0's exclusive partial is undefined: nothing of the stripe precedes it
      prefix = has_prefix ? op(stripe_prefix, exclusive_partials.lane[v]) : exclusive_partials.lane[v];
      has_prefix = true;
    }
    T items[P];
    load_items(v, items);
    // Without a prefix this is thread 0 of stripe 0 of tile 0 with no seed: an inclusive scan
    // (exclusive scans always come with a seed here).
    if (args.exclusive) {
      thread_exclusive_scan(items, prefix, op);
    } else if (has_prefix) {
      thread_inclusive_scan(items, prefix, op);
    } else {
      thread_inclusive_scan(items, op);
    }
    if (full) {
      int4 chunk;
      memcpy(&chunk, items, 16);
      out_chunks[v * B + thread] = chunk;
    } else {
      const long long first = static_cast<long long>(v * B + thread) * P;
#pragma unroll
      for (int k = 0; k < P; ++k)
        if (first + k < remaining) args.out[base + first + k] = items[k];
    }
    const T total = stripe_total(v);
    stripe_prefix = has_stripe_prefix ? op(stripe_prefix, total) : total;
    has_stripe_prefix = true;
  }
}

// When each tile reaches each step of the staged kernel, for diagnostics (bench/tune_scan.cu
// `--trace`). The default probe records nothing and compiles to nothing.
enum class staged_step { ticket, loaded, aggregate_published, looked_back, handed_over, stored };
struct no_step_probe {
  __device__ __forceinline__ static void mark(long long, staged_step) {}
};

// With a look-back warp (StagedPolicy::look_back_warp), the block is BlockThreads scanning threads
// plus one warp that starts the look-back as soon as the ticket is drawn, while the tile is still
// loading and being scanned: a tile's exclusive prefix depends only on its predecessors, so the
// look-back need not wait for the tile's own aggregate. The scanning threads publish the
// aggregate the moment they have it (successors never wait for this tile's look-back), meet the
// look-back warp at one block barrier, and publish the inclusive prefix. The critical path per
// tile becomes max(load + scan, look-back) instead of their sum.
//
// Memory order: the look-back warp writes the prefix to shared memory before the hand-over
// barrier and the scanning threads read it after; barrier.sync orders the shared-memory accesses
// of the threads it synchronises, like __syncthreads. The tile's two global publications
// (aggregate, then inclusive prefix) come from the same thread in program order, so every reader
// sees them in that order (same-address coherence); the tile layer needs nothing more.
// Deadlock: the look-back warp waits only on tiles with smaller tickets, whose aggregates need
// nothing from their own look-backs.
//
// In: a contiguous array of T, or a staged_input (an array of another type of the same size read
// through a function, staged_input.cuh). The kernel needs the bulk copy (sm_90); code for older
// GPUs holds only a trap, and the dispatch never launches it there (compiled_with_bulk_copy).
template <class StagedPolicy, tile_prefix_source Source, class T, class In, class Op, class Probe = no_step_probe>
__global__ void __launch_bounds__(StagedPolicy::launch_threads, StagedPolicy::min_blocks_per_sm)
    scan_staged_tiles_kernel(const scan_tiles_args<T, In, T*> args, Op op) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using input = staged_input_traits<In, T>;
  using raw_t = typename input::raw_type;
  using shape = staged_shape<StagedPolicy, T>;
  using storage_t = staged_kernel_storage<StagedPolicy, T, raw_t>;
  using stage = typename storage_t::stage;
  using lanes = typename storage_t::lanes;
  using prefix_op = tile_prefix_op<T, Op,
                                   look_back_shape_for<Source, StagedPolicy::look_back_tiles_per_lane,
                                                       StagedPolicy::deterministic_group_tiles>,
                                   false>;  // scans communicate nothing but the tile states
  constexpr int B = shape::block_threads;
  constexpr int V = shape::stripes;
  constexpr int P = shape::items_per_chunk;
  // independent: every tile scanned on its own (no prefix), for diagnostics (bench/tune_scan.cu).
  constexpr bool single_pass = Source != tile_prefix_source::independent;
  static_assert(!StagedPolicy::look_back_warp || Source != tile_prefix_source::chained,
                "the look-back warp serves the look-back sources");
  // The look-back warp and the scanning threads meet here from different branches (barrier 1 is
  // the scanning threads' own, block_barrier.cuh).
  using hand_over = divergent_block_barrier<StagedPolicy::launch_threads, 2>;
  __shared__ storage_t s;
  __shared__ long long device_n;  // the count read on the device, when there is one
  const raw_t* raw = input::data(args.in);

  if (threadIdx.x == 0) {
    // A device count is loaded before the ticket is drawn: the two round trips overlap.
    const long long n = items_to_process(args.n, args.n_device);
    const tile_ticket ticket = single_pass ? args.pass.draw() : tile_ticket{blockIdx.x, 0};
    s.slots.ticket = ticket;
    Probe::mark(ticket.tile, staged_step::ticket);
    if (args.n_device != nullptr) device_n = n;
    if (ticket.tile < tiles_of<shape::tile_items>(n)) {
      stage::issue(s.staged, raw, n, ticket.tile);
      if constexpr (StagedPolicy::prefetch_tiles_ahead > 0) {
        stage::prefetch_l2(raw, n, static_cast<long long>(ticket.tile) + StagedPolicy::prefetch_tiles_ahead);
      }
    }
  }
  __syncthreads();
  const long long tile = s.slots.ticket.tile;
  const auto items = [&]() -> long long { return args.n_device != nullptr ? device_n : args.n; };
  if (args.n_device != nullptr && tile >= tiles_of<shape::tile_items>(device_n)) {
    leave_past_count(args.pass, single_pass, s.slots.ticket);
    return;  // no copy was issued for this tile
  }
  // The protocol's view of this tile, made where it is used: its epoch comes from shared memory
  // then, instead of living in a register through the whole tile (registers cap residency here).
  const auto prefix_of = [&] { return prefix_op(args.pass, s.slots.ticket, op, args.has_seed, args.seed); };

  if constexpr (StagedPolicy::look_back_warp) {
    if (threadIdx.x >= B) {
      if (single_pass && tile > 0) {
        const T before = prefix_of().look_back();
        if (lane_id() == 0) {
          s.slots.prefix = before;
          Probe::mark(tile, staged_step::looked_back);
        }
      }
      hand_over::sync();  // hands the prefix over; the scanning threads arrive after their scan
      return;
    }
  }

  stage::complete(s.staged, raw, items(), tile);
  if (threadIdx.x == 0) Probe::mark(tile, staged_step::loaded);
  const int thread = static_cast<int>(threadIdx.x);
  const int4* chunks = s.staged.chunks;
  const auto unpack = [&](int v, T(&items)[P]) { input::unpack(args.in, chunks[v * B + thread], items); };

  // Partials of this thread's chunk in every stripe, scanned across the block stripe by stripe.
  lanes partials;
#pragma unroll
  for (int v = 0; v < V; ++v) {
    T items[P];
    unpack(v, items);
    partials.lane[v] = thread_reduce(items, op);
  }
  const block_scan_result<lanes> scanned =
      storage_t::block_scan::scan(partials, s.scan_storage, lanewise<Op>{op});  // exclusive undefined on thread 0
  const T aggregate = combine_lanes(scanned.aggregate, op);

  optional_prefix<T> tile_prefix;
  if constexpr (!single_pass) {
    tile_prefix = {false, aggregate};
    if constexpr (StagedPolicy::look_back_warp) hand_over::sync();
  } else if constexpr (StagedPolicy::look_back_warp) {
    if (threadIdx.x == 0) {
      prefix_of().publish_aggregate(aggregate);
      Probe::mark(tile, staged_step::aggregate_published);
    }
    hand_over::sync();
    if (threadIdx.x == 0) Probe::mark(tile, staged_step::handed_over);
    if (tile == 0) {
      tile_prefix = prefix_of().first();
    } else {
      tile_prefix = {true, s.slots.prefix};
      if (threadIdx.x == 0) prefix_of().publish_prefix(tile_prefix.value, aggregate);
    }
  } else {
    tile_prefix = prefix_of().template resolve<whole_block_barrier>(aggregate, s.slots.prefix);
  }

  store_scanned_stripes<shape>(args, items(), tile, tile_prefix, scanned.exclusive, op, unpack,
                               [&](int v) { return storage_t::block_scan::aggregate(s.scan_storage).lane[v]; });
  if (threadIdx.x == 0) Probe::mark(tile, staged_step::stored);
#else
  __trap();
#endif
}

}  // namespace scankit::device_detail
