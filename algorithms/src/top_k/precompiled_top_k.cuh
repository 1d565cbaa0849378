// The precompiled top-k overloads (scankit/top_k.hpp) on top of the template API: one
// translation unit per key type (top_k_<type>.cu); the index type and the offsets' width are
// run-time choices inside one pair of kernels per key type.
#pragma once

#include "scankit/device/top_k.cuh"
#include "scankit/top_k.hpp"

// Count: std::int64_t or device_n (the rows, or the segments).
#define SCANKIT_DEFINE_TOP_K_COUNTED(K, I, Count)                                                                  \
  void top_k(const K* keys, Count rows, std::int64_t cols, std::int64_t k, K* values_out, I* indices_out,          \
             cudaStream_t stream, workspace* ws, const top_k_options& options) {                                  \
    device::top_k(keys, rows, cols, k, values_out, indices_out, stream, ws, options);                              \
  }                                                                                                                \
  void top_k_segments(const K* keys, std::int64_t n, const std::int32_t* offsets, Count num_segments,              \
                      std::int64_t k, K* values_out, I* indices_out, cudaStream_t stream, workspace* ws,           \
                      const top_k_options& options) {                                                             \
    device::top_k_segments(keys, n, offsets, num_segments, k, values_out, indices_out, stream, ws, options);        \
  }                                                                                                                \
  void top_k_segments(const K* keys, std::int64_t n, const std::int64_t* offsets, Count num_segments,              \
                      std::int64_t k, K* values_out, I* indices_out, cudaStream_t stream, workspace* ws,           \
                      const top_k_options& options) {                                                             \
    device::top_k_segments(keys, n, offsets, num_segments, k, values_out, indices_out, stream, ws, options);        \
  }

#define SCANKIT_DEFINE_TOP_K(K, I)                 \
  SCANKIT_DEFINE_TOP_K_COUNTED(K, I, std::int64_t) \
  SCANKIT_DEFINE_TOP_K_COUNTED(K, I, device_n)

#define SCANKIT_DEFINE_TOP_K_FOR_KEY(K)                                                                      \
  SCANKIT_DEFINE_TOP_K(K, std::int32_t)                                                                      \
  SCANKIT_DEFINE_TOP_K(K, std::int64_t)                                                                      \
  std::size_t top_k_workspace_bytes(const K* keys, std::int64_t rows, std::int64_t cols, std::int64_t k) {   \
    return device::top_k_workspace_bytes(keys, rows, cols, k);                                               \
  }                                                                                                          \
  std::size_t top_k_segments_workspace_bytes(const K* keys, std::int64_t n, std::int64_t num_segments,       \
                                             std::int64_t k) {                                               \
    return device::top_k_segments_workspace_bytes(keys, n, num_segments, k);                                 \
  }
