#!/usr/bin/env python3
"""Splits a kernel's SASS at its barriers and sums Nsight Compute's source counters per region.

Input: `ncu -i REPORT --page source --csv --print-source sass > source.csv` (a build without line
information still gives this). Each region runs from one barrier instruction (BAR, the cluster
barrier's UCGABAR_*) to the next; for each it prints the distinct instructions executed, the warp
instructions executed, the warp-state samples and their largest stall reasons. Latency-bound kernels
whose warps run most instructions once show up as regions where distinct and executed counts are
close and `no_inst` (waiting for the instruction fetch) leads.

  scripts/ncu_regions.py source.csv [--min-share 0.01]
"""
import argparse
import collections
import csv
import re


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="ncu --page source --csv --print-source sass output")
    parser.add_argument("--min-share", type=float, default=0.01,
                        help="print regions with at least this share of samples or instructions")
    args = parser.parse_args()

    kernels = []
    with open(args.csv, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "Kernel Name":
                kernels.append({"name": row[1], "rows": []})
            elif row[0] == "Address":
                kernels[-1]["header"] = row
            elif kernels and row[0].startswith("0x"):
                kernels[-1]["rows"].append(row)

    barrier = re.compile(r"\b(BAR|UCGABAR_\w+)\b")
    for kernel in kernels:
        column = {name: i for i, name in enumerate(kernel["header"])}
        stalls = [n for n in kernel["header"] if n.startswith("stall_") and "Not Issued" not in n]
        regions = []

        def new_region(start):
            return {"start": start, "distinct": 0, "executed": 0.0, "samples": 0.0,
                    "stalls": collections.Counter(), "end": ""}

        region = None
        for row in kernel["rows"]:
            if region is None:
                region = new_region(row[column["Address"]])
            executed = number(row[column["Instructions Executed"]])
            region["distinct"] += executed > 0
            region["executed"] += executed
            region["samples"] += number(row[column["Warp Stall Sampling (All Samples)"]])
            for name in stalls:
                region["stalls"][name[len("stall_"):]] += number(row[column[name]])
            source = row[column["Source"]]
            if barrier.search(source):
                region["end"] = source.strip()
                regions.append(region)
                region = None
        if region is not None:
            regions.append(region)

        total_samples = sum(r["samples"] for r in regions) or 1.0
        total_executed = sum(r["executed"] for r in regions) or 1.0
        print(kernel["name"][:160])
        print(f"  {len(kernel['rows'])} instructions, {sum(r['distinct'] for r in regions)} executed, "
              f"{total_executed:,.0f} warp instructions, {total_samples:,.0f} samples")
        for i, r in enumerate(regions):
            if r["samples"] / total_samples < args.min_share and r["executed"] / total_executed < args.min_share:
                continue
            top = ", ".join(f"{k} {v:.0f}" for k, v in r["stalls"].most_common(3))
            print(f"  {i:4d} {r['start'][-6:]} distinct {r['distinct']:5d}  executed {r['executed']:11,.0f} "
                  f"({r['executed'] / total_executed:4.0%})  samples {r['samples']:6.0f} "
                  f"({r['samples'] / total_samples:4.0%})  {top}  | ends {r['end'][:28]}")


if __name__ == "__main__":
    main()
