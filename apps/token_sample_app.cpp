// `scankit sample --rows R`: a language model's next-token step on the GPU with
// scankit::sample_tokens. Rows of logits are generated (normal with --sigma, as a model's output
// after its last layer) or read from a binary file of f32 rows; the sampler draws one token per row
// with the given temperature, top-k, top-p and min-p, from the logits or from their softmax, in
// f32, f16 or bf16. Every row is checked against the host reference (the token lies in the kept
// set, and is the reference's own draw where the set is known exactly), and the median time is
// reported. Without a CUDA device the host reference draws alone, with a notice. Plain C++ (g++):
// the precompiled host API only.
//
//   scankit sample --rows 256                       256 rows of 131072 logits, sigma 3, top-p 0.9
//   scankit sample --rows 64 --vocab 32000 --top-k 50 --probabilities --dtype bf16
//   scankit sample --rows 8 --input logits.bin --vocab 50257 --temperature 0.7 --min-p 0.05
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "command_line.hpp"
#include "scankit/error.hpp"
#include "scankit/reference/token_sampler_reference.hpp"
#include "scankit/scan.hpp"  // cuda_device_available
#include "scankit/token_sampler.hpp"

namespace {

namespace ref = scankit::reference::tokens;

struct app_options {
  std::string input, dtype = "f32";
  std::int64_t rows = 256, vocab = 131072;
  bool probabilities = false;
  float temperature = 1.0f, top_p = 0.9f, min_p = 0.0f;
  std::int32_t top_k = 0;
  double sigma = 3.0;
  std::uint64_t seed = 7, offset = 0, data_seed = 1;
  int repeat = 5;
};

[[noreturn]] void fail(const std::string& message) { throw scankit::error("scankit sample: " + message); }

int parse(int argc, char** argv, app_options& o) {
  CLI::App app{"One token per row of logits (or of their softmax) on the GPU with sample_tokens: temperature,\n"
               "top-k, top-p and min-p; each row checked against the host reference and the call timed.\n"
               "Without a CUDA device only the host reference draws.",
               "scankit sample --rows"};
  app.add_option("--rows", o.rows, "rows to sample (one token each)")->required()->check(CLI::PositiveNumber);
  app.add_option("--vocab", o.vocab, "tokens per row (default 131072)")->check(CLI::PositiveNumber);
  app.add_option("--input", o.input, "binary file of f32 logits, row after row (--vocab per row)");
  app.add_option("--sigma", o.sigma, "standard deviation of the generated logits (default 3)");
  app.add_flag("--probabilities", o.probabilities, "sample from the rows' softmax instead of the logits");
  app.add_option("--dtype", o.dtype, "f32, f16 or bf16 (default f32)")->check(CLI::IsMember({"f32", "f16", "bf16"}));
  app.add_option("--temperature", o.temperature, "temperature; 0 is greedy (default 1)");
  app.add_option("--top-k", o.top_k, "keep the k most probable tokens; 0 keeps all (default 0)");
  app.add_option("--top-p", o.top_p, "nucleus: keep tokens holding this much of the weight (default 0.9)");
  app.add_option("--min-p", o.min_p, "keep tokens at least this fraction of the most probable (default 0)");
  app.add_option("--seed", o.seed, "Philox seed (default 7)");
  app.add_option("--offset", o.offset, "Philox offset (default 0)");
  app.add_option("--data-seed", o.data_seed, "seed of the generated logits (default 1)");
  app.add_option("--repeat", o.repeat, "timed GPU calls; the median is reported (default 5)")
      ->check(CLI::PositiveNumber);
  return scankit::apps::parse_command_line(app, argc, argv) ? -1 : 0;
}

std::vector<float> read_or_generate(const app_options& o) {
  const auto n = static_cast<std::size_t>(o.rows * o.vocab);
  std::vector<float> logits(n);
  if (!o.input.empty()) {
    std::ifstream in(o.input, std::ios::binary);
    if (!in) fail("cannot open " + o.input);
    in.read(reinterpret_cast<char*>(logits.data()), static_cast<std::streamsize>(n * sizeof(float)));
    if (in.gcount() != static_cast<std::streamsize>(n * sizeof(float)))
      fail(o.input + " holds fewer than --rows x --vocab f32 values");
    return logits;
  }
  std::mt19937_64 rng(o.data_seed);
  std::normal_distribution<float> normal(0.0f, static_cast<float>(o.sigma));
  for (float& x : logits) x = normal(rng);
  return logits;
}

// Row-wise softmax in double, rounded to float.
std::vector<float> softmax_rows(const std::vector<float>& logits, std::int64_t rows, std::int64_t vocab) {
  std::vector<float> p(logits.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* x = logits.data() + r * vocab;
    const double m = *std::max_element(x, x + vocab);
    double total = 0.0;
    for (std::int64_t j = 0; j < vocab; ++j) total += std::exp(double(x[j]) - m);
    for (std::int64_t j = 0; j < vocab; ++j) p[r * vocab + j] = float(std::exp(double(x[j]) - m) / total);
  }
  return p;
}

// The values the device sees, converted to the dtype and back to float for the reference.
template <class T>
std::vector<T> converted(const std::vector<float>& v, std::vector<float>& seen) {
  std::vector<T> out(v.size());
  seen.resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<T, float>) {
      out[i] = v[i];
      seen[i] = v[i];
    } else if constexpr (std::is_same_v<T, __half>) {
      out[i] = __float2half_rn(v[i]);
      seen[i] = __half2float(out[i]);
    } else {
      out[i] = __float2bfloat16_rn(v[i]);
      seen[i] = __bfloat162float(out[i]);
    }
  }
  return out;
}

struct gpu_result {
  std::vector<std::int32_t> tokens;
  std::vector<float> logprobs;
  float median_ms = 0.0f;
};

template <class T>
gpu_result run_on_gpu(const std::vector<T>& values, const app_options& o, const scankit::token_sampling_params& p) {
  gpu_result g;
  g.tokens.resize(static_cast<std::size_t>(o.rows));
  g.logprobs.resize(static_cast<std::size_t>(o.rows));
  T* d_values = nullptr;
  std::int32_t* d_tokens = nullptr;
  float* d_logprobs = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  try {
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_values), sizeof(T) * values.size()));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_tokens), sizeof(std::int32_t) * o.rows));
    SCANKIT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_logprobs), sizeof(float) * o.rows));
    SCANKIT_CUDA_CHECK(cudaMemcpy(d_values, values.data(), sizeof(T) * values.size(), cudaMemcpyHostToDevice));
    SCANKIT_CUDA_CHECK(cudaEventCreate(&start));
    SCANKIT_CUDA_CHECK(cudaEventCreate(&stop));
    scankit::token_sampling_outputs out;
    out.tokens = d_tokens;
    out.logprobs = d_logprobs;
    std::vector<float> times;
    for (int i = 0; i <= o.repeat; ++i) {  // the first call warms up
      SCANKIT_CUDA_CHECK(cudaEventRecord(start));
      scankit::sample_tokens(d_values, o.rows, o.vocab, o.rows, p, out);
      SCANKIT_CUDA_CHECK(cudaEventRecord(stop));
      SCANKIT_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0.0f;
      SCANKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (i > 0) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    g.median_ms = times[times.size() / 2];
    SCANKIT_CUDA_CHECK(cudaMemcpy(g.tokens.data(), d_tokens, sizeof(std::int32_t) * o.rows, cudaMemcpyDeviceToHost));
    SCANKIT_CUDA_CHECK(cudaMemcpy(g.logprobs.data(), d_logprobs, sizeof(float) * o.rows, cudaMemcpyDeviceToHost));
  } catch (...) {
    (void)cudaFree(d_values), (void)cudaFree(d_tokens), (void)cudaFree(d_logprobs);
    if (start != nullptr) (void)cudaEventDestroy(start);
    if (stop != nullptr) (void)cudaEventDestroy(stop);
    throw;
  }
  SCANKIT_CUDA_CHECK(cudaFree(d_values));
  SCANKIT_CUDA_CHECK(cudaFree(d_tokens));
  SCANKIT_CUDA_CHECK(cudaFree(d_logprobs));
  SCANKIT_CUDA_CHECK(cudaEventDestroy(start));
  SCANKIT_CUDA_CHECK(cudaEventDestroy(stop));
  return g;
}

}  // namespace

int run_token_sample_app(int argc, char** argv) {
  app_options o;
  if (const int status = parse(argc, argv, o); status >= 0) return status;
  const std::vector<float> logits = read_or_generate(o);
  const std::vector<float> rows = o.probabilities ? softmax_rows(logits, o.rows, o.vocab) : logits;
  scankit::token_sampling_params p;
  p.values = o.probabilities ? scankit::token_values::probabilities : scankit::token_values::logits;
  p.temperature = o.temperature;
  p.top_k = o.top_k;
  p.top_p = o.top_p;
  p.min_p = o.min_p;
  p.seed = o.seed;
  p.offset = o.offset;
  const ref::row_params rp{o.probabilities, o.temperature, o.top_k, o.top_p, o.min_p};
  if (!ref::params_valid(rp)) fail("temperature >= 0, top-k >= 0, top-p in (0, 1] and min-p in [0, 1], please");

  std::vector<float> seen;
  gpu_result g;
  const bool gpu = scankit::cuda_device_available();
  if (o.dtype == "f16") {
    const auto v = converted<__half>(rows, seen);
    if (gpu) g = run_on_gpu(v, o, p);
  } else if (o.dtype == "bf16") {
    const auto v = converted<__nv_bfloat16>(rows, seen);
    if (gpu) g = run_on_gpu(v, o, p);
  } else {
    const auto v = converted<float>(rows, seen);
    if (gpu) g = run_on_gpu(v, o, p);
  }

  std::int64_t predicted = 0, kept_total = 0;
  for (std::int64_t r = 0; r < o.rows; ++r) {
    const float* v = seen.data() + r * o.vocab;
    const ref::row_reference reference = ref::reference_row(v, o.vocab, rp);
    kept_total += reference.bad ? 0 : std::count_if(v, v + o.vocab, [&](float x) {
      return x >= reference.threshold_loose && ref::has_weight(x, o.probabilities);
    });
    if (!gpu) {
      if (r < 8) {
        const ref::draw_result d = ref::draw(v, o.vocab, reference, reference.threshold_loose, o.seed, o.offset);
        std::cout << "row " << r << ": token " << d.token << " (host reference)\n";
      }
      continue;
    }
    const auto token = g.tokens[static_cast<std::size_t>(r)];
    const ref::row_check c = ref::check_row(v, o.vocab, reference, o.seed, o.offset, token,
                                            &g.logprobs[static_cast<std::size_t>(r)], nullptr);
    if (!c.error.empty()) fail("row " + std::to_string(r) + ": " + c.error);
    predicted += c.predicted ? 1 : 0;
    if (r < 8) std::cout << "row " << r << ": token " << token << ", log-probability " << g.logprobs[r] << '\n';
  }
  std::cout << o.rows << " rows of " << o.vocab << " " << (o.probabilities ? "probabilities" : "logits") << " ("
            << o.dtype << "), T " << o.temperature << ", top-k " << o.top_k << ", top-p " << o.top_p << ", min-p "
            << o.min_p << ": " << double(kept_total) / double(o.rows) << " tokens kept per row on average\n";
  if (!gpu) {
    std::cout << "notice: no CUDA device found: the host reference drew (no GPU timing)\n";
    return 0;
  }
  const double bytes = double(o.rows) * double(o.vocab) * (o.dtype == "f32" ? 4.0 : 2.0);
  std::cout << "GPU: " << g.median_ms << " ms (median of " << o.repeat << "), " << bytes / (g.median_ms * 1e-3) / 1e9
            << " GB/s of values; every row checked against the host reference (PASS), " << predicted
            << " of them the reference's own draw\n";
  return 0;
}
