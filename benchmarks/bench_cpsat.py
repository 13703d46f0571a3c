"""Benchmark the cpsat backend on Norvig's top95: both models x presolve on/off, side by side.

Prints, per combination, the median and max milliseconds of the encode (model building) and
solve phases, and the median and max of CP-SAT's ``num_branches`` and ``num_conflicts``
(summed over the solver calls of one solve). One worker and a fixed seed, so the counters
repeat; the times do not.

The combinations run interleaved, puzzle by puzzle, in one process (which one goes first
rotates), each puzzle's time being the median of ``--repeats`` runs, so a noisy shared
machine hits them all alike. Compare the ratios, not the absolute times.

    .venv/bin/python benchmarks/bench_cpsat.py [--repeats 3] [--limit 1] [--dataset PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from time import perf_counter

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from backends.base import Status  # noqa: E402
from backends.cpsat import MODELS, CpSatBackend  # noqa: E402
from backends.puzzle import Puzzle  # noqa: E402

DEFAULT_DATASET = PROJECT.parent / "shared" / "datasets" / "norvig-top95.txt"
COMBOS: list[tuple[str, bool]] = [(m, p) for m in MODELS for p in (True, False)]

Combo = tuple[str, bool]


def measure(backend: CpSatBackend, puzzle: Puzzle, limit: int) -> tuple[float, float, dict]:
    """One run: (encode ms, solve ms, native)."""
    t0 = perf_counter()
    encoded = backend.encode(puzzle)
    t1 = perf_counter()
    result = backend.solve(encoded, limit=limit)
    t2 = perf_counter()
    if result.status is not Status.SOLVED:
        raise SystemExit(f"{backend.spec} did not solve {puzzle}: {result.status}")
    return (t1 - t0) * 1000, (t2 - t1) * 1000, dict(result.native)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per puzzle")
    parser.add_argument("--limit", type=int, default=1, help="solutions to look for")
    args = parser.parse_args()
    reason = CpSatBackend.available()
    if reason:
        print(f"cpsat backend unavailable: {reason}")
        return 1
    if not args.dataset.exists():
        print(f"dataset {args.dataset} is absent; nothing to measure")
        return 1
    puzzles = [Puzzle.parse(line) for line in args.dataset.read_text().split()]
    backends = {c: CpSatBackend(model=c[0], presolve=c[1]) for c in COMBOS}
    measure(backends[COMBOS[0]], puzzles[0], args.limit)  # warm up: import and load OR-Tools
    keys = ("encode", "solve", "num_branches", "num_conflicts")
    stats: dict[Combo, dict[str, list[float]]] = {c: {k: [] for k in keys} for c in COMBOS}
    for i, puzzle in enumerate(puzzles):
        order = COMBOS[i % len(COMBOS) :] + COMBOS[: i % len(COMBOS)]
        runs: dict[Combo, list[tuple[float, float, dict]]] = {c: [] for c in COMBOS}
        for _ in range(args.repeats):
            for combo in order:
                runs[combo].append(measure(backends[combo], puzzle, args.limit))
        for combo, done in runs.items():
            stats[combo]["encode"].append(statistics.median(r[0] for r in done))
            stats[combo]["solve"].append(statistics.median(r[1] for r in done))
            stats[combo]["num_branches"].append(done[0][2]["num_branches"])
            stats[combo]["num_conflicts"].append(done[0][2]["num_conflicts"])

    print(
        f"{args.dataset.name}: {len(puzzles)} puzzles, limit={args.limit}, "
        f"repeats={args.repeats}; ms are medians/max over puzzles of per-puzzle medians"
    )
    print(
        f"{'model':<8} {'presolve':<8} {'enc med':>8} {'enc max':>8} {'sol med':>8} "
        f"{'sol max':>8} {'tot med':>8} {'x best':>6} {'br med':>7} {'br max':>7} "
        f"{'cf med':>7} {'cf max':>7}"
    )
    totals = {
        c: statistics.median(e + s for e, s in zip(v["encode"], v["solve"], strict=True))
        for c, v in stats.items()
    }
    best = min(totals.values())
    for (model, presolve), v in stats.items():
        print(
            f"{model:<8} {str(presolve).lower():<8} "
            f"{statistics.median(v['encode']):>8.2f} {max(v['encode']):>8.2f} "
            f"{statistics.median(v['solve']):>8.2f} {max(v['solve']):>8.2f} "
            f"{totals[(model, presolve)]:>8.2f} {totals[(model, presolve)] / best:>6.2f} "
            f"{statistics.median(v['num_branches']):>7.0f} {max(v['num_branches']):>7.0f} "
            f"{statistics.median(v['num_conflicts']):>7.0f} {max(v['num_conflicts']):>7.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
