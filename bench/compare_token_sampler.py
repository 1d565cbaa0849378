#!/usr/bin/env python3
"""Pairs bench_token_sampler's rows with flashinfer_sampling_anchor's and prints a markdown table.

    python3 bench/compare_token_sampler.py scankit.json flashinfer.json [--stat median|min|b2b]

Rows pair on (dist, sigma, workload, op, input). Ratio = FlashInfer ms / scankit ms: above 1,
scankit is faster. A row whose two programs read different data (data_hash), failed a check or
failed to run is marked in the last column; rows found in one file only are listed with a dash.
Exit status 1 when either file says it is not ok (a launch failed or a check did not pass).
"""
import argparse
import json
import sys

STATS = {"median": "median_ms", "min": "min_ms", "b2b": "b2b_mean_ms"}


def key(row):
    return (row.get("dist"), row.get("sigma"), row.get("workload"), row.get("op"), row.get("input"))


def load(path):
    with open(path) as f:
        doc = json.load(f)
    rows = {}
    for row in doc.get("rows", []):
        rows.setdefault(key(row), row)
    return doc, rows


def fmt_ms(row, field):
    if row is None or row.get(field) is None:
        return "—"
    return "%.4f" % row[field]


def remarks(ours, theirs):
    out = []
    if ours and theirs and ours.get("data_hash") != theirs.get("data_hash"):
        out.append("different data")
    for name, row in (("scankit", ours), ("FlashInfer", theirs)):
        if row is None:
            continue
        if row.get("error"):
            out.append("%s error: %s" % (name, row["error"]))
        elif row.get("check_failures"):
            out.append("%s failed %d/%d checks" % (name, row["check_failures"], row.get("checks", 0)))
    return "; ".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scankit", help="bench_token_sampler's JSON")
    ap.add_argument("flashinfer", help="flashinfer_sampling_anchor's JSON")
    ap.add_argument("--stat", choices=sorted(STATS), default="median", help="which time to compare (median)")
    args = ap.parse_args()
    field = STATS[args.stat]

    ours_doc, ours = load(args.scankit)
    theirs_doc, theirs = load(args.flashinfer)
    order = list(ours) + [k for k in theirs if k not in ours]

    print("scankit %s (%s) against FlashInfer %s, %s ms, on %s"
          % (ours_doc.get("scankit_commit", "?"), ours_doc.get("device", {}).get("name", "?"),
             theirs_doc.get("flashinfer_version", "?"), args.stat,
             theirs_doc.get("device", {}).get("name", "?")))
    print()
    print("| dist | workload | op | input | scankit ms | FlashInfer ms | FlashInfer / scankit | FlashInfer call "
          "| notes |")
    print("|---|---|---|---|---:|---:|---:|---|---|")
    ratios = []
    for k in order:
        a, b = ours.get(k), theirs.get(k)
        ratio = "—"
        if a and b and a.get(field) and b.get(field) is not None:
            r = b[field] / a[field]
            ratio = "%.2f" % r
            if not remarks(a, b):
                ratios.append(r)
        dist = k[0] if k[1] is None else "%s σ%g" % (k[0], k[1])
        fi_call = (b or {}).get("fi_call", "")
        cells = (dist, k[2], k[3], k[4], fmt_ms(a, field), fmt_ms(b, field), ratio, fi_call, remarks(a, b))
        print("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    if ratios:
        geo = 1.0
        for r in ratios:
            geo *= r
        geo **= 1.0 / len(ratios)
        print()
        print("Geometric mean of FlashInfer / scankit over %d clean pairs: %.2f" % (len(ratios), geo))
    return 0 if ours_doc.get("ok") and theirs_doc.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
