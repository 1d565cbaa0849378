// Device layer: the segmented scan and the segmented reduction by offsets, host side. Inputs of
// one tile run one block without a workspace; larger ones one single-pass launch (segments given
// by offsets first partition the offsets among the tiles, segment_offsets.cuh).
#pragma once

#include <climits>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/device/dispatch/scan_dispatch.cuh"
#include "scankit/device/kernel/segment_offsets.cuh"
#include "scankit/device/kernel/segmented_reduce_kernel.cuh"
#include "scankit/device/kernel/segmented_scan_kernel.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

// Tile states a segmented scan of n items takes (0 for one tile).
template <class Policy, class T>
std::size_t segmented_state_tiles(long long n) {
  return n <= Policy::tile_items ? 0 : static_cast<std::size_t>(tiles_of<Policy::tile_items>(n));
}

// Scratch of a single-pass launch: the tile states' (wide values), then the offsets' partition.
template <class T>
std::size_t segmented_scratch_bytes(std::size_t tiles, bool by_offsets) {
  const std::size_t states = round_up_256(tile_state_scratch_bytes<segment_item<T>>(tiles));
  return states + (by_offsets ? segment_partition_bytes(static_cast<long long>(tiles)) : 0);
}

template <class Policy, class T>
std::size_t segmented_scan_workspace_bytes(long long n, bool by_offsets = false) {
  const std::size_t tiles = segmented_state_tiles<Policy, T>(n);
  if (tiles == 0) return 0;
  return workspace::bytes_needed(tile_state_slots<segment_item<T>>(tiles), segmented_scratch_bytes<T>(tiles, by_offsets));
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

// Checks segments given by offsets: `out_items` results (n for a scan, the segments for a
// reduction) that overlap neither the values (except in place, for a scan) nor the offsets.
template <class Policy, class T, class In, class OffsetsIn, class Out>
void check_segment_offsets_arguments(const char* function, const In& values, const OffsetsIn& offsets,
                                     long long num_segments, const Out& out, long long n, long long out_items,
                                     bool in_place_allowed) {
  static_assert(std::is_trivially_copyable_v<T>, "segmented values must be trivially copyable");
  detail::check_count(function, n);
  if (num_segments < 0) {
    throw error(std::string(function) + ": num_segments = " + std::to_string(num_segments) + " is negative");
  }
  if constexpr (std::is_pointer_v<In>) detail::check_pointer(function, "values", values, n);
  if constexpr (std::is_pointer_v<OffsetsIn>) detail::check_pointer(function, "offsets", offsets, num_segments + 1);
  if constexpr (std::is_pointer_v<Out>) detail::check_pointer(function, "out", out, out_items);
  const auto overlap = [&](const auto* a, long long a_items, const char* name) {
    const auto* x = reinterpret_cast<const char*>(a);
    const auto* o = reinterpret_cast<const char*>(out);
    const std::size_t x_bytes = static_cast<std::size_t>(a_items) * sizeof(*a);
    const std::size_t o_bytes = static_cast<std::size_t>(out_items) * sizeof(*out);
    if (a_items > 0 && out_items > 0 && x < o + o_bytes && o < x + x_bytes) {
      throw error(std::string(function) + ": out overlaps " + name);
    }
  };
  if constexpr (std::is_pointer_v<In> && std::is_pointer_v<Out>) {
    if (in_place_allowed) {
      detail::check_overlap(function, values, out, n, sizeof(*values), sizeof(*out));
    } else {
      overlap(values, n, "values");
    }
  }
  if constexpr (std::is_pointer_v<OffsetsIn> && std::is_pointer_v<Out>) overlap(offsets, num_segments + 1, "offsets");
  if (tiles_of<Policy::tile_items>(n) > INT_MAX) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " needs more than 2^31 - 1 tiles");
  }
}

// Leases the workspace of a single-pass launch of `tiles` tiles and makes its context; heads given
// by offsets get their partition (enqueued before the launch that reads it).
template <class Policy, class T, class Heads>
single_pass_context<segment_item<T>> prepare_segmented_pass(const detail::workspace_lease& lease, long long tiles,
                                                            Heads& heads, cudaStream_t stream) {
  using item_t = segment_item<T>;
  const workspace_view view = lease.view();
  if constexpr (is_offsets_head_source<Heads>::value) {
    const std::size_t states = round_up_256(tile_state_scratch_bytes<item_t>(static_cast<std::size_t>(tiles)));
    auto* partition = reinterpret_cast<long long*>(static_cast<char*>(view.scratch) + states);
    partition_segment_offsets(heads.segments, tiles, Policy::tile_items, partition, stream);
    heads.partition = partition;
  }
  return make_single_pass_context<item_t>(view, tiles, Policy::backoff);
}

// Launches `kernel` over n items: one block without a workspace when they fit one tile, otherwise
// one single-pass launch over a leased workspace. `args` has the kernel's `heads` and `pass`.
template <class Policy, class T, class Args, class Op>
void launch_segmented(const char* name, void (*kernel)(Args, Op), Args& args, long long n, Op op, cudaStream_t stream,
                      workspace* ws) {
  if (n <= Policy::tile_items) {
    launch_kernel((std::string(name) + " (single tile)").c_str(), kernel, 1, Policy::block_threads, stream, args, op);
    return;
  }
  using item_t = segment_item<T>;
  using heads_t = std::remove_cv_t<decltype(args.heads)>;
  const long long tiles = tiles_of<Policy::tile_items>(n);
  const auto count = static_cast<std::size_t>(tiles);
  const detail::workspace_lease lease(ws, tile_state_slots<item_t>(count),
                                      segmented_scratch_bytes<T>(count, is_offsets_head_source<heads_t>::value), stream);
  args.pass = prepare_segmented_pass<Policy, T>(lease, tiles, args.heads, stream);
  launch_kernel((std::string(name) + " (decoupled look-back)").c_str(), kernel, static_cast<unsigned>(tiles),
                Policy::block_threads, stream, args, op);
}

template <class Policy, class T, class In, class Heads, class Out, class Op>
void run_segmented_scan(In values, Heads heads, Out out, item_count count, bool exclusive, const T& init, Op op,
                        cudaStream_t stream, workspace* ws) {
  const long long n = count.bound;  // with a device count, the launch is sized for its bound
  if (n == 0) return;
  segmented_scan_args<T, In, Heads, Out> args{};
  args.values = values;
  args.heads = heads;
  args.out = out;
  args.n = n;
  args.n_device = count.device;
  args.exclusive = exclusive;
  args.init = init;
  launch_segmented<Policy, T>("segmented_scan_kernel", segmented_scan_kernel<Policy, T, In, Heads, Out, Op>, args, n,
                              op, stream, ws);
}

// The segmented reduction by offsets: out[s] for every segment, also when n == 0.
// With counts in device memory, `segments` carries them and n is the items' bound.
template <class Policy, class T, class In, class OffsetsIn, class Out, class Op>
void run_segmented_reduce(In values, const segment_offsets<OffsetsIn>& segments, Out out, long long n,
                          const T& empty_value, Op op, cudaStream_t stream, workspace* ws) {
  if (segments.num_offsets <= 1) return;  // no segments (or a bound of none)
  segmented_reduce_args<T, In, OffsetsIn, Policy::items_per_thread, Policy::block_threads, Out> args{};
  args.values = values;
  args.heads.segments = segments;
  args.heads.partition = nullptr;
  args.out = out;
  args.n = n;
  args.n_device = segments.n_device;
  args.empty_value = empty_value;
  launch_segmented<Policy, T>("segmented_reduce_kernel", segmented_reduce_kernel<Policy, T, In, OffsetsIn, Out, Op>,
                              args, n, op, stream, ws);
}

}  // namespace scankit::device_detail
