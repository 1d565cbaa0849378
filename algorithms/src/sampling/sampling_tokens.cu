// Precompiled token sampler for float values (scankit/token_sampler.hpp; token_launch.cuh), and the
// offsets' advance.
#include "token_launch.cuh"

namespace scankit {
namespace {

__global__ void advance_offsets_kernel(std::uint64_t* offsets, std::int64_t count, std::uint64_t step) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < count) offsets[i] += step;
}

}  // namespace

void sample_tokens(const float* values, std::int64_t input_rows, std::int64_t vocab, std::int64_t output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs, cudaStream_t stream) {
  sample_tokens_of(values, input_rows, vocab, output_rows, params, outputs, stream);
}

void sample_tokens(const float* values, std::int64_t input_rows, std::int64_t vocab, device_n output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs, cudaStream_t stream) {
  sample_tokens_of(values, input_rows, vocab, output_rows, params, outputs, stream);
}

void advance_sampling_offsets(std::uint64_t* offsets, std::int64_t count, std::uint64_t step, cudaStream_t stream) {
  if (count < 0) throw error("scankit::advance_sampling_offsets: count is negative (" + std::to_string(count) + ")");
  if (count == 0) return;
  if (offsets == nullptr) throw error("scankit::advance_sampling_offsets: offsets is null with count > 0");
  const auto blocks = static_cast<unsigned>((count + 255) / 256);
  device_detail::launch_kernel("advance_offsets_kernel", advance_offsets_kernel, dim3(blocks), dim3(256), stream,
                               offsets, count, step);
}

}  // namespace scankit
