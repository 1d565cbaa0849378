// The token sampler's host side (scankit/token_sampler.hpp), shared by the translation units of
// its three value types (sampling_tokens*.cu, which compile in parallel): argument checks, then one
// launch of one block per output row, or of a cluster of blocks per row when the rows are few
// (device/sampling/token_sampler_kernel.cuh).
#pragma once

#include <cmath>
#include <string>
#include <type_traits>

#include "scankit/detail/nvtx_range.hpp"
#include "scankit/device/sampling/token_sampler_kernel.cuh"
#include "scankit/device/util/launch.cuh"
#include "scankit/device/util/launch_cluster.cuh"
#include "scankit/error.hpp"
#include "scankit/detail/check_arguments.hpp"
#include "scankit/device/util/device_count.cuh"
#include "scankit/token_sampler.hpp"

namespace scankit {
namespace {

using namespace device_detail::sampling;

void check_arguments(const char* fn, const void* values, std::int64_t input_rows, std::int64_t vocab,
                     std::int64_t output_rows, const token_sampling_params& p, const token_sampling_outputs& o) {
  const std::string f(fn);
  if (input_rows < 0) throw error(f + ": input_rows is negative (" + std::to_string(input_rows) + ")");
  if (vocab < 0) throw error(f + ": vocab is negative (" + std::to_string(vocab) + ")");
  if (output_rows < 0) throw error(f + ": output_rows is negative (" + std::to_string(output_rows) + ")");
  if (vocab > 0x7fffffff) throw error(f + ": vocab exceeds 2^31 - 1 (token indices are int32)");
  if (output_rows > 0x7fffffff) throw error(f + ": output_rows exceeds 2^31 - 1");
  if (output_rows > 0 && o.tokens == nullptr) throw error(f + ": outputs.tokens is null with output_rows > 0");
  if (output_rows > 0 && vocab > 0 && input_rows > 0 && values == nullptr)
    throw error(f + ": values is null with rows and vocab > 0");
  if (output_rows > 0 && input_rows == 0 && p.row_indices == nullptr)
    throw error(f + ": output rows but no input rows");
  if (p.row_indices == nullptr && output_rows > input_rows)
    throw error(f + ": output_rows (" + std::to_string(output_rows) + ") exceeds input_rows (" +
                std::to_string(input_rows) + ") without row_indices");
  if (p.values != token_values::logits && p.values != token_values::probabilities)
    throw error(f + ": params.values is neither logits nor probabilities");
  if (!(p.temperature >= 0.0f) || std::isinf(p.temperature))
    throw error(f + ": temperature must be finite and >= 0 (" + std::to_string(p.temperature) + ")");
  if (p.top_k < 0) throw error(f + ": top_k is negative (" + std::to_string(p.top_k) + ")");
  if (!(p.top_p > 0.0f && p.top_p <= 1.0f)) throw error(f + ": top_p must be in (0, 1] (" + std::to_string(p.top_p) + ")");
  if (!(p.min_p >= 0.0f && p.min_p <= 1.0f)) throw error(f + ": min_p must be in [0, 1] (" + std::to_string(p.min_p) + ")");
}

// Rows with top-k or top-p: every block of theirs needs dynamic shared memory for the histograms.
bool needs_histogram(std::int64_t vocab, const token_sampling_params& p) {
  return p.top_ks != nullptr || p.top_ps != nullptr || p.top_p < 1.0f || (p.top_k > 1 && p.top_k < vocab);
}

// Blocks per row: a cluster of up to 8 (token_row_blocks.cuh's max_blocks; sm_90 and later) when
// one block per row would leave most multiprocessors idle; 1 otherwise.
unsigned blocks_per_row(int device, std::int64_t vocab, std::int64_t output_rows) {
  int sms = 0;
  if (!device_detail::device_has_clusters(device)) return 1;
  SCANKIT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // At most one block per multiprocessor, and at least this many tokens per block (docs/tuning.md).
  constexpr std::int64_t min_tokens_per_block = 8192;
  unsigned blocks = 1;
  constexpr unsigned max_blocks = token_row_blocks<true>::max_blocks;
  while (blocks < max_blocks && output_rows * blocks * 2 <= sms && vocab >= min_tokens_per_block * blocks * 2) {
    blocks *= 2;
  }
  return blocks;
}

// output_rows_device: the output rows' count in device memory (output_rows is then its bound), or
// null. The launch and the cluster size are chosen for the bound.
template <class T>
void sample_tokens_of(const T* values, std::int64_t input_rows, std::int64_t vocab, std::int64_t output_rows,
                      const token_sampling_params& p, const token_sampling_outputs& o, cudaStream_t stream,
                      const std::int64_t* output_rows_device = nullptr) {
  const char* fn = "scankit::sample_tokens";
  const ::scankit::detail::nvtx_range nvtx(fn);
  check_arguments(fn, values, input_rows, vocab, output_rows, p, o);
  if (output_rows == 0) return;
  token_kernel_args<T> args{};
  args.values = values;
  args.input_rows = input_rows;
  args.vocab = vocab;
  args.params = token_kernel_params{p.values == token_values::logits,
                                    p.temperature, p.temperatures, p.top_k, p.top_ks, p.top_p, p.top_ps, p.min_p,
                                    p.min_ps, p.row_indices, p.seed, p.seeds, p.seeds_per_row, p.offset, p.offsets,
                                    p.offsets_per_row};
  args.tokens = o.tokens;
  args.logprobs = o.logprobs;
  args.kept_probs = o.kept_probs;
  args.output_rows = output_rows;
  args.output_rows_device = output_rows_device;
  int device = 0;
  SCANKIT_CUDA_CHECK(cudaGetDevice(&device));
  const unsigned blocks = blocks_per_row(device, vocab, output_rows);
  // Rows without a histogram run the kernel without its filters, and use no dynamic shared memory.
  // `values`' kernel runs the rows in clusters of up to `blocks`, as many blocks as let every row's
  // cluster run at once (a clustered kernel keeps one block per multiprocessor, and a cluster's
  // blocks share a GPU processing cluster); rows in one block each run `single`'s kernel.
  // Rows in one block each with top-k or min-p mark their groups in pass 1 (token_marks.cuh) when
  // the row fits the marks' room: their filtered pass then loads only the groups it uses. Top-p
  // rows mostly settle on a proposal in pass 1, and marks slowed them (docs/tuning.md).
  const bool marks_wanted = p.top_ks != nullptr || (p.top_k > 1 && p.top_k < vocab) || p.min_p > 0.0f ||
                            p.min_ps != nullptr;
  const std::int64_t row_groups = 8 * (((vocab + 3) / 4 + 7) / 8);  // whole chunks of 8 groups
  auto launch_rows = [&](auto filtered, auto values, auto single) {
    constexpr bool with_filters = decltype(filtered)::value;
    constexpr std::size_t smem = with_filters ? sizeof(token_shared) : 0;
    constexpr auto clustered = token_sampler_kernel<T, true, with_filters, decltype(values)::value>;
    constexpr auto kernel = token_sampler_kernel<T, false, with_filters, decltype(single)::value>;
    unsigned cluster = blocks;
    if (cluster > 1 && smem != 0) device_detail::allow_dynamic_shared_memory<clustered>(device, smem);
    auto resident = [&] { return device_detail::resident_clusters<clustered>(device, cluster, token_threads, smem); };
    while (cluster > 1 && resident() < output_rows) cluster /= 2;
    if (cluster > 1) {
      device_detail::launch_kernel_cluster("token_sampler_kernel (clustered)", clustered,
                                           dim3(static_cast<unsigned>(output_rows) * cluster), dim3(token_threads),
                                           cluster, smem, stream, args);
      return;
    }
    const bool marks = marks_wanted && row_groups <= token_mark_bytes;
    args.mark_groups = marks ? row_groups : 0;
    const std::size_t bytes = smem + (marks ? token_mark_bytes : 0);
    if (bytes != 0) device_detail::allow_dynamic_shared_memory<kernel>(device, bytes);
    device_detail::launch_kernel_smem("token_sampler_kernel", kernel, dim3(static_cast<unsigned>(output_rows)),
                                      dim3(token_threads), bytes, stream, args);
  };
  // Each kind of values runs a kernel compiled for it alone, except unfiltered probabilities in one
  // block per row, which run faster in the kernel for either kind (docs/tuning.md).
  using either = std::integral_constant<token_kernel_values, token_kernel_values::either>;
  using probabilities = std::integral_constant<token_kernel_values, token_kernel_values::probabilities>;
  using logits = std::integral_constant<token_kernel_values, token_kernel_values::logits>;
  const bool of_logits = p.values == token_values::logits;
  if (needs_histogram(vocab, p)) {
    if (of_logits) {
      launch_rows(std::true_type{}, logits{}, logits{});
    } else {
      launch_rows(std::true_type{}, probabilities{}, probabilities{});
    }
  } else if (of_logits) {
    launch_rows(std::false_type{}, logits{}, logits{});
  } else {
    launch_rows(std::false_type{}, probabilities{}, either{});
  }
}

// The same with the output rows' count in device memory.
template <class T>
void sample_tokens_of(const T* values, std::int64_t input_rows, std::int64_t vocab, device_n output_rows,
                      const token_sampling_params& p, const token_sampling_outputs& o, cudaStream_t stream) {
  ::scankit::detail::check_device_n("scankit::sample_tokens", output_rows);
  sample_tokens_of(values, input_rows, vocab, output_rows.bound, p, o, stream, output_rows.count);
}

}  // namespace
}  // namespace scankit
