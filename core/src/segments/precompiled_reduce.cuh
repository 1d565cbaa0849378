// Shared by the per-type translation units of the precompiled reductions: maps the run-time
// operator onto the template API (scankit/device/reduce.cuh).
#pragma once

#include <algorithm>
#include <string>

#include "scankit/device/reduce.cuh"
#include "scankit/reduce.hpp"

namespace scankit::precompiled {

template <class T>
void reduce_call(const T* in, T* out, device_detail::item_count n, T init, scan_op op, cudaStream_t stream,
                 workspace* ws) {
  switch (op) {
    case scan_op::plus: return device::reduce<T>(in, out, n, init, plus_op{}, stream, ws);
    case scan_op::maximum: return device::reduce<T>(in, out, n, init, maximum_op{}, stream, ws);
    case scan_op::minimum: return device::reduce<T>(in, out, n, init, minimum_op{}, stream, ws);
    default:
      throw error(std::string("scankit::reduce: operator ") + to_string(op) +
                  " is not precompiled for reductions (plus, maximum, minimum are); use scankit/device/reduce.cuh");
  }
}

template <class T>
std::size_t reduce_workspace_bytes_of(std::int64_t n) {
  return std::max(device::reduce_workspace_bytes<T, T>(n), device::reduce_workspace_bytes<T, indexed_value<T>>(n));
}

}  // namespace scankit::precompiled

#define SCANKIT_DEFINE_PRECOMPILED_REDUCE(T)                                                                  \
  namespace scankit {                                                                                         \
  void reduce(const T* in, T* out, std::int64_t n, T init, scan_op op, cudaStream_t stream, workspace* ws) {  \
    precompiled::reduce_call<T>(in, out, n, init, op, stream, ws);                                            \
  }                                                                                                           \
  void reduce(const T* in, T* out, device_n n, T init, scan_op op, cudaStream_t stream, workspace* ws) {      \
    precompiled::reduce_call<T>(in, out, n, init, op, stream, ws);                                            \
  }                                                                                                           \
  void arg_min(const T* in, indexed_value<T>* out, std::int64_t n, cudaStream_t stream, workspace* ws) {      \
    device::arg_min(in, out, n, stream, ws);                                                                  \
  }                                                                                                           \
  void arg_min(const T* in, indexed_value<T>* out, device_n n, cudaStream_t stream, workspace* ws) {          \
    device::arg_min(in, out, n, stream, ws);                                                                  \
  }                                                                                                           \
  void arg_max(const T* in, indexed_value<T>* out, std::int64_t n, cudaStream_t stream, workspace* ws) {      \
    device::arg_max(in, out, n, stream, ws);                                                                  \
  }                                                                                                           \
  void arg_max(const T* in, indexed_value<T>* out, device_n n, cudaStream_t stream, workspace* ws) {          \
    device::arg_max(in, out, n, stream, ws);                                                                  \
  }                                                                                                           \
  std::size_t reduce_workspace_bytes(const T*, std::int64_t n) { return precompiled::reduce_workspace_bytes_of<T>(n); } \
  }
