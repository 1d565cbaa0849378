#!/usr/bin/env python3
"""Plots `scankit sample --plot`'s histogram: observed and expected draws per group of bins.

usage: plot_sample.py HISTOGRAM.csv OUT.png   (needs matplotlib)
"""
import csv
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib
    except ImportError:
        print("plot_sample.py: matplotlib is not installed (apt-get install python3-matplotlib)", file=sys.stderr)
        return 3
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(sys.argv[1]) as f:
        rows = list(csv.DictReader(f))
    x = range(len(rows))
    labels = [r["first_bin"] if r["first_bin"] == r["last_bin"] else f'{r["first_bin"]}-{r["last_bin"]}' for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 0.5), 4))
    ax.bar(x, [int(r["observed"]) for r in rows], label="observed", color="#4c72b0")
    ax.plot(x, [float(r["expected"]) for r in rows], "o", color="#dd8452", label="expected")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    ax.set_xlabel("bins")
    ax.set_ylabel("draws")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
