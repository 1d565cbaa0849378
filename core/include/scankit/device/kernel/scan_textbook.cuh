// Device layer (lab): the textbook whole-array strategies, for the scan lab and for comparison.
//
//   three-launch      scan each tile and write its total; scan the totals (recursively);
//                     add each tile's offset. Reads the input once, writes the output twice.
//   reduce-then-scan  reduce each tile; scan the totals (recursively); scan each tile again
//                     seeded with its offset. Reads the input twice, writes once. Deterministic.
//   chained           one pass; each tile waits for its predecessor's inclusive prefix.
// The decoupled look-back is the production scan (scan_dispatch.cuh); dispatch_lab_scan picks
// among all four at run time, so only code that includes this header compiles the others.
// Inputs that fit in one tile take one launch with one block, whatever the strategy.
#pragma once

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/dispatch/scan_dispatch.cuh"
#include "scankit/operators.hpp"

namespace scankit::device_detail {

template <class Policy, class T, class Op>
struct textbook_strategies {
  static constexpr long long tile_items = Policy::tile_items;
  static constexpr int threads = Policy::block_threads;

  // Scratch for the tile totals of every recursion level of the multi-launch strategies.
  static std::size_t recursive_totals_bytes(long long n) {
    std::size_t bytes = 0;
    while (n > tile_items) {
      n = tiles_of<tile_items>(n);
      bytes += round_up_256(static_cast<std::size_t>(n) * sizeof(T));
    }
    return bytes;
  }

  // Three-launch writes its output twice, so it needs an output array of T.
  template <class In>
  static void three_launch(In in, T* out, long long n, bool exclusive, const T& init, Op op, unsigned char* scratch,
                           cudaStream_t stream) {
    if (n <= tile_items) return scan_single_tile<Policy>(in, out, n, exclusive, init, op, stream);
    const long long tiles = tiles_of<tile_items>(n);
    T* totals = reinterpret_cast<T*>(scratch);
    auto args = scan_args<T>(in, out, n, tiles, exclusive, init);
    args.has_seed = false;  // the seed reaches the tiles through the scanned totals
    args.tile_totals = totals;
    launch_kernel("scan_tiles_kernel (three-launch, pass 1)",
                  scan_tiles_kernel<Policy, tile_prefix_source::independent, T, In, T*, Op>,
                  static_cast<unsigned>(tiles), threads, stream, args, op);
    // Exclusive: tile t's offset is init op totals[0..t-1]; inclusive: totals[0..t-1].
    three_launch<const T*>(totals, totals, tiles, exclusive, init, op, scratch + round_up_256(tiles * sizeof(T)),
                           stream);
    const long long first_tile = exclusive ? 0 : 1;
    launch_kernel("add_tile_prefix_kernel (three-launch, pass 3)", add_tile_prefix_kernel<Policy, T, Op>,
                  static_cast<unsigned>(tiles - first_tile), threads, stream, out, n,
                  static_cast<const T*>(totals), exclusive, first_tile, op);
  }

  template <class In, class Out>
  static void reduce_then_scan(In in, Out out, long long n, bool exclusive, const T& init, Op op,
                               unsigned char* scratch, cudaStream_t stream) {
    if (n <= tile_items) return scan_single_tile<Policy>(in, out, n, exclusive, init, op, stream);
    const long long tiles = tiles_of<tile_items>(n);
    T* totals = reinterpret_cast<T*>(scratch);
    launch_kernel("reduce_tiles_kernel (reduce-then-scan, pass 1)", reduce_tiles_kernel<Policy, T, In, Op>,
                  static_cast<unsigned>(tiles), threads, stream, in, n, totals, op);
    reduce_then_scan<const T*, T*>(totals, totals, tiles, exclusive, init, op,
                                   scratch + round_up_256(tiles * sizeof(T)), stream);
    auto args = scan_args<T>(in, out, n, tiles, exclusive, init);
    args.has_seed = false;
    args.tile_prefixes = totals;
    args.tile_prefixes_exclusive = exclusive;
    launch_kernel("scan_tiles_kernel (reduce-then-scan, pass 3)",
                  scan_tiles_kernel<Policy, tile_prefix_source::independent, T, In, Out, Op>,
                  static_cast<unsigned>(tiles), threads, stream, args, op);
  }
};

// Workspace bytes of any strategy.
template <class Policy, class Staged, class T>
std::size_t lab_workspace_bytes(const char* function, long long n, const scan_options& options) {
  detail::check_count(function, n);
  switch (options.strategy) {
    case scan_strategy::three_launch:
    case scan_strategy::reduce_then_scan: {
      if (n <= Policy::tile_items) return 0;
      using strategies = textbook_strategies<Policy, T, plus_op>;
      return workspace::bytes_needed(0, strategies::recursive_totals_bytes(n));
    }
    case scan_strategy::chained:
      if (n <= Policy::tile_items) return 0;
      return workspace::bytes_needed(
          tile_state_slots<T>(static_cast<std::size_t>(tiles_of<Policy::tile_items>(n))),
          tile_state_scratch_bytes<T>(static_cast<std::size_t>(tiles_of<Policy::tile_items>(n))));
    default:
      return look_back_workspace_bytes<Policy, Staged, T>(n);
  }
}

// The lab's entry: every strategy, chosen at run time by options.strategy.
template <class Policy, class T, class Op, class Staged = no_staging, class In, class Out>
void dispatch_lab_scan(const char* function, In in, Out out, long long n, bool exclusive, const T& init, Op op,
                       cudaStream_t stream, workspace* ws, const scan_options& options) {
  const ::scankit::detail::nvtx_range nvtx(function);
  static_assert(std::is_trivially_copyable_v<T>, "scan values must be trivially copyable");
  check_scan_arguments<T>(function, in, out, n);
  check_policy_options<Policy>(function, options);
  check_tile_count<Policy, Staged, T>(function, n);
  if (n == 0) return;
  using strategies = textbook_strategies<Policy, T, Op>;
  switch (options.strategy) {
    case scan_strategy::three_launch:
    case scan_strategy::reduce_then_scan: {
      if (n <= Policy::tile_items) return scan_single_tile<Policy>(in, out, n, exclusive, init, op, stream);
      const detail::workspace_lease lease(ws, 0, strategies::recursive_totals_bytes(n), stream);
      auto* scratch = static_cast<unsigned char*>(lease.view().scratch);
      if (options.strategy == scan_strategy::reduce_then_scan) {
        strategies::reduce_then_scan(in, out, n, exclusive, init, op, scratch, stream);
      } else if constexpr (std::is_same_v<Out, T*>) {
        strategies::three_launch(in, out, n, exclusive, init, op, scratch, stream);
      } else {
        throw error(std::string(function) + ": three-launch writes its output twice and needs an output array");
      }
      return;
    }
    case scan_strategy::chained:
      if (n <= Policy::tile_items) return scan_single_tile<Policy>(in, out, n, exclusive, init, op, stream);
      return run_single_pass<Policy, no_staging, tile_prefix_source::chained>(in, out, n, exclusive, init, op, ws,
                                                                              stream, nullptr);
    default:
      return look_back_scan<Policy, Staged, T>(in, out, n, exclusive, init, op, stream, ws, options.deterministic);
  }
}

}  // namespace scankit::device_detail
