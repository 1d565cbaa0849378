#!/usr/bin/env python3
"""Render bench_spmv results (Google Benchmark JSON) into a PNG plot for docs/.

    scripts/plot_spmv.py bench/results/h200-<date>-<commit>-bench_spmv.json
                         [--python <...-python_spmv.json>] [--out docs/img]

Two panels, one group of bars per matrix: GFLOP/s (2 nnz / time) of cuSPARSE's CSR_ALG1 and
CSR_ALG2, scankit's merge-path and vector kernels (and CuPy and torch when --python gives their
times on the same matrices), and the speed-up of each scankit kernel over the faster cuSPARSE
algorithm. The caption names the commit from the file name (h200-<date>-<commit>-bench_spmv.json)
when it has one. Writes spmv.png into --out (default docs/img of the repository). Needs matplotlib
(Debian: apt-get install python3-matplotlib).
"""

import argparse
import json
import os
import re
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("plot_spmv: needs matplotlib (Debian: apt-get install python3-matplotlib; or pip install matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from bench_json import load_medians  # noqa: E402  (scripts/bench_json.py)
from plot_common import save, subtitle  # noqa: E402  (scripts/plot_common.py)

COUNTERS = ["ms", "gflops", "frac_floor", "vs_cusparse", "kernel"]
GFLOPS = [("cusparse_alg1", "cuSPARSE CSR_ALG1", "tab:gray"), ("cusparse_alg2", "cuSPARSE CSR_ALG2", "silver"),
          ("cupy", "CuPy", "tab:purple"), ("torch", "torch", "tab:brown"),
          ("merge_path", "scankit merge path", "tab:red"), ("vector", "scankit vector", "tab:olive")]
RATIOS = [("merge_path", "scankit merge path", "tab:red"), ("vector", "scankit vector", "tab:olive")]


def load_rows(path, python_path):
    """(context, matrices in file order, rows): rows maps (matrix, row) to its counters."""
    context, runs = load_medians(path, COUNTERS)
    matrices, rows = [], {}
    for run_name, values in runs.items():
        parts = run_name.split("/")
        if len(parts) < 2:
            continue
        if parts[0] not in matrices:
            matrices.append(parts[0])
        rows[(parts[0], parts[1])] = values
    if python_path:
        with open(python_path) as f:
            for name, ms in json.load(f).get("rows", {}).items():
                matrix, library = name.split("/")
                ref = rows.get((matrix, "merge_path"), {})
                if "gflops" in ref and ms > 0:  # the same matrix: its nonzeros from scankit's row
                    nnz = ref["gflops"] * ref["ms"] * 1e6 / 2
                    rows[(matrix, library)] = {"gflops": 2 * nnz / (ms * 1e6), "ms": ms}
    return context, matrices, rows


def bars(ax, matrices, rows, counter, series, label_values):
    """One group per matrix, one bar per series that has `counter`, the group 0.8 wide."""
    for j, m in enumerate(matrices):
        here = [r for r in series if counter in rows.get((m, r[0]), {})]
        width = 0.8 / max(len(here), 1)
        for i, (row, label, color) in enumerate(here):
            y = rows[(m, row)][counter]
            x = j + (i - (len(here) - 1) / 2) * width
            ax.bar(x, y, width, color=color, label=label if label not in ax.get_legend_handles_labels()[1] else None)
            if label_values:
                ax.text(x, min(y, 1.9) + 0.02, f"{y:.2f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(matrices)))
    ax.set_xticklabels(matrices, rotation=30, ha="right", fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)


def plot_spmv(context, matrices, rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(15, 5.5), gridspec_kw={"width_ratios": [3, 2]})
    bars(axes[0], matrices, rows, "gflops", GFLOPS, False)
    axes[0].set_title("GFLOP/s (2 nnz / time)", fontsize=10)
    axes[0].set_ylabel("GFLOP/s")
    axes[0].legend(fontsize=7, loc="upper right", ncol=3)
    bars(axes[1], matrices, rows, "vs_cusparse", RATIOS, True)
    axes[1].axhline(1.0, color="k", linestyle="--", linewidth=1, label="cuSPARSE")
    axes[1].set_ylim(0, 2.0)
    axes[1].set_title("speed-up over the faster cuSPARSE algorithm", fontsize=10)
    axes[1].set_ylabel("cuSPARSE time / time (> 1: faster)")
    axes[1].legend(fontsize=7, loc="upper right")
    fig.suptitle("SpMV y = A x\n" + subtitle(context), fontsize=11)
    return save(fig, out, "spmv.png")


def main(argv):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", help="bench_spmv JSON (--benchmark_out_format=json)")
    parser.add_argument("--python", default=None, help="bench/python_spmv.py JSON on the same matrices")
    parser.add_argument("--out", default=os.path.join(repo, "docs", "img"), help="folder for the PNG file")
    args = parser.parse_args(argv)
    context, matrices, rows = load_rows(args.json, args.python)
    named = re.search(r"-\d{4}-\d{2}-\d{2}-([0-9a-f]{7,}[^-]*)-bench_spmv", os.path.basename(args.json))
    if named:  # the file name names the code measured; a build's own stamp may be older
        context["scankit_commit"] = named.group(1)
    if not any("vs_cusparse" in r for r in rows.values()):
        print(f"plot_spmv: no usable rows in {args.json}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    print(f"plot_spmv: wrote {plot_spmv(context, matrices, rows, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
