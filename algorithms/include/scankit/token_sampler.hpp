// A language model's next-token sampler, as serving engines call it: one token per output row,
// per-row parameters, seeds and offsets that may live in device memory (a captured CUDA graph
// draws fresh tokens on every replay), and the same token for the same row whatever the batch.
//
//   sample_tokens(values, input_rows, vocab, output_rows, params, outputs, stream)
//
// Semantics, for output row r reading input row d = params.row_indices ? row_indices[r] : r:
//   score      s_j = v_j / T for logits, logf(v_j) / T for probabilities (T the row's temperature);
//   weight     w_j = exp(s_j - s_max), s_max the row's largest score;
//   top-k      (k >= 1 and k < vocab) keep the tokens whose value is at least the k-th largest;
//   top-p      (p < 1) of those, keep the most probable ones until their weight reaches p of the
//              top-k set's weight (the token that crosses p is kept);
//   min-p      (min_p > 0) keep only tokens whose weight is at least min_p: s_j - s_max >= logf(min_p)
//              in float (for probabilities at T = 1: v_j >= min_p * v_max, v_max the largest value);
//   greedy     (T == 0 or k == 1) the single most probable token, ties to the lowest index;
// and draw token j of the kept set K with probability w_j / sum_K w, in two steps (exact, and
// the same for any launch): a race between chunks of 32 consecutive tokens, then an inverse CDF
// inside the winning chunk.
//   chunk c    tokens 32c .. 32c + 31 of K; m_c its largest score; each kept token's chunk weight
//              a_j = expf(s_j - m_c) (for probabilities at T = 1: a_j = v_j and m_c = 0); W_c their
//              sum in a fixed order: tokens 4l .. 4l + 3 in index order for l = 0 .. 7, then the
//              eight sums pairwise (l with l ^ 1, then l ^ 2, then l ^ 4; float additions);
//   race       chunk c scores (m_c + logf(W_c)) - logf(E_c), E_c = -log1pf(-u) for u < 1/2, else
//              -logf(1 - u), u = word 0 * 2^-32 of Philox4x32-10 with counter (c, offset) and key
//              seed (word 0 == 0 scores +infinity); the highest score wins, ties to the lowest c;
//   in chunk   t = word 1 * 2^-32 of the same draw; the first token of the chunk (index order)
//              whose running float sum of a_j exceeds t * W_c (the chunk's last kept
//              token if rounding leaves none).
//   proposals  a top-p row without top-k, of probabilities at T = 1 or of logits whose order
//              values v / T - c (c below) all lie below 32, first proposes up to six tokens, each
//              drawn the same way from a superset of K: P1 to P4 from every token of weight,
//              chunk c scoring W_c / E_c (a float division; W_c the sum of its values, or for
//              logits of min(expf(u_j - t_j), 1) * expf(t_j), u_j the order value and t_j the
//              largest value of its histogram bin, in the order above, a chunk with W_c == 0 not
//              running; E_c from word i - 1 of counter (c + 2^63, offset)) and the winner picking with
//              word i - 1 of (c + 2^63 + 2^61, offset); then, only when none of P1 to P4 lies
//              in K' = the tokens (passing min-p) whose order key (the order value's float bits,
//              flipped to sort as unsigned integers) has the same top 11 bits as the top-p
//              threshold's or larger ones, P5 and P6 from K' with counters
//              (c + 2^62, offset), P5 from words 0 and 1 and P6 from words 2 and 3. The first of
//              the proposals that lies in K is the row's token; when none does, the draw from K
//              above is. Each proposal, given that it lies in K, comes from K in proportion to the
//              weights, and which ones are drawn depends only on earlier ones, so the result is an
//              exact draw from K; nearly every row ends with a proposal after one pass over the
//              row, without settling the boundary of K.
// The filters compare tokens by value (probabilities) or by the float v / T - c (logits; c is the
// largest score of 256 evenly spaced tokens of the row), so tokens whose scores round to the same
// float are tied; tokens tied with the last kept one are kept too, so K can exceed k (or the
// nucleus) by exact ties. The weights the filters add are integers: each token's weight in units
// of 2^-31 * (vocab rounded up to a power of two) of the top of its histogram bin (bins span a
// factor of 1.25 of the value, or of v / T - c; for probabilities at T = 1, of the power of two
// above the bin), added with integer atomics, so the selection is
// exact arithmetic: order-independent, the same on every GPU, for every batch size and position of
// the row.
//
// Per row, tokens[r] = -1 marks a bad row: a NaN or +infinity value (for probabilities also a
// negative or infinite one), nothing with positive weight (every logit -infinity, every
// probability 0), or a bad per-row parameter from device memory (T < 0 or NaN, k < 0, p outside
// (0, 1], min_p outside [0, 1]); its optional outputs are NaN (logprob) and 0 (kept_probs).
// Bad host arguments (the same ranges for scalars, negative sizes, null pointers, a row index
// outside the input rows cannot be checked on the host and gives -1) throw scankit::error before
// anything is enqueued; nothing is written past the outputs. Work is enqueued on `stream` without
// synchronising. Reads each row once (plain sampling, and most top-p rows: a histogram of the
// values and P1 in one pass), twice with filters in the common case (a histogram, then the race
// with the boundary tokens collected on chip, or P2 and P3), up to eight times when the boundary
// holds more tokens than fit on chip (nearly flat rows).
//
// Precompiled for float, __half and __nv_bfloat16 values; token indices are int32.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "scankit/device_n.hpp"

namespace scankit {

enum class token_values : std::int32_t { logits = 0, probabilities = 1 };

// A parameter is the scalar unless its device array (one value per output row) is given.
struct token_sampling_params {
  token_values values = token_values::logits;
  float temperature = 1.0f;  // >= 0; 0: greedy
  const float* temperatures = nullptr;
  std::int32_t top_k = 0;  // 0: no top-k filter; 1: greedy
  const std::int32_t* top_ks = nullptr;
  float top_p = 1.0f;  // in (0, 1]; 1: no top-p filter
  const float* top_ps = nullptr;
  float min_p = 0.0f;  // in [0, 1]; 0: no min-p filter
  const float* min_ps = nullptr;
  // Output row r draws from input row row_indices[r] (device, output_rows values); null: row r.
  const std::int32_t* row_indices = nullptr;
  // Seeds and Philox offsets: the scalar, or a device array of one per output row (per_row) or of
  // one for the whole batch (!per_row).
  std::uint64_t seed = 0;
  const std::uint64_t* seeds = nullptr;
  bool seeds_per_row = true;
  std::uint64_t offset = 0;
  const std::uint64_t* offsets = nullptr;
  bool offsets_per_row = true;
};

struct token_sampling_outputs {
  std::int32_t* tokens = nullptr;  // output_rows values (required); -1: a bad row
  // Optional: log of the drawn token's probability in the kept, renormalised distribution
  // (output_rows values; 0 for greedy rows).
  float* logprobs = nullptr;
  // Optional: output_rows x vocab kept probabilities w_j / sum_K w, 0 outside K (row-major).
  float* kept_probs = nullptr;
};

void sample_tokens(const float* values, std::int64_t input_rows, std::int64_t vocab, std::int64_t output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs,
                   cudaStream_t stream = nullptr);
void sample_tokens(const __half* values, std::int64_t input_rows, std::int64_t vocab, std::int64_t output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs,
                   cudaStream_t stream = nullptr);
void sample_tokens(const __nv_bfloat16* values, std::int64_t input_rows, std::int64_t vocab,
                   std::int64_t output_rows, const token_sampling_params& params,
                   const token_sampling_outputs& outputs, cudaStream_t stream = nullptr);

// The same with the output rows' count in device memory (scankit::device_n, device_n.hpp), as a
// pipeline or a graph captured for a largest batch has it: the launch is sized for the bound (its
// rows, and its per-row arrays, hold the bound's rows); output rows past the count are neither read
// nor written (tokens, logprobs, kept_probs), and row r draws the same token as with a host count.
void sample_tokens(const float* values, std::int64_t input_rows, std::int64_t vocab, device_n output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs,
                   cudaStream_t stream = nullptr);
void sample_tokens(const __half* values, std::int64_t input_rows, std::int64_t vocab, device_n output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs,
                   cudaStream_t stream = nullptr);
void sample_tokens(const __nv_bfloat16* values, std::int64_t input_rows, std::int64_t vocab, device_n output_rows,
                   const token_sampling_params& params, const token_sampling_outputs& outputs,
                   cudaStream_t stream = nullptr);

// Adds `step` to `count` device offsets (a CUDA graph's last node, so that the next replay draws
// new tokens). Enqueued on `stream`.
void advance_sampling_offsets(std::uint64_t* offsets, std::int64_t count, std::uint64_t step,
                              cudaStream_t stream = nullptr);

}  // namespace scankit
