#!/usr/bin/env python3
"""Plots for `scankit lab`.

usage: python3 scripts/plot_lab.py OUTDIR

Reads what the lab wrote to OUTDIR (lab.json, measurements.csv and the experiments' CSVs) and
writes PNG files next to them:

  throughput_vs_n.png   GB/s against N for every variant, one panel per strategy, CUB and copy in each
  warp_vs_shared.png    experiment 2: time of each block algorithm per strategy, K and size
  barriers.png          experiment 3: time per tile against block barriers per tile
  coarsening.png        experiment 4: GB/s, registers and occupancy against K
  work_depth.png        experiment 5: operations per tile against N log2 N and 2N, barriers
  vs_cub.png            experiment 6: speed-up over cub::DeviceScan of every variant at each size
  scaling.png           experiment 7: time per element and time against N, with the L2 size marked

Only the experiments that lab.json lists as run are drawn. Needs matplotlib (Agg backend, no display).
"""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TYPE_BYTES = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4,
              "int64": 8, "uint64": 8, "float": 4, "double": 8}
STRATEGIES = ["three_launch", "reduce_then_scan", "chained", "decoupled_look_back"]
BLOCKS = ["kogge_stone_double_buffer", "kogge_stone_read_sync_write", "brent_kung", "warp_of_warps"]
BLOCK_STYLE = {
    "kogge_stone_double_buffer": ("tab:blue", "o"),
    "kogge_stone_read_sync_write": ("tab:orange", "s"),
    "brent_kung": ("tab:green", "^"),
    "warp_of_warps": ("tab:red", "D"),
}


def read_csv(outdir, name):
    path = os.path.join(outdir, name + ".csv")
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(row, key):
    """A float from a CSV field, or None when it is empty or missing."""
    value = row.get(key, "")
    if value in ("", None):
        return None
    try:
        x = float(value)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def size_label(n):
    n = int(n)
    if n > 0 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


def log2_axis(ax):
    ax.set_xscale("log", base=2)
    ax.grid(True, which="major", alpha=0.3)


def save(fig, outdir, name, written):
    path = os.path.join(outdir, name)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)


def title_suffix(meta):
    gpu = meta.get("gpu") or "no GPU"
    return "%s, %s" % (gpu, meta.get("value_type", "?"))


def plot_throughput(outdir, meta, written):
    rows = read_csv(outdir, "measurements")
    if not rows:
        return
    tuned = str(meta.get("tuned_items_per_thread", ""))
    series = {}  # label -> [(n, GB/s)]
    for r in rows:
        gbps, n = num(r, "GB/s"), num(r, "n")
        if gbps is None or n is None:
            continue
        if r["kind"] == "scankit":
            if r["K"] != tuned:
                continue
            key = (r["strategy"], r["block"])
        else:
            key = (r["kind"], None)
        series.setdefault(key, []).append((n, gbps))
    if not series:
        return
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True, sharey=True)
    for ax, strategy in zip(axes.flat, STRATEGIES):
        for block in BLOCKS:
            points = sorted(series.get((strategy, block), []))
            if points:
                color, marker = BLOCK_STYLE[block]
                ax.plot([p[0] for p in points], [p[1] for p in points], marker=marker, color=color, label=block)
        for kind, style in (("cub", dict(color="black", lw=2, label="cub::DeviceScan")),
                            ("copy", dict(color="grey", ls="--", label="cudaMemcpy D2D"))):
            points = sorted(series.get((kind, None), []))
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker=".", **style)
        ax.set_title(strategy)
        log2_axis(ax)
        ax.set_xlabel("N (elements)")
        ax.set_ylabel("GB/s (2 N sizeof(T) / time)")
        ax.legend(fontsize=7)
    fig.suptitle("Throughput against N, K = %s (%s)" % (tuned, title_suffix(meta)))
    save(fig, outdir, "throughput_vs_n.png", written)


def plot_warp_vs_shared(outdir, meta, written):
    rows = read_csv(outdir, "exp2_warp_vs_shared")
    if not rows:
        return
    groups = []
    for r in rows:
        g = (int(r["n"]), r["strategy"], r["K"])
        if g not in groups:
            groups.append(g)
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(groups)), 5))
    width = 0.8 / len(BLOCKS)
    for i, block in enumerate(BLOCKS):
        heights = []
        for g in groups:
            match = [num(r, "time_ms") for r in rows
                     if (int(r["n"]), r["strategy"], r["K"]) == g and r["block"] == block]
            heights.append(match[0] if match and match[0] is not None else 0)
        xs = [j + (i - 1.5) * width for j in range(len(groups))]
        ax.bar(xs, heights, width, color=BLOCK_STYLE[block][0], label=block)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(["%s\n%s\nK=%s" % (size_label(g[0]), g[1], g[2]) for g in groups], fontsize=8)
    ax.set_ylabel("time (ms, median)")
    ax.set_yscale("log")
    ax.set_title("Warp-shuffle (warp of warps) vs shared-memory block scans (%s)" % title_suffix(meta))
    ax.legend(fontsize=8)
    save(fig, outdir, "warp_vs_shared.png", written)


def plot_barriers(outdir, meta, written):
    rows = read_csv(outdir, "exp3_barriers")
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    groups = sorted({(int(r["n"]), int(r["K"])) for r in rows})
    for n, k in groups:
        pts = [(num(r, "barriers"), num(r, "ns_per_tile"), r["block"]) for r in rows
               if int(r["n"]) == n and int(r["K"]) == k]
        pts = [p for p in pts if p[0] is not None and p[1] is not None]
        if not pts:
            continue
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label="n=%s, K=%d" % (size_label(n), k))
        for b, t, block in pts:
            ax.annotate(block.replace("kogge_stone_", "KS ").replace("_", " "), (b, t), fontsize=6,
                        textcoords="offset points", xytext=(3, 3))
    ax.set_xlabel("block barriers (__syncthreads) per tile")
    ax.set_ylabel("scan time per tile (ns)")
    ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.set_title("Barriers per tile and time (%s)" % title_suffix(meta))
    ax.legend(fontsize=8)
    save(fig, outdir, "barriers.png", written)


def plot_coarsening(outdir, meta, written):
    rows = read_csv(outdir, "exp4_coarsening")
    kernels = read_csv(outdir, "exp4_coarsening_kernels")
    if not rows and not kernels:
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    if rows:
        sizes = sorted({int(r["n"]) for r in rows})
        for block in BLOCKS:
            color, marker = BLOCK_STYLE[block]
            for j, n in enumerate(sizes):
                pts = sorted((int(r["K"]), num(r, "GB/s")) for r in rows if r["block"] == block and int(r["n"]) == n)
                pts = [p for p in pts if p[1] is not None]
                if not pts:
                    continue
                last = j == len(sizes) - 1
                ax1.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, color=color,
                         ls="-" if last else ":", alpha=1.0 if last else 0.5,
                         label="%s, n=%s" % (block, size_label(n)))
        log2_axis(ax1)
        ax1.set_xlabel("K (items per thread)")
        ax1.set_ylabel("GB/s")
        ax1.set_title("Throughput against K (solid: largest n)")
        ax1.legend(fontsize=6)
    if kernels:
        twin = ax2.twinx()
        for block in BLOCKS:
            color, marker = BLOCK_STYLE[block]
            pts = sorted((int(r["K"]), num(r, "occupancy"), num(r, "registers")) for r in kernels if r["block"] == block)
            if not pts:
                continue
            ax2.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, color=color, label=block + " occupancy")
            twin.plot([p[0] for p in pts], [p[2] for p in pts], marker=marker, color=color, ls="--", alpha=0.6)
        log2_axis(ax2)
        ax2.set_ylim(0, 1.05)
        ax2.set_xlabel("K (items per thread)")
        ax2.set_ylabel("occupancy (solid)")
        twin.set_ylabel("registers per thread (dashed)")
        ax2.set_title("Occupancy and registers against K")
        ax2.legend(fontsize=7, loc="lower left")
    fig.suptitle("Coarsening sweep, decoupled look-back (%s)" % title_suffix(meta))
    save(fig, outdir, "coarsening.png", written)


def plot_work_depth(outdir, meta, written):
    rows = read_csv(outdir, "exp5_work_depth")
    if not rows:
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    names = [r["block"] for r in rows]
    ops = [num(r, "operations") or 0 for r in rows]
    colors = [BLOCK_STYLE.get(n, ("grey", "o"))[0] for n in names]
    ax1.bar(range(len(names)), ops, color=colors)
    nlogn, two_n = num(rows[0], "N_log2_N"), num(rows[0], "2N")
    if nlogn:
        ax1.axhline(nlogn, color="black", ls="--", label="N log2 N = %d" % nlogn)
    if two_n:
        ax1.axhline(two_n, color="black", ls=":", label="2N = %d" % two_n)
    ax1.set_xticks(range(len(names)))
    ax1.set_xticklabels([n.replace("_", "\n") for n in names], fontsize=7)
    ax1.set_ylabel("operator applications per block scan")
    ax1.set_title("Work")
    ax1.legend(fontsize=8)
    ax2.bar(range(len(names)), [num(r, "barriers") or 0 for r in rows], color=colors)
    ax2.set_xticks(range(len(names)))
    ax2.set_xticklabels([n.replace("_", "\n") for n in names], fontsize=7)
    ax2.set_ylabel("barriers per block scan")
    ax2.set_title("Depth (barriers)")
    fig.suptitle("Work and depth of the block scans, 256 threads (%s)" % title_suffix(meta))
    save(fig, outdir, "work_depth.png", written)


def plot_vs_cub(outdir, meta, written):
    rows = read_csv(outdir, "exp6_vs_cub")
    if not rows:
        return
    rows = [r for r in rows if num(r, "vs_CUB") is not None and not r["variant"].startswith("cub::")]
    if not rows:
        return
    sizes = sorted({int(r["n"]) for r in rows})
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(variants) * max(1, len(sizes)) + 2))
    height = 0.8 / len(sizes)
    for j, n in enumerate(sizes):
        values = []
        for v in variants:
            match = [num(r, "vs_CUB") for r in rows if r["variant"] == v and int(r["n"]) == n]
            values.append(match[0] if match else 0)
        ax.barh([i + j * height for i in range(len(variants))], values, height, label="n=%s" % size_label(n))
    ax.axvline(1.0, color="black", lw=1)
    ax.set_yticks([i + height * (len(sizes) - 1) / 2 for i in range(len(variants))])
    ax.set_yticklabels(variants, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("speed-up over cub::DeviceScan (CUB time / variant time; copy = ceiling)")
    ax.set_title("scankit vs CUB (%s)" % title_suffix(meta))
    ax.legend(fontsize=8)
    save(fig, outdir, "vs_cub.png", written)


def plot_scaling(outdir, meta, written):
    rows = read_csv(outdir, "exp7_scaling")
    if not rows:
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    for v in variants:
        pts = sorted((int(r["n"]), num(r, "ns_per_element"), num(r, "time_ms")) for r in rows if r["variant"] == v)
        pts = [p for p in pts if p[1] is not None]
        if not pts:
            continue
        style = dict(marker=".")
        if v.startswith("cub::"):
            style.update(color="black", lw=2)
        elif v.startswith("cudaMemcpy"):
            style.update(color="grey", ls="--")
        ax1.plot([p[0] for p in pts], [p[1] for p in pts], label=v, **style)
        ax2.plot([p[0] for p in pts], [p[2] for p in pts], label=v, **style)
    l2 = meta.get("l2_bytes")
    elem = TYPE_BYTES.get(meta.get("value_type"), 4)
    for ax in (ax1, ax2):
        log2_axis(ax)
        ax.set_xlabel("N (elements)")
        if l2:
            ax.axvline(l2 / elem, color="purple", ls=":", label="input = L2 size")
    ax1.set_yscale("log")
    ax1.set_ylabel("time per element (ns)")
    ax1.set_title("Time per element: flat beyond the L2 = linear")
    ax2.set_yscale("log")
    ax2.set_ylabel("time (ms)")
    ax2.set_title("Time against N (log-log: slope 1 = linear)")
    ax1.legend(fontsize=7)
    fig.suptitle("Scaling (%s)" % title_suffix(meta))
    save(fig, outdir, "scaling.png", written)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    outdir = argv[1]
    lab_json = os.path.join(outdir, "lab.json")
    if not os.path.exists(lab_json):
        print("plot_lab.py: %s not found: run `scankit lab --out %s` first" % (lab_json, outdir), file=sys.stderr)
        return 1
    with open(lab_json) as f:
        lab = json.load(f)
    meta = lab.get("metadata", {})
    ran = {e["id"] for e in lab.get("experiments", []) if e.get("status") == "ran"}
    written = []
    if meta.get("device") == "gpu":
        plot_throughput(outdir, meta, written)
    steps = {2: plot_warp_vs_shared, 3: plot_barriers, 4: plot_coarsening, 5: plot_work_depth,
             6: plot_vs_cub, 7: plot_scaling}
    for exp_id, plot in steps.items():
        if exp_id in ran:
            plot(outdir, meta, written)
    if written:
        print("plots: wrote " + ", ".join(os.path.basename(p) for p in written) + " to " + outdir)
    else:
        print("plots: nothing to plot in " + outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
