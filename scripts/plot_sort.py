#!/usr/bin/env python3
"""Render bench_sort results (Google Benchmark JSON) into a PNG plot for docs/.

    scripts/plot_sort.py bench/results/h200-<date>-<commit>-bench_sort.json [--out docs/img]

Rows are named <workload>/<row>/...; the workloads at 2^28 keys (not the latency ones, whose names
end in _2p<log2 n>) are plotted, two panels: keys per second (CUB, scankit onesweep,
scankit reduce-then-scan) and the speed-up over CUB. Writes sort_2p28.png into --out (default
docs/img of the repository). Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""

import argparse
import re
import os
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("plot_sort: needs matplotlib (Debian: apt-get install python3-matplotlib; or pip install matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from bench_json import load_medians  # noqa: E402  (scripts/bench_json.py)
from plot_common import grouped_bars, save, subtitle  # noqa: E402  (scripts/plot_common.py)

COUNTERS = ["ms", "Gkeys_per_s", "frac_floor", "vs_cub"]
PANELS = [("Gkeys_per_s", [("cub", "CUB", "tab:gray"), ("scankit_onesweep", "scankit onesweep", "tab:red"),
                           ("scankit_reduce_then_scan", "scankit reduce-then-scan", "tab:olive")]),
          ("vs_cub", [("scankit_onesweep", "scankit onesweep", "tab:red"),
                      ("scankit_reduce_then_scan", "scankit reduce-then-scan", "tab:olive")])]


def load_rows(path):
    """Returns (context, workloads in file order, rows): rows maps (workload, row) to its counters."""
    context, runs = load_medians(path, COUNTERS)
    workloads, rows = [], {}
    for run_name, values in runs.items():
        parts = run_name.split("/")
        if len(parts) < 2 or re.search(r"_2p\d+$", parts[0]):
            continue
        if parts[0] not in workloads:
            workloads.append(parts[0])
        rows[(parts[0], parts[1])] = values
    return context, workloads, rows


def plot_sort(context, workloads, rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for ax, (counter, series) in zip(axes, PANELS):
        grouped_bars(ax, workloads, rows, counter, series, "scankit_onesweep" if counter == "vs_cub" else None)
        if counter == "vs_cub":
            ax.axhline(1.0, color="k", linestyle="--", linewidth=1, label="CUB")
            ax.set_title("speed-up over CUB (CUB time / time)", fontsize=10)
            ax.set_ylabel("CUB time / time (> 1: faster than CUB)")
            ax.set_ylim(0, 1.6)
        else:
            ax.set_title("keys per second", fontsize=10)
            ax.set_ylabel("Gkeys/s")
        ax.legend(fontsize=7, loc="upper center", ncol=3)
    fig.suptitle("Radix sort at n = 2^28 keys\n" + subtitle(context), fontsize=11)
    return save(fig, out, "sort_2p28.png")


def main(argv):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", help="bench_sort JSON (--benchmark_out_format=json)")
    parser.add_argument("--out", default=os.path.join(repo, "docs", "img"), help="folder for the PNG file")
    args = parser.parse_args(argv)
    context, workloads, rows = load_rows(args.json)
    if not any("vs_cub" in r for r in rows.values()):
        print(f"plot_sort: no usable rows in {args.json}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    print(f"plot_sort: wrote {plot_sort(context, workloads, rows, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
