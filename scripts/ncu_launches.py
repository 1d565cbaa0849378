#!/usr/bin/env python3
"""Prints a kernel's launches one per line from Nsight Compute's CSV, and tells slow launches apart.

Input: on the GPU machine,
  ncu --clock-control none --cache-control none -k regex:<kernel> --launch-skip 4 --launch-count 24 --csv \\
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.max,sm__cycles_active.avg \\
      <binary> ... > launches.csv
(any of the four metrics may be left out; the program's own output before the CSV is skipped).

A launch whose busiest multiprocessor runs well past the average one, while the launch executes
about as many instructions as the others, is waiting for a few blocks that take a longer path:
stragglers, not more work spread over the GPU.

  scripts/ncu_launches.py launches.csv [--spread 1.2]
"""
import argparse
import collections
import csv
import io
import statistics

METRICS = (("gpu__time_duration.sum", "us", 1e-3), ("smsp__inst_executed.sum", "M inst", 1e-6),
           ("sm__cycles_active.max", "K cyc max", 1e-3), ("sm__cycles_active.avg", "K cyc avg", 1e-3))


def launches(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        raise SystemExit(f"{path}: no Nsight Compute CSV header (\"ID\", ...) found")
    per = collections.OrderedDict()
    for row in csv.DictReader(io.StringIO(text[start:])):
        try:
            value = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        per.setdefault(row["ID"], {})[row["Metric Name"]] = value
    return per


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="ncu --csv --metrics ... output")
    parser.add_argument("--spread", type=float, default=1.2,
                        help="a launch waits for stragglers when its busiest multiprocessor's active "
                             "cycles exceed the average multiprocessor's by this factor")
    args = parser.parse_args()
    per = launches(args.csv)
    if not per:
        raise SystemExit(f"{args.csv}: no launches")
    shown = [m for m in METRICS if any(m[0] in v for v in per.values())]
    print("launch " + " ".join(f"{unit:>10}" for _, unit, _ in shown) + "  stragglers")
    both = all("sm__cycles_active.max" in v and "sm__cycles_active.avg" in v for v in per.values())
    slow = 0
    for launch, values in per.items():
        is_slow = both and values["sm__cycles_active.max"] > args.spread * values["sm__cycles_active.avg"]
        slow += is_slow
        cells = " ".join(f"{values[name] * scale:10.2f}" if name in values else f"{'-':>10}"
                         for name, _, scale in shown)
        print(f"{launch:>6} {cells}  {'*' if is_slow else ''}")
    for name, unit, scale in shown:
        xs = [v[name] * scale for v in per.values() if name in v]
        print(f"{unit:>10}: median {statistics.median(xs):.2f}, min {min(xs):.2f}, max {max(xs):.2f}")
    if both:
        print(f"{slow} of {len(per)} launches wait for stragglers (busiest multiprocessor above "
              f"{args.spread} x the average)")


if __name__ == "__main__":
    main()
