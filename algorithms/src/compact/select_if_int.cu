// Precompiled select_if with keep_in_range for int32, uint32, int64, uint64.
#include "precompiled_compact.cuh"

#define SCANKIT_DEFINE_SELECT_IF(T, P)                                                                          \
  namespace scankit {                                                                                           \
  void select_if(const T* in, T* out, std::int64_t* d_count, std::int64_t n, P<T> pred, cudaStream_t stream,    \
                 workspace* ws, const compact_options& options) {                                               \
    device::select_if(in, out, d_count, n, pred, stream, ws, options);                                          \
  }                                                                                                             \
  void select_if(const T* in, T* out, std::int64_t* d_count, device_n n, P<T> pred, cudaStream_t stream,        \
                 workspace* ws, const compact_options& options) {                                               \
    device::select_if(in, out, d_count, n, pred, stream, ws, options);                                          \
  }                                                                                                             \
  std::int64_t select_if_count_host(const T* in, T* out, std::int64_t n, P<T> pred, cudaStream_t stream,        \
                                    workspace* ws, const compact_options& options) {                            \
    return device::select_if_count_host(in, out, n, pred, stream, ws, options);                                 \
  }                                                                                                             \
  }

SCANKIT_DEFINE_SELECT_IF(std::int32_t, keep_in_range)
SCANKIT_DEFINE_SELECT_IF(std::uint32_t, keep_in_range)
SCANKIT_DEFINE_SELECT_IF(std::int64_t, keep_in_range)
SCANKIT_DEFINE_SELECT_IF(std::uint64_t, keep_in_range)
