// What sampling_table and alias_table share on the host: their one allocation, and
// reading their device header back (for status_host, total_host and check_host).
#pragma once

#include <cstddef>
#include <string>

#include <cuda_runtime.h>

#include "scankit/error.hpp"
#include "scankit/sampling.hpp"

namespace scankit::device_detail::sampling {

// Makes `memory` hold at least `bytes` from `resource`, reallocating on `stream` (the old contents
// are dropped); a table that already holds enough keeps its memory. Either way the memory is
// returned on `stream` later: the last build's stream.
inline void reserve_table_memory(device_buffer& memory, std::size_t bytes, cudaStream_t stream,
                                 device_memory_resource* resource) {
  memory.set_stream(stream);
  if (memory.size() >= bytes) return;
  memory.reset();
  memory = device_buffer(bytes, stream, resource);
}

// The table's header, copied to the host. SYNCHRONISES: waits for `stream` (the build's stream).
template <class Header>
Header read_table_header(const void* device_header, cudaStream_t stream, const char* table_name) {
  if (device_header == nullptr) throw error(std::string(table_name) + ": the table was never built");
  Header h{};
  SCANKIT_CUDA_CHECK(cudaMemcpyAsync(&h, device_header, sizeof h, cudaMemcpyDeviceToHost, stream));
  SCANKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return h;
}

inline void throw_unless_ok(sampling_status status, const char* table_name) {
  if (status != sampling_status::ok) throw error(std::string(table_name) + ": " + to_string(status));
}

}  // namespace scankit::device_detail::sampling
