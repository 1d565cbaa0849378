// Device layer of the radix sort: the launches of one sort and the memory they take.
//
//   onesweep          histogram of every pass (one read of the keys), their exclusive scans, then
//                     per pass one radix_pass_kernel per portion of up to 2^28 keys (a portion's
//                     counts fit the 32-bit words of the tile state; its last tile hands the digit
//                     starts on to the next portion)
//   reduce_then_scan  per pass: every tile's digit counts, an exclusive scan of them with the
//                     engine's scan (digit-major, so the scan gives each (digit, tile) its output
//                     position), then radix_pass_kernel reading its offsets from there
//
// Keys move as they are; the digits come from the bit-key (sort_key_order.hpp). The passes
// ping-pong between two buffers: out-of-place sorts use the output and a scratch array, arranged
// so that the last pass writes the output and the input is only read; double-buffer sorts use the
// caller's two arrays and flip the selector once per pass (the pass count is known on the host).
// Onesweep passes whose digit is the same for every key are skipped on the device, without a
// synchronisation: every pass is enqueued and finds its own route (radix_pass_route.cuh).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/device/dispatch/offsets_sum.cuh"
#include "scankit/device/dispatch/single_pass_setup.cuh"
#include "scankit/device/sort/radix_block_sort.cuh"
#include "scankit/device/sort/radix_pass_choice.cuh"
#include "scankit/device/sort/radix_histogram.cuh"
#include "scankit/device/sort/radix_pass_kernel.cuh"
#include "scankit/device/sort/sort_policy.cuh"
#include "scankit/device/util/copy_items.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/util/launch_cluster.cuh"
#include "scankit/error.hpp"
#include "scankit/sort_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

constexpr std::size_t radix_round_up_256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// Keys of one onesweep launch at most: a digit's count in a portion fits 32 bits with room.
constexpr long long radix_portion_keys = 1ll << 28;

// Everything about one sort that the host decides: passes, tiles, and where each piece of the
// scratch lives (offsets from the scratch start).
template <class Policy>
struct radix_sort_plan {
  long long n = 0;                          // the keys, or their bound with a device count
  const std::int64_t* n_device = nullptr;  // the count in device memory (device_count.cuh), or nullptr
  radix_passes passes{};
  bool reduce_then_scan = false;
  long long tiles = 0;          // of the whole array
  long long portion_tiles = 0;  // onesweep: tiles per launch
  long long portions = 0;
  std::size_t state_slots = 0;
  std::size_t counts_at = 0, starts_at = 0, tile_offsets_at = 0, scan_workspace_at = 0, scan_workspace_bytes = 0;
  std::size_t alternate_keys_at = 0, alternate_values_at = 0, spare_keys_at = 0;
  std::size_t scratch_bytes = 0;

  // Entries of the digit starts of one pass (every portion's, plus the last hand-over).
  long long starts_per_pass() const { return (portions + 1) * Policy::radix; }
  // onesweep: every pass's digit counts, then the mask of trivial passes (radix_pass_route.cuh).
  static std::size_t counts_bytes(int passes) {
    return static_cast<std::size_t>(passes) * Policy::radix * sizeof(unsigned long long) + sizeof(unsigned long long);
  }
  static std::size_t trivial_mask_at(int passes) {
    return static_cast<std::size_t>(passes) * Policy::radix * sizeof(unsigned long long);
  }
};

// alternate_keys / alternate_values: the out-of-place sort's second buffers; spare_keys: a second
// key buffer when the caller wants no sorted keys (argsort).
template <class Policy, class Key, class Value>
radix_sort_plan<Policy> plan_radix_sort(long long n, int begin_bit, int end_bit, bool reduce_then_scan,
                                        bool alternate_keys, bool alternate_values, bool spare_keys) {
  radix_sort_plan<Policy> plan;
  plan.n = n;
  plan.passes = radix_passes{begin_bit, end_bit, Policy::radix_bits};
  plan.reduce_then_scan = reduce_then_scan;
  plan.tiles = (n + Policy::tile_items - 1) / Policy::tile_items;
  const long long portion_tiles = (radix_portion_keys + Policy::tile_items - 1) / Policy::tile_items;
  plan.portion_tiles = reduce_then_scan ? plan.tiles : std::min(plan.tiles, portion_tiles);
  plan.portions = plan.portion_tiles == 0 ? 0 : (plan.tiles + plan.portion_tiles - 1) / plan.portion_tiles;
  const int passes = plan.passes.count();
  if (n == 0 || passes == 0) return plan;

  std::size_t at = 0;
  const auto take = [&at](std::size_t bytes) {
    const std::size_t here = at;
    at += radix_round_up_256(bytes);
    return here;
  };
  const auto count = static_cast<std::size_t>(n);
  if (reduce_then_scan) {
    const std::size_t entries = static_cast<std::size_t>(plan.tiles) * Policy::radix;
    plan.tile_offsets_at = take(entries * sizeof(unsigned long long));
    plan.scan_workspace_bytes =
        exclusive_offsets_sum_workspace_bytes<std::uint64_t>(static_cast<long long>(entries));
    plan.scan_workspace_at = take(plan.scan_workspace_bytes);
  } else {
    plan.state_slots = multi_channel_state_slots(static_cast<std::size_t>(plan.portion_tiles), Policy::radix);
    plan.counts_at = take(plan.counts_bytes(passes));
    plan.starts_at = take(static_cast<std::size_t>(passes * plan.starts_per_pass()) * sizeof(unsigned long long));
  }
  const bool ping_pong = passes > 1;
  if (alternate_keys && ping_pong) plan.alternate_keys_at = take(count * sizeof(Key));
  if (spare_keys) plan.spare_keys_at = take(count * sizeof(Key));
  if constexpr (!std::is_same_v<Value, radix_no_values>) {
    if (alternate_values && ping_pong) plan.alternate_values_at = take(count * sizeof(Value));
  }
  plan.scratch_bytes = at;
  return plan;
}

template <class Policy, class Key, class Value>
std::size_t radix_sort_workspace_bytes(const radix_sort_plan<Policy>& plan) {
  if (plan.scratch_bytes == 0 && plan.state_slots == 0) return 0;
  return workspace::bytes_needed(plan.state_slots, plan.scratch_bytes);
}

// The arrays a sort's passes move between (radix_pass_route.cuh): the source, read only unless
// double-buffered, and the two buffers.
template <class Key, class Value>
struct radix_sort_buffers {
  const Key* keys_source;
  Key* keys[2];
  const Value* values_source;  // null: the indices (argsort)
  Value* values[2];
  bool double_buffered;
};

// One pass over every portion (onesweep) or the whole array (reduce-then-scan).
template <class Policy, class Key, class Value, class BitKey>
void run_radix_pass(const radix_sort_plan<Policy>& plan, const workspace_view& view, int device, int pass,
                    const BitKey& bit_key, bool descending, const radix_sort_buffers<Key, Value>& buffers,
                    cudaStream_t stream) {
  auto* scratch = static_cast<unsigned char*>(view.scratch);
  const int passes = plan.passes.count();
  radix_pass_args<Key, Value, BitKey> args{};
  args.keys_source = buffers.keys_source;
  args.key_buffers[0] = buffers.keys[0];
  args.key_buffers[1] = buffers.keys[1];
  args.values_source = buffers.values_source;
  args.value_buffers[0] = buffers.values[0];
  args.value_buffers[1] = buffers.values[1];
  args.pass = pass;
  args.passes = passes;
  args.double_buffered = buffers.double_buffered;
  args.digit = plan.passes.template digit<Key>(pass, bit_key, descending);
  args.backoff = Policy::backoff;
  constexpr std::size_t smem = radix_exchange_bytes<Policy, Key, Value>();

  if (plan.reduce_then_scan) {  // every pass runs: the route is known here
    const radix_pass_route route = route_radix_pass(0u, pass, passes, buffers.double_buffered);
    const Key* keys_in = route.read < 0 ? buffers.keys_source : buffers.keys[route.read];
    auto* tile_offsets = reinterpret_cast<unsigned long long*>(scratch + plan.tile_offsets_at);
    const auto tiles = static_cast<unsigned>(plan.tiles);
    launch_kernel("radix_tile_counts_kernel (reduce-then-scan, counts)", radix_tile_counts_kernel<Policy, Key, BitKey>,
                  tiles, Policy::block_threads, stream, keys_in, plan.n, args.digit, tiles, tile_offsets);
    workspace scan_ws(plan.scan_workspace_bytes != 0 ? scratch + plan.scan_workspace_at : nullptr,
                      plan.scan_workspace_bytes);
    auto* offsets64 = reinterpret_cast<std::uint64_t*>(tile_offsets);
    exclusive_offsets_sum(offsets64, static_cast<long long>(plan.tiles) * Policy::radix, stream,
                          plan.scan_workspace_bytes != 0 ? &scan_ws : nullptr);
    args.first = 0;
    args.n = plan.n;
    args.tile_offsets = tile_offsets;
    args.tiles = tiles;
    constexpr auto kernel = radix_pass_kernel<Policy, radix_offsets_source::reduce_then_scan, Key, Value, BitKey>;
    allow_dynamic_shared_memory<kernel>(device, smem);
    launch_kernel_smem("radix_pass_kernel (reduce-then-scan, scatter)", kernel, tiles, Policy::block_threads, smem,
                       stream, args);
    return;
  }

  auto* starts = reinterpret_cast<unsigned long long*>(scratch + plan.starts_at) + pass * plan.starts_per_pass();
  args.trivial_passes = reinterpret_cast<const unsigned*>(scratch + plan.counts_at + plan.trivial_mask_at(passes));
  args.header = static_cast<single_pass_header*>(view.header);
  args.state = multi_channel_tile_state<unsigned>{view.state_slots, static_cast<std::uint32_t>(Policy::radix), 0};
  args.region_slots = view.state_slot_count;
  constexpr auto kernel = radix_pass_kernel<Policy, radix_offsets_source::onesweep, Key, Value, BitKey>;
  allow_dynamic_shared_memory<kernel>(device, smem);
  const long long portion_keys = plan.portion_tiles * Policy::tile_items;
  args.n_device = plan.n_device;
  args.bound = plan.n;
  for (long long portion = 0; portion < plan.portions; ++portion) {
    args.first = portion * portion_keys;
    args.n = std::min(portion_keys, plan.n - args.first);
    args.tiles = static_cast<unsigned>((args.n + Policy::tile_items - 1) / Policy::tile_items);
    args.digit_starts = starts + portion * Policy::radix;
    args.next_digit_starts = starts + (portion + 1) * Policy::radix;
    launch_kernel_smem("radix_pass_kernel (onesweep)", kernel, args.tiles, Policy::block_threads, smem, stream, args);
  }
}

// The digit counts and starts of every onesweep pass, and the mask of trivial passes.
template <class Policy, class Key, class BitKey>
void run_radix_histogram(const radix_sort_plan<Policy>& plan, const workspace_view& view, int device,
                         const BitKey& bit_key, bool descending, const Key* keys, cudaStream_t stream) {
  using histogram_policy = radix_histogram_policy;
  constexpr int max_passes = (8 * sizeof(bit_key_result_t<BitKey, Key>) + Policy::radix_bits - 1) / Policy::radix_bits;
  auto* scratch = static_cast<unsigned char*>(view.scratch);
  auto* counts = reinterpret_cast<unsigned long long*>(scratch + plan.counts_at);
  auto* starts = reinterpret_cast<unsigned long long*>(scratch + plan.starts_at);
  const int passes = plan.passes.count();
  auto* trivial = reinterpret_cast<unsigned*>(scratch + plan.counts_at + plan.trivial_mask_at(passes));
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(counts, 0, plan.counts_bytes(passes), stream));
  int sms = 0;
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const long long tiles = (plan.n + histogram_policy::tile_items - 1) / histogram_policy::tile_items;
  const auto grid = static_cast<unsigned>(std::min<long long>(tiles, 4ll * sms));
  launch_kernel("radix_histogram_kernel", radix_histogram_kernel<histogram_policy, Policy::radix, max_passes, Key, BitKey>,
                grid, histogram_policy::block_threads, stream, keys, plan.n, plan.n_device, bit_key, descending,
                plan.passes, counts);
  launch_kernel("radix_digit_starts_kernel", radix_digit_starts_kernel<Policy::radix>, static_cast<unsigned>(passes),
                Policy::radix, stream, counts, plan.n, plan.n_device, starts, plan.starts_per_pass(), trivial);
}

// Fills out[i] = i (argsort with no pass to run); n_device as in device_count.cuh.
template <class Index>
__global__ void radix_iota_kernel(Index* out, long long bound, const std::int64_t* n_device) {
  const long long n = items_to_process(bound, n_device);
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    out[i] = static_cast<Index>(i);
  }
}

// One sort's arrays. Out of place: keys_in -> keys_out (null: the sorted keys are not wanted, as
// in argsort; they go to scratch), values_in -> values_out (values_out null: keys only; values_in
// null: the values are the keys' indices, argsort). Double-buffered: keys_in / values_in are the
// current buffers, keys_alternate / values_alternate (also given as keys_out / values_out) the
// others; nothing is copied back and the caller flips its selectors once per pass.
template <class Policy, class Key, class Value, class BitKey>
struct radix_sort_call {
  const Key* keys_in;
  Key* keys_out;          // null: sorted keys are not wanted (argsort)
  const Value* values_in;  // null with values_out set: the indices
  Value* values_out;      // null: keys only
  Key* keys_alternate = nullptr;      // double-buffered: the caller's second buffers
  Value* values_alternate = nullptr;
  bool double_buffered = false;
};

// The same call with another pass shape.
template <class Other, class Policy, class Key, class Value, class BitKey>
radix_sort_call<Other, Key, Value, BitKey> with_pass_policy(const radix_sort_call<Policy, Key, Value, BitKey>& call) {
  return {call.keys_in,        call.keys_out,         call.values_in,     call.values_out,
          call.keys_alternate, call.values_alternate, call.double_buffered};
}

// The tuned shapes of a call's (Key, Value); `lean_differs` when Policy is the tuned pass and the
// lean pass (radix_pass_choice.cuh) is another shape.
template <class Policy, class Key, class Value>
struct radix_call_tuning {
  using type = radix_sort_tuning<sizeof(Key), std::is_same_v<Value, radix_no_values> ? 0 : sizeof(Value)>;
  static constexpr bool lean_differs =
      std::is_same_v<Policy, typename type::pass> && !std::is_same_v<typename type::pass, typename type::lean_pass>;
};

template <class Policy, class Key, class Value, class BitKey>
radix_sort_plan<Policy> plan_for(const radix_sort_call<Policy, Key, Value, BitKey>& call, long long n, int begin_bit,
                                 int end_bit, bool reduce_then_scan) {
  const bool has_values = call.values_out != nullptr;
  return plan_radix_sort<Policy, Key, Value>(n, begin_bit, end_bit, reduce_then_scan, !call.double_buffered,
                                             has_values && !call.double_buffered, call.keys_out == nullptr);
}

// The positions per block (log2) of a cluster sort of n keys (radix_block_sort.cuh), or 0 where
// one block or the multi-block passes sort them: the smallest power of two of at least
// BlockPolicy::cluster_chunk_keys that BlockPolicy::cluster_max_blocks blocks cover n with, if a
// block's tile holds it and the device holds such a cluster (sm_90 and later; not every GPU
// partition); where it does not, the same with at most 8 blocks (the portable size).
template <class BlockPolicy, class Key, class Value, class BitKey>
int radix_cluster_chunk_log2(long long n, int device) {
  if (n > radix_cluster_max_keys || !device_has_clusters(device)) return 0;
  constexpr auto kernel = radix_block_sort_kernel<BlockPolicy, Key, Value, BitKey, true>;
  constexpr std::size_t smem = radix_block_sort_bytes<BlockPolicy, Key, Value>();
  allow_dynamic_shared_memory<kernel>(device, smem);
  constexpr int largest = BlockPolicy::cluster_max_blocks;
  if constexpr (largest > static_cast<int>(portable_cluster_blocks)) allow_nonportable_clusters<kernel>(device);
  for (const int max_blocks : {largest, std::min(largest, static_cast<int>(portable_cluster_blocks))}) {
    int chunk_log2 = 0;
    while ((1ll << chunk_log2) < BlockPolicy::cluster_chunk_keys || (1ll << chunk_log2) * max_blocks < n) ++chunk_log2;
    if (n <= (1ll << chunk_log2)) return 0;
    if ((1ll << chunk_log2) > BlockPolicy::tile_items) continue;
    const auto blocks = static_cast<unsigned>((n + (1ll << chunk_log2) - 1) >> chunk_log2);
    if (cluster_fits<kernel>(device, blocks, BlockPolicy::block_threads, smem)) return chunk_log2;
  }
  return 0;
}

// A sort of at most BlockPolicy::tile_items keys in one launch of one block (chunk_log2 == 0), or
// (Clustered) of at most BlockPolicy::cluster_max_blocks x 2^chunk_log2 in one cluster of blocks, each
// holding 2^chunk_log2 positions. It reads everything before it writes, so a double-buffered sort
// with an even pass count sorts in place.
template <class BlockPolicy, bool Clustered, class Policy, class Key, class Value, class BitKey>
void run_radix_block_sort(const radix_sort_call<Policy, Key, Value, BitKey>& call, item_count count,
                          const radix_passes& passes, bool descending, const BitKey& bit_key, int device,
                          int chunk_log2, cudaStream_t stream) {
  const long long n = count.bound;
  radix_block_sort_args<Key, Value, BitKey> args{};
  const bool to_alternate = call.double_buffered && passes.count() % 2 == 1;
  args.keys_in = call.keys_in;
  args.keys_out = call.double_buffered ? (to_alternate ? call.keys_alternate : const_cast<Key*>(call.keys_in)) : call.keys_out;
  if constexpr (!std::is_same_v<Value, radix_no_values>) {
    if (call.values_out != nullptr) {
      args.values_in = call.values_in;
      args.values_out = call.double_buffered ? (to_alternate ? call.values_alternate : const_cast<Value*>(call.values_in))
                                             : call.values_out;
    }
  }
  args.n = static_cast<int>(n);
  args.passes = passes;
  args.bit_key = bit_key;
  args.descending = descending;
  args.n_device = count.device;
  constexpr std::size_t smem = radix_block_sort_bytes<BlockPolicy, Key, Value>();
  constexpr auto kernel = radix_block_sort_kernel<BlockPolicy, Key, Value, BitKey, Clustered>;
  allow_dynamic_shared_memory<kernel>(device, smem);
  if (Clustered && chunk_log2 > 0) {
    args.chunk_log2 = chunk_log2;
    const auto blocks = static_cast<unsigned>((n + (1ll << chunk_log2) - 1) >> chunk_log2);
    if (blocks > portable_cluster_blocks) allow_nonportable_clusters<kernel>(device);
    launch_kernel_cluster("radix_block_sort_kernel (cluster)", kernel, dim3(blocks), dim3(BlockPolicy::block_threads),
                          blocks, smem, stream, args);
  } else {
    launch_kernel_smem("radix_block_sort_kernel", kernel, 1u, BlockPolicy::block_threads, smem, stream, args);
  }
}

// With a count in device memory (count.device) every launch is sized for count.bound and reads
// the count (device_count.cuh); the reduce-then-scan strategy does not take one (its callers
// refuse it).
template <class Policy, class Key, class Value, class BitKey>
void run_radix_sort(const radix_sort_call<Policy, Key, Value, BitKey>& call, item_count count, int begin_bit,
                    int end_bit, bool descending, bool reduce_then_scan, const BitKey& bit_key, cudaStream_t stream,
                    workspace* ws) {
  const long long n = count.bound;
  if (n == 0) return;
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  using tuned = typename radix_call_tuning<Policy, Key, Value>::type;
  if constexpr (radix_call_tuning<Policy, Key, Value>::lean_differs) {
    // The onesweep passes of the tuned shape take the lean one on GPUs that prefer it (its small
    // sorts are the same kernels); reduce-then-scan keeps the tuned shape.
    if (!reduce_then_scan && lean_pass_preferred(device)) {
      run_radix_sort(with_pass_policy<typename tuned::lean_pass>(call), count, begin_bit, end_bit, descending, false,
                     bit_key, stream, ws);
      return;
    }
  }
  radix_sort_plan<Policy> plan = plan_for(call, n, begin_bit, end_bit, reduce_then_scan);
  plan.n_device = count.device;
  const int passes = plan.passes.count();
  const bool has_values = call.values_out != nullptr;
  if (passes == 0) {  // nothing to sort by: the input order is the sorted order
    if (call.double_buffered) return;
    if (call.keys_out != nullptr) copy_items(call.keys_in, call.keys_out, count, stream);
    if constexpr (!std::is_same_v<Value, radix_no_values>) {
      if (has_values && call.values_in != nullptr) {
        copy_items(call.values_in, call.values_out, count, stream);
      } else if constexpr (std::is_integral_v<Value>) {
        if (has_values) {
          const auto grid = static_cast<unsigned>(std::min<long long>((n + 255) / 256, 1 << 16));
          launch_kernel("radix_iota_kernel", radix_iota_kernel<Value>, grid, 256, stream, call.values_out, n,
                        count.device);
        }
      }
    }
    return;
  }

  if (Policy::small_sorts_in_one_block && !plan.reduce_then_scan) {
    if (n <= tuned::block_smallest::tile_items) {
      run_radix_block_sort<typename tuned::block_smallest, false>(call, count, plan.passes, descending, bit_key,
                                                                  device, 0, stream);
      return;
    }
    if (n <= tuned::block_small::tile_items) {
      run_radix_block_sort<typename tuned::block_small, false>(call, count, plan.passes, descending, bit_key,
                                                               device, 0, stream);
      return;
    }
    // Without clusters (before sm_90, or a partition without room for this one) the cluster's
    // block shape sorts up to its tile alone.
    using cluster_shape = typename tuned::block_cluster;
    const int chunk_log2 = radix_cluster_chunk_log2<cluster_shape, Key, Value, BitKey>(n, device);
    if (chunk_log2 > 0 || n <= cluster_shape::tile_items) {
      run_radix_block_sort<cluster_shape, true>(call, count, plan.passes, descending, bit_key, device, chunk_log2,
                                                stream);
      return;
    }
  }

  const detail::workspace_lease lease(ws, plan.state_slots, plan.scratch_bytes, stream);
  const workspace_view& view = lease.view();
  auto* scratch = static_cast<unsigned char*>(view.scratch);
  radix_sort_buffers<Key, Value> buffers{};
  buffers.double_buffered = call.double_buffered;
  buffers.keys_source = call.keys_in;
  buffers.values_source = has_values ? call.values_in : nullptr;
  if (call.double_buffered) {
    buffers.keys[0] = const_cast<Key*>(call.keys_in);
    buffers.keys[1] = call.keys_alternate;
    buffers.values[0] = const_cast<Value*>(call.values_in);
    buffers.values[1] = call.values_alternate;
  } else {
    // Buffer 0 is where the sorted keys end (radix_pass_route.cuh), buffer 1 the scratch copy.
    buffers.keys[0] = call.keys_out != nullptr ? call.keys_out : reinterpret_cast<Key*>(scratch + plan.spare_keys_at);
    buffers.keys[1] = passes > 1 ? reinterpret_cast<Key*>(scratch + plan.alternate_keys_at) : nullptr;
    if constexpr (!std::is_same_v<Value, radix_no_values>) {
      buffers.values[0] = call.values_out;
      buffers.values[1] = passes > 1 && has_values ? reinterpret_cast<Value*>(scratch + plan.alternate_values_at) : nullptr;
    }
  }
  if (!has_values) buffers.values[0] = buffers.values[1] = nullptr;

  if (!plan.reduce_then_scan) run_radix_histogram(plan, view, device, bit_key, descending, call.keys_in, stream);
  for (int pass = 0; pass < passes; ++pass) {
    run_radix_pass(plan, view, device, pass, bit_key, descending, buffers, stream);
  }
}

}  // namespace scankit::device_detail
