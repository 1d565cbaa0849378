// The precompiled sampling overloads of one weight type (table build, rows, segments); each
// sampling_<type>.cu instantiates one type so that the two compile in parallel.
#pragma once

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/sampling/dispatch.cuh"

#define SCANKIT_DEFINE_SAMPLING(T)                                                                                   \
  namespace scankit {                                                                                                \
  void build_sampling_table(const T* weights, std::int64_t n, sampling_table& table, cudaStream_t stream) {          \
    const ::scankit::detail::nvtx_range nvtx("scankit::build_sampling_table");                                       \
    device_detail::sampling::build_table(weights, n, table, stream);                                                 \
  }                                                                                                                  \
  void sample_rows(const T* weights, std::int64_t rows, std::int64_t cols, std::int32_t* out, std::uint64_t seed,    \
                   std::uint64_t offset, cudaStream_t stream, workspace* ws) {                                       \
    const ::scankit::detail::nvtx_range nvtx("scankit::sample_rows");                                                \
    device_detail::sampling::draw_rows(weights, rows, cols, out, seed, offset, stream, ws);                          \
  }                                                                                                                  \
  void sample_rows(const T* weights, device_n rows, std::int64_t cols, std::int32_t* out, std::uint64_t seed,        \
                   std::uint64_t offset, cudaStream_t stream, workspace* ws) {                                       \
    const ::scankit::detail::nvtx_range nvtx("scankit::sample_rows");                                                \
    ::scankit::detail::check_device_n("scankit::sample_rows", rows);                                                 \
    device_detail::sampling::draw_rows(weights, rows.bound, cols, out, seed, offset, stream, ws, rows.count);        \
  }                                                                                                                  \
  void sample_segments(const T* weights, std::int64_t n, const std::int64_t* offsets, std::int64_t num_segments,     \
                       const std::int64_t* draw_offsets, std::int64_t total_draws, std::int32_t* out,                \
                       std::uint64_t seed, std::uint64_t offset, cudaStream_t stream, workspace* ws) {               \
    const ::scankit::detail::nvtx_range nvtx("scankit::sample_segments");                                            \
    device_detail::sampling::draw_segments(weights, n, offsets, num_segments, draw_offsets, total_draws, out, seed, \
                                           offset, stream, ws);                                                      \
  }                                                                                                                  \
  void sample_segments(const T* weights, device_n n, const std::int64_t* offsets, device_n num_segments,             \
                       const std::int64_t* draw_offsets, device_n total_draws, std::int32_t* out, std::uint64_t seed, \
                       std::uint64_t offset, cudaStream_t stream, workspace* ws) {                                   \
    const char* fn = "scankit::sample_segments";                                                                     \
    const ::scankit::detail::nvtx_range nvtx(fn);                                                                    \
    for (const device_n& count : {n, num_segments, total_draws}) ::scankit::detail::check_device_n(fn, count);       \
    device_detail::sampling::draw_segments(weights, n, offsets, num_segments, draw_offsets, total_draws, out, seed, \
                                           offset, stream, ws);                                                      \
  }                                                                                                                  \
  }
