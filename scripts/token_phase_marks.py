#!/usr/bin/env python3
"""Builds a token-sampler driver whose blocks record clock64 at the phases of a launch.

Nsight Compute tells which code the warps wait in; these marks tell how long each phase of one
launch lasts. Thread 0 of every block (and, for the pick, the first pick warp) stores clock64 at
the anchors below, in a copy of algorithms/ and core/ (the repository stays as it is). Only the
float kernels are marked; the rest of the library is build/'s. The driver runs a few workloads
(softmax of N(0, 3^2) logits, or the logits), 60 launches each, and prints the median event time,
block 0's marks in cycles since its start, the slowest block's end, and the spread of the blocks'
starts (globaltimer). Marks of phases a launch skips are not printed. The combine's marks (c1-c3)
are those of the last combine with a histogram (pass 1's, unless a later pass sums arrays).

  scripts/token_phase_marks.py OUTDIR    # after build/ is built; writes OUTDIR/token_phase_marks
  OUTDIR/token_phase_marks               # on the GPU machine

With --twice every block samples its row twice and the marks are the second time's: a phase that
is much faster then waited for its code to be fetched. weights(w) is the first pick warp's mark
after the barrier that thread 0 marks as weights.

An anchor the kernel no longer has stops the script with its text: move the mark.
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
SAMPLING = "algorithms/include/scankit/device/sampling"

# Slots 0-29 hold clock64 marks, 30 and 31 globaltimer (the block's end and start).
MACROS = r'''
static __device__ unsigned long long token_marks[8192 * 32];
#define TMARK_AT(i, thread) do { if (threadIdx.x == (thread)) { unsigned long long c_; \
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c_) :: "memory"); token_marks[blockIdx.x * 32 + (i)] = c_; } } while (0)
#define TMARK(i) TMARK_AT(i, 0)
#define TGT(i) do { if (threadIdx.x == 0) { unsigned long long g_; \
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g_) :: "memory"); token_marks[blockIdx.x * 32 + (i)] = g_; } } while (0)
'''

# (file, anchor, text, where): the text goes before or after the anchor, which must occur once.
KERNEL = f"{SAMPLING}/token_sampler_kernel.cuh"
MARKS = [
    (f"{SAMPLING}/token_row_blocks.cuh", "namespace scankit::device_detail::sampling {\n", MACROS, "after"),
    (KERNEL, "  token_shared& sm = *reinterpret_cast<token_shared*>(token_smem);\n", "  TGT(31); TMARK(0);\n", "after"),
    (KERNEL, "  if (threadIdx.x == 0) token_load_row(a, r, st);\n  __syncthreads();\n", "  TMARK(1);\n", "after"),
    (KERNEL, "  const bool raw = !logits && st.temperature == 1.0f;  // probabilities at T = 1\n", "  TMARK(2);\n",
     "after"),
    (KERNEL, "    if (max_by_value && !logits) {  // the raw kind ran", "    TMARK(3);\n", "before"),
    (KERNEL, "    max_entry = row_results.max_entry;\n  }\n", "  TMARK(4);\n", "after"),
    (KERNEL, "    if (i >= 0) pick(first_entries[i], 0u, token_draw::first, &picked[i], i, &picked_value[i]);\n",
     "    TMARK_AT(14, token_threads - 32 * token_first_proposals);\n", "after"),
    (KERNEL, "      st.bin_p = -1;  // b_p (highest non-empty bin meeting the target)\n    }\n    __syncthreads();\n",
     "    TMARK(5); TMARK_AT(15, token_threads - 32 * token_first_proposals);\n", "after"),
    (KERNEL, "    token_scan_bins(sm);\n    __syncthreads();\n", "    TMARK(6);\n", "after"),
    (KERNEL, "    mass_all = token_mass_at(sm, b_min, sm.mass[b_min], u_max, rule);\n", "    TMARK(16);\n", "after"),
    (KERNEL, "    const std::uint32_t candidates = sm.count_incl[lo] - sm.count_incl[hi + 1];", "    TMARK(7);\n",
     "before"),
    (KERNEL, "    settle(0, proposal_count);  // P5 and P6 as none until the retry draws them\n", "    TMARK(8);\n",
     "after"),
    (KERNEL, "    unsigned exact_in = 0;\n", "    TMARK(9);\n", "before"),
    (KERNEL, "      if (leader && threadIdx.x == 0) a.tokens[r] = settled;\n      return;\n",
     "      if (leader && threadIdx.x == 0) a.tokens[r] = settled;\n      TMARK(13); TGT(30);\n      return;\n",
     "replace"),
    (KERNEL, "        if (leader && threadIdx.x == 0) a.tokens[r] = token;\n        return;\n",
     "        if (leader && threadIdx.x == 0) a.tokens[r] = token;\n        TMARK(13); TGT(30);\n        return;\n",
     "replace"),
    (KERNEL, "  if (threadIdx.x == 0) st.candidate_count = 0, st.deferred_count = 0;\n  __syncthreads();\n",
     "  TMARK(10);\n", "after"),
    (KERNEL, "  token_block_max(&st.own.race_entry, race.entry());\n", "  TMARK(11);\n", "before"),
    (KERNEL, "  const token_row_results row_results = combine_row(Clustered && bad);\n", "  TMARK(12);\n", "after"),
    (KERNEL, "      a.logprobs[r] = static_cast<float>(static_cast<double>(s_tok - s_max) - log(kept_total));\n    }\n  }\n",
     "  TMARK(13); TGT(30);\n", "after"),
    (f"{SAMPLING}/token_row_blocks.cuh", "    const int last = first + share < n ? first + share : n;\n    cluster.sync();\n",
     "    TMARK(20);\n", "after"),
    (f"{SAMPLING}/token_row_blocks.cuh", "    const unsigned other = 1u - cluster.block_rank();", "    TMARK(20);\n", "before"),
    (f"{SAMPLING}/token_row_blocks.cuh", "    const unsigned long long w = add_fields(cluster, blocks, mine, all, words, count);\n",
     "    TMARK(21);\n", "after"),
    (f"{SAMPLING}/token_row_blocks.cuh", "    const unsigned long long w = add_fields(cluster, 2, mine, all, words, count);\n",
     "    TMARK(21);\n", "after"),
]
NAMES = [(1, "row"), (2, "rule"), (3, "pass1"), (20, "c1"), (21, "c2"), (4, "combined"), (14, "pick(w)"),
         (5, "weights"), (15, "weights(w)"), (6, "scan"), (16, "mass"), (7, "searches"), (8, "settle"),
         (9, "verdicts"), (10, "pass2 start"), (11, "pass2"), (12, "combined2"), (13, "end")]

READER = r'''
void token_marks_read(unsigned long long* host, int n, bool reset) {
  if (host != nullptr) {
    SCANKIT_CUDA_CHECK(cudaMemcpyFromSymbol(host, device_detail::sampling::token_marks, n * sizeof(unsigned long long)));
  }
  if (reset) {
    void* p = nullptr;
    SCANKIT_CUDA_CHECK(cudaGetSymbolAddress(&p, device_detail::sampling::token_marks));
    SCANKIT_CUDA_CHECK(cudaMemset(p, 0, sizeof(device_detail::sampling::token_marks)));
  }
}

'''

DRIVER = r'''
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>
#include <cuda_runtime.h>
#include "scankit/token_sampler.hpp"
namespace scankit { void token_marks_read(unsigned long long* host, int n, bool reset); }
using namespace scankit;
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v.empty() ? -1 : v[v.size() / 2]; }
struct workload { const char* name; int rows, vocab; bool logits; float top_p; int top_k; float min_p; };
int main() {
  const workload ws[] = {
    {"64 x 32000 probs plain", 64, 32000, false, 1.0f, 0, 0.0f}, {"64 x 32000 probs top-p", 64, 32000, false, 0.9f, 0, 0.0f},
    {"64 x 32000 probs min-p", 64, 32000, false, 1.0f, 0, 0.1f}, {"64 x 32000 probs top-k", 64, 32000, false, 1.0f, 50, 0.0f},
    {"64 x 32000 logits plain", 64, 32000, true, 1.0f, 0, 0.0f}, {"64 x 32000 logits top-p", 64, 32000, true, 0.9f, 0, 0.0f},
    {"1 x 131072 probs top-p", 1, 131072, false, 0.9f, 0, 0.0f}, {"1 x 131072 logits top-p", 1, 131072, true, 0.9f, 0, 0.0f},
    {"256 x 131072 probs top-p", 256, 131072, false, 0.9f, 0, 0.0f}};
  const int slots[] = {NAME_SLOTS};
  const char* labels[] = {NAME_LABELS};
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (const workload& w : ws) {
    const std::size_t n = std::size_t(w.rows) * w.vocab;
    std::vector<float> h(n);
    for (int r = 0; r < w.rows; ++r) {
      float* row = h.data() + std::size_t(r) * w.vocab;
      float top = -INFINITY;
      for (int j = 0; j < w.vocab; ++j) top = std::max(top, row[j] = normal(gen));
      if (w.logits) continue;
      double sum = 0;
      for (int j = 0; j < w.vocab; ++j) sum += (row[j] = std::exp(row[j] - top));
      for (int j = 0; j < w.vocab; ++j) row[j] = float(row[j] / sum);
    }
    float* values; std::int32_t* tokens;
    cudaMalloc(&values, n * sizeof(float)); cudaMalloc(&tokens, w.rows * sizeof(std::int32_t));
    cudaMemcpy(values, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    token_sampling_params p;
    p.values = w.logits ? token_values::logits : token_values::probabilities;
    p.top_p = w.top_p; p.top_k = w.top_k; p.min_p = w.min_p; p.seed = 1234;
    token_sampling_outputs o; o.tokens = tokens;
    const int blocks = w.rows * 8;  // the most a launch of w.rows rows holds
    std::vector<unsigned long long> m(std::size_t(blocks) * 32);
    std::vector<std::vector<double>> marks(32);
    std::vector<double> event_us, slowest, spread;
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int rep = 0; rep < 63; ++rep) {
      p.offset = rep;
      token_marks_read(nullptr, 0, true);
      cudaDeviceSynchronize();
      cudaEventRecord(a);
      sample_tokens(values, w.rows, w.vocab, w.rows, p, o);
      cudaEventRecord(b); cudaEventSynchronize(b);
      float ms = 0; cudaEventElapsedTime(&ms, a, b);
      token_marks_read(m.data(), int(m.size()), false);
      if (rep < 3) continue;
      event_us.push_back(ms * 1000.0);
      for (int i = 1; i < 30; ++i) if (m[i] != 0 && m[0] != 0) marks[i].push_back(double(m[i] - m[0]));
      double last = 0; unsigned long long first_start = ~0ull, last_start = 0;
      for (int k = 0; k < blocks; ++k) {
        const unsigned long long* q = &m[std::size_t(k) * 32];
        if (q[13] != 0 && q[0] != 0) last = std::max(last, double(q[13] - q[0]));
        if (q[31] != 0) first_start = std::min(first_start, q[31]), last_start = std::max(last_start, q[31]);
      }
      slowest.push_back(last); spread.push_back(last_start >= first_start ? double(last_start - first_start) : 0.0);
    }
    std::printf("%-26s event %6.2f us | block 0, cycles:", w.name, median(event_us));
    for (std::size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); ++i) {
      const int slot = slots[i];
      if (!marks[slot].empty()) std::printf(" %s %.0f", labels[i], median(marks[slot]));
    }
    std::printf(" | slowest block ends %.0f | starts spread %.0f ns\n", median(slowest), median(spread));
    cudaFree(values); cudaFree(tokens);
  }
  return 0;
}
'''


TWICE = ("    token_sample_row<T, Clustered, Filtered, Values>(a);\n",
         "    token_sample_row<T, Clustered, Filtered, Values>(a);\n    __syncthreads();\n"
         "    if constexpr (Clustered) {\n"
         "      asm volatile(\"barrier.cluster.arrive;\\n\\tbarrier.cluster.wait;\" ::: \"memory\");\n"
         "    }\n"
         "    token_sample_row<T, Clustered, Filtered, Values>(a);\n")


def insert_marks(root, twice=False):
    for rel, anchor, text, where in MARKS:
        path = root / rel
        source = path.read_text()
        if source.count(anchor) != 1:
            sys.exit(f"token_phase_marks: {rel} holds this anchor {source.count(anchor)} times, not once:\n{anchor}")
        new = {"after": anchor + text, "before": text + anchor, "replace": text}[where]
        path.write_text(source.replace(anchor, new))
    if twice:  # every block samples its row twice; the marks are the second time's (code fetched)
        path = root / KERNEL
        source = path.read_text()
        if source.count(TWICE[0]) != 1:
            sys.exit("token_phase_marks: the kernel's call of token_sample_row is not there once")
        path.write_text(source.replace(TWICE[0], TWICE[1]))
    tokens = root / "algorithms/src/sampling/sampling_tokens.cu"
    source = tokens.read_text()
    anchor = "void advance_sampling_offsets("
    if source.count(anchor) != 1:
        sys.exit("token_phase_marks: sampling_tokens.cu has no single advance_sampling_offsets")
    tokens.write_text(source.replace(anchor, READER + anchor))


def cuda_flags(build):
    flags = (build / "algorithms/CMakeFiles/scankit.dir/flags.make").read_text()
    get = lambda key: re.search(rf"^{key} = (.*)$", flags, re.M).group(1)
    return get("CUDA_DEFINES").split() + get("CUDA_FLAGS").split()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path, help="folder for the copy and the driver")
    parser.add_argument("--build", type=pathlib.Path, default=REPO / "build")
    parser.add_argument("--twice", action="store_true",
                        help="every block samples its row twice and marks the second time, whose code "
                             "the multiprocessor has already fetched")
    args = parser.parse_args()
    out, build = args.out.resolve(), args.build.resolve()
    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    for part in ("algorithms", "core"):
        shutil.copytree(REPO / part, src / part)
    insert_marks(src, args.twice)
    includes = [f"-I{src}/algorithms/include", f"-I{src}/core/include", f"-I{build}/core/include"]
    flags = cuda_flags(build)
    obj = out / "sampling_tokens.cu.o"  # the archive member it replaces has this name
    subprocess.run(["nvcc", *flags, *includes, "-x", "cu", "-c",
                    str(src / "algorithms/src/sampling/sampling_tokens.cu"), "-o", str(obj)], check=True)
    library = out / "libscankit.a"
    shutil.copy(build / "algorithms/libscankit.a", library)
    subprocess.run(["ar", "r", str(library), str(obj)], check=True, cwd=out)
    driver = DRIVER.replace("NAME_SLOTS", ", ".join(str(slot) for slot, _ in NAMES)).replace(
        "NAME_LABELS", ", ".join('"%s"' % label for _, label in NAMES))
    (out / "token_phase_marks.cu").write_text(driver)
    arch = [f for f in flags if f.startswith("--generate-code")]
    subprocess.run(["nvcc", "-O2", "-std=c++17", *arch, *includes, str(out / "token_phase_marks.cu"), "-o",
                    str(out / "token_phase_marks"), str(library), str(build / "core/libscankit_core.a"), "-lcudart"],
                   check=True)
    print(out / "token_phase_marks")


if __name__ == "__main__":
    main()
