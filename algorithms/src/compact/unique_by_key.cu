// Precompiled unique_by_key: 32-bit integer keys (as uint32) with 4-byte values (as uint32), and
// 64-bit integer keys (as uint64) with 8-byte values (as uint64).
#include "precompiled_compact.cuh"

#define SCANKIT_DEFINE_UNIQUE_BY_KEY(K, V)                                                                      \
  namespace scankit {                                                                                           \
  void unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t* d_count,   \
                     std::int64_t n, cudaStream_t stream, workspace* ws, const compact_options& options) {      \
    device::unique_by_key(precompiled::as_bits(keys_in), precompiled::as_bits(values_in),                       \
                          precompiled::as_bits(keys_out), precompiled::as_bits(values_out), d_count, n, stream, \
                          ws, options);                                                                         \
  }                                                                                                             \
  void unique_by_key(const K* keys_in, const V* values_in, K* keys_out, V* values_out, std::int64_t* d_count,   \
                     device_n n, cudaStream_t stream, workspace* ws, const compact_options& options) {          \
    device::unique_by_key(precompiled::as_bits(keys_in), precompiled::as_bits(values_in),                       \
                          precompiled::as_bits(keys_out), precompiled::as_bits(values_out), d_count, n, stream, \
                          ws, options);                                                                         \
  }                                                                                                             \
  std::int64_t unique_by_key_count_host(const K* keys_in, const V* values_in, K* keys_out, V* values_out,       \
                                        std::int64_t n, cudaStream_t stream, workspace* ws,                     \
                                        const compact_options& options) {                                       \
    return device::unique_by_key_count_host(precompiled::as_bits(keys_in), precompiled::as_bits(values_in),     \
                                            precompiled::as_bits(keys_out), precompiled::as_bits(values_out), n, \
                                            stream, ws, options);                                               \
  }                                                                                                             \
  }
#define SCANKIT_DEFINE_UNIQUE_BY_KEY_32(K)                                                                      \
  SCANKIT_DEFINE_UNIQUE_BY_KEY(K, std::int32_t) SCANKIT_DEFINE_UNIQUE_BY_KEY(K, std::uint32_t) SCANKIT_DEFINE_UNIQUE_BY_KEY(K, float)
#define SCANKIT_DEFINE_UNIQUE_BY_KEY_64(K)                                                                      \
  SCANKIT_DEFINE_UNIQUE_BY_KEY(K, std::int64_t) SCANKIT_DEFINE_UNIQUE_BY_KEY(K, std::uint64_t) SCANKIT_DEFINE_UNIQUE_BY_KEY(K, double)

SCANKIT_DEFINE_UNIQUE_BY_KEY_32(std::int32_t)
SCANKIT_DEFINE_UNIQUE_BY_KEY_32(std::uint32_t)
SCANKIT_DEFINE_UNIQUE_BY_KEY_64(std::int64_t)
SCANKIT_DEFINE_UNIQUE_BY_KEY_64(std::uint64_t)

namespace scankit {

namespace {

// The tuned compaction tile for the widest per-item array; other sizes are answered for the
// smallest tile (1 item per thread: the most state slots).
template <int BufferedArrays>
long long tuned_tile_items(std::size_t widest) {
  switch (widest) {
    case 1: return device_detail::tuned_compact_policy<1, BufferedArrays>::tile_items;
    case 2: return device_detail::tuned_compact_policy<2, BufferedArrays>::tile_items;
    case 4: return device_detail::tuned_compact_policy<4, BufferedArrays>::tile_items;
    case 8: return device_detail::tuned_compact_policy<8, BufferedArrays>::tile_items;
    case 16: return device_detail::tuned_compact_policy<16, BufferedArrays>::tile_items;
    default: return device_detail::compact_tuning<1, BufferedArrays>::block_threads;
  }
}

}  // namespace

// Sizing for callers who allocate their workspace: the tuned tile of the widest per-item array.
std::size_t compact_workspace_bytes(std::int64_t n, std::size_t item_bytes, std::size_t extra_bytes,
                                    const compact_options& options) {
  detail::check_count("scankit::compact_workspace_bytes", n);
  detail::check_compact_options("scankit::compact_workspace_bytes", options);
  const std::size_t widest = item_bytes > extra_bytes ? item_bytes : extra_bytes;
  // Other item sizes are answered for the smallest tile (1 item per thread: the most state
  // slots); the staged copies of a three-step call in place come from item_bytes and extra_bytes.
  // A second per-item array (stencil, values) may be buffered beside the items, which halves the
  // tuned tile: answer for that tile (the most tiles), as the template sizing does.
  const long long tile_items = extra_bytes == 0 ? tuned_tile_items<1>(widest) : tuned_tile_items<2>(widest);
  if (n <= 0) return 0;
  const bool wide = device_detail::needs_64bit_offsets(n, options);
  const auto count = static_cast<std::size_t>(n);
  if (device_detail::resolve_compact_strategy(options) == compact_strategy::three_step) {
    std::size_t bytes = device_detail::compact_round_up_256(count * (wide ? 8 : 4));
    bytes += device_detail::compact_round_up_256(count * item_bytes);
    bytes += device_detail::compact_round_up_256(count * extra_bytes);
    bytes += device_detail::compact_round_up_256(device_detail::three_step_scan_bytes(n, wide));
    return workspace::bytes_needed(0, bytes);
  }
  const long long tiles = (n + tile_items - 1) / tile_items;
  if (tiles <= 1) return 0;
  const auto tile_count = static_cast<std::size_t>(tiles);
  return workspace::bytes_needed(device_detail::tile_state_slots<unsigned long long>(tile_count),
                                 device_detail::tile_state_scratch_bytes<unsigned long long>(tile_count));
}

}  // namespace scankit
