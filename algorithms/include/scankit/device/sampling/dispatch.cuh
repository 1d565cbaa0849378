// Host side of the sampling kernels: argument checks, table memory layout, launches (nvcc only;
// the precompiled overloads in algorithms/src/sampling/ call these).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <thrust/iterator/transform_iterator.h>

#include "scankit/device/dispatch/single_pass_setup.cuh"
#include "scankit/device/sampling/table_exact.cuh"
#include "scankit/device/sampling/table_pass_kernel.cuh"
#include "scankit/device/sampling/table_scale.cuh"
#include "scankit/device/sampling/tile_summary.cuh"
#include "scankit/device/sampling/rows.cuh"
#include "scankit/device/sampling/segments.cuh"
#include "scankit/device/segmented_scan.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/sampling.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

// Where each part of a table of n bins lives in its one allocation (256-byte aligned parts). The
// one-pass build's tile states live in the table's own workspace (sampling_table::state_).
struct sampling_table_layout {
  std::int64_t tiles = 0, pieces = 0, guide_capacity = 0, chunk_tiles = 0;
  std::size_t sums = 0, chunk_units = 0, covers = 0, starts = 0, cdf = 0, codes = 0, guide = 0, bytes = 0;

  static sampling_table_layout of(std::int64_t n) {
    using namespace device_detail::sampling;
    auto up = [](std::size_t b) { return (b + 255) / 256 * 256; };
    sampling_table_layout l;
    l.tiles = (n + table_tile_items - 1) / table_tile_items;
    l.chunk_tiles = (l.tiles + exact_chunk_blocks - 1) / exact_chunk_blocks;
    l.guide_capacity = std::max<std::int64_t>((n + bins_per_cell - 1) / bins_per_cell, 1);
    l.pieces = (l.guide_capacity + 2 + guide_piece - 1) / guide_piece;
    std::size_t at = 256;  // the header
    l.sums = at, at += up(sizeof(double) * exact_sum_blocks);
    l.chunk_units = at, at += up(sizeof(std::uint64_t) * exact_chunk_blocks);
    l.covers = at, at += up(sizeof(std::int32_t) * l.pieces);
    l.starts = at, at += up(sizeof(std::int32_t) * l.pieces);
    l.cdf = at, at += up(sizeof(std::uint64_t) * std::size_t(std::max<std::int64_t>(n, 1)));
    l.codes = at, at += up(sizeof(std::uint16_t) * std::size_t(std::max<std::int64_t>(n, 1)));
    l.guide = at, at += up(sizeof(std::uint32_t) * (l.guide_capacity + 2));
    l.bytes = at;
    return l;
  }

  static std::size_t state_slots(std::int64_t n) {
    return device_detail::tile_state_slots<std::uint64_t>(static_cast<std::size_t>(of(n).tiles));
  }
};

// Gives the dispatch code the table's memory (defined in src/sampling/sampling_table.cu).
struct sampling_table_access {
  // Makes room for n bins (stream-ordered) and sets the table's shape and pointers.
  static char* prepare(sampling_table& table, std::int64_t n, cudaStream_t stream);
  static const char* memory(const sampling_table& table) { return table.memory_.data_as<const char>(); }
  static workspace& state(sampling_table& table) { return table.state_; }
};

namespace device_detail::sampling {

// The type-independent launches (src/sampling/sampling_table.cu).
void launch_table_settle(table_header* header, settle_stage stage, const sampling_table_layout& l, char* base,
                         cudaStream_t stream);
void launch_table_guide(table_header* header, std::int64_t n, const sampling_table_layout& l, const table_arrays& a,
                        cudaStream_t stream);
// count: the draws, or with count_device (their count in device memory) their bound.
void draw(const sampling_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed,
          std::uint64_t offset, cudaStream_t stream, const std::int64_t* count_device = nullptr);

constexpr std::int64_t max_bins = 0x7fffffff;

inline void check_bins(const char* function, const void* p, std::int64_t n, const char* what) {
  if (n < 0) throw error(std::string(function) + ": " + what + " is negative (" + std::to_string(n) + ")");
  if (n > max_bins)
    throw error(std::string(function) + ": " + what + " = " + std::to_string(n) + " exceeds 2^31 - 1 bins (int32 indices)");
  if (n > 0 && p == nullptr) throw error(std::string(function) + ": weights is null with " + what + " > 0");
}

inline unsigned grid_for(std::int64_t work, std::int64_t per_block) {
  return static_cast<unsigned>(std::min<std::int64_t>((work + per_block - 1) / per_block, std::int64_t(1) << 20));
}

inline table_arrays table_arrays_of(const sampling_table_layout& l, char* base) {
  return table_arrays{reinterpret_cast<std::uint64_t*>(base + l.cdf), reinterpret_cast<std::uint16_t*>(base + l.codes),
                      reinterpret_cast<std::uint32_t*>(base + l.guide), reinterpret_cast<std::int32_t*>(base + l.covers),
                      reinterpret_cast<std::int32_t*>(base + l.starts)};
}

// The build's sequence (table_scale.cuh explains the modes; each launch does nothing outside its
// own). The common case runs the estimate, one pass and two small launches.
template <class T>
void build_table(const T* w, std::int64_t n, sampling_table& table, cudaStream_t stream) {
  const char* fn = "scankit::build_sampling_table";
  check_bins(fn, w, n, "n");
  const sampling_table_layout l = sampling_table_layout::of(n);
  const scankit::detail::workspace_lease lease(&sampling_table_access::state(table), sampling_table_layout::state_slots(n),
                                               0, stream);
  char* base = sampling_table_access::prepare(table, n, stream);
  auto* header = reinterpret_cast<table_header*>(base);
  const table_arrays a = table_arrays_of(l, base);
  // covers and starts are adjacent: one memset marks every piece slot empty (-1).
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(a.covers, 0xff, l.starts - l.covers + sizeof(std::int32_t) * l.pieces, stream));
  launch_kernel("sampling table estimate", table_estimate_kernel<T>, dim3(1), dim3(estimate_threads), stream, w, n,
                l.guide_capacity, header);
  if (l.tiles > 0)
    launch_kernel("sampling table pass", table_pass_kernel<T>, dim3(unsigned(l.tiles)), dim3(table_threads), stream, w,
                  n, header, make_single_pass_context<std::uint64_t>(lease.view(), l.tiles, look_back_backoff{32, 1024}),
                  a);
  launch_table_settle(header, settle_stage::after_fast, l, base, stream);
  if (l.tiles > 0) {
    launch_kernel("sampling table exact sum", table_sum_kernel<T>, dim3(exact_sum_blocks), dim3(exact_sum_threads),
                  stream, w, n, header, reinterpret_cast<double*>(base + l.sums));
    launch_table_settle(header, settle_stage::exact_unit, l, base, stream);
    const unsigned chunks = unsigned((l.tiles + l.chunk_tiles - 1) / l.chunk_tiles);
    auto* chunk_units = reinterpret_cast<std::uint64_t*>(base + l.chunk_units);
    launch_kernel("sampling table exact chunk units", table_chunk_units_kernel<T>, dim3(chunks), dim3(table_threads),
                  stream, w, n, l.chunk_tiles, header, chunk_units);
    launch_table_settle(header, settle_stage::exact_prefixes, l, base, stream);
    launch_kernel("sampling table exact chunk writes", table_chunk_write_kernel<T>, dim3(chunks), dim3(table_threads),
                  stream, w, n, l.chunk_tiles, header, chunk_units, a);
    launch_table_settle(header, settle_stage::after_exact, l, base, stream);
  }
  launch_table_guide(header, n, l, a, stream);
}

// -1 for each of `rows` rows without columns (with rows_device: the first count of them).
inline void mark_empty_rows(std::int32_t* out, std::int64_t rows, cudaStream_t stream,
                            const std::int64_t* rows_device = nullptr) {
  if (rows_device == nullptr) {
    SCANKIT_CUDA_CHECK(cudaMemsetAsync(out, 0xff, sizeof(std::int32_t) * rows, stream));
    return;
  }
  launch_kernel("sampling empty rows", empty_rows_kernel<std::int32_t>, dim3(grid_for(rows, draw_threads)),
                dim3(draw_threads), stream, out, rows, rows_device);
}

// Tiles of a rows x cols matrix (each row tiled on its own).
inline std::int64_t rows_tiles(const char* fn, std::int64_t rows, std::int64_t cols) {
  const std::int64_t tiles = rows * ((cols + tile_items - 1) / tile_items);
  if (tiles > max_bins) throw error(std::string(fn) + ": rows x cols exceeds 2^31 - 1 tiles of 4096");
  return tiles;
}

inline std::size_t rows_summary_bytes(std::int64_t tiles) { return (sizeof(tile_summary) * tiles + 255) / 256 * 256; }
inline std::size_t rows_scratch_bytes(std::int64_t tiles) { return rows_summary_bytes(tiles) + 2 * sizeof(double) * tiles; }

// One draw per row from weights given by `src` (rows >= 1, cols >= 1), scratch of rows_scratch_bytes.
template <class Source>
// rows_device: the rows' count in device memory (rows is then its bound), or null.
void draw_rows_from(const Source& src, std::int64_t rows, std::int64_t cols, std::int32_t* out, std::uint64_t seed,
                    std::uint64_t offset, cudaStream_t stream, char* scratch,
                    const std::int64_t* rows_device = nullptr) {
  const std::int64_t tiles_per_row = (cols + tile_items - 1) / tile_items;
  const std::int64_t tiles = rows * tiles_per_row;
  auto* summaries = reinterpret_cast<tile_summary*>(scratch);
  auto* prefix = reinterpret_cast<double*>(scratch + rows_summary_bytes(tiles));
  double* end_value = prefix + tiles;
  launch_kernel("sampling row tile summaries", tile_summary_kernel<Source>, dim3(unsigned(tiles)), dim3(tile_threads),
                stream, src, cols, tiles_per_row, summaries, rows, rows_device);
  launch_kernel("sampling row draws", row_draw_kernel<Source>, dim3(unsigned(rows)), dim3(tile_threads), stream, src,
                cols, tiles_per_row, summaries, prefix, end_value, out, seed, offset, rows, rows_device);
}

template <class T>
void draw_rows(const T* w, std::int64_t rows, std::int64_t cols, std::int32_t* out, std::uint64_t seed,
               std::uint64_t offset, cudaStream_t stream, workspace* ws, const std::int64_t* rows_device = nullptr) {
  const char* fn = "scankit::sample_rows";
  if (rows < 0) throw error(std::string(fn) + ": rows is negative (" + std::to_string(rows) + ")");
  if (rows > max_bins) throw error(std::string(fn) + ": rows exceeds 2^31 - 1");
  check_bins(fn, w, rows > 0 ? cols : 0, "cols");
  if (cols < 0) throw error(std::string(fn) + ": cols is negative (" + std::to_string(cols) + ")");
  if (rows > 0 && out == nullptr) throw error(std::string(fn) + ": out is null with rows > 0");
  if (rows == 0) return;
  if (cols == 0) return mark_empty_rows(out, rows, stream, rows_device);
  const std::int64_t tiles = rows_tiles(fn, rows, cols);
  scankit::detail::workspace_lease lease(ws, 0, rows_scratch_bytes(tiles), stream);
  draw_rows_from(array_source<T>{w}, rows, cols, out, seed, offset, stream, static_cast<char*>(lease.view().scratch),
                 rows_device);
}

// Counts are host counts or scankit::device_n (item_count); the checks and sizes see the bounds.
template <class T>
void draw_segments(const T* w, item_count n, const std::int64_t* offsets, item_count num_segments,
                   const std::int64_t* draw_offsets, item_count total_draws, std::int32_t* out, std::uint64_t seed,
                   std::uint64_t offset, cudaStream_t stream, workspace* ws) {
  const char* fn = "scankit::sample_segments";
  if (n.bound < 0) throw error(std::string(fn) + ": n is negative (" + std::to_string(n.bound) + ")");
  if (n.bound > 0 && w == nullptr) throw error(std::string(fn) + ": weights is null with n > 0");
  if (num_segments.bound < 0) {
    throw error(std::string(fn) + ": num_segments is negative (" + std::to_string(num_segments.bound) + ")");
  }
  if (total_draws.bound < 0) {
    throw error(std::string(fn) + ": total_draws is negative (" + std::to_string(total_draws.bound) + ")");
  }
  if (offsets == nullptr || draw_offsets == nullptr) throw error(std::string(fn) + ": offsets and draw_offsets must not be null");
  if (total_draws.bound > 0 && out == nullptr) throw error(std::string(fn) + ": out is null with total_draws > 0");
  // With a device count of segments, draws from no segment come back as -1 instead.
  if (total_draws.device == nullptr && num_segments.device == nullptr && total_draws.bound > 0 &&
      num_segments.bound == 0) {
    throw error(std::string(fn) + ": draws requested from no segments");
  }
  if (total_draws.bound == 0) return;
  scankit::detail::workspace_lease cdf_storage(nullptr, 0, sizeof(double) * std::max<std::int64_t>(n.bound, 1), stream);
  auto* cdf = static_cast<double*>(cdf_storage.view().scratch);
  if (n.bound > 0 && num_segments.bound > 0)
    scankit::device::inclusive_segmented_scan_by_offsets<scankit::device::tuned, double>(
        thrust::make_transform_iterator(w, checked_weight<T>{}), offsets, num_segments, cdf, n, plus_op{}, stream, ws);
  const segment_offsets<const std::int64_t*> segments{offsets, num_segments.bound + 1, n.bound, n.device,
                                                      num_segments.device};
  launch_kernel("sampling segment draws", segment_draw_kernel<T>, dim3(grid_for(total_draws.bound, draw_threads)),
                dim3(draw_threads), stream, w, cdf, segments, draw_offsets, total_draws.bound, total_draws.device, out,
                seed, offset);
}

}  // namespace device_detail::sampling
}  // namespace scankit
