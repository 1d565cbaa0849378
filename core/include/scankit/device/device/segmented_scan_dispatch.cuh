// Device layer: the segmented scan, host side. Inputs of one tile run one block without a
// workspace; larger ones one single-pass launch of segmented_scan_kernel.
#pragma once

#include <climits>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/device/device/scan_dispatch.cuh"
#include "scankit/device/device/segmented_scan_kernel.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

// Tile states a segmented scan of n items takes (0 for one tile).
template <class Policy, class T>
std::size_t segmented_state_tiles(long long n) {
  return n <= Policy::tile_items ? 0 : static_cast<std::size_t>(tiles_of<Policy::tile_items>(n));
}

template <class Policy, class T>
std::size_t segmented_scan_workspace_bytes(long long n) {
  const std::size_t tiles = segmented_state_tiles<Policy, T>(n);
  if (tiles == 0) return 0;
  return workspace::bytes_needed(tile_state_slots<segment_item<T>>(tiles), tile_state_scratch_bytes<segment_item<T>>(tiles));
}

// Checks the arguments (pointers for null and overlap: `out` may be `values` itself, in place,
// but must not overlap the heads' array) before anything is enqueued.
template <class Policy, class T, class In, class HeadsIn, class Out>
void check_segmented_scan_arguments(const char* function, const In& values, const HeadsIn& heads, const Out& out,
                                    long long n, const char* heads_name) {
  static_assert(std::is_trivially_copyable_v<T>, "segmented scan values must be trivially copyable");
  detail::check_count(function, n);
  if constexpr (std::is_pointer_v<In>) detail::check_pointer(function, "values", values, n);
  if constexpr (std::is_pointer_v<HeadsIn>) detail::check_pointer(function, heads_name, heads, n);
  if constexpr (std::is_pointer_v<Out>) detail::check_pointer(function, "out", out, n);
  if constexpr (std::is_pointer_v<In> && std::is_pointer_v<Out>) {
    detail::check_overlap(function, values, out, n, sizeof(*values), sizeof(*out));
  }
  if constexpr (std::is_pointer_v<HeadsIn> && std::is_pointer_v<Out>) {
    if (n > 0) {
      const auto* h = reinterpret_cast<const char*>(heads);
      const auto* o = reinterpret_cast<const char*>(out);
      const std::size_t heads_bytes = static_cast<std::size_t>(n) * sizeof(*heads);
      const std::size_t out_bytes = static_cast<std::size_t>(n) * sizeof(*out);
      if (h < o + out_bytes && o < h + heads_bytes) {
        throw error(std::string(function) + ": out overlaps " + heads_name);
      }
    }
  }
  if (tiles_of<Policy::tile_items>(n) > INT_MAX) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " needs more than 2^31 - 1 tiles");
  }
}

template <class Policy, class T, class In, class Heads, class Out, class Op>
void run_segmented_scan(In values, Heads heads, Out out, long long n, bool exclusive, const T& init, Op op,
                        cudaStream_t stream, workspace* ws) {
  if (n == 0) return;
  segmented_scan_args<T, In, Heads, Out> args{};
  args.values = values;
  args.heads = heads;
  args.out = out;
  args.n = n;
  args.exclusive = exclusive;
  args.init = init;
  const auto kernel = segmented_scan_kernel<Policy, T, In, Heads, Out, Op>;
  if (n <= Policy::tile_items) {
    launch_kernel("segmented_scan_kernel (single tile)", kernel, 1, Policy::block_threads, stream, args, op);
    return;
  }
  using item_t = segment_item<T>;
  const long long tiles = tiles_of<Policy::tile_items>(n);
  const detail::workspace_lease lease(ws, tile_state_slots<item_t>(static_cast<std::size_t>(tiles)),
                                      tile_state_scratch_bytes<item_t>(static_cast<std::size_t>(tiles)), stream);
  args.pass = make_single_pass_context<item_t>(lease.view(), tiles, Policy::backoff);
  launch_kernel("segmented_scan_kernel (decoupled look-back)", kernel, static_cast<unsigned>(tiles),
                Policy::block_threads, stream, args, op);
}

}  // namespace scankit::device_detail
