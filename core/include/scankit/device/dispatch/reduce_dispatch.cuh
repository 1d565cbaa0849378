// Device layer: the whole-array reduction, host side. One launch of reduce_kernel with as many
// blocks as the GPU holds at once (never more: each warp owns a contiguous run of the input, so a
// second wave of blocks would run their runs after the first), fewer for small inputs; one block
// writes the result directly, more take a workspace for their partials.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/detail/check_arguments.hpp"
#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/kernel/reduce_kernel.cuh"
#include "scankit/device/tuning/tuning_scan.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/util/resident_blocks.cuh"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

// The tuned shape (tuning_scan.cuh): warp tiles taken in turn across the grid.
template <class Item>
using reduce_tuning = reduce_policy<tuning::scan_tuning_table::reduce_kernel<sizeof(Item)>::block_threads,
                                    tuning::scan_tuning_table::reduce_kernel<sizeof(Item)>::items_per_thread>;

// The grid of a reduction of n items: warp tiles per warp, and blocks (none of them empty).
struct reduce_grid {
  long long warp_tiles_per_warp;
  unsigned blocks;
};

// At most this many blocks, whatever the GPU holds: workspace sizes need no GPU.
constexpr int reduce_max_blocks = 4096;

template <class Policy>
reduce_grid plan_reduce(long long n, int resident) {
  const int max_blocks = std::min(resident, reduce_max_blocks);
  const long long warp_tiles = (n + Policy::warp_tile_items - 1) / Policy::warp_tile_items;
  const long long max_warps = static_cast<long long>(max_blocks) * Policy::warps;
  const long long per_warp = std::max(1LL, (warp_tiles + max_warps - 1) / max_warps);
  const long long warps = (warp_tiles + per_warp - 1) / per_warp;
  const long long blocks = std::max(1LL, (warps + Policy::warps - 1) / Policy::warps);
  return {per_warp, static_cast<unsigned>(blocks)};
}

template <class T>
std::size_t reduce_scratch_bytes(unsigned blocks) {
  return blocks > 1 ? blocks * sizeof(optional_value<T>) : 0;
}

// Workspace bytes that any GPU's reduction of n items needs (0 when one block does it).
template <class Policy, class T>
std::size_t reduce_workspace_bytes(long long n) {
  const reduce_grid most = plan_reduce<Policy>(n, reduce_max_blocks);
  return most.blocks > 1 ? workspace::bytes_needed(0, reduce_scratch_bytes<T>(most.blocks)) : 0;
}

template <class Policy, class T, class Item, class In, class Out, class Map, class Op>
void run_reduce(const char* function, In in, Out out, item_count count, bool has_init, const T& init, Map map, Op op,
                cudaStream_t stream, workspace* ws) {
  const ::scankit::detail::nvtx_range nvtx(function);
  static_assert(std::is_trivially_copyable_v<T>, "reduction values must be trivially copyable");
  const long long n = count.bound;  // a device count's launch is planned for its bound
  detail::check_count(function, n);
  if constexpr (std::is_pointer_v<In>) detail::check_pointer(function, "in", in, n);
  if constexpr (std::is_pointer_v<Out>) detail::check_pointer(function, "out", out, 1);
  if constexpr (std::is_pointer_v<In> && std::is_pointer_v<Out>) {
    const auto* o = reinterpret_cast<const char*>(out);
    const auto* i = reinterpret_cast<const char*>(in);
    if (n > 0 && o < i + n * sizeof(*in) && i < o + sizeof(*out)) {
      throw error(std::string(function) + ": out overlaps in");
    }
  }
  const auto kernel = reduce_kernel<Policy, T, In, Out, Map, Op>;
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  const reduce_grid grid =
      plan_reduce<Policy>(n, resident_blocks<reduce_kernel<Policy, T, In, Out, Map, Op>, Policy::block_threads>(device));
  reduce_args<T, In, Out, Map> args{in, n, out, map, has_init, init, grid.warp_tiles_per_warp, nullptr, nullptr,
                                    count.device};
  if (grid.blocks == 1) {
    launch_kernel("reduce_kernel (one block)", kernel, 1, Policy::block_threads, stream, args, op);
    return;
  }
  const detail::workspace_lease lease(ws, 0, reduce_scratch_bytes<T>(grid.blocks), stream);
  args.partials = static_cast<optional_value<T>*>(lease.view().scratch);
  args.header = static_cast<single_pass_header*>(lease.view().header);
  launch_kernel("reduce_kernel", kernel, grid.blocks, Policy::block_threads, stream, args, op);
}

}  // namespace scankit::device_detail
