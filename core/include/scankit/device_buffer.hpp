// One stream-ordered allocation from a device_memory_resource, returned when the buffer is reset,
// reassigned or destroyed. The memory goes back on the buffer's stream (the one it was allocated
// on, or the last one given to set_stream), without waiting for the device: that stream must still
// exist then, and work on other streams that used the memory must be ordered before it (as with
// cudaFreeAsync). Movable, not copyable. Plain C++ (g++).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "scankit/memory_resource.hpp"

namespace scankit {

class device_buffer {
 public:
  device_buffer() = default;
  // `bytes` on `stream` from `resource` (nullptr: default_resource()). 0 bytes allocate nothing
  // (data() is null). Throws scankit::cuda_error when the resource cannot serve the request.
  device_buffer(std::size_t bytes, cudaStream_t stream, device_memory_resource* resource = nullptr);
  ~device_buffer() { reset(); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept;
  device_buffer& operator=(device_buffer&& other) noexcept;

  void* data() const noexcept { return data_; }
  template <class T>
  T* data_as() const noexcept {
    return static_cast<T*>(data_);
  }
  std::size_t size() const noexcept { return bytes_; }
  cudaStream_t stream() const noexcept { return stream_; }
  device_memory_resource* resource() const noexcept { return resource_; }

  // The stream that the memory will be returned on.
  void set_stream(cudaStream_t stream) noexcept { stream_ = stream; }
  // Returns the memory now (stream-ordered on stream()); the buffer is then empty.
  void reset() noexcept;

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  device_memory_resource* resource_ = nullptr;
};

}  // namespace scankit
