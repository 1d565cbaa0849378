// FlashInfer's samplers (flashinfer::sampling, 0.6.18 headers) on the rows of bench_token_sampler:
// the same data (bit-exactly FlashInfer's own sampling anchor's, shared/anchors/flashinfer/), the
// same timing method and JSON shape (token_sampling_common.cuh), deterministic=true (FlashInfer's
// Python default). That anchor has no min-p and no bf16 rows, and no filtered rows from logits;
// this program adds them. bench/compare_token_sampler.py pairs the rows with scankit's.
//
// Rows (op / input: FlashInfer calls):
//   sample / probs                SamplingFromProb
//   top_p, top_k / probs          TopPSamplingFromProb (0.9), TopKSamplingFromProb (50)
//   top_k_top_p / probs           TopKTopPSamplingFromProb (50, 0.9), the fused "joint" kernel: both
//                                 filters over the row's mass (scankit takes p of the top-k set's)
//   min_p / probs                 MinPSamplingFromProb (0.1)
//   top_k_top_p_per_row / probs   TopKTopPSamplingFromProb with top_k_arr / top_p_arr (the values
//                                 of bench_token_sampler's arrays)
//   sample / logits               SamplingFromLogits (Gumbel-max)
//   the others / logits           OnlineSoftmax, then the row's kernel on its output: FlashInfer has
//                                 no filtered sampler that reads logits (per_row: OnlineSoftmax
//                                 with a temperature array of ones)
//   top_p / bf16_logits           FlashInfer's bindings take fp32 only: a cast kernel of ours (what
//                                 torch's .float() does), OnlineSoftmax, TopPSamplingFromProb, and a
//                                 gather of log p[token] (ours; the log-probability output's cost,
//                                 not renormalised over the nucleus as scankit's is)
// Build and run: README.md here.
#include <flashinfer/sampling.cuh>

#include "token_sampling_common.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#ifndef FLASHINFER_COMMIT
#define FLASHINFER_COMMIT "fb28d7242b3506a2348265962041acc1fb56cca4"
#endif
#ifndef FLASHINFER_VERSION_STR
#define FLASHINFER_VERSION_STR "0.6.18"
#endif

namespace fis = flashinfer::sampling;

namespace {

using token_bench::filter;
using token_bench::filter_kind;

__global__ void bf16_to_float_kernel(const std::uint16_t* in, float* out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = __uint_as_float(static_cast<unsigned>(in[i]) << 16);
}

__global__ void gather_logprob_kernel(const float* probs, const int* tokens, float* logprobs, std::uint32_t batch,
                                      std::uint32_t vocab) {
  const std::uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch) {
    const int t = tokens[b];
    const bool in_range = t >= 0 && static_cast<std::uint32_t>(t) < vocab;
    logprobs[b] = in_range ? logf(probs[static_cast<std::size_t>(b) * vocab + t]) : NAN;
  }
}

struct device_buffers {
  float *probs = nullptr, *logits = nullptr, *logits_f32 = nullptr, *softmax = nullptr;
  float *top_ps = nullptr, *temperatures = nullptr, *logprobs = nullptr;
  std::uint16_t* bf16_logits = nullptr;
  int *top_ks = nullptr, *out = nullptr;
  bool* valid = nullptr;
  void* softmax_ws = nullptr;
  std::size_t softmax_ws_bytes = 0;

  explicit device_buffers(const token_bench::workload_data& d) {
    const std::uint32_t B = d.w.batch, V = d.w.vocab;
    const std::size_t n = static_cast<std::size_t>(B) * V;
    probs = token_bench::to_device(d.probs);
    logits = token_bench::to_device(d.logits);
    bf16_logits = token_bench::to_device(d.bf16_logits);
    std::vector<float> temps(B, 1.0f), ps(B);
    std::vector<int> ks(B);
    for (std::uint32_t r = 0; r < B; ++r) {
      ks[r] = token_bench::per_row_top_k(r);
      ps[r] = token_bench::per_row_top_p(r);
    }
    temperatures = token_bench::to_device(temps);
    top_ks = token_bench::to_device(ks);
    top_ps = token_bench::to_device(ps);
    TOKEN_BENCH_CHECK(cudaMalloc(&logits_f32, n * sizeof(float)));
    TOKEN_BENCH_CHECK(cudaMalloc(&softmax, n * sizeof(float)));
    TOKEN_BENCH_CHECK(cudaMalloc(&logprobs, B * sizeof(float)));
    TOKEN_BENCH_CHECK(cudaMalloc(&out, B * sizeof(int)));
    TOKEN_BENCH_CHECK(cudaMalloc(&valid, B * sizeof(bool)));
    // OnlineSoftmax's split path needs batch x ceil(vocab / 8192) partial results; at least 1 MiB.
    softmax_ws_bytes = std::max<std::size_t>(std::size_t{1} << 20,
                                             static_cast<std::size_t>(B) * ((V + 8191) / 8192) *
                                                 sizeof(fis::PartialSoftmaxResult));
    TOKEN_BENCH_CHECK(cudaMalloc(&softmax_ws, softmax_ws_bytes));
    // Pageable copies and cudaMalloc are not ordered with the non-blocking bench stream.
    TOKEN_BENCH_CHECK(cudaDeviceSynchronize());
  }
  device_buffers(const device_buffers&) = delete;
  device_buffers& operator=(const device_buffers&) = delete;
  ~device_buffers() {
    for (void* p : {static_cast<void*>(probs), static_cast<void*>(logits), static_cast<void*>(logits_f32),
                    static_cast<void*>(softmax), static_cast<void*>(top_ps), static_cast<void*>(temperatures),
                    static_cast<void*>(logprobs), static_cast<void*>(bf16_logits), static_cast<void*>(top_ks),
                    static_cast<void*>(out), static_cast<void*>(valid), softmax_ws}) {
      if (p != nullptr) (void)cudaFree(p);
    }
  }
};

// The filtered samplers of the rows, reading `probs` (the input, or OnlineSoftmax's output).
enum class sampler { plain, top_p, top_k, top_k_top_p, min_p, top_k_top_p_per_row };

void run_workload(token_bench::harness& h, const token_bench::workload_data& d) {
  const std::uint32_t B = d.w.batch, V = d.w.vocab;
  const std::uint64_t seed = h.opts().philox_seed;
  const int K = token_bench::top_k;
  const float P = token_bench::top_p, MP = token_bench::min_p;
  device_buffers dev(d);
  cudaStream_t s = h.stream();
  constexpr bool det = true;

  auto sample_probs = [&, s](sampler which, float* probs, std::uint64_t off) -> cudaError_t {
    switch (which) {
      case sampler::plain:
        return fis::SamplingFromProb<float, int>(probs, dev.out, dev.valid, nullptr, B, V, det, nullptr, seed, nullptr,
                                                 off, s);
      case sampler::top_p:
        return fis::TopPSamplingFromProb<float, int>(probs, dev.out, dev.valid, nullptr, /*top_p_arr=*/nullptr, B, P,
                                                     V, det, nullptr, seed, nullptr, off, s);
      case sampler::top_k:
        return fis::TopKSamplingFromProb<float, int>(probs, dev.out, dev.valid, nullptr,
                                                     /*top_k_arr=*/static_cast<float*>(nullptr), B, K, V, det,
                                                     nullptr, seed, nullptr, off, s);
      case sampler::top_k_top_p:
        return fis::TopKTopPSamplingFromProb<float, int>(probs, /*top_k_arr=*/nullptr, /*top_p_arr=*/nullptr, dev.out,
                                                         dev.valid, nullptr, B, K, P, V, det, nullptr, seed, nullptr,
                                                         off, s);
      case sampler::min_p:
        // (probs, min_p_arr, output, valid, indices, batch, min_p_val, d, deterministic, seeds, offsets, stream)
        return fis::MinPSamplingFromProb<float, int>(probs, /*min_p_arr=*/static_cast<float*>(nullptr), dev.out,
                                                     dev.valid, nullptr, B, MP, V, det, nullptr, seed, nullptr, off,
                                                     s);
      case sampler::top_k_top_p_per_row:
        return fis::TopKTopPSamplingFromProb<float, int>(probs, dev.top_ks, dev.top_ps, dev.out, dev.valid, nullptr,
                                                         B, K, P, V, det, nullptr, seed, nullptr, off, s);
    }
    return cudaErrorInvalidValue;
  };
  auto softmax = [&, s](float* logits, float* temperatures) {
    return fis::OnlineSoftmax<float>(logits, dev.softmax, B, V, temperatures, 1.0f, dev.softmax_ws,
                                     dev.softmax_ws_bytes, /*enable_pdl=*/false, s);
  };

  // The row's checks: the reference rows, and `valid` set on every row when the kernel writes it.
  auto checks = [&](const std::vector<token_bench::ref_row>& refs, std::function<filter(std::uint32_t)> filter_of,
                    bool has_valid) -> token_bench::check_fn {
    return [&refs, filter_of, has_valid, &dev, B](const std::vector<int>& tokens, token_bench::check_tally& t) {
      token_bench::check_ref_rows(refs, tokens, filter_of, t);
      if (has_valid) {
        std::vector<char> v(B);
        TOKEN_BENCH_CHECK(cudaMemcpy(v.data(), dev.valid, B * sizeof(bool), cudaMemcpyDeviceToHost));
        const long long unset = std::count(v.begin(), v.end(), 0);
        t.add(unset == 0, "valid not set on " + std::to_string(unset) + " rows");
      }
    };
  };
  auto row = [&](const char* op, const char* input, const std::string& params_json, const std::string& hash,
                 const std::string& fi_call) {
    return token_bench::make_row(d, op, input, params_json, hash,
                                 ", \"fi_call\": " + token_bench::jstr(fi_call) + ", \"deterministic\": true");
  };
  auto run = [&](token_bench::row_result r, const token_bench::launch_fn& launch, const token_bench::check_fn& c) {
    TOKEN_BENCH_CHECK(cudaMemsetAsync(dev.valid, 0, B * sizeof(bool), s));  // a stale flag must not pass
    h.run_row(std::move(r), launch, dev.out, c);
  };

  const token_bench::filter_params_json pj(K, P, MP);
  const char *pk = pj.top_k, *pp = pj.top_p, *pkp = pj.top_k_top_p, *pm = pj.min_p, *prow = pj.per_row;

  struct row_kind {
    const char* op;
    sampler which;
    const char* params;
    const char* fi_name;
    std::function<filter(std::uint32_t)> filter_of;
  };
  auto all = [](filter f) { return [f](std::uint32_t) { return f; }; };
  const row_kind kinds[] = {
      {"sample", sampler::plain, "{}", "SamplingFromProb", all({filter_kind::plain})},
      {"top_p", sampler::top_p, pp, "TopPSamplingFromProb", all({filter_kind::top_p, 0, P})},
      {"top_k", sampler::top_k, pk, "TopKSamplingFromProb", all({filter_kind::top_k, K})},
      {"top_k_top_p", sampler::top_k_top_p, pkp, "TopKTopPSamplingFromProb",
       all({filter_kind::top_k_top_p_joint, K, P})},
      {"min_p", sampler::min_p, pm, "MinPSamplingFromProb", all({filter_kind::min_p, 0, 1.0, MP})},
      {"top_k_top_p_per_row", sampler::top_k_top_p_per_row, prow, "TopKTopPSamplingFromProb(top_k_arr, top_p_arr)",
       [](std::uint32_t r) {
         return filter{filter_kind::top_k_top_p_joint, token_bench::per_row_top_k(r), token_bench::per_row_top_p(r)};
       }},
  };

  for (const row_kind& k : kinds) {
    run(row(k.op, "probs", k.params, d.probs_hash, k.fi_name),
        [&, which = k.which](std::uint64_t off) { return sample_probs(which, dev.probs, off); },
        checks(d.probs_refs, k.filter_of, true));
  }
  for (const row_kind& k : kinds) {
    if (k.which == sampler::plain) {
      run(row(k.op, "logits", k.params, d.logits_hash, "SamplingFromLogits"),
          [&, s](std::uint64_t off) {
            return fis::SamplingFromLogits<float, int>(dev.logits, dev.out, nullptr, B, V, det, nullptr, seed, nullptr,
                                                       off, s);
          },
          checks(d.logits_refs, k.filter_of, false));
      continue;
    }
    const bool per_row = k.which == sampler::top_k_top_p_per_row;
    run(row(k.op, "logits", k.params, d.logits_hash,
            std::string(per_row ? "OnlineSoftmax(temperature_arr)+" : "OnlineSoftmax+") + k.fi_name),
        [&, per_row, which = k.which](std::uint64_t off) {
          const cudaError_t e = softmax(dev.logits, per_row ? dev.temperatures : nullptr);
          return e != cudaSuccess ? e : sample_probs(which, dev.softmax, off);
        },
        checks(d.logits_refs, k.filter_of, true));
  }

  const std::size_t n = static_cast<std::size_t>(B) * V;
  run(row("top_p", "bf16_logits", pp, d.bf16_hash, "cast+OnlineSoftmax+TopPSamplingFromProb+gather_log"),
      [&, s, n](std::uint64_t off) {
        bf16_to_float_kernel<<<static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 4096)), 256, 0, s>>>(
            dev.bf16_logits, dev.logits_f32, n);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) e = softmax(dev.logits_f32, nullptr);
        if (e == cudaSuccess) e = sample_probs(sampler::top_p, dev.softmax, off);
        if (e != cudaSuccess) return e;
        gather_logprob_kernel<<<(B + 127) / 128, 128, 0, s>>>(dev.softmax, dev.out, dev.logprobs, B, V);
        return cudaGetLastError();
      },
      [&](const std::vector<int>& tokens, token_bench::check_tally& t) {
        checks(d.bf16_refs, all({filter_kind::top_p, 0, P}), true)(tokens, t);
        std::vector<float> lp(B);
        TOKEN_BENCH_CHECK(cudaMemcpy(lp.data(), dev.logprobs, B * sizeof(float), cudaMemcpyDeviceToHost));
        long long bad = 0;
        for (float x : lp) bad += (std::isfinite(x) && x <= 1e-6f) ? 0 : 1;
        t.add(bad == 0, "log-probabilities not finite or above 0: " + std::to_string(bad));
      });
}

}  // namespace

int main(int argc, char** argv) {
  const token_bench::options o = token_bench::parse_options(argc, argv, "flashinfer_sampling_anchor");
  token_bench::harness h(o, "flashinfer_sampling_anchor");
  token_bench::for_each_workload(h, o, run_workload);
  h.print_json("  \"flashinfer_commit\": " + token_bench::jstr(FLASHINFER_COMMIT) +
               ",\n  \"flashinfer_version\": " + token_bench::jstr(FLASHINFER_VERSION_STR) + ",\n");
  return h.ok() ? 0 : 3;
}
