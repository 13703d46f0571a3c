"""Harness overhead: the whole wall time of `harness run` against the solve times it records.

    python benchmarks/bench_overhead.py [--backend SPEC] [--count 10000] [--rounds 3]
                                        [--jobs 1 --jobs 2]

It builds a file of COUNT distinct 9x9 puzzles by applying validity-preserving symmetries
(digit relabelling, band/stack and row/column permutations, transposition) to the public
puzzle sets in ../shared/datasets, then times `harness run -q` on it in a subprocess at
each --jobs, and on its first puzzle alone, in alternation, ROUNDS times each. It prints
the medians of:

* start-up: the whole wall time of `harness run -q` on one puzzle, after one untimed run
  (so the disk cache is warm): Python's start, imports, reading, provenance and the
  calibration, a worker, the CSV, the table, exit (target: at most 0.15 s);
* wall: the subprocess's whole wall time on COUNT puzzles;
* solve: the sum of the backend's encode + solve times over every row (what a user asked
  to measure), and that sum over the worker count, the time the solves would take on
  JOBS workers that never wait for the harness;
* overhead = wall / (solve / jobs) - 1, per run (targets: at most 5 % at
  --jobs 1 and 10 % at --jobs 2 on 10,000 puzzles with the fastest backend). At --jobs 2
  on this 2-core machine the parent competes with the workers for the cores;
* marginal: (wall - start-up - solve / jobs) / COUNT, what the harness adds per puzzle
  beyond its fixed cost (a rough split: the start-up run has fewer rows to read and tabulate);
* in worker: the part of it spent in the workers around each timed solve, from the rows'
  wall_s (the task's whole time in its worker) less their encode + solve times, over jobs;
* where the overhead goes: the start-up, the in-worker time and the rest (the parent's
  share of the cores at --jobs 2, the workers' waits for tasks, the tables at the end),
  each as points of the overhead, so a target can be read against what is fixed;
* CPU: the user + system time of the harness and all its workers (from the run's ended
  children), the rows' encode + solve CPU times, the CPU per puzzle beside the solves,
  and, with at least as many workers as cores, the floor: the overhead the run would have
  if no core ever waited, since the wall time is at least all the CPU over the cores.

The default backend is the fastest one (FASTEST in common.py, `bitmask`; `--backend` takes any
other), because the faster the solver, the larger the harness's share. Before timing,
the project's bytecode is compiled (as `pip install` does), so that the figures do not
include compiling the harness's own source on every start when the environment sets
PYTHONDONTWRITEBYTECODE. The load average is printed before and after: the machine is
shared, and other load inflates both the wall and the solve times.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from common import DATASETS, FASTEST, children_cpu, harness_run

ROOT = Path(__file__).resolve().parents[1]


def variant(text: str, rng: random.Random) -> str:
    """A random symmetry of a 9x9 puzzle: same difficulty class, different text."""
    digits = list("123456789")
    rng.shuffle(digits)
    relabel = dict(zip("123456789", digits, strict=True))
    bands = rng.sample(range(3), 3)
    rows = [b * 3 + r for b in bands for r in rng.sample(range(3), 3)]
    stacks = rng.sample(range(3), 3)
    cols = [s * 3 + c for s in stacks for c in rng.sample(range(3), 3)]
    grid = [[text[r * 9 + c] for c in cols] for r in rows]
    if rng.random() < 0.5:
        grid = [list(col) for col in zip(*grid, strict=True)]
    return "".join(relabel.get(ch, ".") for row in grid for ch in row)


def build(count: int, seed: int) -> list[str]:
    sources = []
    for name in ("norvig-top95.txt", "norvig-hardest.txt", "norvig-easy50.txt"):
        sources += [line.strip() for line in (DATASETS / name).read_text().splitlines() if line]
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        text = variant(rng.choice(sources), rng)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


class Run(NamedTuple):
    """One timed `harness run`, in seconds."""

    wall: float  #: the subprocess's whole wall time
    solve: float  #: the sum of encode + solve over its rows
    in_worker: float  #: the sum of the rows' wall_s: each task's whole time in its worker
    cpu: float  #: the CPU time of the harness and its workers, all of it
    solve_cpu: float  #: the sum of encode_cpu_s + solve_cpu_s over its rows


def timed_run(backend: str, data: Path, out: Path, jobs: int) -> Run:
    """One `harness run -q` in a subprocess (:func:`common.harness_run`, which exits with the
    harness's output when it fails); exits when a puzzle is not SOLVED."""
    cpu = children_cpu()
    wall, rows = harness_run(backend, data, out, "--jobs", str(jobs))
    cpu = children_cpu() - cpu
    unsolved = rows.status[rows.status != "SOLVED"]
    if len(unsolved):
        sys.exit(f"{backend}: {len(unsolved)} puzzle(s) not SOLVED, e.g. {unsolved.iloc[0]}")
    return Run(
        wall,
        float((rows.encode_s + rows.solve_s).sum()),
        float(rows.wall_s.sum()),
        cpu,
        float((rows.encode_cpu_s + rows.solve_cpu_s).sum()),
    )


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", default=FASTEST, help=f"default {FASTEST}")
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, action="append", help="repeatable; default 1 and 2")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not DATASETS.is_dir():
        print(f"public datasets absent: {DATASETS} not found", file=sys.stderr)
        return 2
    if args.count < 1000 or args.rounds < 1:
        parser.error("--count must be at least 1000, --rounds at least 1")
    jobs_list = args.jobs or [1, 2]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "backends"), str(ROOT / "harness")],
        check=True,
        capture_output=True,
    )
    puzzles = build(args.count, args.seed)
    print(f"{args.backend}: {args.count} puzzles, {args.rounds} rounds; load average {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        big, one = Path(tmp) / "big.txt", Path(tmp) / "one.txt"
        big.write_text("\n".join(puzzles) + "\n")
        one.write_text(puzzles[0] + "\n")
        out = Path(tmp) / "run.csv"
        timed_run(args.backend, one, out, 1)  # untimed: warms the disk cache
        startups: list[float] = []
        runs: dict[int, list[Run]] = {jobs: [] for jobs in jobs_list}
        for _ in range(args.rounds):  # alternate, so drift of the machine hits every figure
            startups.append(timed_run(args.backend, one, out, 1).wall)
            for jobs in jobs_list:
                runs[jobs].append(timed_run(args.backend, big, out, jobs))
        startup = statistics.median(startups)
        print(f"start-up (harness run -q, one puzzle): {startup:.3f} s (target <= 0.15 s)")
        print(
            f"{'jobs':>4} {'wall s':>8} {'solve s':>8} {'solve/jobs':>10} {'overhead':>9} "
            f"{'target':>7} {'us/puzzle':>10} {'in worker':>10}"
        )
        split: dict[int, tuple[float, float, float]] = {}
        for jobs, done in runs.items():
            wall = statistics.median(r.wall for r in done)
            solve = statistics.median(r.solve for r in done)
            overhead = statistics.median(r.wall / (r.solve / jobs) - 1 for r in done)
            marginal = statistics.median((r.wall - startup - r.solve / jobs) for r in done)
            worker = statistics.median((r.in_worker - r.solve) / jobs for r in done)
            target = "5 %" if jobs == 1 else "10 %"
            print(
                f"{jobs:4} {wall:8.3f} {solve:8.3f} {solve / jobs:10.3f} {100 * overhead:8.1f}% "
                f"{target:>7} {1e6 * marginal / args.count:10.1f} {1e6 * worker / args.count:10.1f}"
            )
            split[jobs] = (startup / (solve / jobs), worker / (solve / jobs), overhead)
        print("\nwhere the overhead goes, in points of it (median runs):")
        print(f"{'jobs':>4} {'start-up':>9} {'in worker':>10} {'the rest':>9}")
        for jobs, (fixed, around, overhead) in split.items():
            rest = overhead - fixed - around
            print(f"{jobs:4} {100 * fixed:8.1f}% {100 * around:9.1f}% {100 * rest:8.1f}%")
        print("\nCPU time of the harness and its workers (median runs):")
        beside_head = "us/puzzle beside the solves"
        print(f"{'jobs':>4} {'all s':>8} {'solves s':>9} {beside_head:>28}  floor")
        for jobs, done in runs.items():
            cpu = statistics.median(r.cpu for r in done)
            beside = statistics.median((r.cpu - r.solve_cpu) / args.count for r in done)
            cores = os.cpu_count() or 1  # wall >= cpu / cores, so the overhead is at least:
            floor = statistics.median(r.cpu / cores / (r.solve / jobs) - 1 for r in done)
            shown = f"{100 * floor:5.1f}%" if jobs >= cores else "    -"
            solves = statistics.median(r.solve_cpu for r in done)
            print(f"{jobs:4} {cpu:8.3f} {solves:9.3f} {1e6 * beside:28.1f}  {shown}")
    print(
        f"\noverhead = wall / (sum of encode + solve over the rows / jobs) - 1, median of the "
        f"runs;\nus/puzzle = (wall - start-up - solve / jobs) / puzzles;\nin worker = (sum of "
        f"wall_s - sum of encode + solve) / jobs / puzzles: the part of\nus/puzzle spent in the "
        f"workers around each timed solve (building the task, clocks, memory\nmarks, the answer);\n"
        f"start-up, in worker, the rest: the one-puzzle run's wall time, the in-worker time and\n"
        f"what remains (the parent's share at --jobs 2, waits, reading and tabulating more rows),\n"
        f"each over solve / jobs;\n"
        f"CPU: user + system time of the harness and its workers, all of it, and the rows' encode\n"
        f"+ solve CPU times; beside the solves: the difference over the puzzles (the harness's\n"
        f"start, reading, checking, writing, tables; the workers' loop and measurements);\n"
        f"floor: with at least as many workers as cores, the overhead even if no core ever idled:\n"
        f"wall >= CPU / cores, so overhead >= (CPU / cores) / (solve / jobs) - 1;\n"
        f"load average {load()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
