// The precompiled radix sort overloads (scankit/sort.hpp) on top of the template API. Each
// key type has its own kernels (its default_bit_key compiled in: a digit read at run time from a
// key-kind descriptor cost the pass kernel registers and a third of its speed); values and
// argsort indices move as raw words of their size, so value types of one size share kernels.
// One translation unit per key type (sort_keys_<type>.cu), so that no single file is the long pole
// of a parallel build (docs/notes/2026-12-01-ci-build-time.md).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "scankit/device/sort.cuh"
#include "scankit/sort.hpp"

namespace scankit::precompiled {

template <class T>
using raw_t = detail::unsigned_bits_t<T>;

template <class T>
raw_t<T>* raw(T* p) {
  return reinterpret_cast<raw_t<T>*>(p);
}
template <class T>
const raw_t<T>* raw(const T* p) {
  return reinterpret_cast<const raw_t<T>*>(p);
}
template <class T>
double_buffer<raw_t<T>> raw(const double_buffer<T>& b) {
  double_buffer<raw_t<T>> r(raw(b.buffers[0]), raw(b.buffers[1]));
  r.selector = b.selector;
  return r;
}

// int32 indices address at most 2^31 keys (the kernels move them as raw 32-bit words).
template <class I>
void check_index_fits(const char* function, std::int64_t n) {
  if (n > 0 && static_cast<std::uint64_t>(n - 1) > static_cast<std::uint64_t>(std::numeric_limits<I>::max())) {
    throw error(std::string(function) + ": n = " + std::to_string(n) + " does not fit the index type");
  }
}

template <class V>
struct raw_value {
  using type = raw_t<V>;
};
template <>
struct raw_value<void> {
  using type = void;
};

template <class K, class V = void>
using policy_for = device::tuned_sort_policy<K, typename raw_value<V>::type>;

// The bodies that a host count and a device_n share.
template <class K, class V>
void sort_pairs_in_buffers(double_buffer<K>& keys, double_buffer<V>& values, device_detail::item_count n,
                           cudaStream_t stream, workspace* ws, const sort_options& options) {
  auto rv = raw(values);
  device::sort_pairs<policy_for<K, V>>(keys, rv, n, stream, ws, options);
  values.selector = rv.selector;
}

template <class K, class I>
void argsort_call(const K* keys_in, K* keys_out, I* indices_out, device_detail::item_count n, cudaStream_t stream,
                  workspace* ws, const sort_options& options) {
  check_index_fits<I>("scankit::argsort", n.bound);
  device::argsort<policy_for<K, I>>(keys_in, keys_out, raw(indices_out), n, stream, ws, options);
}

}  // namespace scankit::precompiled

#define SCANKIT_DEFINE_SORT_KEYS(K)                                                                                   \
  void sort_keys(const K* keys_in, K* keys_out, std::int64_t n, cudaStream_t stream, workspace* ws,                   \
                 const sort_options& options) {                                                                       \
    using namespace precompiled;                                                                                      \
    device::sort_keys<policy_for<K>>(keys_in, keys_out, n, stream, ws, options);                                      \
  }                                                                                                                   \
  void sort_keys(const K* keys_in, K* keys_out, device_n n, cudaStream_t stream, workspace* ws,                       \
                 const sort_options& options) {                                                                       \
    using namespace precompiled;                                                                                      \
    device::sort_keys<policy_for<K>>(keys_in, keys_out, n, stream, ws, options);                                      \
  }                                                                                                                   \
  void sort_keys(double_buffer<K>& keys, std::int64_t n, cudaStream_t stream, workspace* ws,                          \
                 const sort_options& options) {                                                                       \
    using namespace precompiled;                                                                                      \
    device::sort_keys<policy_for<K>>(keys, n, stream, ws, options);                                                   \
  }                                                                                                                   \
  void sort_keys(double_buffer<K>& keys, device_n n, cudaStream_t stream, workspace* ws,                              \
                 const sort_options& options) {                                                                       \
    using namespace precompiled;                                                                                      \
    device::sort_keys<policy_for<K>>(keys, n, stream, ws, options);                                                   \
  }                                                                                                                   \
  std::size_t sort_keys_workspace_bytes(const K*, std::int64_t n, const sort_options& options) {                      \
    using namespace precompiled;                                                                                      \
    return device::sort_workspace_bytes<K, void, policy_for<K>>(n, false, options);                                   \
  }                                                                                                                   \
  std::size_t sort_keys_workspace_bytes(const double_buffer<K>&, std::int64_t n, const sort_options& options) {       \
    using namespace precompiled;                                                                                      \
    return device::sort_workspace_bytes<K, void, policy_for<K>>(n, true, options);                                    \
  }

#define SCANKIT_DEFINE_SORT_PAIRS(K, V)                                                                               \
  void sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,                   \
                  cudaStream_t stream, workspace* ws, const sort_options& options) {                                  \
    using namespace precompiled;                                                                                      \
    device::sort_pairs<policy_for<K, V>>(keys_in, keys_out, raw(values_in), raw(values_out), n, stream, ws, options); \
  }                                                                                                                   \
  void sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, device_n n,                       \
                  cudaStream_t stream, workspace* ws, const sort_options& options) {                                  \
    using namespace precompiled;                                                                                      \
    device::sort_pairs<policy_for<K, V>>(keys_in, keys_out, raw(values_in), raw(values_out), n, stream, ws, options); \
  }                                                                                                                   \
  void sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, cudaStream_t stream,              \
                  workspace* ws, const sort_options& options) {                                                       \
    precompiled::sort_pairs_in_buffers(keys, values, n, stream, ws, options);                                         \
  }                                                                                                                   \
  void sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, device_n n, cudaStream_t stream,                  \
                  workspace* ws, const sort_options& options) {                                                       \
    precompiled::sort_pairs_in_buffers(keys, values, n, stream, ws, options);                                         \
  }                                                                                                                   \
  std::size_t sort_pairs_workspace_bytes(const K*, const V*, std::int64_t n, const sort_options& options) {           \
    using namespace precompiled;                                                                                      \
    return device::sort_workspace_bytes<K, raw_t<V>, policy_for<K, V>>(n, false, options);                            \
  }                                                                                                                   \
  std::size_t sort_pairs_workspace_bytes(const double_buffer<K>&, const double_buffer<V>&, std::int64_t n,            \
                                         const sort_options& options) {                                               \
    using namespace precompiled;                                                                                      \
    return device::sort_workspace_bytes<K, raw_t<V>, policy_for<K, V>>(n, true, options);                             \
  }

#define SCANKIT_DEFINE_ARGSORT(K, I)                                                                                  \
  void argsort(const K* keys_in, K* keys_out, I* indices_out, std::int64_t n, cudaStream_t stream, workspace* ws,     \
               const sort_options& options) {                                                                         \
    precompiled::argsort_call(keys_in, keys_out, indices_out, n, stream, ws, options);                                \
  }                                                                                                                   \
  void argsort(const K* keys_in, K* keys_out, I* indices_out, device_n n, cudaStream_t stream, workspace* ws,         \
               const sort_options& options) {                                                                         \
    precompiled::argsort_call(keys_in, keys_out, indices_out, n, stream, ws, options);                                \
  }                                                                                                                   \
  std::size_t argsort_workspace_bytes(const K*, const K* keys_out, const I*, std::int64_t n,                          \
                                      const sort_options& options) {                                                  \
    using namespace precompiled;                                                                                      \
    return device::sort_workspace_bytes<K, raw_t<I>, policy_for<K, I>>(n, false, options,                             \
                                                                                     keys_out != nullptr);            \
  }

#define SCANKIT_DEFINE_SORT_FOR_KEY(K)                                                                                \
  SCANKIT_DEFINE_SORT_KEYS(K)                                                                                         \
  SCANKIT_DEFINE_SORT_PAIRS(K, std::int32_t)                                                                          \
  SCANKIT_DEFINE_SORT_PAIRS(K, std::uint32_t)                                                                         \
  SCANKIT_DEFINE_SORT_PAIRS(K, float)                                                                                 \
  SCANKIT_DEFINE_SORT_PAIRS(K, std::int64_t)                                                                          \
  SCANKIT_DEFINE_SORT_PAIRS(K, std::uint64_t)                                                                         \
  SCANKIT_DEFINE_SORT_PAIRS(K, double)                                                                                \
  SCANKIT_DEFINE_ARGSORT(K, std::int32_t)                                                                             \
  SCANKIT_DEFINE_ARGSORT(K, std::int64_t)
