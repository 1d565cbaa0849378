// Precompiled unique: int32 and uint32 as uint32, int64 and uint64 as uint64 (integer equality
// is equality of the bits), float and double with their own operator== (+0.0 == -0.0; NaN
// equals nothing, so every NaN is kept).
#include "precompiled_compact.cuh"

#define SCANKIT_DEFINE_UNIQUE(T, U)                                                                             \
  namespace scankit {                                                                                           \
  void unique(const T* in, T* out, std::int64_t* d_count, std::int64_t n, cudaStream_t stream, workspace* ws,   \
              const compact_options& options) {                                                                 \
    device::unique(reinterpret_cast<const U*>(in), reinterpret_cast<U*>(out), d_count, n, stream, ws, options); \
  }                                                                                                             \
  void unique(const T* in, T* out, std::int64_t* d_count, device_n n, cudaStream_t stream, workspace* ws,       \
              const compact_options& options) {                                                                 \
    device::unique(reinterpret_cast<const U*>(in), reinterpret_cast<U*>(out), d_count, n, stream, ws, options); \
  }                                                                                                             \
  std::int64_t unique_count_host(const T* in, T* out, std::int64_t n, cudaStream_t stream, workspace* ws,       \
                                 const compact_options& options) {                                              \
    return device::unique_count_host(reinterpret_cast<const U*>(in), reinterpret_cast<U*>(out), n, stream, ws,  \
                                     options);                                                                  \
  }                                                                                                             \
  }

SCANKIT_DEFINE_UNIQUE(std::int32_t, std::uint32_t)
SCANKIT_DEFINE_UNIQUE(std::uint32_t, std::uint32_t)
SCANKIT_DEFINE_UNIQUE(std::int64_t, std::uint64_t)
SCANKIT_DEFINE_UNIQUE(std::uint64_t, std::uint64_t)
SCANKIT_DEFINE_UNIQUE(float, float)
SCANKIT_DEFINE_UNIQUE(double, double)
