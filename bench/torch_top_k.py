#!/usr/bin/env python3
"""What a Python user would call instead of scankit's top-k: torch.topk on the GPU.

Rows (float32 uniform in [0, 1), as bench_top_k draws them; values and int64 indices):
  rows_256x131072_k50     torch.topk(x, 50, dim=1)            sorted
  rows_4096x200000_k1024  torch.topk(x, 1024, dim=1)          sorted
  rows_1x131072_k50       torch.topk(x, 50, dim=1)            sorted
  row_2p28_k1000          torch.topk(x, 1000, sorted=False)   one row of 2^28
Times: CUDA events, median of --reps after a warm-up. Prints one line per row, writes JSON
(--json). Needs PyTorch with CUDA; exits 2 without it.
"""
import argparse
import json
import sys

ROWS = [
    ("rows_256x131072_k50", 256, 131072, 50, True),
    ("rows_4096x200000_k1024", 4096, 200000, 1024, True),
    ("rows_1x131072_k50", 1, 131072, 50, True),
    ("row_2p28_k1000", 1, 1 << 28, 1000, False),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_top_k: PyTorch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_top_k: no CUDA device", file=sys.stderr)
        return 2
    gen = torch.Generator(device="cuda").manual_seed(1)
    results = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "rows": {}}
    for name, rows, cols, k, is_sorted in ROWS:
        x = torch.rand(rows, cols, device="cuda", generator=gen)
        call = lambda: torch.topk(x, k, dim=1, largest=True, sorted=is_sorted)
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
        results["rows"][name] = {"ms": ms, "Gkeys_per_s": rows * cols / (ms * 1e-3) / 1e9}
        print(f"torch_topk/{name:28s} {ms:10.4f} ms")
        del x
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
