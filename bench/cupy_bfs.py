#!/usr/bin/env python3
"""The scan-based BFS written with CuPy, on the graph bench_graph dumped, timed beside scankit's.

The algorithm is scankit::graph::breadth_first_search's, level by level, in CuPy's array calls:
the frontier's degrees, their scan (cupy.cumsum), each edge slot's vertex by a search over the
scanned degrees (cupy.searchsorted), the neighbours, the unvisited ones kept (boolean indexing:
CuPy's compaction), one slot per new vertex kept (a scatter of slot numbers, then the slots that
won), their levels set, and the ones with links as the next frontier. Each level reads its edge
count back to the host, as CuPy needs it to size the arrays.

  SCANKIT_BENCH_DUMP_CSR=/tmp/g bench_graph --benchmark_out=graph.json --benchmark_out_format=json
  python3 bench/cupy_bfs.py --csr /tmp/g --bench-json graph.json --out cupy_bfs.json

Prints the median time, GTEPS and the ratio to scankit's row (CuPy's time / scankit's); the
levels must equal the ones scankit wrote (PREFIX.levels.int32), else the exit status is 1.
"""
import argparse
import json
import sys

import numpy as np
import cupy as cp


def bfs(offsets, columns, source, winner):
    n = offsets.size - 1
    levels = cp.full(n, -1, dtype=cp.int32)
    levels[source] = 0
    frontier = cp.array([source], dtype=cp.int32)
    frontier = frontier[offsets[frontier + 1] > offsets[frontier]]
    level = 0
    while frontier.size > 0:
        starts = offsets[frontier]
        degrees = offsets[frontier + 1] - starts
        ends = cp.cumsum(degrees)
        total = int(ends[-1])
        slots = cp.arange(total, dtype=ends.dtype)
        owner = cp.searchsorted(ends, slots, side="right")
        neighbours = columns[starts[owner] + (slots - (ends[owner] - degrees[owner]))]
        fresh = neighbours[levels[neighbours] == -1]
        order = cp.arange(fresh.size, dtype=cp.int32)
        winner[fresh] = order
        fresh = fresh[winner[fresh] == order]
        level += 1
        levels[fresh] = level
        frontier = fresh[offsets[fresh + 1] > offsets[fresh]]
    return levels


def scankit_ms(path, row):
    with open(path) as f:
        data = json.load(f)
    for b in data.get("benchmarks", []):
        if b.get("run_name", "").split("/iterations:")[0] == row and b.get("aggregate_name") == "median":
            return float(b["ms"])
    return float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csr", required=True, help="the prefix bench_graph wrote (SCANKIT_BENCH_DUMP_CSR)")
    parser.add_argument("--bench-json", help="bench_graph's JSON, for scankit's time")
    parser.add_argument("--source", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args()

    offsets = cp.asarray(np.fromfile(args.csr + ".offsets.int32", dtype=np.int32))
    columns = cp.asarray(np.fromfile(args.csr + ".columns.int32", dtype=np.int32))
    expected = np.fromfile(args.csr + ".levels.int32", dtype=np.int32)
    winner = cp.empty(offsets.size - 1, dtype=cp.int32)
    levels = bfs(offsets, columns, args.source, winner)  # warm-up (and CuPy's kernel compiles)
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(args.repeat):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        levels = bfs(offsets, columns, args.source, winner)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    ms = sorted(times)[len(times) // 2]
    got = cp.asnumpy(levels)
    same = bool(np.array_equal(got, expected))
    degrees = np.diff(cp.asnumpy(offsets)).astype(np.int64)
    scanned = int(degrees[got >= 0].sum())
    row = "bfs/rmat{}/scankit".format(int(np.log2(offsets.size - 1)))
    ours = scankit_ms(args.bench_json, row) if args.bench_json else float("nan")
    result = {
        "cupy_version": cp.__version__,
        "gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "vertices": int(offsets.size - 1),
        "links": int(columns.size),
        "levels": int(got.max()) + 1,
        "edges_scanned": scanned,
        "cupy_ms": ms,
        "cupy_gteps": scanned / (ms * 1e-3) / 1e9,
        "scankit_ms": ours,
        "scankit_gteps": scanned / (ours * 1e-3) / 1e9,
        "cupy_over_scankit": ms / ours,
        "same_levels_as_scankit": same,
    }
    print(json.dumps(result, indent=2))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
