// Reductions over device arrays: the precompiled host API (callable from g++-compiled code).
//
//   reduce:   *out = init op in[0] op ... op in[n-1]        (*out = init when n == 0)
//   arg_min:  *out = {index, value} of the first minimum    (an empty input gives {-1, 0})
//   arg_max:  *out = {index, value} of the first maximum
// In arg_min / arg_max a NaN beats every number (as numpy and torch report it) and ties go to the
// first index. `out` points to one item in device memory. Values: int32, uint32, int64, uint64,
// float, double; operators: scan_op::plus, maximum, minimum (the others, user types, accumulators
// and iterators: scankit/device/reduce.cuh, nvcc). `n` may also be a scankit::device_n (a count in
// device memory with a host bound; device_n.hpp). One launch; the association depends only on n
// (with a device_n: on the bound and the count) and the GPU, so floating-point sums give the same
// bits on every run on one GPU. Work is enqueued
// on `stream`; bad arguments throw scankit::error before anything is enqueued. With
// `ws == nullptr` temporary storage is taken and returned stream-ordered.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/reduce_operators.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_DECLARE_REDUCE(T)                                                                            \
  void reduce(const T* in, T* out, std::int64_t n, T init = T{}, scan_op op = scan_op::plus,                 \
              cudaStream_t stream = nullptr, workspace* ws = nullptr);                                       \
  void reduce(const T* in, T* out, device_n n, T init = T{}, scan_op op = scan_op::plus,                     \
              cudaStream_t stream = nullptr, workspace* ws = nullptr);                                       \
  void arg_min(const T* in, indexed_value<T>* out, std::int64_t n, cudaStream_t stream = nullptr,            \
               workspace* ws = nullptr);                                                                     \
  void arg_min(const T* in, indexed_value<T>* out, device_n n, cudaStream_t stream = nullptr,                \
               workspace* ws = nullptr);                                                                     \
  void arg_max(const T* in, indexed_value<T>* out, std::int64_t n, cudaStream_t stream = nullptr,            \
               workspace* ws = nullptr);                                                                     \
  void arg_max(const T* in, indexed_value<T>* out, device_n n, cudaStream_t stream = nullptr,                \
               workspace* ws = nullptr);                                                                     \
  /* Bytes of workspace any of these needs for n values on any GPU (0 when it needs none). */                \
  std::size_t reduce_workspace_bytes(const T* /*type tag*/, std::int64_t n);

SCANKIT_DECLARE_REDUCE(std::int32_t)
SCANKIT_DECLARE_REDUCE(std::uint32_t)
SCANKIT_DECLARE_REDUCE(std::int64_t)
SCANKIT_DECLARE_REDUCE(std::uint64_t)
SCANKIT_DECLARE_REDUCE(float)
SCANKIT_DECLARE_REDUCE(double)

#undef SCANKIT_DECLARE_REDUCE

}  // namespace scankit
