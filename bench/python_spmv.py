#!/usr/bin/env python3
"""What a Python user would call instead of scankit's SpMV: CuPy's and PyTorch's sparse CSR times
a dense vector, on the matrices bench_spmv wrote with SCANKIT_SPMV_DUMP=<dir>.

For each <dir>/<name>.json (rows, cols, nnz, value_bytes) with its raw .offsets, .columns (int32),
.values and .x files, times y = A @ x (CUDA events, median of --reps after a warm-up):
  cupy    cupyx.scipy.sparse.csr_matrix @ x
  torch   torch.sparse_csr_tensor(...) @ x   (torch.mv)
Prints one line per row and writes JSON (--json). A library that is missing is reported and
skipped.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np


def median_ms(call, reps, event):
    call()
    times = []
    for _ in range(reps):
        start, stop = event(), event()
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(start_stop_ms(start, stop))
    times.sort()
    return times[len(times) // 2]


def start_stop_ms(start, stop):
    if hasattr(start, "elapsed_time"):  # torch.cuda.Event
        return start.elapsed_time(stop)
    import cupy
    return cupy.cuda.get_elapsed_time(start, stop)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    results = {"rows": {}}
    try:
        import cupy
        import cupyx.scipy.sparse as cusp
        results["cupy"] = cupy.__version__
    except ImportError:
        cupy = None
        print("python_spmv: CuPy is not installed", file=sys.stderr)
    try:
        import torch
        results["torch"] = torch.__version__
    except ImportError:
        torch = None
        print("python_spmv: PyTorch is not installed", file=sys.stderr)
    for meta_path in sorted(glob.glob(os.path.join(args.dir, "*.json"))):
        meta = json.load(open(meta_path))
        base = meta_path[:-5]
        dtype = np.float32 if meta["value_bytes"] == 4 else np.float64
        offsets = np.fromfile(base + ".offsets", dtype=np.int32)
        columns = np.fromfile(base + ".columns", dtype=np.int32)
        values = np.fromfile(base + ".values", dtype=dtype)
        x = np.fromfile(base + ".x", dtype=dtype)
        shape = (meta["rows"], meta["cols"])
        if cupy is not None:
            a = cusp.csr_matrix((cupy.asarray(values), cupy.asarray(columns), cupy.asarray(offsets)), shape=shape)
            xd = cupy.asarray(x)
            ms = median_ms(lambda: a @ xd, args.reps, lambda: cupy.cuda.Event())
            results["rows"][meta["name"] + "/cupy"] = ms
            print(f"{meta['name']}/cupy {ms:.4f} ms", flush=True)
            del a, xd
            cupy.get_default_memory_pool().free_all_blocks()
        if torch is not None and torch.cuda.is_available():
            a = torch.sparse_csr_tensor(torch.from_numpy(offsets).cuda(), torch.from_numpy(columns).cuda(),
                                        torch.from_numpy(values).cuda(), size=shape)
            xd = torch.from_numpy(x).cuda()
            ms = median_ms(lambda: torch.mv(a, xd), args.reps, lambda: torch.cuda.Event(enable_timing=True))
            results["rows"][meta["name"] + "/torch"] = ms
            print(f"{meta['name']}/torch {ms:.4f} ms", flush=True)
            del a, xd
            torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
