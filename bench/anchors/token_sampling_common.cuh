// What bench_token_sampler (scankit::sample_tokens) and flashinfer_sampling_anchor share, so that
// both read bit-exactly the data of FlashInfer's sampling anchor (shared/anchors/flashinfer/,
// README there) and time it by the same method: the host data generator, the check rows and their
// host reference, the timing harness and the JSON they print. CUDA runtime only (no scankit, no
// FlashInfer), so the anchor builds with nvcc alone (build.sh) and the bench with CMake.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#define TOKEN_BENCH_CHECK(call)                                                                          \
  do {                                                                                                   \
    const cudaError_t token_bench_code = (call);                                                         \
    if (token_bench_code != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(token_bench_code)); \
      std::exit(2);                                                                                      \
    }                                                                                                    \
  } while (0)

namespace token_bench {

// ---- options ----------------------------------------------------------------------------------

struct options {
  int warmup = 3;
  int iters = 20;
  std::uint64_t data_seed = 20261201;  // FlashInfer anchor's default
  std::uint64_t philox_seed = 42;
  bool vary_offset = true;  // offset_i = i * round_up(batch * 32, 4), as the anchor
  std::vector<std::string> dists = {"uniform", "gauss"};
  double sigma = 3.0;
  double spin_us = 100.0;
  bool flush_l2 = false;
  std::string only_workload;  // empty: all
  std::string only_op;        // empty: all; else "op" or "input/op" (e.g. probs/top_k)
};

inline void usage(const char* prog) {
  std::fprintf(stderr,
               "%s [--dist uniform|gauss|both] [--sigma X] [--iters N] [--warmup N]\n"
               "  [--workload b256_v131072|b1_v131072|b64_v32000] [--seed S] [--philox-seed S]\n"
               "  [--fixed-offset] [--spin-us X] [--flush-l2] [--op OP|INPUT/OP]   (JSON on stdout, progress on stderr)\n",
               prog);
}

inline options parse_options(int argc, char** argv, const char* prog) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", prog, a.c_str());
        usage(prog);
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--dist") {
      const std::string d = value();
      if (d == "both") {
        o.dists = {"uniform", "gauss"};
      } else if (d == "uniform" || d == "gauss") {
        o.dists = {d};
      } else {
        std::fprintf(stderr, "%s: --dist must be uniform, gauss or both\n", prog);
        std::exit(1);
      }
    } else if (a == "--sigma") {
      o.sigma = std::atof(value().c_str());
    } else if (a == "--iters") {
      o.iters = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--warmup") {
      o.warmup = std::max(0, std::atoi(value().c_str()));
    } else if (a == "--workload") {
      o.only_workload = value();
    } else if (a == "--op") {
      o.only_op = value();
    } else if (a == "--seed") {
      o.data_seed = std::strtoull(value().c_str(), nullptr, 0);
    } else if (a == "--philox-seed") {
      o.philox_seed = std::strtoull(value().c_str(), nullptr, 0);
    } else if (a == "--fixed-offset") {
      o.vary_offset = false;
    } else if (a == "--spin-us") {
      o.spin_us = std::atof(value().c_str());
    } else if (a == "--flush-l2") {
      o.flush_l2 = true;
    } else if (a == "-h" || a == "--help") {
      usage(prog);
      std::exit(0);
    } else {
      std::fprintf(stderr, "%s: unknown option %s\n", prog, a.c_str());
      usage(prog);
      std::exit(1);
    }
  }
  if (!o.only_workload.empty() && o.only_workload != "b256_v131072" && o.only_workload != "b1_v131072" &&
      o.only_workload != "b64_v32000") {
    std::fprintf(stderr, "%s: unknown workload %s\n", prog, o.only_workload.c_str());
    std::exit(1);
  }
  return o;
}

// ---- workloads and data -----------------------------------------------------------------------

struct workload {
  const char* name;
  std::uint32_t batch, vocab;
};

inline const workload workloads[] = {
    {"b256_v131072", 256, 131072}, {"b1_v131072", 1, 131072}, {"b64_v32000", 64, 32000}};

// Filters of the rows (FlashInfer anchor's defaults) and the per-row pattern: each row a little
// different, row 0 on the scalar values, the batch's mean near them.
constexpr int top_k = 50;
constexpr float top_p = 0.9f;
constexpr float min_p = 0.1f;
inline int per_row_top_k(std::uint32_t r) { return 40 + static_cast<int>((r * 8u + 10u) % 21u); }  // 40..60
inline float per_row_top_p(std::uint32_t r) {
  return 0.85f + 0.005f * static_cast<float>((r * 5u + 10u) % 21u);  // 0.85..0.95
}

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// FlashInfer anchor's generate_probs, operation for operation (the same double arithmetic in the
// same order), so the float probabilities match it bit for bit.
inline void generate_probs(std::vector<float>& p, std::uint32_t B, std::uint32_t V, const std::string& dist,
                           double sigma, std::uint64_t seed) {
  p.resize(static_cast<std::size_t>(B) * V);
  std::vector<double> w(V);
  const double two_pi = 6.283185307179586476925286766559;
  auto u01 = [](std::uint64_t h) { return static_cast<double>((h >> 40) + 1ull) * (1.0 / 16777216.0); };
  const bool uniform = dist == "uniform";
  for (std::uint32_t r = 0; r < B; ++r) {
    double sum = 0.0;
    for (std::uint32_t c = 0; c < V; ++c) {
      const std::uint64_t h =
          splitmix64(seed ^ ((static_cast<std::uint64_t>(r) << 32) | static_cast<std::uint64_t>(c)));
      double x;
      if (uniform) {
        x = u01(h);
      } else {
        const double a = u01(h);
        const double b = static_cast<double>(splitmix64(h) >> 40) * (1.0 / 16777216.0);
        const double z = std::sqrt(-2.0 * std::log(a)) * std::cos(two_pi * b);
        x = std::exp(sigma * z);
      }
      w[c] = x;
      sum += x;
    }
    const double inv = 1.0 / sum;
    float* row = p.data() + static_cast<std::size_t>(r) * V;
    for (std::uint32_t c = 0; c < V; ++c) row[c] = static_cast<float>(w[c] * inv);
  }
}

// bf16 bits of a finite float, rounded to nearest even (what __float2bfloat16_rn gives).
inline std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}
inline float bf16_bits_to_float(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// A fingerprint of an input array, printed with every row: the comparison script checks that both
// programs read the same bits.
inline std::string data_hash(const void* data, std::size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0x6A09E667F3BCC909ull ^ bytes;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = splitmix64(h ^ w);
  }
  for (; i < bytes; ++i) h = splitmix64(h ^ p[i]);
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
  return s;
}

// ---- host reference of the check rows ---------------------------------------------------------

// One check row as the sampler sees it: `key` orders the tokens (p, logf(p) or the bf16 logit) and
// `w` is proportional to each token's probability (p, or exp(logit - max logit)).
struct ref_row {
  std::uint32_t row = 0;
  std::vector<float> key, sorted_key;  // sorted_key: descending
  std::vector<double> w;
  double total = 0.0, wmax = 0.0;

  float kth(int k) const { return sorted_key[static_cast<std::size_t>(std::min<std::size_t>(k, key.size()) - 1)]; }
  double mass_above(float x) const {  // tokens strictly above x
    double s = 0.0;
    for (std::size_t j = 0; j < key.size(); ++j)
      if (key[j] > x) s += w[j];
    return s;
  }
  double mass_at_least(float x) const {
    double s = 0.0;
    for (std::size_t j = 0; j < key.size(); ++j)
      if (key[j] >= x) s += w[j];
    return s;
  }
  // log of `token`'s probability renormalised over the top-p set: the most probable tokens until
  // their weight reaches p of the row's, the token that crosses p and its ties included.
  double top_p_logprob(int token, double p) const {
    std::vector<std::pair<float, double>> kw(key.size());
    for (std::size_t j = 0; j < key.size(); ++j) kw[j] = {key[j], w[j]};
    std::sort(kw.begin(), kw.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    double cum = 0.0;
    float boundary = kw.back().first;
    for (const auto& [k, wt] : kw) {
      cum += wt;
      if (cum >= p * total) {
        boundary = k;
        break;
      }
    }
    return std::log(w[static_cast<std::size_t>(token)] / mass_at_least(boundary));
  }
};

// Rows 0, 1, B/4, B/2, 3B/4, B-2, B-1 (the FlashInfer anchor's), distinct.
inline std::vector<std::uint32_t> check_row_ids(std::uint32_t B) {
  std::vector<std::uint32_t> rows = {0u, 1u, B / 4, B / 2, (3 * B) / 4, B >= 2 ? B - 2 : 0u, B - 1};
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  rows.erase(std::remove_if(rows.begin(), rows.end(), [&](std::uint32_t r) { return r >= B; }), rows.end());
  return rows;
}

// keys: B x V row-major; logits: the weights are exp(key - max) rather than the keys themselves.
inline std::vector<ref_row> make_refs(const std::vector<float>& keys, std::uint32_t B, std::uint32_t V, bool logits) {
  std::vector<ref_row> refs;
  for (std::uint32_t r : check_row_ids(B)) {
    ref_row ref;
    ref.row = r;
    const float* row = keys.data() + static_cast<std::size_t>(r) * V;
    ref.key.assign(row, row + V);
    ref.sorted_key = ref.key;
    std::sort(ref.sorted_key.begin(), ref.sorted_key.end(), std::greater<float>());
    const double top = ref.sorted_key.front();
    ref.w.resize(V);
    for (std::uint32_t j = 0; j < V; ++j)
      ref.w[j] = logits ? std::exp(static_cast<double>(ref.key[j]) - top) : ref.key[j];
    for (double x : ref.w) {
      ref.total += x;
      ref.wmax = std::max(ref.wmax, x);
    }
    refs.push_back(std::move(ref));
  }
  return refs;
}

// One workload's inputs on the host: probabilities (the anchor's), logits = logf(p) (the anchor's
// sampling_from_logits input) and those logits rounded to bf16, each with its check rows.
struct workload_data {
  std::string dist;
  workload w{};

  std::vector<float> probs, logits;
  std::vector<std::uint16_t> bf16_logits;
  std::string probs_hash, logits_hash, bf16_hash;
  std::vector<ref_row> probs_refs, logits_refs, bf16_refs;
};

inline workload_data make_workload_data(const options& o, const std::string& dist, const workload& w) {
  workload_data d;
  d.dist = dist;
  d.w = w;
  generate_probs(d.probs, w.batch, w.vocab, dist, o.sigma, o.data_seed);
  d.logits.resize(d.probs.size());
  d.bf16_logits.resize(d.probs.size());
  std::vector<float> bf16_as_float(d.probs.size());
  for (std::size_t i = 0; i < d.probs.size(); ++i) {
    d.logits[i] = std::log(d.probs[i]);  // float overload: logf, as the anchor
    d.bf16_logits[i] = float_to_bf16_bits(d.logits[i]);
    bf16_as_float[i] = bf16_bits_to_float(d.bf16_logits[i]);
  }
  d.probs_hash = data_hash(d.probs.data(), d.probs.size() * sizeof(float));
  d.logits_hash = data_hash(d.logits.data(), d.logits.size() * sizeof(float));
  d.bf16_hash = data_hash(d.bf16_logits.data(), d.bf16_logits.size() * sizeof(std::uint16_t));
  d.probs_refs = make_refs(d.probs, w.batch, w.vocab, false);
  d.logits_refs = make_refs(d.logits, w.batch, w.vocab, true);
  d.bf16_refs = make_refs(bf16_as_float, w.batch, w.vocab, true);
  return d;
}

// ---- checks -----------------------------------------------------------------------------------

struct check_tally {
  long long total = 0, failed = 0;
  std::vector<std::string> notes;
  void add(bool ok, const std::string& what) {
    ++total;
    if (!ok) {
      ++failed;
      if (notes.size() < 4) notes.push_back(what);
    }
  }
};

enum class filter_kind {
  plain,
  top_p,
  top_k,
  top_k_then_top_p,   // top-p over the top-k set's mass (scankit's top-k + top-p)
  top_k_top_p_joint,  // both over the row's mass (FlashInfer's TopKTopPSamplingFromProb)
  min_p,
};

struct filter {
  filter_kind kind = filter_kind::plain;
  int top_k = 0;
  double top_p = 1.0, min_p = 0.0;
};

constexpr double mass_tolerance = 1e-4;  // the FlashInfer anchor's

// Whether `token` may be drawn from `r` under `f` (the FlashInfer anchor's conditions: in the top-k
// set counting ties; the mass strictly above it below p; and for min-p, w >= min_p * max w).
inline bool token_allowed(const ref_row& r, int token, const filter& f, std::string& why) {
  std::ostringstream s;
  s << "row " << r.row << " token " << token;
  if (token < 0 || static_cast<std::size_t>(token) >= r.key.size()) {
    why = s.str() + " out of range";
    return false;
  }
  const float x = r.key[static_cast<std::size_t>(token)];
  const double wx = r.w[static_cast<std::size_t>(token)];
  bool ok = true;
  switch (f.kind) {
    case filter_kind::plain:
      ok = wx > 0.0;
      s << " has zero probability";
      break;
    case filter_kind::top_k:
      ok = x >= r.kth(f.top_k);
      s << " not in the top " << f.top_k;
      break;
    case filter_kind::top_p: {
      const double above = r.mass_above(x) / r.total;
      ok = above < f.top_p + mass_tolerance;
      s << " outside the top-" << f.top_p << " nucleus (mass above " << above << ")";
      break;
    }
    case filter_kind::top_k_then_top_p: {
      const float kth = r.kth(f.top_k);
      const double above = r.mass_above(x) / r.mass_at_least(kth);
      ok = x >= kth && above < f.top_p + mass_tolerance;
      s << " fails top-" << f.top_k << " then top-" << f.top_p << " (mass above in the top-k set " << above << ")";
      break;
    }
    case filter_kind::top_k_top_p_joint: {
      const double above = r.mass_above(x) / r.total;
      ok = x >= r.kth(f.top_k) && above < f.top_p + mass_tolerance;
      s << " fails joint top-" << f.top_k << " / top-" << f.top_p << " (mass above " << above << ")";
      break;
    }
    case filter_kind::min_p:
      ok = wx >= f.min_p * r.wmax * (1.0 - mass_tolerance);
      s << " below min-p " << f.min_p << " (w / max " << wx / r.wmax << ")";
      break;
  }
  if (!ok) why = s.str();
  return ok;
}

// The reference rows' samples against `filter_of(row)`.
inline void check_ref_rows(const std::vector<ref_row>& refs, const std::vector<int>& tokens,
                           const std::function<filter(std::uint32_t)>& filter_of, check_tally& t) {
  for (const ref_row& r : refs) {
    std::string why;
    t.add(token_allowed(r, tokens[r.row], filter_of(r.row), why), why);
  }
}

// ---- timing -----------------------------------------------------------------------------------

__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(256);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

struct timing {
  double median_ms = NAN, min_ms = NAN, max_ms = NAN, b2b_mean_ms = NAN;
  std::string error;
};

// One launch of the row at a Philox offset; returns a CUDA error or throws (scankit::error, or
// FlashInfer's exceptions).
using launch_fn = std::function<cudaError_t(std::uint64_t offset)>;
// Checks the correctness launch's tokens (already range-checked) and whatever else the row writes.
using check_fn = std::function<void(const std::vector<int>& tokens, check_tally&)>;

inline std::string try_launch(const launch_fn& launch, std::uint64_t offset) {
  try {
    const cudaError_t e = launch(offset);
    return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
  } catch (const std::exception& e) {
    return e.what();
  }
}

struct row_result {
  std::string dist, workload, op, input;
  std::uint32_t batch = 0, vocab = 0;
  std::string params_json = "{}";
  std::string extra_json;  // more `"key": value` pairs, each with a leading ", "
  std::string data_hash;
  timing t;
  long long checks = 0, check_failures = 0;
  std::vector<std::string> notes;
};

// A row of workload d before it runs; `extra_json` holds more `"key": value` pairs, each with a
// leading ", ".
inline row_result make_row(const workload_data& d, const char* op, const char* input, const std::string& params_json,
                           const std::string& hash, std::string extra_json) {
  row_result r;
  r.dist = d.dist;
  r.workload = d.w.name;
  r.batch = d.w.batch;
  r.vocab = d.w.vocab;
  r.op = op;
  r.input = input;
  r.params_json = params_json;
  r.data_hash = hash;
  r.extra_json = std::move(extra_json);
  return r;
}

// The JSON `params` of the filtered rows, the same in both programs.
struct filter_params_json {
  char top_k[48], top_p[48], top_k_top_p[80], min_p[48];
  const char* per_row = "{\"per_row\": true, \"temperature\": 1, \"top_k\": [40, 60], \"top_p\": [0.85, 0.95]}";
  filter_params_json(int k, float p, float mp) {
    std::snprintf(top_k, sizeof top_k, "{\"top_k\": %d}", k);
    std::snprintf(top_p, sizeof top_p, "{\"top_p\": %.6g}", static_cast<double>(p));
    std::snprintf(top_k_top_p, sizeof top_k_top_p, "{\"top_k\": %d, \"top_p\": %.6g}", k, static_cast<double>(p));
    std::snprintf(min_p, sizeof min_p, "{\"min_p\": %.6g}", static_cast<double>(mp));
  }
};

inline std::string jstr(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      r += b;
    } else {
      r += c;
    }
  }
  return r + "\"";
}

inline std::string jnum(double v) {
  if (std::isnan(v) || std::isinf(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.6f", v);
  return b;
}

// The FlashInfer anchor's method: for every row one untimed correctness launch at offset 0 (and a
// second one that must give the same tokens), `warmup` launches, then `iters` launches each
// between its own event pair with a spin kernel before the start event (the host enqueues the
// launch while the GPU spins, so the interval is GPU time only), then `iters` launches
// back-to-back between one event pair (b2b_mean_ms, host-inclusive). Offsets run on from one
// launch to the next: i * round_up(batch * 32, 4).
class harness {
 public:
  harness(const options& o, const char* bench) : o_(o), bench_(bench) {
    TOKEN_BENCH_CHECK(cudaSetDevice(0));
    TOKEN_BENCH_CHECK(cudaGetDeviceProperties(&prop_, 0));
    TOKEN_BENCH_CHECK(cudaDriverGetVersion(&driver_));
    TOKEN_BENCH_CHECK(cudaRuntimeGetVersion(&runtime_));
    TOKEN_BENCH_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    start_.resize(static_cast<std::size_t>(o.iters));
    stop_.resize(static_cast<std::size_t>(o.iters));
    for (int i = 0; i < o.iters; ++i) {
      TOKEN_BENCH_CHECK(cudaEventCreate(&start_[i]));
      TOKEN_BENCH_CHECK(cudaEventCreate(&stop_[i]));
    }
    if (o.flush_l2) {
      flush_bytes_ = std::max<std::size_t>(static_cast<std::size_t>(prop_.l2CacheSize) * 2, std::size_t{64} << 20);
      TOKEN_BENCH_CHECK(cudaMalloc(&flush_buf_, flush_bytes_));
    }
    std::fprintf(stderr, "%s: %s (sm_%d%d, %d SMs), runtime %d, driver %d\n", bench, prop_.name, prop_.major,
                 prop_.minor, prop_.multiProcessorCount, runtime_, driver_);
  }
  harness(const harness&) = delete;
  harness& operator=(const harness&) = delete;
  ~harness() {
    for (cudaEvent_t e : start_) (void)cudaEventDestroy(e);
    for (cudaEvent_t e : stop_) (void)cudaEventDestroy(e);
    if (flush_buf_ != nullptr) (void)cudaFree(flush_buf_);
    (void)cudaStreamDestroy(stream_);
  }

  cudaStream_t stream() const { return stream_; }
  const options& opts() const { return o_; }

  // `tokens`: the device array (batch values) the launch writes its samples to; set to -1 before
  // each checked launch, so that a launch that writes nothing cannot pass on the last row's tokens.
  void run_row(row_result r, const launch_fn& launch, int* tokens, const check_fn& check, bool repro = true) {
    if (!o_.only_op.empty() && o_.only_op != r.op && o_.only_op != r.input + "/" + r.op) return;
    check_tally t;
    TOKEN_BENCH_CHECK(cudaMemsetAsync(tokens, 0xFF, r.batch * sizeof(int), stream_));
    std::string err = try_launch(launch, 0);
    if (err.empty()) err = sync_error();
    if (!err.empty()) {
      r.t.error = err;
      t.add(false, "launch failed: " + err);
    } else {
      std::vector<int> got(r.batch);
      TOKEN_BENCH_CHECK(cudaMemcpy(got.data(), tokens, r.batch * sizeof(int), cudaMemcpyDeviceToHost));
      long long bad = 0;
      for (int x : got) bad += (x < 0 || static_cast<std::uint32_t>(x) >= r.vocab) ? 1 : 0;
      t.total += r.batch;  // one check per batch row, as the anchor counts them
      t.failed += bad;
      if (bad) t.notes.push_back("tokens out of range: " + std::to_string(bad));
      check(got, t);
      if (repro) {
        TOKEN_BENCH_CHECK(cudaMemsetAsync(tokens, 0xFF, r.batch * sizeof(int), stream_));
        std::string e2 = try_launch(launch, 0);
        if (e2.empty()) e2 = sync_error();
        std::vector<int> again(r.batch, -2);
        if (e2.empty())
          TOKEN_BENCH_CHECK(cudaMemcpy(again.data(), tokens, r.batch * sizeof(int), cudaMemcpyDeviceToHost));
        t.add(e2.empty() && again == got, "a second launch with the same seed and offset gave other tokens");
      }
      r.t = time(launch, (static_cast<std::uint64_t>(r.batch) * 32 + 3) / 4 * 4);
    }
    r.checks = t.total;
    r.check_failures = t.failed;
    r.notes = t.notes;
    total_.total += t.total;
    total_.failed += t.failed;
    std::fprintf(stderr, "  %-7s %-12s %-11s %-22s median %9.4f ms  (min %.4f, b2b %.4f)  checks %lld/%lld%s%s\n",
                 r.dist.c_str(), r.workload.c_str(), r.input.c_str(), r.op.c_str(), r.t.median_ms, r.t.min_ms,
                 r.t.b2b_mean_ms, t.total - t.failed, t.total, r.t.error.empty() ? "" : "  ERROR: ", r.t.error.c_str());
    for (const std::string& n : t.notes) std::fprintf(stderr, "      check: %s\n", n.c_str());
    rows_.push_back(std::move(r));
  }

  bool ok() const {
    for (const row_result& r : rows_)
      if (!r.t.error.empty()) return false;
    return total_.failed == 0;
  }

  // One JSON object on stdout. `top_json`: more top-level `"key": value` pairs, each with a trailing ",\n".
  void print_json(const std::string& top_json) const {
    std::ostringstream js;
    js << "{\n  \"bench\": " << jstr(bench_) << ",\n" << top_json;
    js << "  \"device\": {\"name\": " << jstr(prop_.name) << ", \"cc\": \"" << prop_.major << "." << prop_.minor
       << "\", \"sm_count\": " << prop_.multiProcessorCount << ", \"l2_bytes\": " << prop_.l2CacheSize
       << ", \"driver\": " << driver_ << ", \"runtime\": " << runtime_ << ", \"nvcc\": \"" << __CUDACC_VER_MAJOR__
       << "." << __CUDACC_VER_MINOR__ << "\"},\n";
    js << "  \"config\": {\"warmup\": " << o_.warmup << ", \"iters\": " << o_.iters
       << ", \"stat\": \"median of per-launch CUDA-event times (GPU only, spin-prefixed)\", \"data_seed\": "
       << o_.data_seed << ", \"dists\": [";
    for (std::size_t i = 0; i < o_.dists.size(); ++i) js << (i ? ", " : "") << jstr(o_.dists[i]);
    js << "], \"sigma\": " << jnum(o_.sigma) << ", \"philox_seed\": " << o_.philox_seed
       << ", \"offset_per_launch\": " << (o_.vary_offset ? "\"+round_up(batch*32,4)\"" : "\"fixed\"")
       << ", \"spin_us\": " << jnum(o_.spin_us) << ", \"flush_l2\": " << (o_.flush_l2 ? "true" : "false")
       << ", \"top_k\": " << top_k << ", \"top_p\": " << jnum(top_p) << ", \"min_p\": " << jnum(min_p) << "},\n";
    js << "  \"rows\": [\n";
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      const row_result& r = rows_[i];
      js << "    {\"dist\": " << jstr(r.dist);
      if (r.dist == "gauss") js << ", \"sigma\": " << jnum(o_.sigma);
      js << ", \"workload\": " << jstr(r.workload) << ", \"batch\": " << r.batch << ", \"vocab\": " << r.vocab
         << ", \"op\": " << jstr(r.op) << ", \"input\": " << jstr(r.input) << ", \"params\": " << r.params_json
         << r.extra_json << ", \"data_hash\": " << jstr(r.data_hash) << ", \"median_ms\": " << jnum(r.t.median_ms)
         << ", \"min_ms\": " << jnum(r.t.min_ms) << ", \"max_ms\": " << jnum(r.t.max_ms)
         << ", \"b2b_mean_ms\": " << jnum(r.t.b2b_mean_ms) << ", \"checks\": " << r.checks
         << ", \"check_failures\": " << r.check_failures;
      if (!r.t.error.empty()) js << ", \"error\": " << jstr(r.t.error);
      if (!r.notes.empty()) {
        js << ", \"notes\": [";
        for (std::size_t j = 0; j < r.notes.size(); ++j) js << (j ? ", " : "") << jstr(r.notes[j]);
        js << "]";
      }
      js << "}" << (i + 1 < rows_.size() ? "," : "") << "\n";
    }
    js << "  ],\n  \"checks\": {\"total\": " << total_.total << ", \"passed\": " << (total_.total - total_.failed)
       << ", \"failed\": " << total_.failed << "},\n  \"ok\": " << (ok() ? "true" : "false") << "\n}\n";
    std::fputs(js.str().c_str(), stdout);
    std::fflush(stdout);
  }

 private:
  std::string sync_error() const {
    const cudaError_t e = cudaStreamSynchronize(stream_);
    return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
  }

  timing time(const launch_fn& launch, std::uint64_t offset_step) {
    timing r;
    std::uint64_t n = 0;
    auto next_offset = [&] { return o_.vary_offset ? (n++) * offset_step : 0; };
    auto fail = [&](const std::string& e) {
      r.error = e;
      (void)cudaStreamSynchronize(stream_);
      return r;
    };
    for (int i = 0; i < o_.warmup; ++i) {
      const std::string e = try_launch(launch, next_offset());
      if (!e.empty()) return fail(e);
    }
    if (std::string e = sync_error(); !e.empty()) return fail(e);
    const auto spin_ns = static_cast<unsigned long long>(o_.spin_us * 1000.0);
    for (int i = 0; i < o_.iters; ++i) {
      if (o_.flush_l2) TOKEN_BENCH_CHECK(cudaMemsetAsync(flush_buf_, i & 0xff, flush_bytes_, stream_));
      if (spin_ns) spin_kernel<<<1, 32, 0, stream_>>>(spin_ns);
      TOKEN_BENCH_CHECK(cudaEventRecord(start_[i], stream_));
      const std::string e = try_launch(launch, next_offset());
      if (!e.empty()) return fail(e);
      TOKEN_BENCH_CHECK(cudaEventRecord(stop_[i], stream_));
    }
    if (std::string e = sync_error(); !e.empty()) return fail(e);
    std::vector<double> ms(static_cast<std::size_t>(o_.iters));
    for (int i = 0; i < o_.iters; ++i) {
      float x = 0.f;
      TOKEN_BENCH_CHECK(cudaEventElapsedTime(&x, start_[i], stop_[i]));
      ms[static_cast<std::size_t>(i)] = x;
    }
    std::sort(ms.begin(), ms.end());
    const std::size_t h = ms.size() / 2;
    r.min_ms = ms.front();
    r.max_ms = ms.back();
    r.median_ms = ms.size() % 2 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
    TOKEN_BENCH_CHECK(cudaEventRecord(start_[0], stream_));
    for (int i = 0; i < o_.iters; ++i) {
      const std::string e = try_launch(launch, next_offset());
      if (!e.empty()) return fail(e);
    }
    TOKEN_BENCH_CHECK(cudaEventRecord(stop_[0], stream_));
    if (std::string e = sync_error(); !e.empty()) return fail(e);
    float x = 0.f;
    TOKEN_BENCH_CHECK(cudaEventElapsedTime(&x, start_[0], stop_[0]));
    r.b2b_mean_ms = x / o_.iters;
    return r;
  }

  options o_;
  std::string bench_;
  cudaDeviceProp prop_{};
  int driver_ = 0, runtime_ = 0;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> start_, stop_;
  void* flush_buf_ = nullptr;
  std::size_t flush_bytes_ = 0;
  std::vector<row_result> rows_;
  check_tally total_;
};

// A device copy of a host vector (freed by the caller).
template <class T>
T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  TOKEN_BENCH_CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  TOKEN_BENCH_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// Every workload of every dist the options ask for, generated and handed to run(h, data).
template <class Run>
void for_each_workload(harness& h, const options& o, Run run) {
  for (const std::string& dist : o.dists) {
    for (const workload& w : workloads) {
      if (!o.only_workload.empty() && o.only_workload != w.name) continue;
      std::fprintf(stderr, "[%s %s] generating %u x %u...\n", dist.c_str(), w.name, w.batch, w.vocab);
      run(h, make_workload_data(o, dist, w));
    }
  }
}

}  // namespace token_bench
