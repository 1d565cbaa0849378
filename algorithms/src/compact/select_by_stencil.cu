// Precompiled select_by_stencil: 4- and 8-byte items (moved as uint32 / uint64) with a float or
// double stencil and keep_in_range (e.g. the rows of a table whose value column is in range).
#include "precompiled_compact.cuh"

#define SCANKIT_DEFINE_SELECT_BY_STENCIL(T, S)                                                                  \
  namespace scankit {                                                                                           \
  void select_by_stencil(const T* in, const S* stencil, T* out, std::int64_t* d_count, std::int64_t n,          \
                         keep_in_range<S> pred, cudaStream_t stream, workspace* ws, const compact_options& options) { \
    device::select_by_stencil(precompiled::as_bits(in), stencil, precompiled::as_bits(out), d_count, n, pred,   \
                              stream, ws, options);                                                             \
  }                                                                                                             \
  void select_by_stencil(const T* in, const S* stencil, T* out, std::int64_t* d_count, device_n n,              \
                         keep_in_range<S> pred, cudaStream_t stream, workspace* ws, const compact_options& options) { \
    device::select_by_stencil(precompiled::as_bits(in), stencil, precompiled::as_bits(out), d_count, n, pred,   \
                              stream, ws, options);                                                             \
  }                                                                                                             \
  std::int64_t select_by_stencil_count_host(const T* in, const S* stencil, T* out, std::int64_t n,              \
                                            keep_in_range<S> pred, cudaStream_t stream, workspace* ws,          \
                                            const compact_options& options) {                                   \
    return device::select_by_stencil_count_host(precompiled::as_bits(in), stencil, precompiled::as_bits(out), n, \
                                                pred, stream, ws, options);                                     \
  }                                                                                                             \
  }
#define SCANKIT_DEFINE_SELECT_BY_STENCIL_BOTH(T)                                                                \
  SCANKIT_DEFINE_SELECT_BY_STENCIL(T, float) SCANKIT_DEFINE_SELECT_BY_STENCIL(T, double)

SCANKIT_DEFINE_SELECT_BY_STENCIL_BOTH(std::int32_t)
SCANKIT_DEFINE_SELECT_BY_STENCIL_BOTH(std::uint32_t)
SCANKIT_DEFINE_SELECT_BY_STENCIL_BOTH(float)
SCANKIT_DEFINE_SELECT_BY_STENCIL_BOTH(std::int64_t)
SCANKIT_DEFINE_SELECT_BY_STENCIL_BOTH(std::uint64_t)
SCANKIT_DEFINE_SELECT_BY_STENCIL_BOTH(double)
