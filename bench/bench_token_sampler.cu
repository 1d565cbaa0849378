// bench_token_sampler: scankit::sample_tokens on the workloads of FlashInfer's sampling anchor
// (shared/anchors/flashinfer/), on bit-exactly its data and timed by its method, so that the rows
// pair with bench/anchors/flashinfer_sampling_anchor's (bench/compare_token_sampler.py). A plain
// main(), not Google Benchmark: the method (spin kernel before each event pair, offsets that move
// on with every launch) is the anchor's, shared in bench/anchors/token_sampling_common.cuh.
//
// Workloads: b256_v131072, b1_v131072, b64_v32000; --dist uniform|gauss|both (default both).
// Rows, each from float probabilities (input "probs") and from logits = logf(p) ("logits"):
//   sample               no filter
//   top_p                p 0.9
//   top_k                k 50
//   top_k_top_p          k 50, then p 0.9 of the top-k set's mass
//   min_p                0.1
//   top_k_top_p_per_row  temperature, k and p as device arrays (1; 40..60; 0.85..0.95 by row)
//   read_argmax          not a sampler: each row's largest value (lowest index on ties), every
//                        value read once with 16-byte loads; the floor a one-pass sampler cannot
//                        beat on the same bytes (two launches: the reading kernel and a B-thread one)
// and from bf16 logits (the logits rounded to nearest even; "bf16_logits"): top_p 0.9 with the
// drawn tokens' log-probabilities written too. Seed 42, Philox offset i * round_up(batch*32, 4)
// for the i-th launch of a row.
//
// Checks: every token in [0, vocab); for rows 0, 1, B/4, B/2, 3B/4, B-2, B-1 against a host
// reference (in the top-k set, mass strictly above the token below p, w >= min_p * max w); the
// bf16 row's log-probabilities against the host's; a second launch with the same seed and offset
// gives the same tokens.
//
// Run: bench_token_sampler [--dist both] [--iters 20] > token_sampler.json (progress on stderr).
// Exit status 0 only if every launch succeeded and every check passed (3 otherwise).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "anchors/token_sampling_common.cuh"
#include "scankit/device/sampling/token_keys.cuh"
#include "scankit/token_sampler.hpp"

namespace scankit_bench {
extern const char* const build_commit;  // generated build_info.cpp
}

namespace {

using token_bench::filter;
using token_bench::filter_kind;

// The read floor (row read_argmax). Each of a row's `parts` blocks takes the largest of its slice as
// a key that orders like the value, with the lowest index winning ties, into best[row] by atomicMax;
// argmax_tokens turns the keys into tokens and zeroes them for the next launch (best starts at 0).
__device__ __forceinline__ unsigned long long argmax_key(float x, std::uint32_t i) {
  const std::uint32_t ordered = scankit::device_detail::sampling::token_key(x);  // the sampler's own order
  return (static_cast<unsigned long long>(ordered) << 32) | (0xffffffffu - i);
}
__global__ void argmax_rows_kernel(const float4* v, std::uint32_t vocab4, std::uint32_t parts,
                                   unsigned long long* best) {
  const std::uint32_t row = blockIdx.x / parts, part = blockIdx.x % parts;
  const std::uint32_t per = (vocab4 + parts - 1) / parts;
  const std::uint32_t begin = part * per, end = min(vocab4, begin + per);
  const float4* x = v + static_cast<std::size_t>(row) * vocab4;
  unsigned long long m = 0;
#pragma unroll 4
  for (std::uint32_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const float4 q = x[i];
    m = max(m, max(max(argmax_key(q.x, 4 * i), argmax_key(q.y, 4 * i + 1)),
                   max(argmax_key(q.z, 4 * i + 2), argmax_key(q.w, 4 * i + 3))));
  }
  for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0 && m != 0) atomicMax(&best[row], m);
}
__global__ void argmax_tokens_kernel(unsigned long long* best, std::uint32_t batch, std::int32_t* tokens) {
  const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= batch) return;
  tokens[r] = static_cast<std::int32_t>(0xffffffffu - static_cast<std::uint32_t>(best[r]));
  best[r] = 0;
}

// The device side of one workload (freed at scope exit).
struct device_inputs {
  float *probs = nullptr, *logits = nullptr, *temperatures = nullptr, *top_ps = nullptr, *logprobs = nullptr;
  std::uint16_t* bf16_logits = nullptr;
  std::int32_t *top_ks = nullptr, *tokens = nullptr;
  unsigned long long* best = nullptr;  // read_argmax's keys, zero between launches

  explicit device_inputs(const token_bench::workload_data& d) {
    const std::uint32_t B = d.w.batch;
    probs = token_bench::to_device(d.probs);
    logits = token_bench::to_device(d.logits);
    bf16_logits = token_bench::to_device(d.bf16_logits);
    std::vector<float> temps(B, 1.0f), ps(B);
    std::vector<std::int32_t> ks(B);
    for (std::uint32_t r = 0; r < B; ++r) {
      ks[r] = token_bench::per_row_top_k(r);
      ps[r] = token_bench::per_row_top_p(r);
    }
    temperatures = token_bench::to_device(temps);
    top_ks = token_bench::to_device(ks);
    top_ps = token_bench::to_device(ps);
    TOKEN_BENCH_CHECK(cudaMalloc(&tokens, B * sizeof(std::int32_t)));
    TOKEN_BENCH_CHECK(cudaMalloc(&logprobs, B * sizeof(float)));
    TOKEN_BENCH_CHECK(cudaMalloc(&best, B * sizeof(unsigned long long)));
    TOKEN_BENCH_CHECK(cudaMemset(best, 0, B * sizeof(unsigned long long)));
    // Pageable copies and cudaMalloc are not ordered with the non-blocking bench stream.
    TOKEN_BENCH_CHECK(cudaDeviceSynchronize());
  }
  device_inputs(const device_inputs&) = delete;
  device_inputs& operator=(const device_inputs&) = delete;
  ~device_inputs() {
    for (void* p : {static_cast<void*>(probs), static_cast<void*>(logits), static_cast<void*>(temperatures),
                    static_cast<void*>(top_ps), static_cast<void*>(logprobs), static_cast<void*>(bf16_logits),
                    static_cast<void*>(top_ks), static_cast<void*>(tokens), static_cast<void*>(best)}) {
      if (p != nullptr) (void)cudaFree(p);
    }
  }
};

void run_workload(token_bench::harness& h, const token_bench::workload_data& d) {
  const std::uint32_t B = d.w.batch, V = d.w.vocab;
  const std::uint64_t seed = h.opts().philox_seed;
  const device_inputs dev(d);
  cudaStream_t stream = h.stream();

  // A launch of sample_tokens at a given Philox offset; `values` is float or __nv_bfloat16.
  auto launcher = [&](const void* values, bool bf16, scankit::token_sampling_params params,
                      float* logprobs) -> token_bench::launch_fn {
    params.seed = seed;
    return [=, &dev](std::uint64_t offset) {
      scankit::token_sampling_params p = params;
      p.offset = offset;
      scankit::token_sampling_outputs out;
      out.tokens = dev.tokens;
      out.logprobs = logprobs;
      if (bf16) {
        scankit::sample_tokens(static_cast<const __nv_bfloat16*>(values), B, V, B, p, out, stream);
      } else {
        scankit::sample_tokens(static_cast<const float*>(values), B, V, B, p, out, stream);
      }
      return cudaGetLastError();
    };
  };
  auto row = [&](const char* op, const char* input, const std::string& params_json, const std::string& hash,
                 const char* outputs) {
    return token_bench::make_row(d, op, input, params_json, hash, std::string(", \"outputs\": \"") + outputs + "\"");
  };
  auto checks_against = [](const std::vector<token_bench::ref_row>& refs,
                           std::function<filter(std::uint32_t)> filter_of) -> token_bench::check_fn {
    return [&refs, filter_of](const std::vector<int>& tokens, token_bench::check_tally& t) {
      token_bench::check_ref_rows(refs, tokens, filter_of, t);
    };
  };
  auto same_for_all = [](filter f) { return [f](std::uint32_t) { return f; }; };

  const int K = token_bench::top_k;
  const float P = token_bench::top_p, MP = token_bench::min_p;
  const token_bench::filter_params_json pj(K, P, MP);
  const char *pk = pj.top_k, *pp = pj.top_p, *pkp = pj.top_k_top_p, *pm = pj.min_p, *prow = pj.per_row;

  struct input_kind {
    const char* name;
    const float* values;
    scankit::token_values kind;
    const std::vector<token_bench::ref_row>* refs;
    const std::string* hash;
  };
  const input_kind inputs[] = {
      {"probs", dev.probs, scankit::token_values::probabilities, &d.probs_refs, &d.probs_hash},
      {"logits", dev.logits, scankit::token_values::logits, &d.logits_refs, &d.logits_hash},
  };
  // The read floor's blocks: about two per multiprocessor over the whole batch (vocab % 4 == 0 in
  // every workload).
  int device = 0, sms = 0;
  TOKEN_BENCH_CHECK(cudaGetDevice(&device));
  TOKEN_BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::uint32_t parts = std::max<std::uint32_t>(1, (2u * static_cast<std::uint32_t>(sms) + B - 1) / B);
  auto read_floor = [&](const float* values) -> token_bench::launch_fn {
    return [=, &dev](std::uint64_t) {
      argmax_rows_kernel<<<B * parts, 256, 0, stream>>>(reinterpret_cast<const float4*>(values), V / 4, parts,
                                                        dev.best);
      argmax_tokens_kernel<<<(B + 255) / 256, 256, 0, stream>>>(dev.best, B, dev.tokens);
      return cudaGetLastError();
    };
  };
  for (const input_kind& in : inputs) {
    scankit::token_sampling_params base;
    base.values = in.kind;

    if (V % 4 == 0) {
      h.run_row(row("read_argmax", in.name, "{}", *in.hash, "tokens"), read_floor(in.values), dev.tokens,
                checks_against(*in.refs, same_for_all({filter_kind::top_k, 1})));
    }

    h.run_row(row("sample", in.name, "{}", *in.hash, "tokens"), launcher(in.values, false, base, nullptr),
              dev.tokens, checks_against(*in.refs, same_for_all({filter_kind::plain})));

    scankit::token_sampling_params p = base;
    p.top_p = P;
    h.run_row(row("top_p", in.name, pp, *in.hash, "tokens"), launcher(in.values, false, p, nullptr), dev.tokens,
              checks_against(*in.refs, same_for_all({filter_kind::top_p, 0, P})));

    p = base;
    p.top_k = K;
    h.run_row(row("top_k", in.name, pk, *in.hash, "tokens"), launcher(in.values, false, p, nullptr), dev.tokens,
              checks_against(*in.refs, same_for_all({filter_kind::top_k, K})));

    p = base;
    p.top_k = K;
    p.top_p = P;
    h.run_row(row("top_k_top_p", in.name, pkp, *in.hash, "tokens"), launcher(in.values, false, p, nullptr),
              dev.tokens, checks_against(*in.refs, same_for_all({filter_kind::top_k_then_top_p, K, P})));

    p = base;
    p.min_p = MP;
    h.run_row(row("min_p", in.name, pm, *in.hash, "tokens"), launcher(in.values, false, p, nullptr), dev.tokens,
              checks_against(*in.refs, same_for_all({filter_kind::min_p, 0, 1.0, MP})));

    // The same filters as top_k_top_p, read per row from device arrays.
    p = base;
    p.temperatures = dev.temperatures;
    p.top_ks = dev.top_ks;
    p.top_ps = dev.top_ps;
    h.run_row(row("top_k_top_p_per_row", in.name, prow, *in.hash, "tokens"), launcher(in.values, false, p, nullptr),
              dev.tokens, checks_against(*in.refs, [](std::uint32_t r) {
                return filter{filter_kind::top_k_then_top_p, token_bench::per_row_top_k(r),
                              token_bench::per_row_top_p(r)};
              }));
  }

  // Top-p, tokens and their log-probabilities in the kept (renormalised) set: from bf16 logits, and
  // from the same rows in fp32 (what the log-probabilities cost apart from the narrower loads).
  scankit::token_sampling_params p;
  p.values = scankit::token_values::logits;
  p.top_p = P;
  auto with_logprobs = [&](const std::vector<token_bench::ref_row>& refs) -> token_bench::check_fn {
    return [&, rows = &refs, filter_of = same_for_all({filter_kind::top_p, 0, P})](const std::vector<int>& tokens,
                                                                                  token_bench::check_tally& t) {
      token_bench::check_ref_rows(*rows, tokens, filter_of, t);
      std::vector<float> lp(B);
      TOKEN_BENCH_CHECK(cudaMemcpy(lp.data(), dev.logprobs, B * sizeof(float), cudaMemcpyDeviceToHost));
      long long bad = 0;
      for (float x : lp) bad += (std::isfinite(x) && x <= 1e-6f) ? 0 : 1;
      t.add(bad == 0, "log-probabilities not finite or above 0: " + std::to_string(bad));
      for (const token_bench::ref_row& r : *rows) {
        const int tok = tokens[r.row];
        if (tok < 0 || static_cast<std::uint32_t>(tok) >= V) continue;  // counted already
        const double want = r.top_p_logprob(tok, P);
        const double got = lp[r.row];
        t.add(std::fabs(got - want) < 1e-3, "row " + std::to_string(r.row) + " logprob " + std::to_string(got) +
                                                 ", host " + std::to_string(want));
      }
    };
  };
  h.run_row(row("top_p", "bf16_logits", pp, d.bf16_hash, "tokens+logprobs"),
            launcher(dev.bf16_logits, true, p, dev.logprobs), dev.tokens, with_logprobs(d.bf16_refs));
  h.run_row(row("top_p", "logits", pp, d.logits_hash, "tokens+logprobs"), launcher(dev.logits, false, p, dev.logprobs),
            dev.tokens, with_logprobs(d.logits_refs));
}

}  // namespace

int main(int argc, char** argv) {
  const token_bench::options o = token_bench::parse_options(argc, argv, "bench_token_sampler");
  token_bench::harness h(o, "bench_token_sampler");
  const char* given = std::getenv("SCANKIT_COMMIT");
  const std::string commit = given != nullptr && *given != '\0' ? given : scankit_bench::build_commit;
  token_bench::for_each_workload(h, o, run_workload);
  h.print_json("  \"scankit_commit\": " + token_bench::jstr(commit) +
               ",\n  \"scankit_build_commit\": " + token_bench::jstr(scankit_bench::build_commit) + ",\n");
  return h.ok() ? 0 : 3;
}
