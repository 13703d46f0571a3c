"""Benchmark the ac3 backend on Norvig's top95: every select x order combination, side by side.

Prints, per combination, the total nodes, guesses and backtracks (limit 1) beside the seed
author's 2,540 nodes, and the median and max milliseconds per puzzle (encode + solve). The
combinations run interleaved, puzzle by puzzle, in one process (which one goes first rotates),
and each puzzle's time is the median of ``--repeats`` runs, so a noisy shared machine hits
them all alike. Compare the ratios, not the absolute times.

    .venv/bin/python benchmarks/bench_ac3.py [--repeats 3] [--dataset PATH]
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import load_puzzles, print_table, run_interleaved, timing_parser, warm_up

from backends.ac3 import ORDERS, SELECTS, Ac3Backend

SEED_AUTHOR_NODES = 2540  # the seed author's total on top95
COLUMNS = [
    ("select", ">6"),
    ("order", ">6"),
    ("nodes", ">7,"),
    ("vs 2540", ">7.2f"),
    ("guesses", ">7,"),
    ("backtr", ">7,"),
    ("med ms", ">7.2f"),
    ("max ms", ">7.1f"),
    ("total s", ">7.2f"),
    ("med/A,most", ">10.2f"),
]


def main() -> int:
    parser = timing_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    puzzles = load_puzzles(args.dataset)
    backends = {(s, o): Ac3Backend(select=s, order=o) for s in SELECTS for o in ORDERS}
    warm_up(backends.values(), puzzles[:1])
    figures = run_interleaved(backends, puzzles, args.repeats)

    base_median = statistics.median(figures[("A", "most")].total_ms)
    print(
        f"ac3 on {args.dataset.name}: {len(puzzles)} puzzles, limit 1, "
        f"median of {args.repeats} runs per puzzle; seed author's total: "
        f"{SEED_AUTHOR_NODES:,} nodes"
    )
    rows = []
    for (select, order), f in figures.items():
        nodes, median = f.total("nodes"), statistics.median(f.total_ms)
        rows.append(
            (
                select,
                order,
                nodes,
                nodes / SEED_AUTHOR_NODES,
                f.total("guesses"),
                f.total("backtracks"),
                median,
                max(f.total_ms),
                sum(f.total_ms) / 1000,
                median / base_median,
            )
        )
    print_table(COLUMNS, rows, rule=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
