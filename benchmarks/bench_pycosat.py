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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import (
    DATASETS,
    TIMING_COLUMNS,
    Figures,
    load_puzzles,
    print_table,
    require_available,
    run_interleaved,
    timing_cells,
)

from backends.engines import cnf
from backends.puzzle import Puzzle
from backends.pycosat_backend import PycosatBackend

COMBOS: list[tuple[str, bool]] = [(e, r) for e in cnf.ENCODINGS for r in (False, True)]
Combo = tuple[str, bool]
COLUMNS = [
    ("encoding", "<10"),
    ("reduce", "<6"),
    ("vars", ">6.0f"),
    ("clauses", ">8.0f"),
    *TIMING_COLUMNS,
]


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


def run_side_by_side(puzzles: list[Puzzle], repeats: int, limit: int) -> dict[Combo, Figures]:
    """Per combination, per-puzzle medians of encode/solve ms and the CNF sizes."""
    backends = {c: PycosatBackend(encoding=c[0], reduce=c[1]) for c in COMBOS}
    return run_interleaved(backends, puzzles, repeats, limit)


def print_figures(title: str, figures: dict[Combo, Figures]) -> None:
    print(f"\n{title}")
    timings = timing_cells(figures)
    print_table(
        COLUMNS,
        [
            (
                encoding,
                str(reduce).lower(),
                statistics.median(f.native("variables")),
                statistics.median(f.native("clauses")),
                *timings[(encoding, reduce)],
            )
            for (encoding, reduce), f in figures.items()
        ],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per 9x9 puzzle")
    parser.add_argument("--limit", type=int, default=1, help="solutions to look for")
    parser.add_argument("--big-repeats", type=int, default=5, help="timed runs of the 25x25")
    parser.add_argument("--blank", type=float, default=0.6, help="share of 25x25 cells emptied")
    parser.add_argument("--seed", type=int, default=1, help="seed of the 25x25 puzzle")
    args = parser.parse_args()
    require_available(PycosatBackend)

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
        puzzles = load_puzzles(path)
        figures = run_side_by_side(puzzles, args.repeats, args.limit)
        print_figures(f"{name} ({len(puzzles)} puzzles)", figures)

    big = big_puzzle(5, args.blank, args.seed)
    print(f"\n25x25 puzzle, {big.givens} givens (seed {args.seed}), {args.big_repeats} runs each:")
    print(big.to_string())
    figures = run_side_by_side([big] * args.big_repeats, 1, args.limit)
    print_figures("25x25, one puzzle (medians and max over runs)", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
