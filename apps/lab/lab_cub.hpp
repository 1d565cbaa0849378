// `scankit lab`: the CUB reference, cub::DeviceScan::InclusiveSum, behind a plain C++ interface
// (lab_cub.cu is the only translation unit that includes CUB).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "lab_options.hpp"

namespace scankit::lab {

// Temporary storage bytes cub::DeviceScan::InclusiveSum needs for n items of type `type`.
// Throws scankit::cuda_error on a CUDA failure and usage_error if !cub_supports(type).
std::size_t cub_inclusive_sum_bytes(value_type type, std::int64_t n);
// out[i] = in[0] + ... + in[i] on `stream`; `temp` holds at least cub_inclusive_sum_bytes(type, n).
void cub_inclusive_sum(value_type type, const void* in, void* out, std::int64_t n, void* temp, std::size_t temp_bytes,
                       cudaStream_t stream);

}  // namespace scankit::lab
