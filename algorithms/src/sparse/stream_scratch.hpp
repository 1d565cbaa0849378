// Host helpers of the sparse module's sources: stream-ordered scratch memory and grid sizes.
#pragma once

#include <algorithm>
#include <cstddef>

#include <cuda_runtime.h>

#include "scankit/error.hpp"

namespace scankit::sparse::precompiled {

// Grid-stride kernels: enough blocks of 256 threads to fill the GPU, never more than the items need.
inline unsigned grid_for(long long items) {
  const long long blocks = (items + 255) / 256;
  return static_cast<unsigned>(std::clamp(blocks, 1LL, 132LL * 16));
}

// Stream-ordered scratch memory, freed (stream-ordered) when it goes out of scope.
template <class T>
class stream_scratch {
 public:
  stream_scratch(std::size_t count, cudaStream_t stream) : stream_(stream) {
    SCANKIT_CUDA_CHECK(
        cudaMallocAsync(reinterpret_cast<void**>(&data_), std::max<std::size_t>(count, 1) * sizeof(T), stream));
  }
  ~stream_scratch() { (void)cudaFreeAsync(data_, stream_); }
  stream_scratch(const stream_scratch&) = delete;
  stream_scratch& operator=(const stream_scratch&) = delete;
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace scankit::sparse::precompiled
