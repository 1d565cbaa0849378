// sampling_table: memory, status and the non-template parts of the sampling API.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/sampling/dispatch.cuh"
#include "scankit/device/sampling/draw_kernel.cuh"
#include "scankit/device/sampling/table_guide.cuh"
#include "scankit/device/sampling/table_settle.cuh"
#include "table_memory.hpp"

namespace scankit {

namespace device_detail::sampling {

void launch_table_settle(table_header* header, settle_stage stage, const sampling_table_layout& l, char* base,
                         cudaStream_t stream) {
  const int chunks = l.chunk_tiles > 0 ? static_cast<int>((l.tiles + l.chunk_tiles - 1) / l.chunk_tiles) : 0;
  // covers and starts are adjacent: the slots are 2 * pieces words (with the padding between them).
  const std::int64_t slots = static_cast<std::int64_t>((l.starts - l.covers) / sizeof(std::int32_t)) + l.pieces;
  launch_kernel("sampling table settle", table_settle_kernel, dim3(1), dim3(settle_threads), stream, header, stage,
                reinterpret_cast<const double*>(base + l.sums), reinterpret_cast<std::uint64_t*>(base + l.chunk_units),
                chunks, reinterpret_cast<std::int32_t*>(base + l.covers), slots);
}

void launch_table_guide(table_header* header, std::int64_t n, const sampling_table_layout& l, const table_arrays& a,
                        cudaStream_t stream) {
  if (n > 0)
    launch_kernel("sampling table guide repair", guide_repair_kernel, dim3(guide_repair_blocks),
                  dim3(guide_repair_threads), stream, header, n, a);
  launch_kernel("sampling wide bins", wide_bin_kernel, dim3(unsigned((l.pieces + table_threads - 1) / table_threads)),
                dim3(table_threads), stream, header, a, l.pieces);
}

void draw(const sampling_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed,
          std::uint64_t offset, cudaStream_t stream, const std::int64_t* count_device) {
  const char* fn = "scankit::sample";
  if (count < 0) throw error(std::string(fn) + ": count is negative (" + std::to_string(count) + ")");
  if (count > 0 && out == nullptr) throw error(std::string(fn) + ": out is null with count > 0");
  if (table.header() == nullptr) throw error(std::string(fn) + ": the table was never built");
  if (count == 0) return;
  const auto* header = static_cast<const table_header*>(table.header());
  launch_kernel("sampling draws", draw_kernel, dim3(grid_for(count, draw_threads * draws_per_thread)),
                dim3(draw_threads), stream, header, table.cdf(), table.codes(), table.guide(), table.bins(),
                table.guide_size(), out, count, count_device, seed, offset);
}

}  // namespace device_detail::sampling

const char* to_string(sampling_status status) noexcept {
  switch (status) {
    case sampling_status::ok: return "ok";
    case sampling_status::invalid_weight: return "a weight is negative, NaN or infinite";
    case sampling_status::all_zero: return "every weight is zero";
    case sampling_status::sum_overflow: return "the weights sum to more than the largest double";
  }
  return "unknown sampling status";
}

sampling_table::sampling_table(sampling_table&& o) noexcept
    : memory_(std::move(o.memory_)),
      bins_(std::exchange(o.bins_, 0)),
      guide_size_(std::exchange(o.guide_size_, 0)),
      cdf_(std::exchange(o.cdf_, nullptr)),
      codes_(std::exchange(o.codes_, nullptr)),
      guide_(std::exchange(o.guide_, nullptr)),
      state_(std::move(o.state_)) {}

sampling_table& sampling_table::operator=(sampling_table&& o) noexcept {
  if (this != &o) {
    memory_ = std::move(o.memory_);
    bins_ = std::exchange(o.bins_, 0);
    guide_size_ = std::exchange(o.guide_size_, 0);
    state_ = std::move(o.state_);
    cdf_ = std::exchange(o.cdf_, nullptr);
    codes_ = std::exchange(o.codes_, nullptr);
    guide_ = std::exchange(o.guide_, nullptr);
  }
  return *this;
}

std::size_t sampling_table::bytes_for(std::int64_t n) noexcept {
  const std::int64_t bins = n < 0 ? 0 : n;
  return sampling_table_layout::of(bins).bytes + workspace::bytes_needed(sampling_table_layout::state_slots(bins), 0);
}

char* sampling_table_access::prepare(sampling_table& t, std::int64_t n, cudaStream_t stream) {
  const sampling_table_layout l = sampling_table_layout::of(n);
  device_detail::sampling::reserve_table_memory(t.memory_, l.bytes, stream, t.state_.resource());
  char* base = t.memory_.data_as<char>();
  t.bins_ = n;
  t.guide_size_ = l.guide_capacity + 2;
  t.cdf_ = reinterpret_cast<std::uint64_t*>(base + l.cdf);
  t.codes_ = reinterpret_cast<std::uint16_t*>(base + l.codes);
  t.guide_ = reinterpret_cast<std::uint32_t*>(base + l.guide);
  return base;
}

namespace {
device_detail::sampling::table_header read_header(const sampling_table& t, cudaStream_t stream) {
  return device_detail::sampling::read_table_header<device_detail::sampling::table_header>(
      t.header(), stream, "scankit::sampling_table");
}
}  // namespace

sampling_status sampling_table::status_host(cudaStream_t stream) const {
  return static_cast<sampling_status>(read_header(*this, stream).status);
}

double sampling_table::total_host(cudaStream_t stream) const { return read_header(*this, stream).total; }

int sampling_table::unit_exponent_host(cudaStream_t stream) const { return read_header(*this, stream).unit_exponent; }

void sampling_table::check_host(cudaStream_t stream) const {
  device_detail::sampling::throw_unless_ok(status_host(stream), "scankit::sampling_table");
}

void sample(const sampling_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed,
            std::uint64_t offset, cudaStream_t stream) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sample (sampling_table)");
  device_detail::sampling::draw(table, out, count, seed, offset, stream);
}

void sample(const sampling_table& table, std::int32_t* out, device_n count, std::uint64_t seed, std::uint64_t offset,
            cudaStream_t stream) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sample (sampling_table)");
  detail::check_device_n("scankit::sample", count);
  device_detail::sampling::draw(table, out, count.bound, seed, offset, stream, count.count);
}

}  // namespace scankit
