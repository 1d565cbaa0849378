#!/usr/bin/env python3
"""Where the time of each tile of the staged scan goes, from a tile timeline.

The timeline comes from `tune_scan --trace PREFIX` (bench/tune_scan.cu): for every tile, eight
64-bit words: the global timer (ns) when the tile drew its ticket, was loaded, published its
aggregate, ended its look-back, passed the hand-over, had stored its results, one unused word,
and the SM it ran on. Prints percentiles of each phase over the steady state (the first and last
1000 tiles left out), when the look-back ends relative to the predecessors' publications, and
how far back the newest published inclusive prefix is when a tile's 32-tile window completes.

    python3 scripts/analyze_trace.py bench/results/h200-...-trace_int32-tuned-run2.bin.gz
"""
import gzip
import sys

import numpy as np


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint64).reshape(-1, 8).astype(np.int64)


def report(name, values_ns):
    x = values_ns / 1e3
    p = np.percentile(x, [10, 50, 90, 99])
    print(f"{name:46s} p10 {p[0]:6.2f}  p50 {p[1]:6.2f}  p90 {p[2]:6.2f}  p99 {p[3]:6.2f}  mean {x.mean():6.2f} us")


def main(path):
    a = load(path)
    tiles = a.shape[0]
    ticket, loaded, aggregate, looked_back, handed_over, stored = (a[:, i] for i in range(6))
    steady = slice(1000, tiles - 1000)
    print(f"{tiles} tiles, kernel span {(stored.max() - ticket.min()) / 1e3:.1f} us, "
          f"{(steady.stop - steady.start) / ((ticket[steady.stop] - ticket[steady.start]) / 1e3):.1f} tiles/us")
    report("load: ticket -> loaded", (loaded - ticket)[steady])
    report("scan: loaded -> aggregate published", (aggregate - loaded)[steady])
    report("wait: aggregate -> hand-over", (handed_over - aggregate)[steady])
    report("store: hand-over -> stored", (stored - handed_over)[steady])
    report("lifetime: ticket -> stored", (stored - ticket)[steady])
    report("look-back: ticket -> look-back done", (looked_back - ticket)[steady])

    # The nearest 32 predecessors' aggregates: when the last of them was published.
    window_done = np.array([aggregate[max(0, t - 32):t].max() if t > 0 else 0 for t in range(tiles)])
    report("look-back done - last of 32 predecessors' aggregate", (looked_back - window_done)[steady])

    # Inclusive prefixes are published right after the hand-over (tile 0: with its aggregate).
    published = handed_over.copy()
    published[0] = aggregate[0]
    order = np.argsort(published)
    newest = np.maximum.accumulate(order)  # newest tile with a published prefix, by time
    times = published[order]

    def newest_prefix_at(t_ns):
        i = np.searchsorted(times, t_ns, side="right") - 1
        return np.where(i >= 0, newest[np.maximum(i, 0)], -1)

    distance = (np.arange(tiles) - newest_prefix_at(window_done))[steady]
    p = np.percentile(distance, [10, 50, 90])
    print(f"tiles back to the newest published prefix when the 32-tile window completes: "
          f"p10 {p[0]:.0f}  p50 {p[1]:.0f}  p90 {p[2]:.0f}")


if __name__ == "__main__":
    main(sys.argv[1])
