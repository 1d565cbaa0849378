// Device layer (compaction): host-side checks, workspace planning and launches.
//
//   single_pass  one launch of compact_staged_kernel (staged policies: select_if, unique) or of
//                compact_tiles_kernel (one tile: no workspace, no look-back)
//   three_step   flags kernel; exclusive sum of the flags by the scan engine (its offsets sum,
//                scankit/device/dispatch/offsets_sum.cuh, on uint32, or uint64 from n = 2^32);
//                scatter kernel
// n == 0 launches nothing: d_count is set to 0 with cudaMemsetAsync.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/compact_options.hpp"
#include "scankit/detail/check_arguments.hpp"
#include "scankit/detail/compact_arguments.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/compact/compact_policy.cuh"
#include "scankit/device/compact/compact_staged_kernel.cuh"
#include "scankit/device/compact/compact_tiles_kernel.cuh"
#include "scankit/device/compact/three_step_kernels.cuh"
#include "scankit/device/dispatch/offsets_sum.cuh"
#include "scankit/device/dispatch/single_pass_setup.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device_features.hpp"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

constexpr std::size_t compact_round_up_256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

inline compact_strategy resolve_compact_strategy(const compact_options& options) {
  return options.strategy == compact_strategy::three_step ? compact_strategy::three_step
                                                          : compact_strategy::single_pass;
}

// 32-bit offsets hold counts up to 2^32 - 1, enough for any n < 2^32.
inline bool needs_64bit_offsets(long long n, const compact_options& options) {
  return options.force_64bit_offsets || n > static_cast<long long>(UINT32_MAX);
}

template <class Policy>
constexpr long long compact_tiles_for(long long n) {
  return (n + Policy::tile_items - 1) / Policy::tile_items;
}

// Checks shared by every compaction: count, options, and a tile count the grid can hold.
template <class Policy>
void check_compact_common(const char* function, std::int64_t n, const compact_options& options) {
  detail::check_count(function, n);
  detail::check_compact_options(function, options);
  if (compact_tiles_for<Policy>(n) > INT_MAX) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " needs more than 2^31 - 1 tiles of " +
                std::to_string(Policy::tile_items) + " items; use a policy with a larger tile");
  }
}

// d_count: not null, and outside every array the call touches.
inline void check_count_target(const char* function, const std::int64_t* d_count,
                               std::initializer_list<detail::array_extent> arrays) {
  detail::check_count_output(function, d_count);
  for (const detail::array_extent& a : arrays) detail::check_count_disjoint(function, d_count, a);
}

// The nested scan's workspace bytes for the three-step strategy's offsets.
inline std::size_t three_step_scan_bytes(long long n, bool wide) {
  return wide ? exclusive_offsets_sum_workspace_bytes<std::uint64_t>(n)
              : exclusive_offsets_sum_workspace_bytes<std::uint32_t>(n);
}

// Scratch of the three-step strategy: the offsets, in place a copy of the input, then the nested
// scan's own workspace.
template <class Source>
std::size_t three_step_scratch_bytes(long long n, bool in_place, bool wide) {
  const auto count = static_cast<std::size_t>(n);
  std::size_t bytes = compact_round_up_256(count * (wide ? sizeof(std::uint64_t) : sizeof(std::uint32_t)));
  if (in_place) {
    bytes += compact_round_up_256(count * sizeof(typename Source::item_type));
    if constexpr (Source::has_values) bytes += compact_round_up_256(count * sizeof(typename Source::value_type));
  }
  return bytes + compact_round_up_256(three_step_scan_bytes(n, wide));
}

template <class Source, class Sink>
void run_three_step(Source source, const Sink& sink, long long n, std::int64_t* d_count, bool in_place, bool wide,
                    cudaStream_t stream, const workspace_view& view) {
  using T = typename Source::item_type;
  using V = typename Source::value_type;
  const auto count = static_cast<std::size_t>(n);
  const std::size_t offset_bytes = compact_round_up_256(count * (wide ? sizeof(std::uint64_t) : sizeof(std::uint32_t)));
  const std::size_t staged_items = in_place ? compact_round_up_256(count * sizeof(T)) : 0;
  std::size_t staged_values = 0;
  if constexpr (Source::has_values) staged_values = in_place ? compact_round_up_256(count * sizeof(V)) : 0;
  const std::size_t scan_bytes = three_step_scan_bytes(n, wide);

  // One allocation: offsets, staged copies (in place, the scatter would overwrite items other
  // threads have yet to read: it reads a copy), then the scan's own workspace (wrapped caller
  // memory, so the scan cannot reallocate what the offsets live in).
  auto* cursor = static_cast<unsigned char*>(view.scratch);
  void* offsets = cursor;
  cursor += offset_bytes;
  // In place needs arrays (out == in compares pointers): a source that reads another iterator never is.
  if constexpr (std::is_pointer_v<decltype(Source::in)>) {
    if (in_place) {
      SCANKIT_CUDA_CHECK(cudaMemcpyAsync(cursor, source.in, count * sizeof(T), cudaMemcpyDeviceToDevice, stream));
      source.in = reinterpret_cast<const T*>(cursor);
      cursor += staged_items;
      if constexpr (Source::has_values) {
        SCANKIT_CUDA_CHECK(
            cudaMemcpyAsync(cursor, source.values, count * sizeof(V), cudaMemcpyDeviceToDevice, stream));
        source.values = reinterpret_cast<const V*>(cursor);
        cursor += staged_values;
      }
    }
  }
  workspace scan_workspace(scan_bytes != 0 ? cursor : nullptr, scan_bytes);

  const long long blocks = (n + three_step_block_threads - 1) / three_step_block_threads;
  const auto grid = static_cast<unsigned>(blocks < (1 << 20) ? blocks : (1 << 20));
  auto* offsets32 = wide ? nullptr : static_cast<std::uint32_t*>(offsets);
  auto* offsets64 = wide ? static_cast<std::uint64_t*>(offsets) : nullptr;

  launch_kernel("compact_flags_kernel (three-step, step 1)", compact_flags_kernel<Source>, grid,
                three_step_block_threads, stream, source, n, offsets32, offsets64);
  workspace* scan_ws = scan_bytes != 0 ? &scan_workspace : nullptr;
  if (wide) {
    exclusive_offsets_sum(offsets64, n, stream, scan_ws);
  } else {
    exclusive_offsets_sum(offsets32, n, stream, scan_ws);
  }
  launch_kernel("compact_scatter_kernel (three-step, step 3)", compact_scatter_kernel<Source, Sink>, grid,
                three_step_block_threads, stream, source, sink, n, offsets32, offsets64, d_count);
}

// The one entry every compaction goes through once its arguments are checked. `in_place`: an
// output is its input (select, unique), which the single pass handles with fences on the
// published counts and the three-step with a staged copy.
// With a count in device memory (count.device) everything is sized for count.bound, and the
// single pass reads the count; the three-step strategy, sized on the host, does not take one.
template <class Policy, class Source, class Sink>
void run_compaction(const char* function, const Source& source, const Sink& sink, item_count count,
                    std::int64_t* d_count, bool in_place, cudaStream_t stream, workspace* ws,
                    const compact_options& options) {
  const ::scankit::detail::nvtx_range nvtx(function);
  static_assert(std::is_trivially_copyable_v<typename Source::item_type>, "items must be trivially copyable");
  static_assert(std::is_trivially_copyable_v<typename Source::value_type>, "values must be trivially copyable");
  const long long n = count.bound;
  if (count.device != nullptr) {
    detail::check_count_not_written(function, device_n{count.device, n}, d_count);
    if (resolve_compact_strategy(options) == compact_strategy::three_step) {
      throw error(std::string(function) + ": compact_strategy::three_step does not take a device_n count (its sizes "
                                          "are decided on the host); use the single pass");
    }
  }
  if (n == 0) {
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::int64_t), stream));
    return;
  }
  const bool wide = needs_64bit_offsets(n, options);

  if (resolve_compact_strategy(options) == compact_strategy::three_step) {
    // Scratch only; the nested scan gets wrapped memory inside it.
    const std::size_t scratch = three_step_scratch_bytes<Source>(n, in_place, wide);
    detail::workspace_lease lease(ws, 0, scratch, stream);
    run_three_step(source, sink, n, d_count, in_place, wide, stream, lease.view());
    return;
  }

  const long long tiles = compact_tiles_for<Policy>(n);
  constexpr bool staged = is_staged_compact_policy<Policy>;
  compact_tiles_args<Source, Sink> args{source, sink, n, tiles, d_count, count.device,
                                        staged && staged_kernels_available(), {}};
  const auto tile_count = static_cast<std::size_t>(tiles);
  detail::workspace_lease lease(ws, tiles > 1 ? tile_state_slots<selection_count>(tile_count) : 0,
                                tiles > 1 ? tile_state_scratch_bytes<selection_count>(tile_count) : 0, stream);
  if (tiles > 1) {
    const workspace_view& view = lease.view();
    args.pass.header = static_cast<single_pass_header*>(view.header);
    args.pass.state = make_tile_state<selection_count>(view.state_slots, view.scratch, tile_count);
    args.pass.region_slots = view.state_slot_count;
    args.pass.tiles = tiles;
    args.pass.backoff = Policy::backoff;
    args.pass.fence_other_memory = in_place;
    args.pass.async_proxy_input = args.bulk_copy;
  }
  if constexpr (staged) {
    launch_kernel(tiles > 1 ? "compact_staged_kernel (single pass)" : "compact_staged_kernel (one tile)",
                  compact_staged_kernel<Policy, Source, Sink>, static_cast<unsigned>(tiles),
                  compact_launch_threads<Policy>, stream, args);
  } else {
    launch_kernel(tiles > 1 ? "compact_tiles_kernel (single pass)" : "compact_tiles_kernel (one tile)",
                  compact_tiles_kernel<Policy, Source, Sink>, static_cast<unsigned>(tiles),
                  compact_launch_threads<Policy>, stream, args);
  }
}

// Workspace bytes a compaction of n items needs (0: none); the same for every sink.
template <class Policy, class Source>
std::size_t compact_workspace_bytes_for(long long n, const compact_options& options, bool in_place) {
  if (n <= 0) return 0;
  if (resolve_compact_strategy(options) == compact_strategy::three_step) {
    return workspace::bytes_needed(0, three_step_scratch_bytes<Source>(n, in_place, needs_64bit_offsets(n, options)));
  }
  const long long tiles = compact_tiles_for<Policy>(n);
  if (tiles <= 1) return 0;
  return workspace::bytes_needed(tile_state_slots<selection_count>(static_cast<std::size_t>(tiles)),
                                 tile_state_scratch_bytes<selection_count>(static_cast<std::size_t>(tiles)));
}

}  // namespace scankit::device_detail
