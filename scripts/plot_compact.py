#!/usr/bin/env python3
"""Render bench_compact results (Google Benchmark JSON) into a PNG plot for docs/.

    scripts/plot_compact.py bench/results/h200-<date>-<commit>-bench_compact.json [--out docs/img]

Reads the medians over repetitions (the `_median` aggregates; a run without repetitions uses the
median of its entries) and the counters that bench_compact attaches: frac_copy, vs_cub (and ms, GBps).
Rows are named <op>/<type>/<pattern>/<row>/...: the workload is the first three fields, the row the
fourth. Writes, into --out (default docs/img of the repository):

    compact_2p28.png    per workload at n = 2^28, two panels: fraction of copy bandwidth (CUB,
                        scankit single pass, register kernel where measured) and speed-up over CUB
                        (scankit single pass, three-step, register kernel where measured)

Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""

import argparse
import os
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("plot_compact: needs matplotlib (Debian: apt-get install python3-matplotlib; or pip install matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from bench_json import load_medians  # noqa: E402  (scripts/bench_json.py)
from plot_common import grouped_bars, save, subtitle  # noqa: E402  (scripts/plot_common.py)

COUNTERS = ["ms", "GBps", "frac_copy", "vs_cub"]
REGISTER = "scankit_tile_register_256x32"
# (panel counter, [(row, label, color)]) for the left and right panels.
PANELS = [("frac_copy", [("cub", "CUB", "tab:gray"), ("scankit_single_pass", "scankit single pass", "tab:red"),
                         (REGISTER, "scankit register kernel 256x32", "tab:blue")]),
          ("vs_cub", [("scankit_single_pass", "scankit single pass", "tab:red"),
                      ("scankit_three_step", "scankit three-step", "tab:olive"),
                      (REGISTER, "scankit register kernel 256x32", "tab:blue")])]


def load_rows(path):
    """Returns (context, workloads in file order, rows): rows maps (workload, row) to its counters."""
    context, runs = load_medians(path, COUNTERS)
    workloads, rows = [], {}
    for run_name, values in runs.items():
        parts = run_name.split("/")
        if len(parts) < 4:
            continue
        workload, row = "/".join(parts[:3]), parts[3]
        if workload not in workloads:
            workloads.append(workload)
        rows[(workload, row)] = values
    return context, workloads, rows


def plot_compact(context, workloads, rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for ax, (counter, series) in zip(axes, PANELS):
        grouped_bars(ax, workloads, rows, counter, series, "scankit_single_pass")
        ax.axhline(1.0, color="k", linestyle="--", linewidth=1, label="copy" if counter == "frac_copy" else "CUB")
        if counter == "frac_copy":
            ax.axhline(0.9, color="tab:green", linestyle=":", linewidth=1.5, label="target 0.9 (select 50%)")
            ax.set_title("fraction of copy bandwidth", fontsize=10)
            ax.set_ylabel("fraction of copy bandwidth (copy GB/s of the same bytes)")
            ax.set_ylim(0, 1.3)
        else:
            ax.axhline(1.3, color="tab:green", linestyle=":", linewidth=1.5, label="target 1.3x")
            ax.set_title("speed-up over CUB (CUB time / time)", fontsize=10)
            ax.set_ylabel("CUB time / time (> 1: faster than CUB)")
            ax.set_ylim(0, 2.0)
        ax.legend(fontsize=7, loc="upper center", ncol=3)
    fig.suptitle("Stream compaction at n = 2^28 (medians over repetitions)\n" + subtitle(context), fontsize=11)
    return save(fig, out, "compact_2p28.png")


def main(argv):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", help="bench_compact JSON (--benchmark_out_format=json)")
    parser.add_argument("--out", default=os.path.join(repo, "docs", "img"), help="folder for the PNG file")
    args = parser.parse_args(argv)

    context, workloads, rows = load_rows(args.json)
    if not any("frac_copy" in r or "vs_cub" in r for r in rows.values()):
        print(f"plot_compact: no usable rows in {args.json}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    print(f"plot_compact: wrote {plot_compact(context, workloads, rows, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
