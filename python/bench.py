"""scankit from Python against torch, CuPy and cuda.compute (CCCL's Python algorithms, where the
cuda-cccl package is installed) on the same GPU, in one process: scan, select, sort and argsort at
each size, SpMV on a Poisson matrix and one draw per row of 256 x 131072.

    python python/bench.py [--sizes 24 28] [--json out.json]

Each row times one call with CUDA events (the median of --repeats calls after a warm-up), so a
row's time includes the Python call and the allocation of its outputs, as a user sees it.
Ratio columns are the other library's time over scankit's (> 1: scankit is faster). The call
overhead row times 1000 back-to-back calls at 2^10 items on the host: the cost of the call itself.
"""

import argparse
import json
import os
import statistics
import sys
import time

import torch

# Run as `python python/bench.py`, Python puts the script's folder first on the path, and the
# package's sources there (without the compiled module) would hide the built or installed package.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _here]

import scankit  # noqa: E402

try:
    import cupy
except ImportError:  # the CuPy columns are left out
    cupy = None

try:
    import cuda.compute as cccl
except Exception as e:  # not installed, or without its CUDA bindings: the cuda.compute columns are left out
    print(f"cuda.compute not available ({e}); its columns are left out", flush=True)
    cccl = None


def cccl_scan(x):
    out = torch.empty_like(x)
    cccl.inclusive_scan(d_in=x, d_out=out, op=cccl.OpKind.PLUS, num_items=x.numel())
    return out


def cccl_sort(x):
    out = torch.empty_like(x)
    cccl.radix_sort(d_in_keys=x, d_out_keys=out, num_items=x.numel(), order=cccl.SortOrder.ASCENDING)
    return out


def cccl_argsort(x, index_dtype):
    keys, indices = torch.empty_like(x), torch.empty(x.numel(), device="cuda", dtype=index_dtype)
    positions = torch.arange(x.numel(), device="cuda", dtype=index_dtype)
    cccl.radix_sort(d_in_keys=x, d_out_keys=keys, d_in_values=positions, d_out_values=indices, num_items=x.numel(),
                    order=cccl.SortOrder.ASCENDING)
    return indices


def cccl_select_true(x):
    """The true items of a bool array: the one predicate cuda.compute knows (OpKind.IDENTITY must
    return its argument's type, and a predicate returns bool), so that no Python callable has to be
    compiled (that needs the numba-cuda-mlir package)."""
    out = torch.empty_like(x)
    count = torch.empty(1, device="cuda", dtype=torch.int64)
    cccl.select(d_in=x, d_out=out, d_num_selected_out=count, cond=cccl.OpKind.IDENTITY, num_items=x.numel())
    return out[: int(count.item())]


def checked_anchor(name, fn, want):
    """fn when its result equals want() (a torch result), else None: a broken anchor is left out, not timed."""
    if cccl is None:
        return None
    try:
        ok = torch.equal(fn(), want())
    except Exception as e:  # e.g. a JIT backend missing on this machine
        print(f"{name}: cuda.compute failed ({type(e).__name__}: {e}); left out", flush=True)
        return None
    if not ok:
        print(f"{name}: cuda.compute's result differs from torch's; left out", flush=True)
    return fn if ok else None


def gpu_ms(fn, repeats):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def host_us(fn, calls=1000):
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def workloads(n):
    g = torch.Generator(device="cuda").manual_seed(n)
    ints = torch.randint(0, 1 << 30, (n,), generator=g, device="cuda", dtype=torch.int32)
    small = torch.randint(0, 100, (n,), generator=g, device="cuda", dtype=torch.int32)
    floats = torch.rand(n, generator=g, device="cuda", dtype=torch.float32)
    keys64 = torch.randint(0, 1 << 62, (n,), generator=g, device="cuda", dtype=torch.int64)
    mask = floats > 0.5
    torch_scan = lambda: torch.cumsum(small, 0, dtype=torch.int32)  # noqa: E731
    torch_sort_ints = lambda: torch.sort(ints, stable=True).values  # noqa: E731
    torch_sort_keys64 = lambda: torch.sort(keys64, stable=True).values  # noqa: E731
    torch_argsort = lambda: torch.argsort(floats, stable=True)  # noqa: E731
    bits = torch.randint(0, 2, (n,), generator=g, device="cuda", dtype=torch.uint8).bool()
    bytes_ = bits.view(torch.uint8)
    torch_true = lambda: bits[bits]  # noqa: E731
    # (scankit, torch, CuPy or None, cuda.compute or None)
    rows = {
        "scan_int32": (lambda: scankit.inclusive_scan(small), torch_scan,
                       (lambda c=cupy.asarray(small): cupy.cumsum(c, dtype=cupy.int32)) if cupy else None,
                       checked_anchor("scan_int32", lambda: cccl_scan(small), torch_scan)),
        "select_f32_half": (lambda: scankit.select(floats, mask), lambda: torch.masked_select(floats, mask),
                            (lambda c=cupy.asarray(floats), m=cupy.asarray(mask): c[m]) if cupy else None, None),
        # the true items of a bool array: cuda.compute's select takes a predicate (it has no select
        # by flags), scankit's the array as its own mask (so it reads it twice)
        "select_bool_true": (lambda: scankit.select(bytes_, bits), torch_true,
                             (lambda c=cupy.asarray(bits): c[c]) if cupy else None,
                             checked_anchor("select_bool_true", lambda: cccl_select_true(bits), torch_true)),
        "sort_i32_keys": (lambda: scankit.sort(ints), torch_sort_ints,
                          (lambda c=cupy.asarray(ints): cupy.sort(c)) if cupy else None,
                          checked_anchor("sort_i32_keys", lambda: cccl_sort(ints), torch_sort_ints)),
        "sort_i64_keys": (lambda: scankit.sort(keys64), torch_sort_keys64, None,
                          checked_anchor("sort_i64_keys", lambda: cccl_sort(keys64), torch_sort_keys64)),
        "argsort_f32_i64": (lambda: scankit.argsort(floats), torch_argsort,
                            (lambda c=cupy.asarray(floats): cupy.argsort(c)) if cupy else None,
                            checked_anchor("argsort_f32_i64", lambda: cccl_argsort(floats, torch.int64), torch_argsort)),
        # int32 indices: the C++ benchmark's argsort row (torch has no int32 argsort)
        "argsort_f32_i32": (lambda: scankit.argsort(floats, index_dtype="int32"), torch_argsort, None,
                            checked_anchor("argsort_f32_i32", lambda: cccl_argsort(floats, torch.int32),
                                           lambda: torch_argsort().int())),
    }
    return rows


def poisson_2d(side):
    """The 5-point Laplacian of a side x side grid as a torch sparse CSR matrix (float32)."""
    n = side * side
    i = torch.arange(n, device="cuda")
    r, c = i // side, i % side
    rows, cols, vals = [i], [i], [torch.full((n,), 4.0, device="cuda")]
    for keep, step in ((c > 0, -1), (c < side - 1, 1), (r > 0, -side), (r < side - 1, side)):
        rows.append(i[keep])
        cols.append(i[keep] + step)
        vals.append(torch.full((int(keep.sum()),), -1.0, device="cuda"))
    coo = torch.sparse_coo_tensor(torch.stack([torch.cat(rows), torch.cat(cols)]), torch.cat(vals), (n, n))
    return coo.coalesce().to_sparse_csr()


def fixed_workloads():
    """Rows whose shape does not follow --sizes: SpMV on a Poisson matrix, one draw per row."""
    a = poisson_2d(4096)
    x = torch.rand(a.shape[1], device="cuda")
    plan = scankit.SpmvPlan(a)
    rows = {"spmv_poisson2d_4096^2_f32": (lambda: plan(x), lambda: a @ x, None, None)}
    if cupy is not None:
        import cupyx.scipy.sparse as cusparse
        ca = cusparse.csr_matrix((cupy.asarray(a.values()), cupy.asarray(a.col_indices().int()),
                                  cupy.asarray(a.crow_indices().int())), shape=a.shape)
        cx = cupy.asarray(x)
        rows["spmv_poisson2d_4096^2_f32"] = (lambda: plan(x), lambda: a @ x, lambda: ca @ cx, None)
    w = torch.rand(256, 131072, device="cuda")
    rows["sample_rows_256x131072"] = (lambda: scankit.sample_rows(w, seed=1),
                                      lambda: torch.multinomial(w, 1), None, None)
    return rows


def measure(name, fns, repeats, n=None):
    """One row: scankit's time, torch's, CuPy's and cuda.compute's (where they have a version), and
    the ratios."""
    ours, theirs, cupys, cccls = fns
    row = {"workload": name, "n": n, "scankit_ms": gpu_ms(ours, repeats), "torch_ms": gpu_ms(theirs, repeats)}
    row["vs_torch"] = row["torch_ms"] / row["scankit_ms"]
    if cupys is not None:
        row["cupy_ms"] = gpu_ms(cupys, repeats)
        row["vs_cupy"] = row["cupy_ms"] / row["scankit_ms"]
    if cccls is not None:
        row["cuda_compute_ms"] = gpu_ms(cccls, repeats)
        row["vs_cuda_compute"] = row["cuda_compute_ms"] / row["scankit_ms"]
    print(json.dumps(row), flush=True)
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[24, 28], help="log2 of the item counts")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    results = []
    for log2 in args.sizes:
        for name, fns in workloads(1 << log2).items():
            results.append(measure(name, fns, args.repeats, 1 << log2))
        torch.cuda.empty_cache()
    for name, fns in fixed_workloads().items():
        results.append(measure(name, fns, args.repeats))
    x = torch.ones(1 << 10, device="cuda", dtype=torch.int32)
    row = {"workload": "call_overhead_scan_2^10", "n": 1 << 10,
           "scankit_us": host_us(lambda: scankit.inclusive_scan(x)),
           "torch_us": host_us(lambda: torch.cumsum(x, 0, dtype=torch.int32))}
    row["vs_torch"] = row["torch_us"] / row["scankit_us"]
    results.append(row)
    print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            versions = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                        "scankit": scankit.__version__}
            if cccl is not None:
                from importlib.metadata import version
                versions["cuda_cccl"] = version("cuda-cccl")
            json.dump({**versions, "rows": results}, f, indent=1)


if __name__ == "__main__":
    main()
