"""Benchmark the python-constraint backend's solvers side by side, each solve in a subprocess.

Run from the project root::

    .venv/bin/python benchmarks/bench_python_constraint.py
    .venv/bin/python benchmarks/bench_python_constraint.py --prune both --timeout 20

For every puzzle of Norvig's hardest (11) and the first 20 of top95, every configuration (a
backend spec: solver x prune) solves the puzzle in a fresh subprocess that is killed after
``--timeout`` seconds (the compiled core ignores signals, so no in-process alarm would do).
Configurations run interleaved, puzzle by puzzle, so machine noise hits them alike.

Printed: one row per puzzle (solve-phase ms, or TIMEOUT), then per configuration and set the
solved count, the median and max of the solve phase, the ratio of medians to the first
configuration (c0), the median of the per-puzzle ratios to c0, and the total constraint checks
(``-`` when some run has none). A timed-out solve counts as the timeout in the median and max,
which are then shown with ``>=`` (the timeout covers the worker's start-up, a few hundred ms,
so with the default 10 s it is a near bound). Times are wall-clock ms from
``time.perf_counter`` inside the worker; the library is imported before timing starts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import DATASETS

ROOT = Path(__file__).resolve().parents[1]
SETS: dict[str, tuple[str, int]] = {
    "hardest": ("norvig-hardest.txt", 11),
    "top95": ("norvig-top95.txt", 20),
}


@dataclass(frozen=True)
class Run:
    """One solve's outcome as the worker reports it (or TIMEOUT/ERROR from the parent)."""

    status: str
    encode_ms: float | None = None
    solve_ms: float | None = None
    checks: int | None = None
    detail: str = ""


def worker(spec: str, text: str, limit: int) -> None:
    """Encode and solve one puzzle in this process; print one JSON line."""
    sys.path.insert(0, str(ROOT))
    from backends import parse_spec
    from backends.puzzle import Puzzle
    from backends.python_constraint import PythonConstraintBackend

    _, options = parse_spec(spec)
    backend = PythonConstraintBackend(**options)
    puzzle = Puzzle.parse(text)
    t0 = time.perf_counter()
    encoded = backend.encode(puzzle)
    t1 = time.perf_counter()
    result = backend.solve(encoded, limit=limit)
    t2 = time.perf_counter()
    print(
        json.dumps(
            {
                "status": str(result.status),
                "encode_ms": (t1 - t0) * 1e3,
                "solve_ms": (t2 - t1) * 1e3,
                "checks": result.native.get("constraint_checks"),
            }
        )
    )


def run_one(spec: str, text: str, limit: int, timeout: float) -> Run:
    """Solve in a subprocess, killed after ``timeout`` seconds."""
    command = [sys.executable, __file__, "--worker", spec, text, "--limit", str(limit)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return Run("TIMEOUT")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        return Run("ERROR", detail=f"rc={done.returncode}: {last}")
    return Run(**json.loads(done.stdout.strip().splitlines()[-1]))


def load(name: str) -> list[str]:
    filename, count = SETS[name]
    lines = (DATASETS / filename).read_text().split()
    return lines[:count]


def capped(run: Run, timeout_ms: float) -> float:
    """A run's solve ms, a solve without a time (TIMEOUT, ERROR) counting as the timeout."""
    return run.solve_ms if run.solve_ms is not None else timeout_ms


def summarize(runs: list[Run], timeout_ms: float) -> tuple[str, str, float]:
    """(median text, max text, median value) of solve ms, a TIMEOUT counted as the timeout."""
    values = [capped(r, timeout_ms) for r in runs]
    n_capped = sum(1 for r in runs if r.solve_ms is None)
    median = statistics.median(values)
    # Timeouts sort last; the median is only a lower bound when one reaches the middle.
    median_mark = ">=" if len(values) // 2 >= len(values) - n_capped else ""
    mark = ">=" if n_capped else ""
    return f"{median_mark}{median:.1f}", f"{mark}{max(values):.1f}", median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", nargs=2, metavar=("SPEC", "PUZZLE"), help=argparse.SUPPRESS)
    parser.add_argument("--limit", type=int, default=1, help="solutions to look for (1 or 2)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per solve")
    parser.add_argument(
        "--solvers", default="backtracking,recursive,optimized", help="comma-separated solvers"
    )
    parser.add_argument("--prune", choices=("true", "false", "both"), default="true")
    parser.add_argument("--count-checks", choices=("true", "false", "both"), default="true")
    parser.add_argument("--sets", default="hardest,top95", help="comma-separated: hardest,top95")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], args.limit)
        return
    if not DATASETS.is_dir():
        sys.exit(f"no datasets folder at {DATASETS}")

    prunes = ("true", "false") if args.prune == "both" else (args.prune,)
    counts = ("true", "false") if args.count_checks == "both" else (args.count_checks,)
    specs = [
        f"python-constraint:solver={solver},prune={prune},count_checks={count}"
        for solver in args.solvers.split(",")
        for prune in prunes
        for count in counts
    ]
    labels = [spec.split(":", 1)[1].replace("count_checks", "count") for spec in specs]
    print(f"limit={args.limit} timeout={args.timeout}s python={sys.version.split()[0]}")
    for i, label in enumerate(labels):
        print(f"  c{i}: {label}")
    timeout_ms = args.timeout * 1e3
    results: dict[tuple[str, int], list[Run]] = {}
    for set_name in args.sets.split(","):
        puzzles = load(set_name)
        print(f"\n{set_name}: solve ms per puzzle (checks in brackets)")
        print(f"{'#':>3} " + " ".join(f"{f'c{i}':>20}" for i in range(len(specs))))
        for number, text in enumerate(puzzles, 1):
            cells = []
            for i, spec in enumerate(specs):
                run = run_one(spec, text, args.limit, args.timeout)
                results.setdefault((set_name, i), []).append(run)
                if run.solve_ms is None:
                    cells.append(f"{run.status:>20}")
                else:
                    extra = f" {run.status}" if run.status != "SOLVED" else ""
                    cells.append(f"{f'{run.solve_ms:.1f} [{run.checks}]{extra}':>20}")
            print(f"{number:>3} " + " ".join(cells), flush=True)
            for i in range(len(specs)):
                if results[(set_name, i)][-1].detail:
                    print(f"    c{i}: {results[(set_name, i)][-1].detail}")

    print("\nsummary: solve-phase ms (a TIMEOUT counts as the timeout, and marks bounds >=)")
    print("  med x c0: ratio of medians; pp x c0: median over puzzles of the per-puzzle ratio")
    header = f"{'set':<8} {'cfg':<4} {'solved':>7} {'median':>10} {'max':>10}"
    print(f"{header} {'med x c0':>9} {'pp x c0':>8} {'checks':>9}  label")
    for set_name in args.sets.split(","):
        base_runs = results[(set_name, 0)]
        base_median = summarize(base_runs, timeout_ms)[2]
        for i, label in enumerate(labels):
            runs = results[(set_name, i)]
            solved = sum(1 for r in runs if r.status == "SOLVED")
            median_text, max_text, median = summarize(runs, timeout_ms)
            ratios = [
                capped(r, timeout_ms) / capped(b, timeout_ms)
                for r, b in zip(runs, base_runs, strict=True)
            ]
            checks = sum(r.checks or 0 for r in runs) if all(r.checks for r in runs) else None
            print(
                f"{set_name:<8} {f'c{i}':<4} {f'{solved}/{len(runs)}':>7} {median_text:>10} "
                f"{max_text:>10} {median / base_median:>9.2f} {statistics.median(ratios):>8.2f} "
                f"{checks if checks is not None else '-':>9}  {label}"
            )


if __name__ == "__main__":
    main()
