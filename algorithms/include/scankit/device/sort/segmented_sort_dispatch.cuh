// Device layer of the segmented sort: one call's steps.
//
//   1. census     segment_count_kernel checks every segment's bounds and counts the segments of
//                 each size class; the host reads the counts (the call's one synchronisation
//                 before any output is written: bad offsets throw here, the outputs untouched)
//   2. small      segment_small_kernel sorts the segments of one and two items and lists the
//                 others by class; the device-wide class's ranges are read back
//   3. the rest   segment_thread_kernel on the thread class's list, one segment_block_kernel
//                 launch per block class, then the caller's device-wide sort once per segment
//                 above the largest block tile (few: each has more items than one block holds)
// Items outside every segment are not written. Every kernel reads a segment before it writes it,
// so keys_out may be keys_in (values likewise): the two-buffer form sorts in place when the
// device-wide sorts end in the current buffers.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "scankit/device/dispatch/single_pass_setup.cuh"
#include "scankit/device/sort/radix_sort_dispatch.cuh"
#include "scankit/device/sort/segmented_sort_kernels.cuh"
#include "scankit/device/sort/sort_policy.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/util/resident_blocks.cuh"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

// The class limits that the block shapes of a tuning entry make: their tiles.
template <class Entry>
constexpr segment_class_limits segment_limits_of() {
  segment_class_limits limits{};
  for (int b = 0; b < segment_block_classes; ++b) limits.block_tiles[b] = Entry::block_threads[b] * Entry::items_per_thread[b];
  return limits;
}

template <class Entry>
constexpr bool segment_tiles_increase() {
  const segment_class_limits limits = segment_limits_of<Entry>();
  int below = segment_thread_items;
  for (int tile : limits.block_tiles) {
    if (tile <= below) return false;
    below = tile;
  }
  return true;
}

// The block shapes for items (key + value) of ItemBytes (tuning_sort.cuh).
template <std::size_t ItemBytes>
struct segmented_sort_shapes {
  using entry = tuning::sort_tuning_table::segmented_blocks<ItemBytes>;
  static_assert(entry::count == segment_block_classes, "one block shape per block class");
  static_assert(segment_tiles_increase<entry>(),
                "segment_class_limits::class_of counts the limits below a size: they must increase");
  template <int B>
  using shape = radix_block_sort_policy<entry::block_threads[B], entry::items_per_thread[B]>;
  static constexpr segment_class_limits limits = segment_limits_of<entry>();
};

// The shapes of a call's items: keys, or keys and values.
template <class Key, class Value>
using segment_shapes_for =
    segmented_sort_shapes<sizeof(Key) + (std::is_same_v<Value, radix_no_values> ? 0 : sizeof(Value))>;

inline int current_device() {
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// keys_out may equal keys_in (and values_out values_in): see the top of this file.
template <class Key, class Value, class BitKey>
struct segmented_sort_call {
  const Key* keys_in;
  Key* keys_out;
  const Value* values_in;  // null: keys only
  Value* values_out;
};

// What the segment kernels take of a call.
template <class Key, class Value, class BitKey>
segment_sort_args<Key, Value, BitKey> segment_args_of(const segmented_sort_call<Key, Value, BitKey>& call, int begin_bit,
                                                      int end_bit, bool descending, const BitKey& bit_key) {
  return {call.keys_in, call.keys_out, call.values_in, call.values_out, radix_passes{begin_bit, end_bit, 8},
          bit_key,      descending};
}

// Device memory the segmented sort takes for itself (the census, then the lists of segments), at
// most, for num_segments segments; the device-wide sorts of large segments take theirs after.
inline std::size_t segmented_sort_own_bytes(long long num_segments) {
  const std::size_t lists = round_up_256(static_cast<std::size_t>(num_segments) * sizeof(segment_range)) +
                            segment_classes * sizeof(unsigned long long);
  return workspace::bytes_needed(0, std::max(lists, sizeof(segment_census)));
}

template <class Policy, class Key, class Value, class BitKey>
void launch_segment_blocks(const segment_range* list, unsigned long long count, int segment_class,
                           const segment_sort_args<Key, Value, BitKey>& args, int device, cudaStream_t stream) {
  if (count == 0) return;
  constexpr std::size_t smem = radix_block_sort_bytes<Policy, Key, Value>();
  constexpr auto kernel = segment_block_kernel<Policy, Key, Value, BitKey>;
  allow_dynamic_shared_memory<kernel>(device, smem);
  constexpr unsigned long long max_grid = INT_MAX;
  for (unsigned long long done = 0; done < count; done += max_grid) {
    const auto grid = static_cast<unsigned>(std::min(count - done, max_grid));
    launch_kernel_smem("segment_block_kernel (segmented sort)", kernel, grid, Policy::block_threads, smem, stream,
                       segment_class_list{list + done, grid, nullptr, segment_class}, args);
  }
}

// One segment_block_kernel launch per block class, on that class's list.
template <class Shapes, class Key, class Value, class BitKey, int... B>
void launch_block_classes(const segment_range* lists, const segment_list_starts& starts, const segment_census& census,
                          const segment_sort_args<Key, Value, BitKey>& args, int device, cudaStream_t stream,
                          std::integer_sequence<int, B...>) {
  constexpr int first = segment_first_block_class;
  (launch_segment_blocks<typename Shapes::template shape<B>>(lists + starts.first[first + B], census.counts[first + B],
                                                             first + B, args, device, stream),
   ...);
}

// A grid for `units` blocks' worth of work, at most what the GPU holds at once (each kernel loops).
template <auto Kernel>
unsigned segment_grid(long long units, int device) {
  return static_cast<unsigned>(
      std::max<long long>(1, std::min<long long>(units, resident_blocks<Kernel, segment_pass_threads>(device))));
}

// sort_large(range, bit_key, passes, descending) sorts one segment above the block tiles with a
// device-wide sort, from call.keys_in to call.keys_out (values likewise), on `stream` with `ws`.
template <class Key, class Value, class Offset, class BitKey, class SortLarge>
void run_segmented_sort(const char* function, const segmented_sort_call<Key, Value, BitKey>& call, long long n,
                        const Offset* offsets, long long segments, int begin_bit, int end_bit, bool descending,
                        const BitKey& bit_key, cudaStream_t stream, workspace* ws, SortLarge&& sort_large) {
  if (segments == 0) return;
  using shapes = segment_shapes_for<Key, Value>;
  constexpr segment_class_limits limits = shapes::limits;
  const int device = current_device();

  // 1. The census, read back: nothing has been written to the outputs yet.
  segment_census census{};
  {
    const detail::workspace_lease lease(ws, 0, sizeof(segment_census), stream);
    auto* d_census = static_cast<segment_census*>(lease.view().scratch);
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(d_census, 0, sizeof(segment_census), stream));
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(&d_census->first_bad, 0xff, sizeof(unsigned long long), stream));
    constexpr auto count_kernel = segment_count_kernel<Offset>;
    launch_kernel("segment_count_kernel (segmented sort)", count_kernel,
                  segment_grid<count_kernel>(tiles_of<segment_pass_tile<segment_count_per_thread>>(segments), device),
                  segment_pass_threads, stream, offsets, segments, n, limits, d_census, segment_device_counts{});
    SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&census, d_census, sizeof(segment_census), cudaMemcpyDeviceToHost, stream));
    SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  if (census.first_bad != ULLONG_MAX) {
    Offset bounds[2] = {};
    SCANKIT_CUDA_CHECK(cudaMemcpy(bounds, offsets + census.first_bad, sizeof(bounds), cudaMemcpyDeviceToHost));
    throw error(std::string(function) + ": segment " + std::to_string(census.first_bad) + " = [" +
                std::to_string(static_cast<long long>(bounds[0])) + ", " + std::to_string(static_cast<long long>(bounds[1])) +
                ") is not a range inside [0, n] (n = " + std::to_string(n) + ")");
  }

  const auto args = segment_args_of(call, begin_bit, end_bit, descending, bit_key);
  const segment_list_starts starts = list_starts_of(census);
  long long listed = 0;
  for (int c = segment_by_pass + 1; c < segment_classes; ++c) listed += static_cast<long long>(census.counts[c]);
  std::vector<segment_range> device_ranges(static_cast<std::size_t>(census.counts[segment_by_device]));

  // 2 and 3: the small segments sorted and the others listed, the device-wide class's ranges read
  // back, then the block sorts.
  constexpr auto small_kernel = segment_small_kernel<Offset, Key, Value, BitKey>;
  const unsigned small_grid =
      segment_grid<small_kernel>(tiles_of<segment_pass_tile<segment_list_per_thread>>(segments), device);
  if (listed == 0) {
    if (census.counts[segment_by_pass] > 0) {
      launch_kernel("segment_small_kernel (segmented sort)", small_kernel, small_grid, segment_pass_threads, stream,
                    offsets, segments, n, limits, starts, static_cast<unsigned long long*>(nullptr),
                    static_cast<segment_range*>(nullptr), args, static_cast<const segment_census*>(nullptr),
                    segment_device_counts{});
    }
  } else {
    const std::size_t list_bytes = round_up_256(static_cast<std::size_t>(listed) * sizeof(segment_range));
    const std::size_t cursor_bytes = segment_classes * sizeof(unsigned long long);
    const detail::workspace_lease lease(ws, 0, list_bytes + cursor_bytes, stream);
    auto* scratch = static_cast<unsigned char*>(lease.view().scratch);
    auto* lists = reinterpret_cast<segment_range*>(scratch);
    auto* cursors = reinterpret_cast<unsigned long long*>(scratch + list_bytes);
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(cursors, 0, cursor_bytes, stream));
    launch_kernel("segment_small_kernel (segmented sort)", small_kernel, small_grid, segment_pass_threads, stream,
                  offsets, segments, n, limits, starts, cursors, lists, args, static_cast<const segment_census*>(nullptr),
                  segment_device_counts{});
    if (!device_ranges.empty()) {
      SCANKIT_CUDA_CHECK(cudaMemcpyAsync(device_ranges.data(), lists + starts.first[segment_by_device],
                                         device_ranges.size() * sizeof(segment_range), cudaMemcpyDeviceToHost, stream));
      SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (const unsigned long long count = census.counts[segment_by_thread]; count > 0) {
      constexpr auto thread_kernel = segment_thread_kernel<Key, Value, BitKey>;
      launch_kernel("segment_thread_kernel (segmented sort)", thread_kernel,
                    segment_grid<thread_kernel>(tiles_of<segment_pass_threads>(static_cast<long long>(count)), device),
                    segment_pass_threads, stream,
                    segment_class_list{lists + starts.first[segment_by_thread], count, nullptr, segment_by_thread}, args);
    }
    launch_block_classes<shapes>(lists, starts, census, args, device, stream,
                                 std::make_integer_sequence<int, segment_block_classes>{});
  }

  // The lists' storage went back to ws (stream-ordered) above; each device-wide sort takes it again.
  for (const segment_range& r : device_ranges) sort_large(r, bit_key, args.passes, descending);
}

}  // namespace scankit::device_detail
