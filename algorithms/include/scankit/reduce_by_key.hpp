// Reduce-by-key over device arrays: the precompiled host API (callable from g++-compiled code).
// Each run of equal consecutive keys becomes one key (the run's first) and one aggregate (its
// values combined in order), as thrust::reduce_by_key and cub::DeviceReduce::ReduceByKey:
//
//   reduce_by_key(keys, values, unique_keys, aggregates, runs, n, op, stream, ws);
//
// `runs` points to one std::int64_t in device memory: the number of runs r; unique_keys[0..r) and
// aggregates[0..r) are written, nothing after them. Keys: 32- and 64-bit integers, equal when their
// bits are; values: int32, int64, float, double; operators: scan_op::plus, maximum, minimum
// (others, user types, key comparisons and iterators: scankit/device/reduce_by_key.cuh, nvcc). n <
// 2^32; n may also be a scankit::device_n (a count in device memory with a host bound, such as an
// earlier call's count; device_n.hpp). The outputs must not overlap the inputs or each other:
// unique_keys and aggregates need room for r items each and may sit side by side in one allocation
// sized for r. Since r is found on the device, the checks before the launch see only part of that:
// an output whose first n items reach an input, or outputs (and `runs`) that share their first
// item, are refused. Bad arguments throw scankit::error before anything is enqueued; work is
// enqueued on `stream`.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_DECLARE_REDUCE_BY_KEY(K, T)                                                                 \
  void reduce_by_key(const K* keys, const T* values, K* unique_keys, T* aggregates, std::int64_t* runs,     \
                     std::int64_t n, scan_op op = scan_op::plus, cudaStream_t stream = nullptr,             \
                     workspace* ws = nullptr);                                                              \
  void reduce_by_key(const K* keys, const T* values, K* unique_keys, T* aggregates, std::int64_t* runs,     \
                     device_n n, scan_op op = scan_op::plus, cudaStream_t stream = nullptr,                 \
                     workspace* ws = nullptr);

#define SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(T)                                                             \
  SCANKIT_DECLARE_REDUCE_BY_KEY(std::int32_t, T)                                                            \
  SCANKIT_DECLARE_REDUCE_BY_KEY(std::uint32_t, T)                                                           \
  SCANKIT_DECLARE_REDUCE_BY_KEY(std::int64_t, T)                                                            \
  SCANKIT_DECLARE_REDUCE_BY_KEY(std::uint64_t, T)                                                           \
  /* Bytes of workspace a reduce-by-key of n values of T needs with any key type (0 if none). */            \
  std::size_t reduce_by_key_workspace_bytes(const T* /*type tag*/, std::int64_t n);

SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(std::int32_t)
SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(std::int64_t)
SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(float)
SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES(double)

#undef SCANKIT_DECLARE_REDUCE_BY_KEY_VALUES
#undef SCANKIT_DECLARE_REDUCE_BY_KEY

}  // namespace scankit
