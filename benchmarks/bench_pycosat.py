"""Benchmark the pycosat backend: every encoding x reduce, side by side.

Prints, per dataset (Norvig's top95 and easy50) and per combination, the median number of
variables and clauses, and the median milliseconds of the encode and solve phases (and the
max of solve). Then the same, median and max, on one 25x25 puzzle built here (a shuffled
formula grid with ``--blank`` of its cells emptied), and the empty-grid counts of every size.

The combinations run interleaved, puzzle by puzzle, in one process (which one goes first
rotates), each puzzle's time being the median of ``--repeats`` runs, so a noisy shared
machine hits them all alike. Compare the ratios, not the absolute times.

    .venv/bin/python benchmarks/bench_pycosat.py [--repeats 3] [--limit 1] [--big-repeats 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path
from time import perf_counter

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from backends import cnf  # noqa: E402
from backends.base import Status  # noqa: E402
from backends.puzzle import Puzzle  # noqa: E402
from backends.pycosat_backend import PycosatBackend  # noqa: E402

DATASETS = PROJECT.parent / "shared" / "datasets"
COMBOS: list[tuple[str, bool]] = [(e, r) for e in cnf.ENCODINGS for r in (False, True)]

Combo = tuple[str, bool]


def big_puzzle(box: int, blank: float, seed: int) -> Puzzle:
    """A shuffled box-shift formula grid with a share ``blank`` of its cells emptied."""
    n = box * box
    rng = random.Random(seed)
    digits = rng.sample(range(1, n + 1), n)
    rows = [b * box + r for b in rng.sample(range(box), box) for r in rng.sample(range(box), box)]
    cols = [s * box + c for s in rng.sample(range(box), box) for c in rng.sample(range(box), box)]
    cells = [digits[(box * (r % box) + r // box + c) % n] for r in rows for c in cols]
    for cell in rng.sample(range(n * n), int(blank * n * n)):
        cells[cell] = 0
    return Puzzle.from_digits(tuple(cells))


def measure(backend: PycosatBackend, puzzle: Puzzle, limit: int) -> tuple[float, float, dict]:
    """One run: (encode ms, solve ms, native)."""
    t0 = perf_counter()
    encoded = backend.encode(puzzle)
    t1 = perf_counter()
    result = backend.solve(encoded, limit=limit)
    t2 = perf_counter()
    if result.status is not Status.SOLVED:
        raise SystemExit(f"{backend.spec} did not solve {puzzle}: {result.status}")
    return (t1 - t0) * 1000, (t2 - t1) * 1000, dict(result.native)


def run_side_by_side(
    puzzles: list[Puzzle], repeats: int, limit: int
) -> dict[Combo, dict[str, list[float]]]:
    """Per combination, per-puzzle medians of encode/solve ms and the CNF sizes."""
    backends = {c: PycosatBackend(encoding=c[0], reduce=c[1]) for c in COMBOS}
    stats: dict[Combo, dict[str, list[float]]] = {
        c: {"encode": [], "solve": [], "variables": [], "clauses": []} for c in COMBOS
    }
    for i, puzzle in enumerate(puzzles):
        order = COMBOS[i % len(COMBOS) :] + COMBOS[: i % len(COMBOS)]
        runs: dict[Combo, list[tuple[float, float, dict]]] = {c: [] for c in COMBOS}
        for _ in range(repeats):
            for combo in order:
                runs[combo].append(measure(backends[combo], puzzle, limit))
        for combo, done in runs.items():
            stats[combo]["encode"].append(statistics.median(r[0] for r in done))
            stats[combo]["solve"].append(statistics.median(r[1] for r in done))
            stats[combo]["variables"].append(done[0][2]["variables"])
            stats[combo]["clauses"].append(done[0][2]["clauses"])
    return stats


def print_table(title: str, stats: dict[Combo, dict[str, list[float]]]) -> None:
    print(f"\n{title}")
    print(
        f"{'encoding':<10} {'reduce':<6} {'vars':>6} {'clauses':>8} {'enc med':>8} "
        f"{'enc max':>8} {'sol med':>8} {'sol max':>8} {'tot med':>8} {'x best':>6}"
    )
    totals = {
        c: statistics.median(e + s for e, s in zip(v["encode"], v["solve"], strict=True))
        for c, v in stats.items()
    }
    best = min(totals.values())
    for (encoding, reduce), v in stats.items():
        print(
            f"{encoding:<10} {str(reduce).lower():<6} "
            f"{statistics.median(v['variables']):>6.0f} {statistics.median(v['clauses']):>8.0f} "
            f"{statistics.median(v['encode']):>8.2f} {max(v['encode']):>8.2f} "
            f"{statistics.median(v['solve']):>8.2f} {max(v['solve']):>8.2f} "
            f"{totals[(encoding, reduce)]:>8.2f} {totals[(encoding, reduce)] / best:>6.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per 9x9 puzzle")
    parser.add_argument("--limit", type=int, default=1, help="solutions to look for")
    parser.add_argument("--big-repeats", type=int, default=5, help="timed runs of the 25x25")
    parser.add_argument("--blank", type=float, default=0.6, help="share of 25x25 cells emptied")
    parser.add_argument("--seed", type=int, default=1, help="seed of the 25x25 puzzle")
    args = parser.parse_args()
    reason = PycosatBackend.available()
    if reason:
        print(f"pycosat backend unavailable: {reason}")
        return 1

    print("Empty-grid CNF sizes (variables / clauses), unreduced:")
    for box in (2, 3, 4, 5):
        sizes = "  ".join(
            f"{e} {v}/{c}" for e in cnf.ENCODINGS for v, c in [cnf.full_counts(box, e)]
        )
        print(f"  {box * box}x{box * box}: {sizes}")

    print(f"\nlimit={args.limit}, repeats={args.repeats}; times in ms, medians over puzzles")
    for name in ("norvig-top95.txt", "norvig-easy50.txt"):
        path = DATASETS / name
        if not path.exists():
            print(f"\n{path} is absent; skipped")
            continue
        puzzles = [Puzzle.parse(line) for line in path.read_text().split()]
        stats = run_side_by_side(puzzles, args.repeats, args.limit)
        print_table(f"{name} ({len(puzzles)} puzzles)", stats)

    big = big_puzzle(5, args.blank, args.seed)
    print(f"\n25x25 puzzle, {big.givens} givens (seed {args.seed}), {args.big_repeats} runs each:")
    print(big.to_string())
    stats = run_side_by_side([big] * args.big_repeats, 1, args.limit)
    print_table("25x25, one puzzle (medians and max over runs)", stats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
