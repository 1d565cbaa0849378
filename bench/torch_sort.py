#!/usr/bin/env python3
"""What a Python user would call instead of scankit's sort: torch.sort / torch.argsort on the GPU.

Times (CUDA events, median of --reps after a warm-up) at n keys:
  torch_sort_f32        torch.sort(float32)         values and indices (int64)
  torch_argsort_f32     torch.argsort(float32)      indices only (int64)
  torch_sort_i32        torch.sort(int32)
  torch_sort_i64        torch.sort(int64)
Prints one line per row and writes JSON (--json). Needs PyTorch with CUDA; exits 2 without it.
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2n", type=int, default=28)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_sort: PyTorch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch_sort: no CUDA device", file=sys.stderr)
        return 2
    n = 1 << args.log2n
    gen = torch.Generator(device="cuda").manual_seed(1)
    data = {
        "f32": torch.rand(n, device="cuda", generator=gen) * 2 - 1,
        "i32": torch.randint(-2**31, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=gen),
        "i64": torch.randint(-2**62, 2**62, (n,), device="cuda", dtype=torch.int64, generator=gen),
    }
    rows = {
        "torch_sort_f32": lambda: torch.sort(data["f32"]),
        "torch_argsort_f32": lambda: torch.argsort(data["f32"]),
        "torch_sort_i32": lambda: torch.sort(data["i32"]),
        "torch_sort_i64": lambda: torch.sort(data["i64"]),
    }
    results = {"n": n, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "rows": {}}
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
        results["rows"][name] = {"ms": ms, "Gkeys_per_s": n / (ms * 1e-3) / 1e9}
        print(f"{name:24s} {ms:10.4f} ms {n / (ms * 1e-3) / 1e9:8.2f} Gkeys/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
