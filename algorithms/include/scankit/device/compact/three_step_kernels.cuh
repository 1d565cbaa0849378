// Device layer (compaction): the textbook three-step compaction, kept as a selectable strategy so
// that the lab and the benchmark can show what the single pass saves.
//
//   1. compact_flags_kernel    flags[i] = 1 if item i is selected, else 0 (uint32, or uint64 from n = 2^32)
//   2. (scan engine)           exclusive sum of the flags, in place: flags[i] = selected before i
//   3. compact_scatter_kernel  every item goes to its place from its offset; the thread of the
//                              last item writes the count (offset + its flag)
// Memory traffic: the input is read twice (three times for unique) and the flags are written,
// read and written by the scan, and read again, against one read of the input in the single pass.
// Every item is one thread (grid-stride loops for very large n). Items are read through the
// source's flag_at and the sink's scatter_one, item by item, so any input and output iterator
// works (selection_sources.cuh, tile_scatter.cuh); a transform input is evaluated in both steps.
#pragma once

#include <cstdint>

namespace scankit::device_detail {

constexpr int three_step_block_threads = 256;

template <class Source>
__global__ void __launch_bounds__(three_step_block_threads)
    compact_flags_kernel(const Source source, long long n, std::uint32_t* flags32, std::uint64_t* flags64) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const bool selected = source.flag_at(i);
    if (flags32 != nullptr) {
      flags32[i] = selected ? 1u : 0u;
    } else {
      flags64[i] = selected ? 1u : 0u;
    }
  }
}

template <class Source, class Sink>
__global__ void __launch_bounds__(three_step_block_threads)
    compact_scatter_kernel(const Source source, const Sink sink, long long n, const std::uint32_t* offsets32,
                           const std::uint64_t* offsets64, std::int64_t* d_count) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const bool selected = source.flag_at(i);
    const long long offset =
        offsets32 != nullptr ? static_cast<long long>(offsets32[i]) : static_cast<long long>(offsets64[i]);
    sink.scatter_one(source, i, offset, selected, n);
    if (i == n - 1) *d_count = offset + (selected ? 1 : 0);
  }
}

}  // namespace scankit::device_detail
