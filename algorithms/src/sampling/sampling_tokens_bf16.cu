// Precompiled token sampler for __nv_bfloat16 values (scankit/token_sampler.hpp; token_launch.cuh).
#include "token_launch.cuh"

namespace scankit {

void sample_tokens(const __nv_bfloat16* values, std::int64_t input_rows, std::int64_t vocab, std::int64_t output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs, cudaStream_t stream) {
  sample_tokens_of(values, input_rows, vocab, output_rows, params, outputs, stream);
}

void sample_tokens(const __nv_bfloat16* values, std::int64_t input_rows, std::int64_t vocab, device_n output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs, cudaStream_t stream) {
  sample_tokens_of(values, input_rows, vocab, output_rows, params, outputs, stream);
}

}  // namespace scankit
