"""Throughput: puzzles per second through `harness run`, at --jobs 1 and --jobs 2.

    python benchmarks/bench_throughput.py [--backend SPEC] [--count 50000] [--rounds 3]

It builds COUNT distinct 9x9 puzzles (by default 50,000) with the same reproducible
symmetry variants of the public sets as ``bench_overhead.py`` (its ``build``: digit
relabelling, band, stack, row and column permutations, transposition, seeded), writes them to
one file, and times the whole `harness run -q` on it in a subprocess, for each --jobs value
in turn, ROUNDS times, alternating the job counts so that drift of the machine hits both.
Every row of every run must be SOLVED. It prints, per job count, the medians of:

* wall: the subprocess's whole wall time, start-up to exit (what a user waits for);
* puzzles/s: COUNT / wall;
* solve s: the sum of the backend's encode + solve times over the rows (all workers);
* solver puzzles/s: COUNT / solve s, what the solver alone would do on one core.

The default backend is the fastest pure-Python one, ``bitmask``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_overhead import build
from common import DATASETS, FASTEST, harness_run


def timed_run(backend: str, jobs: int, data: Path, out: Path) -> tuple[float, float]:
    """One `harness run`: (wall seconds, sum of encode + solve seconds); all rows SOLVED."""
    wall, rows = harness_run(backend, data, out, "-j", str(jobs))
    if not (rows.status == "SOLVED").all():
        sys.exit(f"{backend}: not every puzzle was SOLVED: {rows.status.value_counts().to_dict()}")
    return wall, float((rows.encode_s + rows.solve_s).sum())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default=FASTEST, help=f"default {FASTEST}")
    parser.add_argument("--count", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, action="append", help="repeatable; default 1 and 2")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not DATASETS.is_dir():
        print(f"skipped: public datasets absent: {DATASETS} not found")
        return 0
    jobs = args.jobs or [1, 2]
    started = time.perf_counter()
    puzzles = build(args.count, args.seed)
    made = time.perf_counter() - started
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{args.count:,} generated 9x9 puzzles (built in {made:.1f} s), backend {args.backend}, "
        f"{args.rounds} rounds, {os.cpu_count()} cores, load average {load}\n"
    )
    runs: dict[int, list[tuple[float, float]]] = {j: [] for j in jobs}
    with tempfile.TemporaryDirectory() as tmp:
        data, out = Path(tmp) / "puzzles.txt", Path(tmp) / "run.csv"
        data.write_text("\n".join(puzzles) + "\n")
        for _ in range(args.rounds):
            for j in jobs:
                runs[j].append(timed_run(args.backend, j, data, out))
    print(f"{'jobs':>4} {'wall s':>8} {'puzzles/s':>10} {'solve s':>8} {'solver puzzles/s':>17}")
    for j in jobs:
        wall = statistics.median(w for w, _ in runs[j])
        solve = statistics.median(s for _, s in runs[j])
        rates = f"{args.count / wall:10,.0f} {solve:8.2f} {args.count / solve:17,.0f}"
        print(f"{j:>4} {wall:8.2f} {rates}")
    print("\nmedians of the rounds; wall = the whole `harness run -q`, start-up to exit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
