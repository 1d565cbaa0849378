// Host helpers of the sparse module's sources: scratch memory and grid sizes.
#pragma once

#include <algorithm>
#include <cstddef>

#include <cuda_runtime.h>

#include "scankit/device_buffer.hpp"

namespace scankit::sparse::precompiled {

// Grid-stride kernels: enough blocks of 256 threads to fill the GPU, never more than the items need.
inline unsigned grid_for(long long items) {
  const long long blocks = (items + 255) / 256;
  return static_cast<unsigned>(std::clamp(blocks, 1LL, 132LL * 16));
}

// Scratch memory of `count` items for one call, from the call's memory resource, returned
// stream-ordered when it goes out of scope.
template <class T>
class stream_scratch {
 public:
  stream_scratch(std::size_t count, cudaStream_t stream)
      : memory_(std::max<std::size_t>(count, 1) * sizeof(T), stream, ::scankit::detail::resource_for_call(stream)) {}
  T* get() const { return memory_.data_as<T>(); }

 private:
  device_buffer memory_;
};

}  // namespace scankit::sparse::precompiled
