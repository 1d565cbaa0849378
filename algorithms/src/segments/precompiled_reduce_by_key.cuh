// Shared by the translation units of the precompiled reduce-by-key: maps the run-time operator
// onto the template API. Unsigned keys run as the signed keys of the same width (equality of bits
// is the same), and write through the same pointer reinterpreted.
#pragma once

#include <string>
#include <type_traits>

#include "scankit/device/reduce_by_key.cuh"
#include "scankit/reduce_by_key.hpp"

namespace scankit::precompiled {

template <class K, class T>
void reduce_by_key_call(const K* keys, const T* values, K* unique_keys, T* aggregates, std::int64_t* runs,
                        device_detail::item_count n, scan_op op, cudaStream_t stream, workspace* ws) {
  using S = std::make_signed_t<K>;
  const auto* k = reinterpret_cast<const S*>(keys);
  auto* u = reinterpret_cast<S*>(unique_keys);
  switch (op) {
    case scan_op::plus: return device::reduce_by_key(k, values, u, aggregates, runs, n, plus_op{}, equal_to_op{}, stream, ws);
    case scan_op::maximum:
      return device::reduce_by_key(k, values, u, aggregates, runs, n, maximum_op{}, equal_to_op{}, stream, ws);
    case scan_op::minimum:
      return device::reduce_by_key(k, values, u, aggregates, runs, n, minimum_op{}, equal_to_op{}, stream, ws);
    default:
      throw error(std::string("scankit::reduce_by_key: operator ") + to_string(op) +
                  " is not precompiled (plus, maximum, minimum are); use scankit/device/reduce_by_key.cuh");
  }
}

}  // namespace scankit::precompiled

#define SCANKIT_DEFINE_PRECOMPILED_REDUCE_BY_KEY(K, T)                                                        \
  void reduce_by_key(const K* keys, const T* values, K* unique_keys, T* aggregates, std::int64_t* runs,       \
                     std::int64_t n, scan_op op, cudaStream_t stream, workspace* ws) {                        \
    precompiled::reduce_by_key_call(keys, values, unique_keys, aggregates, runs, n, op, stream, ws);          \
  }                                                                                                           \
  void reduce_by_key(const K* keys, const T* values, K* unique_keys, T* aggregates, std::int64_t* runs,       \
                     device_n n, scan_op op, cudaStream_t stream, workspace* ws) {                            \
    precompiled::reduce_by_key_call(keys, values, unique_keys, aggregates, runs, n, op, stream, ws);          \
  }

#define SCANKIT_DEFINE_PRECOMPILED_REDUCE_BY_KEY_VALUES(T)                                                    \
  namespace scankit {                                                                                         \
  SCANKIT_DEFINE_PRECOMPILED_REDUCE_BY_KEY(std::int32_t, T)                                                   \
  SCANKIT_DEFINE_PRECOMPILED_REDUCE_BY_KEY(std::uint32_t, T)                                                  \
  SCANKIT_DEFINE_PRECOMPILED_REDUCE_BY_KEY(std::int64_t, T)                                                   \
  SCANKIT_DEFINE_PRECOMPILED_REDUCE_BY_KEY(std::uint64_t, T)                                                  \
  std::size_t reduce_by_key_workspace_bytes(const T*, std::int64_t n) { /* 8-byte keys: the most tiles */     \
    return device::reduce_by_key_workspace_bytes<T, std::int64_t>(n);                                         \
  }                                                                                                           \
  }
