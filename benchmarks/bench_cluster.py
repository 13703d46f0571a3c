"""Throughput on a Dask cluster against local worker processes, on the same puzzles.

    python benchmarks/bench_cluster.py [--backend SPEC] [--count 10000] [--rounds 3]

It builds COUNT distinct 9x9 puzzles (symmetries of the public sets, as bench_overhead.py
does), then runs `harness run -q` on them in a subprocess with `--jobs 2` and with
`--cluster local:2` (a Dask LocalCluster of two worker processes, one solver process each),
in alternation, ROUNDS times each. It prints, per setting, the median wall time of the whole
command, the puzzles per second that makes, and the ratio cluster / local. Every run must
answer every puzzle (SOLVED): a row lost or duplicated stops the benchmark.

The cluster's wall time includes starting the LocalCluster (a scheduler and two spawned
worker processes, about 2 s here), which a long-lived cluster pays once, not per run; the
benchmark also prints that start-up, measured alone, so the rate without it can be read.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_overhead import FASTEST, build
from common import harness_run

SETTINGS = {"--jobs 2": ["--jobs", "2"], "--cluster local:2": ["--cluster", "local:2"]}


def timed(backend: str, data: Path, out: Path, extra: list[str], count: int) -> float:
    """Wall seconds of one `harness run`; checks that every puzzle has one SOLVED row."""
    wall, rows = harness_run(backend, data, out, *extra)
    solved = int((rows.status == "SOLVED").sum())
    if solved != count or len(rows) != count:
        sys.exit(
            f"{backend} {' '.join(extra)}: {solved} SOLVED of {len(rows)} rows, expected {count}"
        )
    return wall


def cluster_start() -> float:
    """Seconds to start and stop a LocalCluster of two workers, as --cluster local:2 does."""
    from harness.cluster import ClusterTarget, connect

    start = time.perf_counter()
    with connect(ClusterTarget("local:2")):
        up = time.perf_counter() - start
    return up


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default=FASTEST)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    walls: dict[str, list[float]] = {name: [] for name in SETTINGS}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "puzzles.txt"
        data.write_text("\n".join(build(args.count, args.seed)) + "\n")
        for round_ in range(args.rounds):
            order = list(SETTINGS) if round_ % 2 == 0 else list(reversed(SETTINGS))
            for name in order:
                out = Path(tmp) / "r.csv"
                walls[name].append(timed(args.backend, data, out, SETTINGS[name], args.count))
                print(f"round {round_ + 1} {name:18} {walls[name][-1]:7.2f} s", flush=True)
    start_up = statistics.median(cluster_start() for _ in range(3))
    print(f"\n{args.count:,} puzzles, backend {args.backend}, median of {args.rounds} rounds")
    rates = {}
    for name, values in walls.items():
        wall = statistics.median(values)
        rates[name] = args.count / wall
        print(f"{name:18} wall {wall:7.2f} s  {rates[name]:8,.0f} puzzles/s")
    local, cluster = rates["--jobs 2"], rates["--cluster local:2"]
    print(f"cluster / local throughput: {cluster / local:.2f} ({1 - cluster / local:+.1%} slower)")
    without = args.count / (statistics.median(walls["--cluster local:2"]) - start_up)
    print(
        f"LocalCluster start-up alone: {start_up:.2f} s; cluster rate without it: "
        f"{without:,.0f} puzzles/s ({without / local:.2f} of local)"
    )


if __name__ == "__main__":
    main()
