#!/usr/bin/env python3
"""Render bench_scan results (Google Benchmark JSON) into PNG plots for docs/.

    scripts/plot_bench.py bench/results/h200-<date>-<commit>.json [--out docs/img]

Reads the medians over repetitions (the `_median` aggregates; a run without repetitions uses the
median of its entries) and the counters that bench_scan attaches: GBps, frac_copy, vs_cub, ms.
Writes, into --out (default docs/img of the repository):

    scan_throughput_int32.png            GB/s against n for int32: every strategy (warp-of-warps
                                         block scan), CUB and the device copy
    scan_frac_copy_2p28.png              fraction of copy bandwidth at n = 2^28 per value type:
                                         CUB and scankit (decoupled look-back: register kernel
                                         with warp-of-warps, and the staged default kernel)
    scan_k_sweep.png                     items per thread (K) against fraction of copy bandwidth,
                                         int32, decoupled look-back, with CUB for reference
    scan_strategy_algorithm_int32_2p28.png  every strategy x block algorithm at int32, 2^28

A plot whose rows are absent from the JSON (e.g. a filtered run) is skipped with a note.
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""

import argparse
import math
import os
import sys
from collections import defaultdict

try:
    import matplotlib
except ImportError:
    sys.exit("plot_bench: needs matplotlib (Debian: apt-get install python3-matplotlib; or pip install matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from bench_json import load_medians  # noqa: E402  (scripts/bench_json.py)
from plot_common import save, subtitle  # noqa: E402  (scripts/plot_common.py)

STRATEGIES = ["three_launch", "reduce_then_scan", "chained", "decoupled_look_back"]
ALGORITHMS = ["kogge_stone_double_buffer", "kogge_stone_read_sync_write", "brent_kung", "warp_of_warps"]
TYPES = ["int8", "int16", "int32", "int64", "float", "double"]
COUNTERS = ["GBps", "frac_copy", "vs_cub", "ms"]


def parse_name(run_name):
    """Splits a bench_scan row name into its fields; None for names it does not know."""
    parts = [p for p in run_name.split("/") if ":" not in p and p not in ("manual_time", "real_time")]
    try:
        kind = parts[0]
        if kind in ("copy", "cub") and len(parts) == 3:
            return {"kind": kind, "strategy": None, "algorithm": None, "k": None, "type": parts[1], "n": int(parts[2])}
        if kind == "scankit" and len(parts) == 5:
            first = parts[1]
            if first.startswith("k") and first[1:].isdigit():
                return {"kind": kind, "strategy": parts[2], "algorithm": "warp_of_warps", "k": int(first[1:]),
                        "type": parts[3], "n": int(parts[4])}
            return {"kind": kind, "strategy": first, "algorithm": parts[2], "k": None, "type": parts[3],
                    "n": int(parts[4])}
    except (IndexError, ValueError):
        pass
    return None


def load_rows(path):
    """Returns (context, rows): rows maps a row key (kind, strategy, algorithm, k, type, n) to its counters."""
    context, runs = load_medians(path, COUNTERS)
    rows = {}
    for run_name, values in runs.items():
        fields = parse_name(run_name)
        if fields is None:
            continue
        key = (fields["kind"], fields["strategy"], fields["algorithm"], fields["k"], fields["type"], fields["n"])
        rows[key] = dict(fields, **values)

    # GB/s from the time when the counter is absent (2 * n * sizeof(T) bytes).
    sizes = {"int8": 1, "int16": 2, "int32": 4, "int64": 8, "float": 4, "double": 8}
    for row in rows.values():
        if "GBps" not in row and row["type"] in sizes and row["ms"] > 0:
            row["GBps"] = 2.0 * row["n"] * sizes[row["type"]] / (row["ms"] * 1e-3) / 1e9
    return context, rows


def find(rows, kind, type_, n, strategy=None, algorithm=None, k=None):
    return rows.get((kind, strategy, algorithm, k, type_, n))


def pow2_label(n):
    e = math.log2(n)
    return f"2^{int(e)}" if e.is_integer() else str(n)


def plot_throughput_int32(rows, context, out):
    ns = sorted({r["n"] for r in rows.values() if r["type"] == "int32" and r["k"] is None})
    lines = [("copy (cudaMemcpy D2D)", "copy", None, None, "k", "--"), ("CUB DeviceScan", "cub", None, None, "tab:gray", "-")]
    lines += [(s.replace("_", " ") + " (register kernel)", "scankit", s, "warp_of_warps", None, "-") for s in STRATEGIES]
    lines += [("decoupled look-back, staged kernel (default)", "scankit", "decoupled_look_back", "staged", "tab:red", "-")]
    fig, ax = plt.subplots(figsize=(8, 5))
    drawn = 0
    for label, kind, strategy, algorithm, color, style in lines:
        pts = [(n, find(rows, kind, "int32", n, strategy, algorithm)) for n in ns]
        pts = [(n, r["GBps"]) for n, r in pts if r is not None and "GBps" in r]
        if not pts:
            continue
        xs, ys = zip(*pts)
        ax.plot(xs, ys, style, marker="o", label=label, color=color)
        drawn += 1
    if drawn == 0:
        plt.close(fig)
        return None
    ax.set_xscale("log", base=2)
    ax.set_xticks(ns)
    ax.set_xticklabels([pow2_label(n) for n in ns])
    ax.set_xlabel("n (int32 elements)")
    ax.set_ylabel("GB/s (2 n sizeof(T) / time)")
    ax.set_title("Inclusive sum, int32: throughput\n" + subtitle(context), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return save(fig, out, "scan_throughput_int32.png")


def plot_frac_copy_2p28(rows, context, out):
    n = 1 << 28
    types = [t for t in TYPES if find(rows, "cub", t, n) or find(rows, "scankit", t, n, "decoupled_look_back", "warp_of_warps")]
    if not types:
        return None
    series = [("CUB DeviceScan", lambda t: find(rows, "cub", t, n), "tab:gray"),
              ("scankit register kernel", lambda t: find(rows, "scankit", t, n, "decoupled_look_back", "warp_of_warps"),
               "tab:blue"),
              ("scankit staged kernel (default)", lambda t: find(rows, "scankit", t, n, "decoupled_look_back", "staged"),
               "tab:red")]
    fig, ax = plt.subplots(figsize=(9, 5))
    width = 0.27
    for i, (label, get, color) in enumerate(series):
        xs, ys = [], []
        for j, t in enumerate(types):
            r = get(t)
            if r is not None and "frac_copy" in r:
                xs.append(j + (i - (len(series) - 1) / 2) * width)
                ys.append(r["frac_copy"])
        bars = ax.bar(xs, ys, width, label=label, color=color)
        for b, y in zip(bars, ys):
            ax.text(b.get_x() + b.get_width() / 2, y + 0.01, f"{y:.2f}", ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, color="k", linestyle="--", linewidth=1, label="copy bandwidth")
    ax.set_xticks(range(len(types)))
    ax.set_xticklabels(types)
    ax.set_ylabel("fraction of copy bandwidth (copy time / scan time)")
    ax.set_ylim(0, 1.3)
    ax.set_title("Inclusive sum at n = 2^28: fraction of device-copy bandwidth\n" + subtitle(context), fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", ncol=3)
    return save(fig, out, "scan_frac_copy_2p28.png")


def plot_k_sweep(rows, context, out):
    sweep = defaultdict(dict)
    for r in rows.values():
        if r["kind"] == "scankit" and r["k"] is not None and r["type"] == "int32" and "frac_copy" in r:
            sweep[r["n"]][r["k"]] = r["frac_copy"]
    if not sweep:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for color, n in zip(colors, sorted(sweep)):
        ks = sorted(sweep[n])
        ax.plot(ks, [sweep[n][k] for k in ks], marker="o", color=color, label=f"scankit, n = {pow2_label(n)}")
        cub = find(rows, "cub", "int32", n)
        if cub is not None and "frac_copy" in cub:
            ax.axhline(cub["frac_copy"], color=color, linestyle=":", label=f"CUB, n = {pow2_label(n)}")
    all_ks = sorted({k for n in sweep for k in sweep[n]})
    ax.set_xscale("log", base=2)
    ax.set_xticks(all_ks)
    ax.set_xticklabels([str(k) for k in all_ks])
    ax.set_xlabel("items per thread K (256 threads per block)")
    ax.set_ylabel("fraction of copy bandwidth")
    ax.set_ylim(0, 1.05)
    ax.set_title("Coarsening sweep: int32 inclusive sum, decoupled look-back\n" + subtitle(context), fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return save(fig, out, "scan_k_sweep.png")


def plot_strategy_algorithm(rows, context, out):
    n = 1 << 28
    found = {(s, a): find(rows, "scankit", "int32", n, s, a) for s in STRATEGIES for a in ALGORITHMS}
    if not any(r is not None and "frac_copy" in r for r in found.values()):
        return None
    fig, ax = plt.subplots(figsize=(11, 5))
    width = 0.2
    colors = ["tab:purple", "tab:pink", "tab:olive", "tab:blue"]
    for i, (a, color) in enumerate(zip(ALGORITHMS, colors)):
        xs, ys = [], []
        for j, s in enumerate(STRATEGIES):
            r = found[(s, a)]
            if r is not None and "frac_copy" in r:
                xs.append(j + (i - 1.5) * width)
                ys.append(r["frac_copy"])
        ax.bar(xs, ys, width, label=a.replace("_", " "), color=color)
    cub = find(rows, "cub", "int32", n)
    if cub is not None and "frac_copy" in cub:
        ax.axhline(cub["frac_copy"], color="tab:gray", linestyle=":", label="CUB DeviceScan")
    ax.axhline(1.0, color="k", linestyle="--", linewidth=1, label="copy bandwidth")
    ax.set_xticks(range(len(STRATEGIES)))
    ax.set_xticklabels([s.replace("_", " ") for s in STRATEGIES])
    ax.set_ylabel("fraction of copy bandwidth")
    ax.set_yscale("log")
    ax.set_title("int32 inclusive sum at n = 2^28: strategy x block scan algorithm\n" + subtitle(context), fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save(fig, out, "scan_strategy_algorithm_int32_2p28.png")


def main(argv):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", help="bench_scan JSON (--benchmark_out_format=json)")
    parser.add_argument("--out", default=os.path.join(repo, "docs", "img"), help="folder for the PNG files")
    args = parser.parse_args(argv)

    context, rows = load_rows(args.json)
    if not rows:
        print(f"plot_bench: no usable rows in {args.json}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    written = 0
    for plot in (plot_throughput_int32, plot_frac_copy_2p28, plot_k_sweep, plot_strategy_algorithm):
        path = plot(rows, context, args.out)
        if path is None:
            print(f"plot_bench: {plot.__name__}: no matching rows in the JSON, skipped")
        else:
            print(f"plot_bench: wrote {path}")
            written += 1
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
