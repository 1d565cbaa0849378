// Precompiled top-k / top-p sampling of float rows (one draw per row).
#include <cmath>
#include <string>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/sampling/dispatch.cuh"
#include "scankit/device/sampling/top_select.cuh"

namespace scankit {

namespace {

// rows_device: the rows' count in device memory (rows is then its bound), or null.
void draw_rows_top(const char* fn, const float* values, std::int64_t rows, std::int64_t cols, std::int32_t* out,
                   const top_sampling_options& options, std::uint64_t seed, std::uint64_t offset, cudaStream_t stream,
                   workspace* ws, const std::int64_t* rows_device) {
  using namespace device_detail::sampling;
  if (rows < 0) throw error(std::string(fn) + ": rows is negative (" + std::to_string(rows) + ")");
  if (rows > max_bins) throw error(std::string(fn) + ": rows exceeds 2^31 - 1");
  if (cols < 0) throw error(std::string(fn) + ": cols is negative (" + std::to_string(cols) + ")");
  check_bins(fn, values, rows > 0 ? cols : 0, "cols");
  if (rows > 0 && out == nullptr) throw error(std::string(fn) + ": out is null with rows > 0");
  if (!(options.temperature > 0.0f) || std::isinf(options.temperature))
    throw error(std::string(fn) + ": temperature must be positive and finite (" + std::to_string(options.temperature) + ")");
  if (options.top_k < 0) throw error(std::string(fn) + ": top_k is negative (" + std::to_string(options.top_k) + ")");
  if (!(options.top_p > 0.0 && options.top_p <= 1.0))
    throw error(std::string(fn) + ": top_p must be in (0, 1] (" + std::to_string(options.top_p) + ")");
  if (rows == 0) return;
  if (cols == 0) return mark_empty_rows(out, rows, stream, rows_device);
  const std::int64_t tiles = rows_tiles(fn, rows, cols);
  const std::size_t draw_bytes = (rows_scratch_bytes(tiles) + 255) / 256 * 256;
  scankit::detail::workspace_lease lease(ws, 0, draw_bytes + sizeof(top_row_state) * rows, stream);
  char* scratch = static_cast<char*>(lease.view().scratch);
  auto* states = reinterpret_cast<top_row_state*>(scratch + draw_bytes);
  const float inv_temperature = 1.0f / options.temperature;
  const top_params params{options.logits, inv_temperature, options.top_k, options.top_p};
  device_detail::launch_kernel("sampling top-k / top-p select", top_select_kernel, dim3(unsigned(rows)),
                               dim3(top_threads), stream, values, cols, params, states, rows, rows_device);
  draw_rows_from(top_source{values, cols, states, options.logits, inv_temperature}, rows, cols, out, seed, offset,
                 stream, scratch, rows_device);
}

}  // namespace

void sample_rows_top(const float* values, std::int64_t rows, std::int64_t cols, std::int32_t* out,
                     const top_sampling_options& options, std::uint64_t seed, std::uint64_t offset, cudaStream_t stream,
                     workspace* ws) {
  const char* fn = "scankit::sample_rows_top";
  const ::scankit::detail::nvtx_range nvtx(fn);
  draw_rows_top(fn, values, rows, cols, out, options, seed, offset, stream, ws, nullptr);
}

void sample_rows_top(const float* values, device_n rows, std::int64_t cols, std::int32_t* out,
                     const top_sampling_options& options, std::uint64_t seed, std::uint64_t offset, cudaStream_t stream,
                     workspace* ws) {
  const char* fn = "scankit::sample_rows_top";
  const ::scankit::detail::nvtx_range nvtx(fn);
  ::scankit::detail::check_device_n(fn, rows);
  draw_rows_top(fn, values, rows.bound, cols, out, options, seed, offset, stream, ws, rows.count);
}

}  // namespace scankit
