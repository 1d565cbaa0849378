// Precompiled partition_if (one and two outputs) with keep_in_range for uint32 and float.
#include "precompiled_compact.cuh"

#define SCANKIT_DEFINE_PARTITION_IF(T)                                                                          \
  namespace scankit {                                                                                           \
  void partition_if(const T* in, T* out, std::int64_t* d_count, std::int64_t n, keep_in_range<T> pred,          \
                    cudaStream_t stream, workspace* ws, const compact_options& options) {                       \
    device::partition_if(in, out, d_count, n, pred, stream, ws, options);                                       \
  }                                                                                                             \
  void partition_if(const T* in, T* out, std::int64_t* d_count, device_n n, keep_in_range<T> pred,              \
                    cudaStream_t stream, workspace* ws, const compact_options& options) {                       \
    device::partition_if(in, out, d_count, n, pred, stream, ws, options);                                       \
  }                                                                                                             \
  void partition_if(const T* in, T* out_selected, T* out_rejected, std::int64_t* d_count, std::int64_t n,       \
                    keep_in_range<T> pred, cudaStream_t stream, workspace* ws, const compact_options& options) { \
    device::partition_if(in, out_selected, out_rejected, d_count, n, pred, stream, ws, options);                \
  }                                                                                                             \
  void partition_if(const T* in, T* out_selected, T* out_rejected, std::int64_t* d_count, device_n n,           \
                    keep_in_range<T> pred, cudaStream_t stream, workspace* ws, const compact_options& options) { \
    device::partition_if(in, out_selected, out_rejected, d_count, n, pred, stream, ws, options);                \
  }                                                                                                             \
  std::int64_t partition_if_count_host(const T* in, T* out, std::int64_t n, keep_in_range<T> pred,              \
                                       cudaStream_t stream, workspace* ws, const compact_options& options) {    \
    return device::partition_if_count_host(in, out, n, pred, stream, ws, options);                              \
  }                                                                                                             \
  std::int64_t partition_if_count_host(const T* in, T* out_selected, T* out_rejected, std::int64_t n,           \
                                       keep_in_range<T> pred, cudaStream_t stream, workspace* ws,               \
                                       const compact_options& options) {                                        \
    return device::partition_if_count_host(in, out_selected, out_rejected, n, pred, stream, ws, options);       \
  }                                                                                                             \
  }

SCANKIT_DEFINE_PARTITION_IF(std::uint32_t)
SCANKIT_DEFINE_PARTITION_IF(float)
