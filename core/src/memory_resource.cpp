// The built-in and callback memory resources, the default resource and device_buffer.
#include "scankit/memory_resource.hpp"

#include <atomic>
#include <string>
#include <utility>

#include "scankit/device_buffer.hpp"
#include "scankit/error.hpp"
#include "scankit/workspace.hpp"  // detail::stream_is_capturing

namespace scankit {
namespace {

[[noreturn]] void throw_out_of_memory(const char* who, std::size_t bytes) {
  throw cuda_error(cudaErrorMemoryAllocation, std::string(who) + ".allocate(" + std::to_string(bytes) + " bytes)");
}

cuda_pool_resource built_in_pool;
// Relaxed is enough: the pointer is the only thing published (a resource is fully built before a
// caller can pass it), and objects read it once, at construction.
std::atomic<device_memory_resource*> default_slot{nullptr};

}  // namespace

void* cuda_pool_resource::allocate(std::size_t bytes, cudaStream_t stream) {
  void* memory = nullptr;
  if (pool_ != nullptr) {
    SCANKIT_CUDA_CHECK(cudaMallocFromPoolAsync(&memory, bytes, pool_, stream));
  } else {
    SCANKIT_CUDA_CHECK(cudaMallocAsync(&memory, bytes, stream));
  }
  return memory;
}

void cuda_pool_resource::deallocate(void* memory, std::size_t /*bytes*/, cudaStream_t stream) noexcept {
  (void)cudaFreeAsync(memory, stream);
}

callback_resource::callback_resource(allocate_function allocate, deallocate_function deallocate, void* context)
    : allocate_(allocate), deallocate_(deallocate), context_(context) {
  if (allocate == nullptr || deallocate == nullptr) {
    throw error("scankit::callback_resource: the allocate and deallocate functions must not be null");
  }
}

void* callback_resource::allocate(std::size_t bytes, cudaStream_t stream) {
  void* memory = allocate_(context_, bytes, stream);
  if (memory == nullptr) throw_out_of_memory("scankit::callback_resource", bytes);
  return memory;
}

void callback_resource::deallocate(void* memory, std::size_t bytes, cudaStream_t stream) noexcept {
  deallocate_(context_, memory, bytes, stream);
}

device_memory_resource* default_resource() noexcept {
  device_memory_resource* r = default_slot.load(std::memory_order_relaxed);
  return r != nullptr ? r : &built_in_pool;
}

device_memory_resource* set_default_resource(device_memory_resource* resource) noexcept {
  device_memory_resource* previous = default_slot.exchange(resource, std::memory_order_relaxed);
  return previous != nullptr ? previous : &built_in_pool;
}

namespace detail {

device_memory_resource* pool_resource() noexcept { return &built_in_pool; }

device_memory_resource* resource_for_call(cudaStream_t stream) {
  device_memory_resource* r = default_resource();
  if (r == &built_in_pool) return r;  // the common case asks nothing of the driver
  return stream_is_capturing(stream) ? &built_in_pool : r;
}

}  // namespace detail

device_buffer::device_buffer(std::size_t bytes, cudaStream_t stream, device_memory_resource* resource)
    : stream_(stream), resource_(resource != nullptr ? resource : default_resource()) {
  if (bytes == 0) return;
  data_ = resource_->allocate(bytes, stream);
  if (data_ == nullptr) throw_out_of_memory("scankit::device_memory_resource", bytes);
  bytes_ = bytes;
}

device_buffer::device_buffer(device_buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      stream_(other.stream_),
      resource_(other.resource_) {}

device_buffer& device_buffer::operator=(device_buffer&& other) noexcept {
  if (this != &other) {
    reset();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    stream_ = other.stream_;
    resource_ = other.resource_;
  }
  return *this;
}

void device_buffer::reset() noexcept {
  if (data_ != nullptr) resource_->deallocate(data_, bytes_, stream_);
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace scankit
