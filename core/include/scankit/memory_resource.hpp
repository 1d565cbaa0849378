// Where scankit takes its device memory: a stream-ordered memory resource.
//
// Every byte of device memory scankit allocates (workspaces, the temporary storage of calls made
// without one, plans, device_csr, sampling tables) comes from a device_memory_resource and goes
// back to the same resource, stream-ordered: memory allocated on a stream may be used by work
// enqueued on that stream afterwards, and memory deallocated on a stream may be reused once the
// work enqueued on that stream before the deallocation has finished. This is the contract of
// cudaMallocAsync / cudaFreeAsync, RMM's device_memory_resource and PyTorch's caching allocator,
// so any of them can stand behind scankit (docs/memory.md shows how).
//
// The default is cuda_pool_resource (cudaMallocAsync on the device's current memory pool). Pass a
// resource to an object's constructor, or make one the process-wide default with
// set_default_resource. A resource must outlive every object that took memory from it.
//
// CUDA graphs: a call captured into a graph takes its temporary storage from graph memory nodes
// (cudaMallocAsync), whatever the default resource is: a user resource would hand out memory at
// capture time and take it back before the graph ever runs.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace scankit {

class device_memory_resource {
 public:
  virtual ~device_memory_resource() = default;
  // At least `bytes` of device memory (256-byte aligned), usable in stream order on `stream`.
  // Throws scankit::cuda_error (cudaErrorMemoryAllocation when the resource is out of memory).
  // scankit never asks for 0 bytes.
  virtual void* allocate(std::size_t bytes, cudaStream_t stream) = 0;
  // Returns memory that allocate(bytes, ...) gave, stream-ordered on `stream`. Must not throw or
  // wait for the device.
  virtual void deallocate(void* memory, std::size_t bytes, cudaStream_t stream) noexcept = 0;
};

// cudaMallocAsync / cudaFreeAsync on a CUDA memory pool: the device's current pool (the default),
// or the one given (cudaMallocFromPoolAsync).
class cuda_pool_resource final : public device_memory_resource {
 public:
  explicit cuda_pool_resource(cudaMemPool_t pool = nullptr) noexcept : pool_(pool) {}
  void* allocate(std::size_t bytes, cudaStream_t stream) override;
  void deallocate(void* memory, std::size_t bytes, cudaStream_t stream) noexcept override;
  cudaMemPool_t pool() const noexcept { return pool_; }

 private:
  cudaMemPool_t pool_;
};

// A resource made of two plain functions and a context pointer: what a C API, a Python binding or
// a framework's allocator (PyTorch's raw_alloc_with_stream / raw_delete) can provide. `allocate`
// returns nullptr when it cannot serve the request (scankit then throws scankit::cuda_error with
// cudaErrorMemoryAllocation); neither function may throw.
class callback_resource final : public device_memory_resource {
 public:
  using allocate_function = void* (*)(void* context, std::size_t bytes, cudaStream_t stream);
  using deallocate_function = void (*)(void* context, void* memory, std::size_t bytes, cudaStream_t stream);
  // Throws scankit::error if either function is null.
  callback_resource(allocate_function allocate, deallocate_function deallocate, void* context = nullptr);
  void* allocate(std::size_t bytes, cudaStream_t stream) override;
  void deallocate(void* memory, std::size_t bytes, cudaStream_t stream) noexcept override;

 private:
  allocate_function allocate_;
  deallocate_function deallocate_;
  void* context_;
};

// The resource that objects and calls use when none is given: the one set last, or the built-in
// cuda_pool_resource. Objects read it when they are constructed and keep it.
device_memory_resource* default_resource() noexcept;
// Makes `resource` the default (nullptr: the built-in pool again) and returns the previous one.
// Thread-safe; objects built earlier keep the resource they took.
device_memory_resource* set_default_resource(device_memory_resource* resource) noexcept;

namespace detail {
// The built-in cuda_pool_resource.
device_memory_resource* pool_resource() noexcept;
// The resource for a call's temporary storage on `stream`: the default resource, or the built-in
// pool while `stream` is being captured into a CUDA graph (see above).
device_memory_resource* resource_for_call(cudaStream_t stream);
}  // namespace detail

}  // namespace scankit
