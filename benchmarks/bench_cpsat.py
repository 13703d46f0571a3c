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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import (
    TIMING_COLUMNS,
    load_puzzles,
    median_max,
    print_table,
    require_available,
    run_interleaved,
    timing_cells,
    timing_parser,
    warm_up,
)

from backends.cpsat import MODELS, CpSatBackend

COMBOS: list[tuple[str, bool]] = [(m, p) for m in MODELS for p in (True, False)]
COLUMNS = [
    ("model", "<8"),
    ("presolve", "<8"),
    *TIMING_COLUMNS,
    ("br med", ">7.0f"),
    ("br max", ">7.0f"),
    ("cf med", ">7.0f"),
    ("cf max", ">7.0f"),
]


def main() -> int:
    parser = timing_parser(__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1, help="solutions to look for")
    args = parser.parse_args()
    require_available(CpSatBackend)
    puzzles = load_puzzles(args.dataset)
    backends = {c: CpSatBackend(model=c[0], presolve=c[1]) for c in COMBOS}
    warm_up(backends.values(), puzzles[:1])  # import and load OR-Tools
    figures = run_interleaved(backends, puzzles, args.repeats, args.limit)

    print(
        f"{args.dataset.name}: {len(puzzles)} puzzles, limit={args.limit}, "
        f"repeats={args.repeats}; ms are medians/max over puzzles of per-puzzle medians"
    )
    timings = timing_cells(figures)
    print_table(
        COLUMNS,
        [
            (
                model,
                str(presolve).lower(),
                *timings[(model, presolve)],
                *median_max(f.native("num_branches")),
                *median_max(f.native("num_conflicts")),
            )
            for (model, presolve), f in figures.items()
        ],
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
