"""Shared by the plot scripts: one set of counters per benchmark run from Google Benchmark JSON.

load_medians(path, counters) -> (context, {run_name: {counter: value}}), runs in file order: the
`median` aggregate of each run (a run with repetitions), or the median of its plain entries (a run
without). "ms" falls back to the entry's real_time when the run has no ms counter.
"""

import json
import statistics
from collections import defaultdict


def time_in_ms(entry):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(entry.get("time_unit", "ns"), 1e-6)
    return entry["real_time"] * scale


def load_medians(path, counters):
    with open(path) as f:
        data = json.load(f)
    entries = [e for e in data.get("benchmarks", []) if not e.get("error_occurred")]
    medians = {e["run_name"]: e for e in entries
               if e.get("run_type") == "aggregate" and e.get("aggregate_name") == "median"}
    groups = defaultdict(list)  # run_name -> its entries, in file order
    for e in entries:
        if e["run_name"] in medians:
            groups[e["run_name"]] = [medians[e["run_name"]]]
        elif e.get("run_type", "iteration") == "iteration":
            groups[e["run_name"]].append(e)
    runs = {}
    for run_name, group in groups.items():
        values = {c: statistics.median(e[c] for e in group if c in e) for c in counters if any(c in e for e in group)}
        values.setdefault("ms", statistics.median(time_in_ms(e) for e in group))
        runs[run_name] = values
    return data.get("context", {}), runs
