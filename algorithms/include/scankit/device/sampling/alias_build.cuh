// Building an alias table on the device, the parallel sweep (PSA) of Huebschle-Schneider and
// Sanders in five launches, with no host round trip:
//
//   1. reduce      the weights' sum in double (checked: NaN for a bad weight), the library's
//                  reduction (one launch, the same bits on every run on one GPU)
//   2. header      one thread: status, and the fixed-point scale of q (alias_header.cuh)
//   3. partition   bin indices, lights (q <= 2^32) first in index order, heavies after them in
//                  reverse order (scankit::device::partition_if, one pass); the light count lands
//                  in the header, so nothing returns to the host
//   4. scan        one inclusive prefix sum in uint64 over that order of the deficits 2^32 - q and
//                  excesses q - 2^32 (scankit::device::inclusive_scan): integers, so exact, sorted
//                  and the same in any order, which merge path needs
//   5. sweep       every bucket's threshold and alias by merge path over the two prefix sequences
//                  (alias_merge.cuh)
//
// Bytes per bin: 4 (reduce) + 8 (partition: weight read, index written) + 16 (scan: index and
// weight read, prefix written) + 20 (sweep: index and prefix read, entry written) = 48, against
// 20 for the guide table's build (docs/sampling.md).
#pragma once

#include <cstdint>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "scankit/device/partition.cuh"
#include "scankit/device/reduce.cuh"
#include "scankit/device/sampling/alias_header.cuh"
#include "scankit/device/sampling/alias_merge.cuh"
#include "scankit/device/sampling/dispatch.cuh"
#include "scankit/device/scan.cuh"
#include "scankit/sampling.hpp"

namespace scankit {

// Where each part of an alias table of n bins lives in its one allocation (256-byte aligned).
struct alias_table_layout {
  std::size_t entries = 0, order = 0, prefix = 0, bytes = 0;

  static alias_table_layout of(std::int64_t n) {
    auto up = [](std::size_t b) { return (b + 255) / 256 * 256; };
    const std::size_t m = static_cast<std::size_t>(n > 0 ? n : 1);
    alias_table_layout l;
    std::size_t at = 256;  // the header
    l.entries = at, at += up(sizeof(alias_entry) * m);
    l.order = at, at += up(sizeof(std::int32_t) * m);
    l.prefix = at, at += up(sizeof(std::uint64_t) * m);
    l.bytes = at;
    return l;
  }
};

// Gives the build the table's memory (defined in src/sampling/sampling_alias.cu).
struct alias_table_access {
  // Makes room for n bins (stream-ordered) and sets the table's shape; returns the allocation.
  static char* prepare(alias_table& table, std::int64_t n, cudaStream_t stream);
};

namespace device_detail::sampling {

// One thread, after the reduction: the status (the sum of checked weights is NaN when a weight was
// bad, +inf when the sum overflowed, 0 when all are zero) and the scale of q.
__global__ void alias_header_kernel(alias_header* h, std::int64_t n) {
  const double total = n > 0 ? h->total : 0.0;
  sampling_status status = sampling_status::ok;
  if (isnan(total)) status = sampling_status::invalid_weight;
  else if (isinf(total)) status = sampling_status::sum_overflow;
  else if (!(total > 0.0)) status = sampling_status::all_zero;
  const scankit::detail::alias_scale s = scankit::detail::alias_scale_for(status == sampling_status::ok ? total : 1.0, n > 0 ? n : 1);
  h->total = total;
  h->scale = s.scale;
  h->shift = s.shift;
  h->bins = n;
  h->lights = 0;
  h->status = static_cast<std::int32_t>(status);
}

template <class T>
void build_alias(const T* w, std::int64_t n, alias_table& table, cudaStream_t stream, workspace* ws) {
  check_bins("scankit::build_alias_table", w, n, "n");
  const alias_table_layout l = alias_table_layout::of(n);
  char* base = alias_table_access::prepare(table, n, stream);
  auto* header = reinterpret_cast<alias_header*>(base);
  auto* entries = reinterpret_cast<alias_entry*>(base + l.entries);
  auto* order = reinterpret_cast<std::int32_t*>(base + l.order);
  auto* prefix = reinterpret_cast<std::uint64_t*>(base + l.prefix);
  if (n > 0)
    scankit::device::reduce<double>(
        thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), alias_checked_weight<T>{w}),
        &header->total, n, 0.0, plus_op{}, stream, ws);
  launch_kernel("alias table header", alias_header_kernel, dim3(1), dim3(1), stream, header, n);
  if (n == 0) return;
  scankit::device::partition_if(thrust::counting_iterator<std::int32_t>(0), order, &header->lights, n,
                                alias_is_light<T>{w, header}, stream, ws);
  scankit::device::inclusive_scan<scankit::device::tuned, std::uint64_t>(
      thrust::make_transform_iterator(static_cast<const std::int32_t*>(order), alias_deviation<T>{w, header}), prefix,
      n, plus_op{}, stream, ws);
  launch_kernel("alias table sweep", alias_merge_kernel, dim3(unsigned((n + alias_merge_tile - 1) / alias_merge_tile)),
                dim3(alias_merge_threads), stream, header, n, static_cast<const std::int32_t*>(order),
                static_cast<const std::uint64_t*>(prefix), entries);
}

}  // namespace device_detail::sampling
}  // namespace scankit
