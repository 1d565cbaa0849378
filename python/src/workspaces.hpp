// The module's workspaces: one per CUDA stream, grown on demand and kept, so that repeated calls
// on a stream allocate nothing and skip the workspace's initialisation launch. A stream's
// workspace takes its memory from the allocator of the framework whose arrays first used the
// stream (PyTorch's caching allocator, CuPy's memory pool), or from scankit's built-in pool.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/memory_resource.hpp"
#include "scankit/workspace.hpp"

namespace scankit::python {

// The workspace of `stream` (a cudaStream_t as an integer; 0 is the legacy default stream). Only
// ever used with the GIL held, which orders the calls that share it.
workspace* workspace_for(std::uintptr_t stream);

// The memory resource of allocator slot `slot` (1: PyTorch, 2: CuPy, once registered), or null (the
// default resource) for 0 or a slot not registered: where plans, tables and built matrices take
// their memory, so that it shows in the framework's own accounting.
device_memory_resource* resource_for_slot(int slot);

inline cudaStream_t as_stream(std::uintptr_t stream) { return reinterpret_cast<cudaStream_t>(stream); }

template <class T>
T* as_pointer(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

}  // namespace scankit::python
