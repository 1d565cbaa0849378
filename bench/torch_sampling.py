#!/usr/bin/env python3
"""What a Python user would call instead of scankit's sampling: PyTorch on the GPU.

Times (CUDA events, median of --reps after a warm-up):
  multinomial_2^26_from_2^24   torch.multinomial(w, 2^26, replacement=True), w: 2^24 float32 weights
  searchsorted_2^26_in_2^24    torch.searchsorted(cdf, u * total): the lookup alone (cdf, u given)
  cumsum_f64_2^28              torch.cumsum(w.double()) of 2^28 float32 weights: the CDF alone
  multinomial_rows_256x131072  torch.multinomial(p, 1): one draw per row of 256 x 131072 probabilities
  top_p_0.9_256x131072         softmax, sort descending, cumsum, mask beyond 0.9, renormalise,
                               multinomial, gather: one token per row from 256 x 131072 logits
  top_k_50_256x131072          topk(50), softmax, multinomial, gather
  multinomial_1000_of_2^24_wor torch.multinomial(w, 1000, replacement=False), w: 2^24 weights
Prints one line per row and writes JSON (--json). Needs PyTorch with CUDA; exits 2 without it.
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_sampling: PyTorch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_sampling: no CUDA device", file=sys.stderr)
        return 2
    gen = torch.Generator(device="cuda").manual_seed(1)
    w24 = torch.rand(1 << 24, device="cuda", generator=gen)
    cdf24 = torch.cumsum(w24.double(), 0)
    u26 = torch.rand(1 << 26, device="cuda", generator=gen, dtype=torch.float64) * cdf24[-1]
    w28 = torch.rand(1 << 28, device="cuda", generator=gen)
    logits = torch.randn(256, 131072, device="cuda", generator=gen) * 3
    probs = torch.softmax(logits, dim=-1)

    def top_p(logits, p=0.9):
        prob = torch.softmax(logits, dim=-1)
        sorted_p, idx = torch.sort(prob, dim=-1, descending=True)
        cum = torch.cumsum(sorted_p, dim=-1)
        sorted_p = sorted_p.masked_fill(cum - sorted_p > p, 0.0)
        sorted_p = sorted_p / sorted_p.sum(dim=-1, keepdim=True)
        pick = torch.multinomial(sorted_p, 1)
        return torch.gather(idx, -1, pick)

    def top_k(logits, k=50):
        vals, idx = torch.topk(logits, k, dim=-1)
        pick = torch.multinomial(torch.softmax(vals, dim=-1), 1)
        return torch.gather(idx, -1, pick)

    rows = {
        "multinomial_2^26_from_2^24": lambda: torch.multinomial(w24, 1 << 26, replacement=True),
        "searchsorted_2^26_in_2^24": lambda: torch.searchsorted(cdf24, u26),
        "cumsum_f64_2^28": lambda: torch.cumsum(w28.double(), 0),
        "multinomial_rows_256x131072": lambda: torch.multinomial(probs, 1),
        "top_p_0.9_256x131072": lambda: top_p(logits),
        "top_k_50_256x131072": lambda: top_k(logits),
        "multinomial_1000_of_2^24_wor": lambda: torch.multinomial(w24, 1000, replacement=False),
    }
    results = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "rows": {}}
    for name, call in rows.items():
        call()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.reps):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        times.sort()
        ms = times[len(times) // 2]
        results["rows"][name] = {"ms": ms}
        print(f"{name:32s} {ms:10.4f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
