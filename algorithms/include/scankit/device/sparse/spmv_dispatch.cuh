// Device layer of the sparse module: the SpMV launches, host side, for any kernel shape (the
// library's tuned shapes are in algorithms/src/sparse/spmv_impl.cuh; docs/tuning.md).
//   spmv_merge_tiles          tiles of the merge-path kernel over rows + nnz positions
//   launch_merge_partition    the tiles' merge coordinates (a plan keeps them)
//   spmv_merge_workspace      what a merge-path product keeps in the workspace
//   run_spmv_merge            the merge-path kernel: one block without a workspace when the
//                             matrix fits one tile, else the tiles kernel and the carry fix-up,
//                             whose carries, tile states (and, without a plan's partition, the
//                             partition) live in the workspace
//   run_spmv_vector           the vector kernel for a row group of `width` lanes, Rows rows in flight
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>

#include <cuda_runtime.h>

#include "scankit/device/dispatch/single_pass_setup.cuh"
#include "scankit/device/sparse/merge_path.cuh"
#include "scankit/device/sparse/spmv_carry_fixup.cuh"
#include "scankit/device/sparse/spmv_merge_kernel.cuh"
#include "scankit/device/sparse/spmv_vector_kernel.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

template <class Policy>
long long spmv_merge_tiles(long long rows, long long nnz) {
  return (rows + nnz + Policy::tile_items - 1) / Policy::tile_items;
}

// The workspace of a merge-path product over `tiles` tiles (more than one): the fix-up scan's tile
// states, then the carries, their rows and (without a plan's) the partition in the scratch.
struct spmv_merge_layout {
  std::size_t state_slots;
  std::size_t carries_at, rows_at, partition_at, scratch_bytes;
};

template <class Value>
spmv_merge_layout spmv_merge_workspace(long long tiles, bool needs_partition) {
  using item_t = segment_item<Value>;
  const auto scan_tiles = static_cast<std::size_t>(carry_scan_tiles<Value>(tiles));
  const auto count = static_cast<std::size_t>(tiles);
  spmv_merge_layout l{};
  l.state_slots = tile_state_slots<item_t>(scan_tiles);
  l.carries_at = round_up_256(tile_state_scratch_bytes<item_t>(scan_tiles));
  l.rows_at = l.carries_at + round_up_256(count * sizeof(Value));
  l.partition_at = l.rows_at + round_up_256(count * sizeof(long long));
  l.scratch_bytes = l.partition_at + (needs_partition ? (count + 1) * sizeof(merge_coordinate) : 0);
  return l;
}

// rows_device: the rows' count in device memory (rows and nnz are then bounds), or null.
template <class Policy, class Index>
void launch_merge_partition(const Index* offsets, long long rows, long long nnz, merge_coordinate* coordinates,
                            cudaStream_t stream, const std::int64_t* rows_device = nullptr) {
  const long long tiles = spmv_merge_tiles<Policy>(rows, nnz);
  const auto blocks = static_cast<unsigned>((tiles + 1 + 255) / 256);
  launch_kernel("merge_path_partition_kernel", merge_path_partition_kernel<Index>, blocks, 256, stream, offsets, rows,
                nnz, tiles, static_cast<long long>(Policy::tile_items), coordinates, rows_device);
}

// The merge kernel's shared-memory carveout, once per kernel and device: the policy's percent, or
// (automatic) just what the blocks that its registers allow need, so that the rest of the unified
// cache is L1 for the gathers of x (docs/tuning.md).
template <class Policy, class Kernel>
void set_merge_carveout(Kernel kernel) {
  if constexpr (Policy::carveout_percent != spmv_carveout_driver) {
    static std::atomic<unsigned long long> done{0};  // a bit per device ordinal below 64
    int device = 0;
    SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
    const unsigned long long bit = device < 64 ? 1ull << device : 0;
    if (bit != 0 && (done.load(std::memory_order_relaxed) & bit) != 0) return;
    int percent = Policy::carveout_percent;
    if (percent == spmv_carveout_auto) {
      // The toolkit's occupancy calculator, asked before any carveout is set (it then assumes the
      // largest shared memory), gives the blocks that registers and threads allow.
      cudaFuncAttributes f{};
      int blocks = 0, max_shared = 0, reserved = 0;
      SCANKIT_CUDA_CHECK(cudaFuncGetAttributes(&f, kernel));
      SCANKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, Policy::block_threads, 0));
      SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
      SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
      const long long needed =
          static_cast<long long>(std::max(1, blocks)) * (static_cast<long long>(f.sharedSizeBytes) + reserved);
      percent = static_cast<int>(std::min(100LL, (100 * needed + max_shared - 1) / max_shared));
    }
    SCANKIT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
    done.fetch_or(bit, std::memory_order_relaxed);
  }
}

// `partition` from a plan made for the same Policy, or nullptr to compute it into the workspace
// (always with a row count in device memory: the launch is sized for the bounds, the partition
// covers the counted rows).
template <class Policy, class Index, class Value>
void run_spmv_merge(const spmv_arguments<Index, Value>& args, const merge_coordinate* partition, cudaStream_t stream,
                    workspace* ws) {
  using item_t = segment_item<Value>;
  const auto kernel = spmv_merge_kernel<Policy, Index, Value>;
  const long long tiles = spmv_merge_tiles<Policy>(args.rows, args.nnz);
  if (tiles <= 1) {
    launch_kernel("spmv_merge_kernel (single tile)", kernel, 1, Policy::block_threads, stream, args,
                  static_cast<const merge_coordinate*>(nullptr), spmv_carries<Value>{nullptr, nullptr});
    return;
  }
  set_merge_carveout<Policy>(kernel);
  const spmv_merge_layout layout = spmv_merge_workspace<Value>(tiles, partition == nullptr);
  const detail::workspace_lease lease(ws, layout.state_slots, layout.scratch_bytes, stream);
  const workspace_view view = lease.view();
  char* scratch = static_cast<char*>(view.scratch);
  if (partition == nullptr) {
    auto* coordinates = reinterpret_cast<merge_coordinate*>(scratch + layout.partition_at);
    launch_merge_partition<Policy>(args.offsets, args.rows, args.nnz, coordinates, stream, args.rows_device);
    partition = coordinates;
  }
  const spmv_carries<Value> carries{reinterpret_cast<Value*>(scratch + layout.carries_at),
                                    reinterpret_cast<long long*>(scratch + layout.rows_at)};
  launch_kernel("spmv_merge_kernel", kernel, static_cast<unsigned>(tiles), Policy::block_threads, stream, args,
                partition, carries);
  const auto pass = make_single_pass_context<item_t>(view, carry_scan_tiles<Value>(tiles),
                                                     carry_scan_policy<Value>::backoff);
  launch_carry_fixup(args, carries, tiles, pass, stream);
}

template <int Width, int Rows, int Chunks, int BlockThreads, class Index, class Value>
void launch_spmv_vector(const spmv_arguments<Index, Value>& args, cudaStream_t stream) {
  constexpr long long rows_per_block = BlockThreads / Width * Rows;
  const long long needed = (args.rows + rows_per_block - 1) / rows_per_block;
  const auto blocks = static_cast<unsigned>(std::clamp(needed, 1LL, 1LL << 20));  // grid-stride beyond
  if (args.rows_device != nullptr) {
    launch_kernel("spmv_vector_kernel (counted rows)",
                  spmv_vector_kernel<Width, Rows, Chunks, BlockThreads, Index, Value, true>, blocks, BlockThreads,
                  stream, args);
    return;
  }
  launch_kernel("spmv_vector_kernel", spmv_vector_kernel<Width, Rows, Chunks, BlockThreads, Index, Value>, blocks,
                BlockThreads, stream, args);
}

// Rows rows in flight per group, Chunks x width nonzeros of each loaded ahead.
template <int Rows, int Chunks, int BlockThreads, class Index, class Value>
void run_spmv_vector(const spmv_arguments<Index, Value>& args, int width, cudaStream_t stream) {
  switch (width) {
    case 2: launch_spmv_vector<2, Rows, Chunks, BlockThreads>(args, stream); break;
    case 4: launch_spmv_vector<4, Rows, Chunks, BlockThreads>(args, stream); break;
    case 8: launch_spmv_vector<8, Rows, Chunks, BlockThreads>(args, stream); break;
    case 16: launch_spmv_vector<16, Rows, Chunks, BlockThreads>(args, stream); break;
    default: launch_spmv_vector<32, Rows, Chunks, BlockThreads>(args, stream); break;
  }
}

}  // namespace scankit::device_detail
