// The alias method: alias_table's memory and status, its build for float and double weights, and
// its draws (device/sampling/alias_build.cuh, alias_draw.cuh).
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "scankit/device/sampling/alias_build.cuh"
#include "scankit/device/sampling/alias_draw.cuh"
#include "table_memory.hpp"

namespace scankit {

alias_table::~alias_table() {
  if (memory_ != nullptr) (void)cudaFree(memory_);
}

alias_table& alias_table::operator=(alias_table&& o) noexcept {
  if (this != &o) {
    if (memory_ != nullptr) (void)cudaFree(memory_);
    memory_ = std::exchange(o.memory_, nullptr);
    capacity_ = std::exchange(o.capacity_, 0);
    bins_ = std::exchange(o.bins_, 0);
    entries_ = std::exchange(o.entries_, nullptr);
  }
  return *this;
}

std::size_t alias_table::bytes_for(std::int64_t n) noexcept { return alias_table_layout::of(n < 0 ? 0 : n).bytes; }

char* alias_table_access::prepare(alias_table& t, std::int64_t n, cudaStream_t stream) {
  const alias_table_layout l = alias_table_layout::of(n);
  device_detail::sampling::reserve_table_memory(t.memory_, t.capacity_, l.bytes, stream);
  char* base = static_cast<char*>(t.memory_);
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
  device_detail::sampling::build_alias(weights, n, table, stream, ws);
}

void build_alias_table(const double* weights, std::int64_t n, alias_table& table, cudaStream_t stream,
                       workspace* ws) {
  device_detail::sampling::build_alias(weights, n, table, stream, ws);
}

void sample(const alias_table& table, std::int32_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t offset,
            cudaStream_t stream) {
  using namespace device_detail::sampling;
  const char* fn = "scankit::sample (alias_table)";
  if (count < 0) throw error(std::string(fn) + ": count is negative (" + std::to_string(count) + ")");
  if (count > 0 && out == nullptr) throw error(std::string(fn) + ": out is null with count > 0");
  if (table.header() == nullptr) throw error(std::string(fn) + ": the table was never built");
  if (count == 0) return;
  device_detail::launch_kernel("alias draws", alias_draw_kernel, dim3(grid_for(count, draw_threads * draws_per_thread)),
                dim3(draw_threads), stream, static_cast<const alias_header*>(table.header()), table.entries(), out,
                count, seed, offset);
}

}  // namespace scankit
