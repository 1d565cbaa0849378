// Top-k, the template API (nvcc): the k largest (or smallest) keys of each row, with their indices.
//
//   top_k(keys, rows, cols, k, values_out, indices_out)        rows of a row-major rows x cols matrix
//   top_k_segments(keys, n, offsets, num_segments, k, ...)     row s is [offsets[s], offsets[s + 1])
//   select_k(...), select_k_segments(...)                      the same sets, in no particular order
//   top_k_workspace_bytes(...), top_k_segments_workspace_bytes(...)
//
// Row r's result fills slots [r * k, (r + 1) * k) of values_out (keys, may be null) and
// indices_out (int32 or int64 positions in the row, may be null): the row's k largest keys,
// largest first, equal keys by index (smaller first), so the result is the same on every run and
// GPU. Keys rank as the radix sort orders them (floats: options.floats, NaN above +inf). Slots
// past a row's items (k larger than the row, or than its k_per_row entry) get index -1 and a
// zero key. k may be anything from 0 up; rows are read once when k <= 2048. Above that the call
// sorts every key twice (scankit::sort_pairs, which takes its own temporary storage besides ws).
// The rows (num_segments) may be a scankit::device_n, a count in device memory with a host bound,
// for k <= 2048: the launch is planned for the bound, and rows past the count are not read and
// their slots not written.
//
// Offsets (int32 or int64, num_segments + 1 in device memory) must be non-decreasing within
// [0, n], segments below 2^32 - 1 items: device data, not checked. A negative count, null or
// overlapping arrays, or rows too long for the index type throw scankit::error before anything
// is enqueued; CUDA failures throw scankit::cuda_error. No synchronisation of `stream`.
#pragma once

#include <cstdint>
#include <type_traits>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/detail/top_k_arguments.hpp"
#include "scankit/device/top_k/top_k_dispatch.cuh"
#include "scankit/device/util/device_count.cuh"
#include "scankit/error.hpp"
#include "scankit/top_k_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit::device_detail::top_k {

template <class Key, class Index>
result_spec result_of(Key* values_out, Index* indices_out, const top_k_options& options) {
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "top-k indices are int32 or int64");
  return result_spec{options.k_per_row, values_out, indices_out, sizeof(Index) == 8, options.largest, options.sorted,
                     options.floats};
}

template <class Key, class Index>
call_shape check_matrix(const char* function, const Key* keys, std::int64_t rows, std::int64_t cols, std::int64_t k,
                        const Key* values_out, const Index* indices_out) {
  detail::check_top_k_count(function, "rows", rows);
  detail::check_top_k_count(function, "cols", cols);
  detail::check_top_k_count(function, "k", k);
  if (rows > INT32_MAX) throw error(std::string(function) + ": rows = " + std::to_string(rows) + " is above 2^31 - 1");
  if (cols > 0 && rows > INT64_MAX / cols) throw error(std::string(function) + ": rows x cols overflows int64");
  if (k > 0 && rows > INT64_MAX / k) throw error(std::string(function) + ": rows x k overflows int64");
  detail::check_top_k_row_items(function, cols, sizeof(Index));
  detail::check_top_k_arrays(function, {keys, sizeof(Key), rows * cols, values_out, indices_out, sizeof(Index), rows * k});
  return call_shape{rows, cols, rows * cols, k};
}

template <class Key, class Offset, class Index>
call_shape check_segments(const char* function, const Key* keys, std::int64_t n, const Offset* offsets,
                          std::int64_t num_segments, std::int64_t k, const Key* values_out, const Index* indices_out) {
  static_assert(std::is_same_v<Offset, std::int32_t> || std::is_same_v<Offset, std::int64_t>,
                "segment offsets are int32 or int64");
  detail::check_top_k_count(function, "n", n);
  detail::check_top_k_count(function, "num_segments", num_segments);
  detail::check_top_k_count(function, "k", k);
  if (num_segments > INT32_MAX) {
    throw error(std::string(function) + ": num_segments = " + std::to_string(num_segments) + " is above 2^31 - 1");
  }
  if (k > 0 && num_segments > INT64_MAX / k) throw error(std::string(function) + ": num_segments x k overflows int64");
  if (num_segments > 0 && offsets == nullptr) {
    throw error(std::string(function) + ": offsets is null with num_segments = " + std::to_string(num_segments));
  }
  if (std::is_same_v<Offset, std::int32_t> && n > INT32_MAX) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " needs int64 offsets");
  }
  if (sizeof(Index) == 4) detail::check_top_k_row_items(function, n, sizeof(Index));
  detail::check_top_k_arrays(function,
                             {keys, sizeof(Key), n, values_out, indices_out, sizeof(Index), num_segments * k});
  const std::int64_t typical = num_segments > 0 ? (n + num_segments - 1) / num_segments : 0;
  return call_shape{num_segments, typical, n, k};
}

}  // namespace scankit::device_detail::top_k

namespace scankit::device {

template <class Key, class Index>
void top_k(const Key* keys, device_detail::item_count rows, std::int64_t cols, std::int64_t k, Key* values_out,
           Index* indices_out, cudaStream_t stream = nullptr, workspace* ws = nullptr,
           const top_k_options& options = {}) {
  const ::scankit::detail::nvtx_range nvtx("scankit::top_k");
  namespace d = device_detail::top_k;
  d::call_shape c = d::check_matrix("scankit::top_k", keys, rows, cols, k, values_out, indices_out);
  c.rows_device = rows.device;
  d::run_top_k(keys, d::row_layout{nullptr, false, cols}, c, d::result_of(values_out, indices_out, options), stream,
               ws);
}

template <class Key, class Offset, class Index>
void top_k_segments(const Key* keys, std::int64_t n, const Offset* offsets, device_detail::item_count num_segments,
                    std::int64_t k, Key* values_out, Index* indices_out, cudaStream_t stream = nullptr,
                    workspace* ws = nullptr, const top_k_options& options = {}) {
  const ::scankit::detail::nvtx_range nvtx("scankit::top_k_segments");
  namespace d = device_detail::top_k;
  d::call_shape c =
      d::check_segments("scankit::top_k_segments", keys, n, offsets, num_segments, k, values_out, indices_out);
  c.rows_device = num_segments.device;
  d::run_top_k(keys, d::row_layout{offsets, sizeof(Offset) == 8, 0}, c, d::result_of(values_out, indices_out, options),
               stream, ws);
}

template <class Key, class Index>
void select_k(const Key* keys, std::int64_t rows, std::int64_t cols, std::int64_t k, Key* values_out,
              Index* indices_out, cudaStream_t stream = nullptr, workspace* ws = nullptr, top_k_options options = {}) {
  const ::scankit::detail::nvtx_range nvtx("scankit::select_k");
  options.sorted = false;
  top_k(keys, rows, cols, k, values_out, indices_out, stream, ws, options);
}

template <class Key, class Offset, class Index>
void select_k_segments(const Key* keys, std::int64_t n, const Offset* offsets, std::int64_t num_segments,
                       std::int64_t k, Key* values_out, Index* indices_out, cudaStream_t stream = nullptr,
                       workspace* ws = nullptr, top_k_options options = {}) {
  const ::scankit::detail::nvtx_range nvtx("scankit::select_k_segments");
  options.sorted = false;
  top_k_segments(keys, n, offsets, num_segments, k, values_out, indices_out, stream, ws, options);
}

template <class Key>
std::size_t top_k_workspace_bytes(const Key* /*keys*/, std::int64_t rows, std::int64_t cols, std::int64_t k) {
  namespace d = device_detail::top_k;
  const std::int64_t r = rows > 0 ? rows : 0, c = cols > 0 ? cols : 0, kk = k > 0 ? k : 0;
  const std::size_t scratch = d::top_k_scratch_bytes<Key>(d::call_shape{r, c, r * c, kk});
  return scratch == 0 ? 0 : workspace::bytes_needed(0, scratch);
}

template <class Key>
std::size_t top_k_segments_workspace_bytes(const Key* /*keys*/, std::int64_t n, std::int64_t num_segments,
                                           std::int64_t k) {
  namespace d = device_detail::top_k;
  const std::int64_t s = num_segments > 0 ? num_segments : 0, nn = n > 0 ? n : 0, kk = k > 0 ? k : 0;
  const std::int64_t typical = s > 0 ? (nn + s - 1) / s : 0;
  const std::size_t scratch = d::top_k_scratch_bytes<Key>(d::call_shape{s, typical, nn, kk});
  return scratch == 0 ? 0 : workspace::bytes_needed(0, scratch);
}

}  // namespace scankit::device
