// cub::DeviceScan::InclusiveSum for the lab's reference rows (int32, int64, float, double).
// Counts below 2^31 go to CUB as int (its usual 32-bit offsets), larger ones as int64.
#include "lab_cub.hpp"

#include <limits>
#include <string>

#include <cub/device/device_scan.cuh>

#include "scankit/error.hpp"

namespace scankit::lab {

namespace {

template <class T>
void run(void* temp, std::size_t& temp_bytes, const void* in, void* out, std::int64_t n, cudaStream_t stream) {
  const T* typed_in = static_cast<const T*>(in);
  T* typed_out = static_cast<T*>(out);
  if (n <= std::numeric_limits<int>::max()) {
    SCANKIT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, typed_in, typed_out, static_cast<int>(n), stream));
  } else {
    SCANKIT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, typed_in, typed_out, n, stream));
  }
}

void dispatch(value_type type, void* temp, std::size_t& temp_bytes, const void* in, void* out, std::int64_t n,
              cudaStream_t stream) {
  switch (type) {
    case value_type::int32: return run<std::int32_t>(temp, temp_bytes, in, out, n, stream);
    case value_type::int64: return run<std::int64_t>(temp, temp_bytes, in, out, n, stream);
    case value_type::float32: return run<float>(temp, temp_bytes, in, out, n, stream);
    case value_type::float64: return run<double>(temp, temp_bytes, in, out, n, stream);
    default: throw usage_error(std::string("the CUB reference is not built for ") + to_string(type));
  }
}

}  // namespace

std::size_t cub_inclusive_sum_bytes(value_type type, std::int64_t n) {
  std::size_t bytes = 0;
  dispatch(type, nullptr, bytes, nullptr, nullptr, n, nullptr);
  return bytes;
}

void cub_inclusive_sum(value_type type, const void* in, void* out, std::int64_t n, void* temp, std::size_t temp_bytes,
                       cudaStream_t stream) {
  dispatch(type, temp, temp_bytes, in, out, n, stream);
}

}  // namespace scankit::lab
