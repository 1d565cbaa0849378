// The alias method: alias_table's memory and status, its build for float and double weights, and
// its draws (device/sampling/alias_build.cuh, alias_draw.cuh).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/sampling/alias_build.cuh"
#include "scankit/device/sampling/alias_draw.cuh"
#include "scankit/device/util/l2_size.hpp"
#include "table_memory.hpp"

namespace scankit {

alias_table& alias_table::operator=(alias_table&& o) noexcept {
  if (this != &o) {
    resource_ = o.resource_;
    memory_ = std::move(o.memory_);
    bins_ = std::exchange(o.bins_, 0);
    entries_ = std::exchange(o.entries_, nullptr);
  }
  return *this;
}

std::size_t alias_table::bytes_for(std::int64_t n) noexcept { return alias_table_layout::of(n < 0 ? 0 : n).bytes; }

char* alias_table_access::prepare(alias_table& t, std::int64_t n, cudaStream_t stream) {
  const alias_table_layout l = alias_table_layout::of(n);
  device_detail::sampling::reserve_table_memory(t.memory_, l.bytes, stream, t.resource_);
  char* base = t.memory_.data_as<char>();
  t.bins_ = n;
  t.entries_ = reinterpret_cast<alias_entry*>(base + l.entries);
  return base;
}

namespace {
device_detail::sampling::alias_header header_of(const alias_table& t, cudaStream_t stream) {
  return device_detail::sampling::read_table_header<device_detail::sampling::alias_header>(
      t.header(), stream, "scankit::alias_table");
}
}  // namespace

sampling_status alias_table::status_host(cudaStream_t stream) const {
  return static_cast<sampling_status>(header_of(*this, stream).status);
}

double alias_table::total_host(cudaStream_t stream) const { return header_of(*this, stream).total; }

void alias_table::check_host(cudaStream_t stream) const {
  device_detail::sampling::throw_unless_ok(status_host(stream), "scankit::alias_table");
}

void build_alias_table(const float* weights, std::int64_t n, alias_table& table, cudaStream_t stream, workspace* ws) {
  const ::scankit::detail::nvtx_range nvtx("scankit::build_alias_table");
  device_detail::sampling::build_alias(weights, n, table, stream, ws);
}

void build_alias_table(const double* weights, std::int64_t n, alias_table& table, cudaStream_t stream,
                       workspace* ws) {
  const ::scankit::detail::nvtx_range nvtx("scankit::build_alias_table");
  device_detail::sampling::build_alias(weights, n, table, stream, ws);
}

void sample(const alias_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t offset,
            cudaStream_t stream) {
  using namespace device_detail::sampling;
  const char* fn = "scankit::sample (alias_table)";
  const ::scankit::detail::nvtx_range nvtx(fn);
  if (count < 0) throw error(std::string(fn) + ": count is negative (" + std::to_string(count) + ")");
  if (count > 0 && out == nullptr) throw error(std::string(fn) + ": out is null with count > 0");
  if (table.header() == nullptr) throw error(std::string(fn) + ": the table was never built");
  if (count == 0) return;
  draw_alias(table, out, count, seed, offset, alias_slices(table.bins(), count), stream);
}

void sample(const alias_table& table, std::int32_t* out, device_n count, std::uint64_t seed, std::uint64_t offset,
            cudaStream_t stream) {
  using namespace device_detail::sampling;
  const char* fn = "scankit::sample (alias_table)";
  const ::scankit::detail::nvtx_range nvtx(fn);
  detail::check_device_n(fn, count);
  if (count.bound > 0 && out == nullptr) throw error(std::string(fn) + ": out is null with a bound > 0");
  if (table.header() == nullptr) throw error(std::string(fn) + ": the table was never built");
  if (count.bound == 0) return;
  // Slices are chosen for the bound: the draws' bits do not depend on them.
  draw_alias(table, out, count.bound, seed, offset, alias_slices(table.bins(), count.bound), stream, count.count);
}

namespace device_detail::sampling {

int alias_slices(std::int64_t bins, std::int64_t count) {
  const double table_bytes = double(sizeof(alias_entry)) * double(bins);
  // Slicing pays where draws come back to the same lines (count >= bins) of a table beyond L2.
  if (table_bytes <= double(alias_unsliced_bytes) || count < bins) return 1;
  const double slice_bytes = alias_slice_l2_share * double(l2_bytes_of_current_device());
  const double wanted = std::ceil(table_bytes / slice_bytes);
  return wanted <= alias_max_wanted_slices ? static_cast<int>(std::min<double>(wanted, alias_max_slices)) : 1;
}

void draw_alias(const alias_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed,
                std::uint64_t offset, int slices, cudaStream_t stream, const std::int64_t* count_device) {
  if (count <= 0) return;  // nothing to draw, and a grid of zero blocks is not a launch
  const auto* header = static_cast<const alias_header*>(table.header());
  const std::int64_t n = table.bins();
  const unsigned grid = grid_for(count, draw_threads * alias_draws_per_thread);
  for (int s = 0; s < slices; ++s) {
    // Slice s covers buckets [lo, hi); the first starts at 0 (its launch writes a failed table's
    // -1s) and the last ends past every bucket.
    const std::int64_t lo = s == 0 ? 0 : n / slices * s;
    const std::int64_t hi = s == slices - 1 ? std::numeric_limits<std::int64_t>::max() : n / slices * (s + 1);
    launch_kernel("alias draws", alias_draw_kernel, dim3(grid), dim3(draw_threads), stream, header, table.entries(), n,
                  out, count, count_device, seed, offset, lo, hi);
  }
}

}  // namespace device_detail::sampling

}  // namespace scankit
