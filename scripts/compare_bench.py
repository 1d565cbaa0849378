#!/usr/bin/env python3
"""Before/after table of two builds' Google Benchmark JSON (bench_scan, bench_compact).

Usage:
  compare_bench.py OLD.json NEW.json                        one run of each side
  compare_bench.py --old O1.json O2.json --new N1.json N2.json  rounds of each side (any count)
  compare_bench.py MERGED.json                              a file written by --merge (gpu_check.sh compare)
  compare_bench.py --old ... --new ... --merge OUT.json     also writes every run into one file

Files are grouped per binary (the basename of the JSON context's "executable", e.g. bench_scan),
and one table is printed per binary. Rows are matched by their registered name: the run name
without Google Benchmark's "/iterations:<i>", "/manual_time" / "/real_time" suffixes, so a change
of iteration count does not break the match.

Per row and side, the time of one run is the `_median` aggregate's "ms" counter (the median over
repetitions of the per-repetition median; real_time when a row has no ms counter; the median of
the plain entries when a run had no repetitions). Over the rounds of a side:
  best      the smallest time of the rounds
  med       the median time of the rounds
The table shows, per row: old and new best ms, speed new/old (= old time / new time, > 1: new is
faster) of the best and of the median of rounds, frac_copy old -> new (median over rounds; "-"
where the row has none), and a flag:
  SLOWER    new is more than --threshold (default 1 %) slower than old by best AND by median
  slower(best) / slower(med)   only by one of the two
Rows that failed (error_occurred) show ERROR; rows of one side only are listed after the table.
Last lines: counts, and the geometric mean of the speed ratios of the scankit rows and of the
anchor rows (copy, cub...): the anchors did not change between the builds, so their spread
shows the run-to-run noise.

Exit status: 0; 2 on bad input; 3 with --fail-on-slower when a row is flagged SLOWER.
A JSON file cut short (a run that timed out) is repaired where possible: its complete entries
are used. Standard library only.
"""

import argparse
import json
import math
import os
import re
import statistics
import sys

SUFFIX = re.compile(r"(/iterations:\d+)|(/repeats:\d+)|(/manual_time)|(/real_time)|(/process_time)|(/threads:\d+)")


def row_key(run_name):
    return SUFFIX.sub("", run_name)


def time_in_ms(entry):
    if isinstance(entry.get("ms"), (int, float)) and not math.isnan(entry["ms"]):
        return float(entry["ms"])
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(entry.get("time_unit", "ns"), 1e-6)
    return entry["real_time"] * scale


def load_json_text(text, path):
    """Parses Google Benchmark JSON; repairs a file cut short after its last complete entry."""
    try:
        return json.loads(text), False
    except ValueError:
        pass
    # Entries are written as "    {...\n    }" separated by ",\n": keep those that ended.
    cut = text.rfind("\n    }")
    while cut > 0:
        candidate = text[: cut + len("\n    }")] + "\n  ]\n}\n"
        try:
            return json.loads(candidate), True
        except ValueError:
            cut = text.rfind("\n    }", 0, cut)
    head = text.find('"benchmarks"')
    if head > 0:  # not a single entry finished: keep the context
        try:
            return json.loads(text[:head].rstrip().rstrip(",") + ',\n  "benchmarks": []\n}\n'), True
        except ValueError:
            pass
    raise ValueError(f"{path}: not JSON, and not a Google Benchmark file cut short")


def binary_of(data, path):
    exe = data.get("context", {}).get("executable", "")
    name = os.path.basename(exe) if exe else ""
    return name or os.path.splitext(os.path.basename(path))[0]


def rows_of(data):
    """{row key: {"ms": float or None, "frac_copy": float or None, "error": str or None, "label": str}}"""
    entries = data.get("benchmarks", [])
    medians, plain, errors, order = {}, {}, {}, []
    for e in entries:
        run = e.get("run_name") or e.get("name", "")
        key = row_key(run)
        if key not in order:
            order.append(key)
        if e.get("error_occurred"):
            errors[key] = e.get("error_message", "error")
            continue
        if e.get("run_type") == "aggregate":
            if e.get("aggregate_name") == "median":
                medians[key] = e
        elif e.get("run_type", "iteration") == "iteration":
            plain.setdefault(key, []).append(e)
    rows = {}
    for key in order:
        if key in medians:
            group = [medians[key]]
        elif key in plain:
            group = plain[key]
        elif key in errors:
            rows[key] = {"ms": None, "frac_copy": None, "error": errors[key], "label": ""}
            continue
        else:
            continue
        ms = statistics.median(time_in_ms(e) for e in group)
        fc = [e["frac_copy"] for e in group if isinstance(e.get("frac_copy"), (int, float))
              and not math.isnan(e["frac_copy"])]
        rows[key] = {"ms": ms, "frac_copy": statistics.median(fc) if fc else None,
                     "error": errors.get(key), "label": group[0].get("label", "")}
    return rows


def load_side(paths, side, runs, merged_out):
    """Adds each file's data to runs[binary][side] (a list of rounds)."""
    for path in paths:
        try:
            with open(path) as f:
                text = f.read()
            data, repaired = load_json_text(text, path)
        except (OSError, ValueError) as err:
            print(f"warning: {side}: {path}: skipped ({err})", file=sys.stderr)
            continue
        if repaired:
            print(f"warning: {side}: {path} was cut short (a run that timed out?): using its "
                  f"{len(data.get('benchmarks', []))} complete entries", file=sys.stderr)
        binary = binary_of(data, path)
        runs.setdefault(binary, {"old": [], "new": []})[side].append(
            {"file": os.path.basename(path), "repaired": repaired, "data": data})
        if merged_out is not None:
            merged_out.setdefault(binary, {"old": [], "new": []})[side].append(
                {"file": os.path.basename(path), "repaired": repaired, "data": data})


def load_merged(path, runs):
    with open(path) as f:
        merged = json.load(f)
    for binary, sides in merged["runs"].items():
        for side in ("old", "new"):
            runs.setdefault(binary, {"old": [], "new": []})[side].extend(sides.get(side, []))
    return merged


def rounds_note(rounds):
    cut = sum(1 for r in rounds if r.get("repaired"))
    return f"{len(rounds)} rounds" + (f", {cut} cut short" if cut else "")


def commits(rounds):
    seen = []
    for r in rounds:
        ctx = r["data"].get("context", {})
        c = ctx.get("scankit_commit") or ctx.get("scankit_build_commit") or "?"
        if c not in seen:
            seen.append(c)
    return ",".join(seen) or "?"


def fmt_ms(v):
    return "-" if v is None else f"{v:.5f}"


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def is_anchor(key):
    parts = key.split("/")
    return not any(p.startswith("scankit") for p in parts)


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def compare(binary, sides, threshold, only_flagged, name_filter, out):
    old_rounds = [rows_of(r["data"]) for r in sides["old"]]
    new_rounds = [rows_of(r["data"]) for r in sides["new"]]
    print(f"== {binary}: old {commits(sides['old'])} ({rounds_note(sides['old'])}) -> new "
          f"{commits(sides['new'])} ({rounds_note(sides['new'])}); speed = old time / new time (> 1: new faster); "
          f"flag: new more than {threshold * 100:g}% slower", file=out)
    if not old_rounds or not new_rounds:
        print(f"{binary}: nothing to compare (old rounds {len(old_rounds)}, new rounds {len(new_rounds)})", file=out)
        return 0, 0
    keys = []
    for rounds in (old_rounds, new_rounds):
        for rows in rounds:
            for k in rows:
                if k not in keys:
                    keys.append(k)
    if name_filter:
        pattern = re.compile(name_filter)
        keys = [k for k in keys if pattern.search(k)]
    width = max([len(k) for k in keys] + [3])
    header = (f"{'row':<{width}} {'old_ms':>10} {'new_ms':>10} {'speed_best':>10} {'speed_med':>9} "
              f"{'frac_copy old->new':>18}  flag")
    print(header, file=out)
    only_old, only_new = [], []
    matched = slower_best = slower_med = slower_both = errors = 0
    ratios = {"scankit": [], "anchor": []}

    def side_stats(rounds, key):
        times = [r[key]["ms"] for r in rounds if key in r and r[key]["ms"] is not None]
        fcs = [r[key]["frac_copy"] for r in rounds if key in r and r[key]["frac_copy"] is not None]
        errs = [r[key]["error"] for r in rounds if key in r and r[key]["error"]]
        present = any(key in r for r in rounds)
        return present, times, (statistics.median(fcs) if fcs else None), errs

    for key in keys:
        old_present, old_t, old_fc, old_err = side_stats(old_rounds, key)
        new_present, new_t, new_fc, new_err = side_stats(new_rounds, key)
        if not new_present:
            only_old.append(key)
            continue
        if not old_present:
            only_new.append(key)
            continue
        if not old_t or not new_t:
            errors += 1
            why = (new_err or old_err or ["no time"])[0]
            print(f"{key:<{width}} {fmt_ms(min(old_t) if old_t else None):>10} "
                  f"{fmt_ms(min(new_t) if new_t else None):>10} ERROR ({'new' if not new_t else 'old'}: {why})",
                  file=out)
            continue
        matched += 1
        old_best, new_best = min(old_t), min(new_t)
        old_med, new_med = statistics.median(old_t), statistics.median(new_t)
        speed_best = old_best / new_best if new_best > 0 else None
        speed_med = old_med / new_med if new_med > 0 else None
        by_best = new_best > old_best * (1.0 + threshold)
        by_med = new_med > old_med * (1.0 + threshold)
        slower_best += by_best
        slower_med += by_med
        slower_both += by_best and by_med
        flag = "SLOWER" if by_best and by_med else "slower(best)" if by_best else "slower(med)" if by_med else ""
        if new_err or old_err:
            flag = (flag + " some rounds failed").strip()
        ratios["anchor" if is_anchor(key) else "scankit"].append(speed_best)
        if only_flagged and not flag:
            continue
        fc = f"{fmt(old_fc, '.3f')} -> {fmt(new_fc, '.3f')}"
        print(f"{key:<{width}} {fmt_ms(old_best):>10} {fmt_ms(new_best):>10} {fmt(speed_best, '.4f'):>10} "
              f"{fmt(speed_med, '.4f'):>9} {fc:>18}  {flag}", file=out)
    for what, names in (("old", only_old), ("new", only_new)):
        if names:
            print(f"only in {what} ({len(names)}): {' '.join(names[:8])}{' ...' if len(names) > 8 else ''}",
                  file=out)
    gm_s, gm_a = geomean(ratios["scankit"]), geomean(ratios["anchor"])
    print(f"{binary}: {matched} rows matched, {errors} with errors; more than {threshold * 100:g}% slower: "
          f"{slower_both} by best and median of rounds, {slower_best} by best, {slower_med} by median; "
          f"geomean speed (best) scankit rows {fmt(gm_s, '.4f')} ({len(ratios['scankit'])}), "
          f"anchor rows {fmt(gm_a, '.4f')} ({len(ratios['anchor'])})", file=out)
    return slower_both, errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("files", nargs="*", help="OLD.json NEW.json, or one merged file")
    parser.add_argument("--old", nargs="+", default=[], help="the old build's JSON files (one per round)")
    parser.add_argument("--new", nargs="+", default=[], help="the new build's JSON files (one per round)")
    parser.add_argument("--merge", metavar="OUT.json", help="write every run of --old / --new into one file")
    parser.add_argument("--threshold", type=float, default=0.01, help="flag rows slower by more than this (0.01)")
    parser.add_argument("--only-flagged", action="store_true", help="print only the flagged rows")
    parser.add_argument("--filter", default="", help="regular expression: only rows whose name matches")
    parser.add_argument("--fail-on-slower", action="store_true", help="exit 3 when a row is flagged SLOWER")
    args = parser.parse_args()

    runs = {}
    merged_out = {} if args.merge else None
    if args.old or args.new:
        if args.files:
            parser.error("give either OLD NEW / a merged file, or --old ... --new ...")
        load_side(args.old, "old", runs, merged_out)
        load_side(args.new, "new", runs, merged_out)
    elif len(args.files) == 2:
        load_side(args.files[:1], "old", runs, merged_out)
        load_side(args.files[1:], "new", runs, merged_out)
    elif len(args.files) == 1:
        if args.merge:
            parser.error("--merge needs --old / --new or OLD NEW")
        try:
            load_merged(args.files[0], runs)
        except (OSError, ValueError, KeyError, TypeError) as err:
            print(f"compare_bench: {args.files[0]}: not a merged compare file ({err})", file=sys.stderr)
            return 2
    else:
        parser.error("nothing to compare")

    if args.merge:
        with open(args.merge, "w") as f:
            json.dump({"scankit_compare": 1,
                       "note": "runs[binary][old|new] = the rounds in run order; data = Google Benchmark JSON",
                       "runs": merged_out}, f)
    if not runs:
        print("compare_bench: no readable input", file=sys.stderr)
        return 2
    total_slower = 0
    for i, (binary, sides) in enumerate(runs.items()):
        if i:
            print()
        slower, _ = compare(binary, sides, args.threshold, args.only_flagged, args.filter, sys.stdout)
        total_slower += slower
    return 3 if args.fail_on_slower and total_slower else 0


if __name__ == "__main__":
    sys.exit(main())
