// Precompiled select_flagged: 1-, 2-, 4-, 8- and 16-byte items (moved as unsigned integers of
// their size) with uint8_t flags (bool flags travel as uint8_t: a bool is 0 or 1 in one byte).
#include "precompiled_compact.cuh"

#define SCANKIT_DEFINE_SELECT_FLAGGED(T, F)                                                                     \
  namespace scankit {                                                                                           \
  void select_flagged(const T* in, const F* flags, T* out, std::int64_t* d_count, std::int64_t n,               \
                      cudaStream_t stream, workspace* ws, const compact_options& options) {                     \
    device::select_flagged(precompiled::as_bits(in), reinterpret_cast<const std::uint8_t*>(flags),              \
                           precompiled::as_bits(out), d_count, n, stream, ws, options);                         \
  }                                                                                                             \
  void select_flagged(const T* in, const F* flags, T* out, std::int64_t* d_count, device_n n,                   \
                      cudaStream_t stream, workspace* ws, const compact_options& options) {                     \
    device::select_flagged(precompiled::as_bits(in), reinterpret_cast<const std::uint8_t*>(flags),              \
                           precompiled::as_bits(out), d_count, n, stream, ws, options);                         \
  }                                                                                                             \
  std::int64_t select_flagged_count_host(const T* in, const F* flags, T* out, std::int64_t n, cudaStream_t stream, \
                                         workspace* ws, const compact_options& options) {                       \
    return device::select_flagged_count_host(precompiled::as_bits(in), reinterpret_cast<const std::uint8_t*>(flags), \
                                             precompiled::as_bits(out), n, stream, ws, options);                \
  }                                                                                                             \
  }
#define SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(T)                                                                   \
  SCANKIT_DEFINE_SELECT_FLAGGED(T, std::uint8_t) SCANKIT_DEFINE_SELECT_FLAGGED(T, bool)

SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(std::int8_t)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(std::uint8_t)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(std::int16_t)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(std::uint16_t)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(std::int32_t)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(std::uint32_t)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(std::int64_t)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(std::uint64_t)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(float)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(double)
SCANKIT_DEFINE_SELECT_FLAGGED_BOTH(item16)
