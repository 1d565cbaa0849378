// Device layer: the production scan, host side. One pass with the decoupled look-back (or, for
// floating-point values with options.deterministic, the look-back with a fixed association):
//
//   staged kernel    the tile staged in shared memory by the bulk copy (sm_90 and later), for
//                    contiguous 16-byte-aligned arrays of 1-, 2-, 4-, 8- or 16-byte values (or a
//                    staged_input of the same size)
//   register kernel  everywhere else: GPUs before sm_90, other iterators, misaligned arrays
//   one tile         inputs that fit one register tile: one block, no workspace
// The textbook strategies (three-launch, reduce-then-scan, chained) live in scan_textbook.cuh,
// which only the lab library and the lab template API instantiate.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/dispatch/single_pass_setup.cuh"
#include "scankit/device/kernel/scan_kernels.cuh"
#include "scankit/device/kernel/scan_staged_kernel.cuh"
#include "scankit/device/policy/scan_policy.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/util/per_device.hpp"
#include "scankit/device_features.hpp"
#include "scankit/error.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

// The staged single-pass kernel (scan_staged_kernel.cuh) for one staged policy. `no_staging`
// stands for "no staged kernel": explicit register-kernel shapes, and value sizes it cannot take.
struct no_staging {};

template <class Staged, class T>
struct staged_tiles {
  static constexpr bool available = !std::is_same_v<Staged, no_staging> && stageable<T>;
  static long long count(long long n) {
    if constexpr (available) {
      return tiles_of<staged_shape<Staged, T>::tile_items>(n);
    } else {
      return 0;
    }
  }
};

// The back-off of a staged policy's look-back, by prefix source and grid size.
template <class Staged, tile_prefix_source Source>
constexpr look_back_backoff staged_look_back_backoff(long long tiles) {
  if (Source == tile_prefix_source::deterministic_look_back) return Staged::deterministic_backoff;
  if (Staged::look_back_warp && tiles <= small_grid_tiles) {
    return {small_grid_look_back_warp_backoff_ns, small_grid_look_back_warp_backoff_ns};
  }
  return Staged::backoff;
}

// The scan arguments shared by every kernel.
template <class T, class In, class Out>
scan_tiles_args<T, In, Out> scan_args(In in, Out out, long long n, long long tiles, bool exclusive, const T& init,
                                      const std::int64_t* n_device = nullptr) {
  scan_tiles_args<T, In, Out> args{};
  args.in = in;
  args.out = out;
  args.n = n;
  args.n_device = n_device;
  args.tiles = tiles;
  args.exclusive = exclusive;
  args.has_seed = exclusive;
  args.seed = init;
  return args;
}

// A whole input in one register tile: one block, no look-back, no workspace.
template <class Policy, class T, class In, class Out, class Op>
void scan_single_tile(In in, Out out, long long n, bool exclusive, const T& init, Op op, cudaStream_t stream,
                      const std::int64_t* n_device = nullptr) {
  launch_kernel("scan_tiles_kernel (single tile)", scan_tiles_kernel<Policy, tile_prefix_source::independent, T, In, Out, Op>,
                1, Policy::block_threads, stream, scan_args<T>(in, out, n, 1, exclusive, init, n_device), op);
}

template <class T>
bool aligned_16(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

// Whether the code of `Kernel` that runs on the current device was compiled for sm_90 or later,
// where the staged kernels exist (below that they hold a trap). A build without sm_90 code that
// runs on a newer GPU through the driver's PTX JIT keeps the register kernels. Asked once per
// device.
template <auto Kernel>
bool compiled_with_bulk_copy(int device) {
  static per_device_flag known;
  return known.get(device, [] {
    cudaFuncAttributes attributes{};
    SCANKIT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, Kernel));
    return attributes.ptxVersion >= 90;
  });
}

// Whether this call can run the staged kernel: a staged shape, a staged-readable input, a plain
// output array, both 16-byte aligned, and a GPU (and code for it) with the bulk copy.
template <class Staged, tile_prefix_source Source, class T, class In, class Out, class Op>
bool staged_path(In in, Out out) {
  if constexpr (staged_tiles<Staged, T>::available && staged_readable<In, T> && std::is_same_v<Out, T*>) {
    if (!aligned_16(staged_input_traits<In, T>::data(in)) || !aligned_16(out)) return false;
    int device = 0;
    SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
    return staged_kernels_available(device) &&
           compiled_with_bulk_copy<scan_staged_tiles_kernel<Staged, Source, T, In, Op>>(device);
  } else {
    return false;
  }
}

// Tile states a look-back scan of n items takes: enough for whichever kernel runs, so that what
// fits a workspace does not depend on the GPU or the arrays' alignment.
template <class Policy, class Staged, class T>
std::size_t look_back_state_tiles(long long n) {
  return static_cast<std::size_t>(std::max(tiles_of<Policy::tile_items>(n), staged_tiles<Staged, T>::count(n)));
}

// One single-pass launch: the staged kernel where it applies, the register kernel otherwise.
template <class Policy, class Staged, tile_prefix_source Source, class T, class In, class Out, class Op>
void run_single_pass(In in, Out out, long long n, bool exclusive, const T& init, Op op, workspace* ws,
                     cudaStream_t stream, const std::int64_t* n_device) {
  const std::size_t state_tiles = look_back_state_tiles<Policy, Staged, T>(n);
  const detail::workspace_lease lease(ws, tile_state_slots<T>(state_tiles), tile_state_scratch_bytes<T>(state_tiles),
                                      stream);
  if constexpr (staged_tiles<Staged, T>::available && staged_readable<In, T> && std::is_same_v<Out, T*>) {
    if (staged_path<Staged, Source, T, In, Out, Op>(in, out)) {
      const long long tiles = staged_tiles<Staged, T>::count(n);
      auto args = scan_args<T>(in, out, n, tiles, exclusive, init, n_device);
      args.pass = make_single_pass_context<T>(lease.view(), tiles, staged_look_back_backoff<Staged, Source>(tiles));
      launch_kernel(Source == tile_prefix_source::deterministic_look_back
                        ? "scan_staged_tiles_kernel (deterministic look-back)"
                        : "scan_staged_tiles_kernel (decoupled look-back)",
                    scan_staged_tiles_kernel<Staged, Source, T, In, Op>, static_cast<unsigned>(tiles),
                    Staged::launch_threads, stream, args, op);
      return;
    }
  }
  const long long tiles = tiles_of<Policy::tile_items>(n);
  auto args = scan_args<T>(in, out, n, tiles, exclusive, init, n_device);
  args.pass = make_single_pass_context<T>(lease.view(), tiles, Policy::backoff);
  launch_kernel(Source == tile_prefix_source::chained                   ? "scan_tiles_kernel (chained)"
                : Source == tile_prefix_source::deterministic_look_back ? "scan_tiles_kernel (deterministic look-back)"
                                                                        : "scan_tiles_kernel (decoupled look-back)",
                scan_tiles_kernel<Policy, Source, T, In, Out, Op>, static_cast<unsigned>(tiles), Policy::block_threads,
                stream, args, op);
}

template <class T>
constexpr bool has_exact_association() {
  return std::is_integral_v<T>;
}

// The options the production scan takes; the rest belongs to the lab (scan_textbook.cuh).
inline void check_production_options(const char* function, const scan_options& options) {
  if (options.strategy != scan_strategy::automatic && options.strategy != scan_strategy::decoupled_look_back) {
    throw error(std::string(function) + ": scan_strategy::" + to_string(options.strategy) +
                " is a textbook strategy of the scan lab: call scankit::lab::" +
                (std::string(function).find("exclusive") != std::string::npos ? "exclusive_scan" : "inclusive_scan") +
                " (library scankit::lab) or scankit::device::lab (scankit/device/scan_lab.cuh)");
  }
}

template <class Policy>
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

// Pointers are checked for null and partial overlap; other iterators cannot be.
template <class T, class In, class Out>
void check_scan_arguments(const char* function, const In& in, const Out& out, long long n) {
  detail::check_count(function, n);
  if constexpr (std::is_pointer_v<In>) detail::check_pointer(function, "in", in, n);
  if constexpr (std::is_pointer_v<Out>) detail::check_pointer(function, "out", out, n);
  if constexpr (std::is_pointer_v<In> && std::is_pointer_v<Out>) {
    detail::check_overlap(function, in, out, n, sizeof(*in), sizeof(*out));
  }
}

template <class Policy, class Staged, class T>
void check_tile_count(const char* function, long long n) {
  if (tiles_of<Policy::tile_items>(n) > INT_MAX || staged_tiles<Staged, T>::count(n) > INT_MAX) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " needs more than 2^31 - 1 tiles of " +
                std::to_string(Policy::tile_items) + " items; use a larger tile");
  }
}

// Workspace bytes of a look-back scan (0 for one tile).
template <class Policy, class Staged, class T>
std::size_t look_back_workspace_bytes(long long n) {
  if (n <= Policy::tile_items) return 0;
  const std::size_t tiles = look_back_state_tiles<Policy, Staged, T>(n);
  return workspace::bytes_needed(tile_state_slots<T>(tiles), tile_state_scratch_bytes<T>(tiles));
}

// The production scan after its checks: one tile, or one single-pass launch. With a count in
// device memory, n is its bound: the shape is chosen for the bound, and the kernels read the count.
template <class Policy, class Staged, class T, class In, class Out, class Op>
void look_back_scan(In in, Out out, long long n, bool exclusive, const T& init, Op op, cudaStream_t stream,
                    workspace* ws, bool deterministic, const std::int64_t* n_device = nullptr) {
  if (n == 0) return;
  if (n <= Policy::tile_items) return scan_single_tile<Policy>(in, out, n, exclusive, init, op, stream, n_device);
  // Integer operators give the same bits in any association, so they keep the faster look-back.
  if constexpr (!has_exact_association<T>()) {
    if (deterministic) {
      return run_single_pass<Policy, Staged, tile_prefix_source::deterministic_look_back>(in, out, n, exclusive, init,
                                                                                          op, ws, stream, n_device);
    }
  }
  run_single_pass<Policy, Staged, tile_prefix_source::decoupled_look_back>(in, out, n, exclusive, init, op, ws,
                                                                           stream, n_device);
}

// The one host-side entry of the production scan: check, then run. T is the accumulator type.
// n_device: the count in device memory (scankit::device_n), with n its bound; or nullptr.
template <class Policy, class T, class Op, class Staged = no_staging, class In, class Out>
void dispatch_scan(const char* function, In in, Out out, long long n, bool exclusive, const T& init, Op op,
                   cudaStream_t stream, workspace* ws, const scan_options& options,
                   const std::int64_t* n_device = nullptr) {
  const ::scankit::detail::nvtx_range nvtx(function);
  static_assert(std::is_trivially_copyable_v<T>, "scan values must be trivially copyable");
  check_scan_arguments<T>(function, in, out, n);
  check_production_options(function, options);
  check_policy_options<Policy>(function, options);
  check_tile_count<Policy, Staged, T>(function, n);
  look_back_scan<Policy, Staged, T>(in, out, n, exclusive, init, op, stream, ws, options.deterministic, n_device);
}

template <class Policy, class T, class Op, class Staged = no_staging>
std::size_t scan_workspace_bytes_for(const char* function, long long n, const scan_options& options) {
  detail::check_count(function, n);
  check_production_options(function, options);
  return look_back_workspace_bytes<Policy, Staged, T>(n);
}

}  // namespace scankit::device_detail
