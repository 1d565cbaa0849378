// Device layer: the whole-array strategies and the host-side dispatch that picks one.
//
//   three-launch      scan each tile and write its total; scan the totals (recursively);
//                     add each tile's offset. Reads the input once, writes the output twice.
//   reduce-then-scan  reduce each tile; scan the totals (recursively); scan each tile again
//                     seeded with its offset. Reads the input twice, writes once. Deterministic.
//   chained           one pass; each tile waits for its predecessor's inclusive prefix.
//   decoupled look-back  one pass; tiles look back over published aggregates (the default).
// Inputs that fit in one tile take one launch with one block, whatever the strategy.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/device/device/scan_kernels.cuh"
#include "scankit/device/device/scan_policy.cuh"
#include "scankit/device/device/scan_staged_kernel.cuh"
#include "scankit/error.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

inline void check_launch(const char* kernel) {
  const cudaError_t code = cudaGetLastError();
  if (code != cudaSuccess) throw cuda_error(code, std::string("launch of ") + kernel);
}

constexpr std::size_t round_up_256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// The arguments of a single-pass launch of `tiles` tiles (either tile kernel).
template <class T>
scan_tiles_args<T> single_pass_args(const T* in, T* out, long long n, long long tiles, bool exclusive, const T& init,
                                    const workspace_view& view, look_back_backoff backoff) {
  scan_tiles_args<T> args{};
  args.in = in;
  args.out = out;
  args.n = n;
  args.tiles = tiles;
  args.exclusive = exclusive;
  args.has_seed = exclusive;
  args.seed = init;
  args.ticket = view.ticket;
  args.state = make_tile_state<T>(view.state_slots, view.scratch, static_cast<std::size_t>(tiles), view.epoch);
  args.backoff = backoff;
  return args;
}

template <class Policy, class T, class Op>
struct scan_strategies {
  static constexpr long long tile_items = Policy::tile_items;
  static constexpr int threads = Policy::block_threads;

  static long long tiles_for(long long n) { return (n + tile_items - 1) / tile_items; }

  // Scratch for the tile totals of every recursion level of the multi-launch strategies.
  static std::size_t recursive_totals_bytes(long long n) {
    std::size_t bytes = 0;
    while (n > tile_items) {
      n = tiles_for(n);
      bytes += round_up_256(static_cast<std::size_t>(n) * sizeof(T));
    }
    return bytes;
  }

  static void workspace_needs(scan_strategy strategy, long long n, std::size_t& slots, std::size_t& scratch) {
    slots = 0;
    scratch = 0;
    if (n <= tile_items) return;
    switch (strategy) {
      case scan_strategy::three_launch:
      case scan_strategy::reduce_then_scan:
        scratch = recursive_totals_bytes(n);
        break;
      default:
        slots = tile_state_slots<T>(static_cast<std::size_t>(tiles_for(n)));
        scratch = tile_state_scratch_bytes<T>(static_cast<std::size_t>(tiles_for(n)));
        break;
    }
  }

  static scan_tiles_args<T> base_args(const T* in, T* out, long long n, bool exclusive) {
    scan_tiles_args<T> args{};
    args.in = in;
    args.out = out;
    args.n = n;
    args.tiles = tiles_for(n);
    args.exclusive = exclusive;
    return args;
  }

  static void single_tile(const T* in, T* out, long long n, bool exclusive, const T& init, Op op, cudaStream_t stream) {
    scan_tiles_args<T> args = base_args(in, out, n, exclusive);
    args.has_seed = exclusive;
    args.seed = init;
    scan_tiles_kernel<Policy, tile_prefix_source::independent><<<1, threads, 0, stream>>>(args, op);
    check_launch("scan_tiles_kernel (single tile)");
  }

  static void three_launch(const T* in, T* out, long long n, bool exclusive, const T& init, Op op,
                           unsigned char* scratch, cudaStream_t stream) {
    if (n <= tile_items) return single_tile(in, out, n, exclusive, init, op, stream);
    const long long tiles = tiles_for(n);
    T* totals = reinterpret_cast<T*>(scratch);
    scan_tiles_args<T> args = base_args(in, out, n, exclusive);
    args.tile_totals = totals;
    scan_tiles_kernel<Policy, tile_prefix_source::independent>
        <<<static_cast<unsigned>(tiles), threads, 0, stream>>>(args, op);
    check_launch("scan_tiles_kernel (three-launch, pass 1)");
    // Exclusive: tile t's offset is init op totals[0..t-1]; inclusive: totals[0..t-1].
    three_launch(totals, totals, tiles, exclusive, init, op, scratch + round_up_256(tiles * sizeof(T)), stream);
    const long long first_tile = exclusive ? 0 : 1;
    add_tile_prefix_kernel<Policy><<<static_cast<unsigned>(tiles - first_tile), threads, 0, stream>>>(
        out, n, totals, exclusive, first_tile, op);
    check_launch("add_tile_prefix_kernel (three-launch, pass 3)");
  }

  static void reduce_then_scan(const T* in, T* out, long long n, bool exclusive, const T& init, Op op,
                               unsigned char* scratch, cudaStream_t stream) {
    if (n <= tile_items) return single_tile(in, out, n, exclusive, init, op, stream);
    const long long tiles = tiles_for(n);
    T* totals = reinterpret_cast<T*>(scratch);
    reduce_tiles_kernel<Policy><<<static_cast<unsigned>(tiles), threads, 0, stream>>>(in, n, totals, op);
    check_launch("reduce_tiles_kernel (reduce-then-scan, pass 1)");
    reduce_then_scan(totals, totals, tiles, exclusive, init, op, scratch + round_up_256(tiles * sizeof(T)), stream);
    scan_tiles_args<T> args = base_args(in, out, n, exclusive);
    args.tile_prefixes = totals;
    args.tile_prefixes_exclusive = exclusive;
    scan_tiles_kernel<Policy, tile_prefix_source::independent>
        <<<static_cast<unsigned>(tiles), threads, 0, stream>>>(args, op);
    check_launch("scan_tiles_kernel (reduce-then-scan, pass 3)");
  }

  template <tile_prefix_source Source>
  static void single_pass(const T* in, T* out, long long n, bool exclusive, const T& init, Op op,
                          const workspace_view& view, cudaStream_t stream) {
    if (n <= tile_items) return single_tile(in, out, n, exclusive, init, op, stream);
    const scan_tiles_args<T> args =
        single_pass_args(in, out, n, tiles_for(n), exclusive, init, view, Policy::backoff);
    scan_tiles_kernel<Policy, Source><<<static_cast<unsigned>(args.tiles), threads, 0, stream>>>(args, op);
    check_launch(Source == tile_prefix_source::chained                   ? "scan_tiles_kernel (chained)"
                 : Source == tile_prefix_source::deterministic_look_back ? "scan_tiles_kernel (deterministic look-back)"
                                                                         : "scan_tiles_kernel (decoupled look-back)");
  }
};

// The staged single-pass kernel (scan_staged_kernel.cuh) for one staged policy. `no_staging`
// stands for "no staged kernel": explicit register-kernel shapes, and value sizes it cannot take.
struct no_staging {};

// The back-off of a staged policy's look-back, by prefix source.
template <class Staged, tile_prefix_source Source>
constexpr look_back_backoff staged_look_back_backoff() {
  return Source == tile_prefix_source::deterministic_look_back ? Staged::deterministic_backoff : Staged::backoff;
}

template <class Staged, class T, class Op>
struct staged_single_pass {
  static constexpr bool available = !std::is_same_v<Staged, no_staging>;

  static long long tiles_for(long long n) {
    if constexpr (available) {
      constexpr long long tile_items = staged_shape<Staged, T>::tile_items;
      return (n + tile_items - 1) / tile_items;
    } else {
      return 0;
    }
  }

  // The bulk copy and the 16-byte stores need 16-byte-aligned arrays.
  static bool usable(const void* in, const void* out) {
    const auto aligned = [](const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; };
    return available && aligned(in) && aligned(out);
  }

  template <tile_prefix_source Source>
  static void run(const T* in, T* out, long long n, bool exclusive, const T& init, Op op, const workspace_view& view,
                  cudaStream_t stream) {
    if constexpr (available) {
      const scan_tiles_args<T> args =
          single_pass_args(in, out, n, tiles_for(n), exclusive, init, view, staged_look_back_backoff<Staged, Source>());
      scan_staged_tiles_kernel<Staged, Source>
          <<<static_cast<unsigned>(args.tiles), Staged::launch_threads, 0, stream>>>(args, op);
      check_launch(Source == tile_prefix_source::deterministic_look_back
                       ? "scan_staged_tiles_kernel (deterministic look-back)"
                       : "scan_staged_tiles_kernel (decoupled look-back)");
    }
  }
};

template <class T>
constexpr bool has_exact_association() {
  return std::is_integral_v<T>;
}

// Resolves `automatic`: the decoupled look-back, in its deterministic form when asked for.
inline scan_strategy resolve_strategy(const scan_options& options) {
  return options.strategy == scan_strategy::automatic ? scan_strategy::decoupled_look_back : options.strategy;
}

template <class Policy, class T, class Op>
void check_policy_options(const char* function, const scan_options& options) {
  if (options.items_per_thread != 0 && options.items_per_thread != Policy::items_per_thread) {
    throw error(std::string(function) + ": options.items_per_thread = " + std::to_string(options.items_per_thread) +
                " is not available here (this instantiation uses " + std::to_string(Policy::items_per_thread) + ")");
  }
  if (options.block_algorithm != block_scan_algorithm::automatic && options.block_algorithm != Policy::algorithm) {
    throw error(std::string(function) + ": options.block_algorithm = " + to_string(options.block_algorithm) +
                " is not available here (this instantiation uses " + to_string(Policy::algorithm) + ")");
  }
}

// A look-back scan: the staged kernel where it applies, the register kernel otherwise (and for
// inputs of one register tile, which take a single one-block launch).
template <class Policy, class Staged, tile_prefix_source Source, class T, class Op>
void look_back(const T* in, T* out, long long n, bool exclusive, const T& init, Op op, const workspace_view& view,
               cudaStream_t stream) {
  using staged = staged_single_pass<Staged, T, Op>;
  if (n > Policy::tile_items && staged::usable(in, out)) {
    staged::template run<Source>(in, out, n, exclusive, init, op, view, stream);
  } else {
    scan_strategies<Policy, T, Op>::template single_pass<Source>(in, out, n, exclusive, init, op, view, stream);
  }
}

// Tile states for the single-pass strategies: enough for whichever tile kernel runs.
template <class Policy, class Staged, class T, class Op>
void plan_workspace(scan_strategy strategy, long long n, std::size_t& slots, std::size_t& scratch) {
  scan_strategies<Policy, T, Op>::workspace_needs(strategy, n, slots, scratch);
  if (slots != 0) {
    const auto staged_tiles = static_cast<std::size_t>(staged_single_pass<Staged, T, Op>::tiles_for(n));
    if (tile_state_slots<T>(staged_tiles) > slots) {
      slots = tile_state_slots<T>(staged_tiles);
      scratch = tile_state_scratch_bytes<T>(staged_tiles);
    }
  }
}

template <class Policy, class T, class Op, class Staged = no_staging>
std::size_t scan_workspace_bytes_for(const char* function, long long n, const scan_options& options) {
  detail::check_count(function, n);
  std::size_t slots = 0, scratch = 0;
  plan_workspace<Policy, Staged, T, Op>(resolve_strategy(options), n, slots, scratch);
  return slots == 0 && scratch == 0 ? 0 : workspace::bytes_needed(slots, scratch);
}

// The one host-side entry every scan goes through: check, plan storage, launch. The look-back
// strategies run the staged kernel when `Staged` names one and the arrays allow it.
template <class Policy, class T, class Op, class Staged = no_staging>
void dispatch_scan(const char* function, const T* in, T* out, long long n, bool exclusive, const T& init, Op op,
                   cudaStream_t stream, workspace* ws, const scan_options& options) {
  static_assert(std::is_trivially_copyable_v<T>, "scan values must be trivially copyable");
  detail::check_unary_arguments(function, in, out, n, sizeof(T));
  check_policy_options<Policy, T, Op>(function, options);
  const scan_strategy strategy = resolve_strategy(options);
  using strategies = scan_strategies<Policy, T, Op>;
  using staged = staged_single_pass<Staged, T, Op>;
  if (strategies::tiles_for(n) > INT_MAX || staged::tiles_for(n) > INT_MAX) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " needs more than 2^31 - 1 tiles of " +
                std::to_string(Policy::tile_items) + " items; use a larger tile");
  }
  if (n == 0) return;

  std::size_t slots = 0, scratch = 0;
  plan_workspace<Policy, Staged, T, Op>(strategy, n, slots, scratch);
  workspace_view view{};
  workspace temporary;
  if (slots != 0 || scratch != 0) view = (ws != nullptr ? *ws : temporary).prepare(slots, scratch, stream);
  auto* scratch_bytes = static_cast<unsigned char*>(view.scratch);

  switch (strategy) {
    case scan_strategy::three_launch:
      strategies::three_launch(in, out, n, exclusive, init, op, scratch_bytes, stream);
      break;
    case scan_strategy::reduce_then_scan:
      strategies::reduce_then_scan(in, out, n, exclusive, init, op, scratch_bytes, stream);
      break;
    case scan_strategy::chained:
      strategies::template single_pass<tile_prefix_source::chained>(in, out, n, exclusive, init, op, view, stream);
      break;
    default:
      // Integer operators give the same bits in any association, so they keep the faster look-back.
      if constexpr (!has_exact_association<T>()) {
        if (options.deterministic) {
          look_back<Policy, Staged, tile_prefix_source::deterministic_look_back>(in, out, n, exclusive, init, op, view,
                                                                                 stream);
          break;
        }
      }
      look_back<Policy, Staged, tile_prefix_source::decoupled_look_back>(in, out, n, exclusive, init, op, view,
                                                                         stream);
      break;
  }
  temporary.release();  // if it was used: cudaFreeAsync on `stream`, ordered after the launches above
}

}  // namespace scankit::device_detail
