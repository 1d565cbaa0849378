// Precompiled weighted sampling without replacement for float and double weights.
#include <algorithm>
#include <string>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/dispatch/single_pass_setup.cuh"  // round_up_256
#include "scankit/device/sampling/without_replacement.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/sampling.hpp"
#include "scankit/top_k.hpp"

namespace scankit {
namespace {

template <class T>
void without_replacement(const T* w, std::int64_t n, std::int64_t k, std::int32_t* out, std::uint64_t seed,
                         std::uint64_t offset, cudaStream_t stream, workspace* ws) {
  using namespace device_detail::sampling;
  const char* fn = "scankit::sample_without_replacement";
  if (n < 0 || k < 0) throw error(std::string(fn) + ": n and k must not be negative");
  if (k > n) throw error(std::string(fn) + ": k = " + std::to_string(k) + " exceeds n = " + std::to_string(n));
  if (n > 0x7fffffff) throw error(std::string(fn) + ": n exceeds 2^31 - 1 (int32 indices)");
  if (n > 0 && w == nullptr) throw error(std::string(fn) + ": weights is null with n > 0");
  if (k > 0 && out == nullptr) throw error(std::string(fn) + ": out is null with k > 0");
  if (k == 0) return;
  const std::size_t keys_bytes = device_detail::round_up_256(sizeof(std::uint64_t) * static_cast<std::size_t>(n));
  const std::size_t smallest_bytes = device_detail::round_up_256(sizeof(std::uint64_t) * static_cast<std::size_t>(k));
  const std::size_t taken_bytes = device_detail::round_up_256(sizeof(std::int32_t) * static_cast<std::size_t>(k));
  // The keys live in storage of their own: `ws` serves the top-k call.
  scankit::detail::workspace_lease storage(nullptr, 0, keys_bytes + smallest_bytes + taken_bytes + 256, stream);
  char* base = static_cast<char*>(storage.view().scratch);
  auto* keys = reinterpret_cast<std::uint64_t*>(base);
  auto* smallest = reinterpret_cast<std::uint64_t*>(base + keys_bytes);
  auto* taken = reinterpret_cast<std::int32_t*>(base + keys_bytes + smallest_bytes);
  auto* any_bad = reinterpret_cast<unsigned int*>(base + keys_bytes + smallest_bytes + taken_bytes);
  SCANKIT_CUDA_CHECK(cudaMemsetAsync(any_bad, 0, sizeof(unsigned int), stream));
  const unsigned grid = static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 4096));
  device_detail::launch_kernel("sampling exponential keys", exponential_key_kernel<T>, dim3(grid), dim3(256), stream, w,
                               n, seed, offset, keys, any_bad);
  top_k_options smallest_first;
  smallest_first.largest = false;
  top_k(keys, 1, n, k, smallest, taken, stream, ws, smallest_first);
  device_detail::launch_kernel("sampling take smallest keys", take_smallest_kernel,
                               dim3(static_cast<unsigned>(std::min<std::int64_t>((k + 255) / 256, 4096))), dim3(256),
                               stream, smallest, taken, k, any_bad, out);
}

}  // namespace

void sample_without_replacement(const float* weights, std::int64_t n, std::int64_t k, std::int32_t* out,
                                std::uint64_t seed, std::uint64_t offset, cudaStream_t stream, workspace* ws) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sample_without_replacement");
  without_replacement(weights, n, k, out, seed, offset, stream, ws);
}

void sample_without_replacement(const double* weights, std::int64_t n, std::int64_t k, std::int32_t* out,
                                std::uint64_t seed, std::uint64_t offset, cudaStream_t stream, workspace* ws) {
  const ::scankit::detail::nvtx_range nvtx("scankit::sample_without_replacement");
  without_replacement(weights, n, k, out, seed, offset, stream, ws);
}

}  // namespace scankit
