// Segmented reductions by offsets over device arrays: the precompiled host API (callable from
// g++-compiled code). One result per segment of a CSR-style offsets array, e.g. the row sums or
// row maxima of a sparse matrix.
//
//   segmented_reduce(values, offsets, num_segments, out, n[, empty_value], op)
//     offsets: num_segments + 1 non-decreasing positions in [0, n] (32- or 64-bit); segment s is
//     [offsets[s], offsets[s + 1]) and out[s] = values[offsets[s]] op ... op values[offsets[s+1] - 1].
//     An empty segment gives empty_value, or without one the operator's identity (0 for plus, the
//     lowest value for maximum, the highest for minimum; -inf / +inf for floating point).
//
// NaN: maximum and minimum compare with < (a < b ? b : a, as thrust::maximum and CUB's Max), which
// is not associative once a NaN takes part; a segment holding a NaN gives a NaN or one of its other
// values, and which one may change with the size, the GPU and from run to run. Filter NaN out first
// where it matters (or take scankit::arg_max / arg_min, where a NaN beats every number).
// Values: int32, int64, float, double; operators: scan_op::plus, maximum, minimum (the others,
// user types, operators and iterators: scankit/device/segmented_reduce.cuh, nvcc). One pass over
// the values whatever the segment lengths. num_segments and n may both be scankit::device_n, counts
// in device memory with host bounds (device_n.hpp): offsets and out are then sized for the
// segments' bound, and the first count results are written. The offsets are not checked on the device: out-of-order
// offsets give wrong results (never an access out of bounds). Work is enqueued on `stream`; bad
// arguments (negative counts, null pointers, `out` overlapping the values or the offsets) throw
// scankit::error before anything is enqueued. With `ws == nullptr` temporary storage is taken and
// returned stream-ordered.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"
#include "scankit/error.hpp"
#include "scankit/scan_options.hpp"
#include "scankit/workspace.hpp"

namespace scankit {

#define SCANKIT_DECLARE_SEGMENTED_REDUCE_BY_OFFSETS(T, O)                                                       \
  void segmented_reduce(const T* values, const O* offsets, std::int64_t num_segments, T* out, std::int64_t n,   \
                        scan_op op = scan_op::plus, cudaStream_t stream = nullptr, workspace* ws = nullptr);    \
  void segmented_reduce(const T* values, const O* offsets, std::int64_t num_segments, T* out, std::int64_t n,   \
                        T empty_value, scan_op op = scan_op::plus, cudaStream_t stream = nullptr,               \
                        workspace* ws = nullptr);                                                               \
  void segmented_reduce(const T* values, const O* offsets, device_n num_segments, T* out, device_n n,           \
                        scan_op op = scan_op::plus, cudaStream_t stream = nullptr, workspace* ws = nullptr);    \
  void segmented_reduce(const T* values, const O* offsets, device_n num_segments, T* out, device_n n,           \
                        T empty_value, scan_op op = scan_op::plus, cudaStream_t stream = nullptr,               \
                        workspace* ws = nullptr);

#define SCANKIT_DECLARE_SEGMENTED_REDUCE(T)                                                                    \
  SCANKIT_DECLARE_SEGMENTED_REDUCE_BY_OFFSETS(T, std::int32_t)                                                 \
  SCANKIT_DECLARE_SEGMENTED_REDUCE_BY_OFFSETS(T, std::int64_t)                                                 \
  /* Bytes of workspace a segmented reduction (or scan by offsets) of n values of T needs. */                  \
  std::size_t segmented_reduce_workspace_bytes(const T* /*type tag*/, std::int64_t n);

SCANKIT_DECLARE_SEGMENTED_REDUCE(std::int32_t)
SCANKIT_DECLARE_SEGMENTED_REDUCE(std::int64_t)
SCANKIT_DECLARE_SEGMENTED_REDUCE(float)
SCANKIT_DECLARE_SEGMENTED_REDUCE(double)

#undef SCANKIT_DECLARE_SEGMENTED_REDUCE
#undef SCANKIT_DECLARE_SEGMENTED_REDUCE_BY_OFFSETS

}  // namespace scankit
