// SpMV host side: column blocks for a plan (scankit/sparse/spmv.hpp) — when to cut A by columns,
// and the cut itself (per block, the engine's scan of the member flags, then a scatter).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>
#include <thrust/iterator/transform_iterator.h>

#include "scankit/device/scan.cuh"
#include "scankit/device/sparse/csr_column_blocks.cuh"
#include "scankit/device/util/l2_size.hpp"
#include "scankit/device/util/launch.cuh"
#include "scankit/error.hpp"
#include "scankit/sparse/spmv.hpp"
#include "stream_scratch.hpp"

namespace scankit::sparse::precompiled {

// The automatic choice (docs/tuning.md): blocks pay when x is larger than the L2, rows are long
// enough that a second pass over the row ends and y costs less than the gathers it saves, and the
// gathers are scattered (a banded matrix already gathers from a small window of x). Each block's
// slice of x is then at most 0.7 of the L2, leaving room for the streamed A.
constexpr double column_block_min_mean_row = 4.0;
constexpr double column_block_l2_share = 0.7;
constexpr double column_block_min_far_share = 0.5;
constexpr long long column_spread_samples = 8192;
constexpr int column_spread_per_row = 8;
constexpr int max_column_blocks = 64;

// The share of sampled nonzeros whose column lies more than an eighth of the L2's worth of x from
// the row's diagonal position (waits for the device).
template <class Index, class Value>
double far_column_share(const csr_view<Index, Value>& a, long long l2_bytes, cudaStream_t stream) {
  namespace dd = scankit::device_detail;
  const long long samples = std::min<long long>(a.rows, column_spread_samples);
  precompiled::stream_scratch<unsigned long long> counts(2, stream);
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), stream));
  const long long window = l2_bytes / static_cast<long long>(sizeof(Value)) / 8;
  dd::launch_kernel("column_spread_kernel", dd::column_spread_kernel<Index>,
                    static_cast<unsigned>((samples + 255) / 256), 256, stream, a.offsets, a.columns,
                    static_cast<long long>(a.rows), static_cast<long long>(a.cols), samples, column_spread_per_row,
                    window, counts.get());
  unsigned long long host[2] = {0, 0};
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(host, counts.get(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host[0] == 0 ? 0.0 : static_cast<double>(host[1]) / static_cast<double>(host[0]);
}

template <class Index, class Value>
int automatic_column_blocks(const csr_view<Index, Value>& a, const csr_row_statistics& s, cudaStream_t stream) {
  if (a.nonzeros == 0 || s.mean_row_length() < column_block_min_mean_row) return 1;
  const long long l2 = scankit::device_detail::l2_bytes_of_current_device();
  const double x_bytes = static_cast<double>(a.cols) * sizeof(Value);
  if (l2 <= 0 || x_bytes <= static_cast<double>(l2)) return 1;
  if (far_column_share(a, l2, stream) < column_block_min_far_share) return 1;
  const double blocks = std::ceil(x_bytes / (column_block_l2_share * static_cast<double>(l2)));
  return static_cast<int>(std::min<double>(blocks, max_column_blocks));
}

// Where the blocks live in one allocation: every block's row offsets, then the columns of all
// blocks (block b's at nonzeros_before[b]), then their values.
template <class Index, class Value>
struct column_block_layout {
  std::size_t columns_at, values_at, bytes;
  static column_block_layout of(const csr_view<Index, Value>& a, int blocks) {
    auto up = [](std::size_t n) { return (n + 255) / 256 * 256; };
    column_block_layout l{};
    const auto offsets = static_cast<std::size_t>(blocks) * (static_cast<std::size_t>(a.rows) + 1) * sizeof(Index);
    l.columns_at = up(offsets);
    l.values_at = l.columns_at + up(static_cast<std::size_t>(a.nonzeros) * sizeof(Index));
    l.bytes = l.values_at + static_cast<std::size_t>(a.nonzeros) * sizeof(Value);
    return l;
  }
};

// Cuts `a` into `blocks` column blocks at `storage` (column_block_layout) and returns each block's
// nonzeros, waiting for each block's size. Given the sizes of an earlier cut of the same structure
// (`known`), it rewrites only the values, without waiting.
template <class Index, class Value>
std::vector<long long> cut_column_blocks(const csr_view<Index, Value>& a, int blocks, void* storage,
                                         const std::vector<long long>* known, cudaStream_t stream, workspace* ws) {
  namespace dd = scankit::device_detail;
  const auto layout = column_block_layout<Index, Value>::of(a, blocks);
  auto* base = static_cast<char*>(storage);
  auto* block_offsets = reinterpret_cast<Index*>(base);
  auto* block_columns = reinterpret_cast<Index*>(base + layout.columns_at);
  auto* block_values = reinterpret_cast<Value*>(base + layout.values_at);
  const std::size_t offsets_per_block = static_cast<std::size_t>(a.rows) + 1;
  if (a.nonzeros == 0) {
    if (known == nullptr) {
      SCANKIT_CUDA_CHECK(cudaMemsetAsync(block_offsets, 0, blocks * offsets_per_block * sizeof(Index), stream));
    }
    return std::vector<long long>(static_cast<std::size_t>(blocks), 0);
  }
  std::vector<long long> sizes;
  precompiled::stream_scratch<Index> place(static_cast<std::size_t>(a.nonzeros), stream);
  const long long cols = static_cast<long long>(a.cols);
  long long before = 0;
  for (int b = 0; b < blocks; ++b) {
    const dd::column_block_member<Index> member{dd::column_block_begin(cols, blocks, b),
                                                dd::column_block_begin(cols, blocks, b + 1), b == 0,
                                                b == blocks - 1};
    scankit::device::inclusive_scan<scankit::device::tuned, Index>(
        thrust::make_transform_iterator(a.columns, member), place.get(), static_cast<std::int64_t>(a.nonzeros),
        plus_op{}, stream, ws);
    dd::launch_kernel("column_block_scatter_kernel", dd::column_block_scatter_kernel<Index, Value>,
                      precompiled::grid_for(a.nonzeros), 256, stream, a.columns, a.values,
                      static_cast<long long>(a.nonzeros), member, static_cast<const Index*>(place.get()),
                      known != nullptr ? nullptr : block_columns + before, block_values + before);
    long long size = 0;
    if (known != nullptr) {
      size = (*known)[static_cast<std::size_t>(b)];
    } else {
      dd::launch_kernel("column_block_offsets_kernel", dd::column_block_offsets_kernel<Index>,
                        precompiled::grid_for(a.rows + 1LL), 256, stream, a.offsets, static_cast<long long>(a.rows),
                        static_cast<const Index*>(place.get()), block_offsets + b * offsets_per_block);
      Index last = 0;
      SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&last, place.get() + (a.nonzeros - 1), sizeof(Index),
                                         cudaMemcpyDeviceToHost, stream));
      SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
      size = static_cast<long long>(last);
    }
    sizes.push_back(size);
    before += size;
  }
  return sizes;
}

}  // namespace scankit::sparse::precompiled
