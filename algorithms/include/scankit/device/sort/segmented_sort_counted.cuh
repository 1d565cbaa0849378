// Device layer of the segmented sort: one call whose segments' and items' counts are in device
// memory (scankit::device_n), so that it never waits for the host and can be captured in a CUDA
// graph. The steps of segmented_sort_dispatch.cuh without its two read-backs:
//
//   1. census     segment_count_kernel over the counted segments, each clamped into [0, items]
//   2. small      segment_small_kernel lists the others, where the census (in device memory) says
//   3. the rest   segment_thread_kernel and one segment_block_kernel launch per block class, each
//                 on its class's list, with a grid sized from the bounds and what the GPU holds
//                 (each block loops); the segments above the block tiles all at once through the
//                 caller's two counted sorts (segmented_sort_large.cuh)
//
// Temporary memory is taken stream-ordered (the lists, and for large segments buffers of the
// bound's items); `ws` goes to the device-wide sorts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "scankit/device/sort/segmented_sort_dispatch.cuh"
#include "scankit/device/sort/segmented_sort_large.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/util/resident_blocks.cuh"
#include "scankit/device_n.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail {

// Where the counted call's temporary memory goes (256-byte aligned parts of one allocation).
template <class Key>
struct segmented_sort_counted_layout {
  std::size_t census = 0, cursors = 0, lists = 0, ends = 0, total = 0;
  std::size_t keys = 0, sorted_keys = 0, positions = 0, sorted_positions = 0, ranks = 0, final_positions = 0;
  std::size_t bytes = 0;
  long long large_bound = 0;  // large segments the bounds allow

  static segmented_sort_counted_layout of(long long n, long long segments, const segment_class_limits& limits) {
    segmented_sort_counted_layout l;
    const long long largest_tile = limits.block_tiles[segment_block_classes - 1];
    l.large_bound = std::min(segments, n / (largest_tile + 1));
    std::size_t at = 0;
    const auto take = [&at](std::size_t bytes) {
      const std::size_t here = at;
      at += round_up_256(bytes);
      return here;
    };
    l.census = take(sizeof(segment_census));
    l.cursors = take(segment_classes * sizeof(unsigned long long));
    l.lists = take(static_cast<std::size_t>(segments) * sizeof(segment_range));
    if (l.large_bound > 0) {
      const auto items = static_cast<std::size_t>(n);
      l.ends = take(static_cast<std::size_t>(l.large_bound) * sizeof(long long));
      l.total = take(sizeof(std::int64_t));
      l.keys = take(items * sizeof(Key));
      l.sorted_keys = take(items * sizeof(Key));
      l.positions = take(items * sizeof(std::uint32_t));
      l.sorted_positions = take(items * sizeof(std::uint32_t));
      // The second sort's outputs reuse the first one's keys when a key holds a 32-bit word.
      constexpr bool reuse = sizeof(Key) >= sizeof(std::uint32_t);
      l.ranks = reuse ? l.sorted_keys : take(items * sizeof(std::uint32_t));
      l.final_positions = reuse ? l.keys : take(items * sizeof(std::uint32_t));
    }
    l.bytes = at;
    return l;
  }
};

// A block class's kernel on its list: at most the segments that the bounds allow in the class (each
// holds more than the class below it), at most what the GPU holds.
template <class Policy, class Key, class Value, class BitKey>
void launch_counted_block_class(const segment_range* lists, const segment_census* census, int segment_class,
                                long long most, const segment_sort_args<Key, Value, BitKey>& args, int device,
                                cudaStream_t stream) {
  if (most <= 0) return;
  constexpr std::size_t smem = radix_block_sort_bytes<Policy, Key, Value>();
  constexpr auto kernel = segment_block_kernel<Policy, Key, Value, BitKey, true>;
  allow_dynamic_shared_memory<kernel>(device, smem);
  const auto grid = static_cast<unsigned>(std::min<long long>(most, resident_blocks<kernel, Policy::block_threads, smem>(device)));
  launch_kernel_smem("segment_block_kernel (segmented sort, counted)", kernel, grid, Policy::block_threads, smem, stream,
                     segment_class_list{lists, 0, census, segment_class}, args);
}

template <class Shapes, class Key, class Value, class BitKey, int... B>
void launch_counted_block_classes(const segment_range* lists, const segment_census* census, long long n,
                                  long long segments, const segment_sort_args<Key, Value, BitKey>& args, int device,
                                  cudaStream_t stream, std::integer_sequence<int, B...>) {
  constexpr segment_class_limits limits = Shapes::limits;
  constexpr int first = segment_first_block_class;
  const auto most = [&](int b) {
    const long long below = b == 0 ? segment_thread_items : limits.block_tiles[b - 1];
    return std::min(segments, n / (below + 1));
  };
  (launch_counted_block_class<typename Shapes::template shape<B>>(lists, census, first + B, most(B), args, device, stream),
   ...);
}

// The segments above the block tiles, in one buffer, through two counted sorts:
//   sort_large.by_key(keys, sorted_keys, positions, sorted_positions, count)    the call's order
//   sort_large.by_rank(ranks, sorted_ranks, positions, sorted_positions, count, rank_bits)
// each stable, on `stream`, count a scankit::device_n of the buffered items.
template <class Key, class Value, class BitKey, class SortLarge>
void sort_counted_large_segments(const segmented_sort_call<Key, Value, BitKey>& call,
                                 const segmented_sort_counted_layout<Key>& l, unsigned char* base,
                                 const segment_range* lists, const segment_census* census, long long n, int device,
                                 cudaStream_t stream, SortLarge& sort_large) {
  auto* ends = reinterpret_cast<long long*>(base + l.ends);
  auto* total = reinterpret_cast<std::int64_t*>(base + l.total);
  auto* keys = reinterpret_cast<Key*>(base + l.keys);
  auto* sorted_keys = reinterpret_cast<Key*>(base + l.sorted_keys);
  auto* positions = reinterpret_cast<std::uint32_t*>(base + l.positions);
  auto* sorted_positions = reinterpret_cast<std::uint32_t*>(base + l.sorted_positions);
  auto* ranks = reinterpret_cast<std::uint32_t*>(base + l.positions);  // the first sort's input, free after it
  auto* sorted_ranks = reinterpret_cast<std::uint32_t*>(base + l.ranks);
  auto* final_positions = reinterpret_cast<std::uint32_t*>(base + l.final_positions);
  const device_n items{total, n};
  launch_kernel("segment_large_layout_kernel (segmented sort)", segment_large_layout_kernel<>, 1,
                segment_large_layout_threads, stream, lists, census, l.large_bound, n, ends, total);
  constexpr auto gather = segment_large_gather_kernel<Key>;
  launch_kernel("segment_large_gather_kernel (segmented sort)", gather, segment_grid<gather>(tiles_of<segment_large_threads>(n), device),
                segment_large_threads, stream, lists, census, l.large_bound, static_cast<const long long*>(ends),
                static_cast<const std::int64_t*>(total), call.keys_in, keys, positions);
  sort_large.by_key(keys, sorted_keys, positions, sorted_positions, items);
  constexpr auto rank = segment_large_rank_kernel<>;
  launch_kernel("segment_large_rank_kernel (segmented sort)", rank,
                segment_grid<rank>(tiles_of<segment_large_threads>(n), device), segment_large_threads,
                stream, census, l.large_bound, static_cast<const long long*>(ends),
                static_cast<const std::int64_t*>(total), static_cast<const std::uint32_t*>(sorted_positions), ranks);
  int rank_bits = 1;
  while (rank_bits < 32 && (1ll << rank_bits) < l.large_bound) ++rank_bits;
  sort_large.by_rank(ranks, sorted_ranks, sorted_positions, final_positions, items, rank_bits);
  constexpr auto scatter = segment_large_scatter_kernel<Key, Value>;
  launch_kernel("segment_large_scatter_kernel (segmented sort)", scatter,
                segment_grid<scatter>(tiles_of<segment_large_threads>(n), device), segment_large_threads, stream, lists,
                census, l.large_bound, static_cast<const long long*>(ends), static_cast<const std::int64_t*>(total),
                static_cast<const std::uint32_t*>(final_positions), call.keys_in, call.keys_out, call.values_in,
                call.values_out);
}

// n and segments are the bounds; n_device and segments_device the counts (both set). The call
// must be out of place (keys_out is not keys_in) and n below 2^32.
template <class Key, class Value, class Offset, class BitKey, class SortLarge>
void run_segmented_sort_counted(const segmented_sort_call<Key, Value, BitKey>& call, long long n,
                                const std::int64_t* n_device, const Offset* offsets, long long segments,
                                const std::int64_t* segments_device, int begin_bit, int end_bit, bool descending,
                                const BitKey& bit_key, cudaStream_t stream, SortLarge&& sort_large) {
  if (segments == 0) return;
  using shapes = segment_shapes_for<Key, Value>;
  constexpr segment_class_limits limits = shapes::limits;
  const int device = current_device();
  const segment_device_counts counts{segments_device, n_device};
  const auto layout = segmented_sort_counted_layout<Key>::of(n, segments, limits);
  const detail::workspace_lease lease(nullptr, 0, layout.bytes, stream);
  auto* base = static_cast<unsigned char*>(lease.view().scratch);
  auto* census = reinterpret_cast<segment_census*>(base + layout.census);
  auto* cursors = reinterpret_cast<unsigned long long*>(base + layout.cursors);
  auto* lists = reinterpret_cast<segment_range*>(base + layout.lists);

  // 1. The census, and the cursors it is laid out next to, zeroed.
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(base, 0, layout.lists, stream));
  constexpr auto count_kernel = segment_count_kernel<Offset>;
  launch_kernel("segment_count_kernel (segmented sort, counted)", count_kernel,
                segment_grid<count_kernel>(tiles_of<segment_pass_tile<segment_count_per_thread>>(segments), device),
                segment_pass_threads, stream, offsets, segments, n, limits, census, counts);

  // 2. The small segments sorted, the others listed.
  const auto args = segment_args_of(call, begin_bit, end_bit, descending, bit_key);
  constexpr auto small_kernel = segment_small_kernel<Offset, Key, Value, BitKey, true>;
  launch_kernel("segment_small_kernel (segmented sort, counted)", small_kernel,
                segment_grid<small_kernel>(tiles_of<segment_pass_tile<segment_list_per_thread>>(segments), device),
                segment_pass_threads, stream, offsets, segments, n, limits, segment_list_starts{}, cursors, lists, args,
                static_cast<const segment_census*>(census), counts);

  // 3. The listed classes.
  const long long thread_most = std::min(segments, n / (segment_pass_items + 1));
  if (thread_most > 0) {
    constexpr auto thread_kernel = segment_thread_kernel<Key, Value, BitKey, true>;
    launch_kernel("segment_thread_kernel (segmented sort, counted)", thread_kernel,
                  segment_grid<thread_kernel>(tiles_of<segment_pass_threads>(thread_most), device), segment_pass_threads,
                  stream, segment_class_list{lists, 0, census, segment_by_thread}, args);
  }
  launch_counted_block_classes<shapes>(lists, census, n, segments, args, device, stream,
                                       std::make_integer_sequence<int, segment_block_classes>{});
  if (layout.large_bound > 0) {
    sort_counted_large_segments(call, layout, base, lists, census, n, device, stream, sort_large);
  }
}

}  // namespace scankit::device_detail
