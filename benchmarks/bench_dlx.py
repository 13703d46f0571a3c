"""Effort and speed of the ``dlx`` backend, side by side with ``mrv``, in one run.

Usage::

    python benchmarks/bench_dlx.py [--dataset PATH] [--repeats R] [--compare SPEC ...]

Groups: every puzzle of the dataset (Norvig's top95 by default), then the 16x16 and the 25x25
puzzles of the project's ``datasets/sizes.txt``. For each group and backend it prints the
total nodes, guesses and (for dlx) Knuth's ``updates``, and per-puzzle wall times in ms:
the median of the encode phase, and the median and max of encode + solve. Each puzzle runs
``R`` times, the backends interleaved puzzle by puzzle, and its median over the runs is what
the figures are made of. The last column is the sum of those medians, and the ratio line
compares the sums (other / dlx). Every answer goes through the harness's checker.

The machine is shared and noisy: read the ratios, and rerun before trusting a small gap.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import (
    PROJECT,
    load_puzzles,
    print_table,
    run_interleaved,
    timing_parser,
    warm_up,
)

from backends import make_backend
from backends.puzzle import Puzzle
from harness.puzzles.readers import read_puzzles

SIZES = PROJECT / "datasets" / "sizes.txt"
COLUMNS = [
    ("backend", "<12"),
    ("nodes", ">11,"),
    ("guesses", ">10,"),
    ("updates", ">12"),
    ("enc med", ">9.3f"),
    ("med ms", ">9.3f"),
    ("max ms", ">10.3f"),
    ("sum ms", ">11.1f"),
]


def report(title: str, specs: list[str], puzzles: list[Puzzle], repeats: int) -> None:
    """Every backend on every puzzle of one group, ``repeats`` times: the table and ratios."""
    backends = {spec: make_backend(spec) for spec in specs}
    warm_up(backends.values(), puzzles)
    figures = run_interleaved(backends, puzzles, repeats)
    print(f"\n{title} ({len(puzzles)} puzzles)")
    rows = []
    for spec, f in figures.items():
        updates = [r.native["updates"] for r in f.results if "updates" in r.native]
        rows.append(
            (
                spec,
                f.total("nodes"),
                f.total("guesses"),
                f"{sum(updates):,}" if updates else "-",
                statistics.median(f.encode_ms),
                statistics.median(f.total_ms),
                max(f.total_ms),
                sum(f.total_ms),
            )
        )
    print_table(COLUMNS, rows, sep="")
    sums = {spec: sum(f.total_ms) for spec, f in figures.items()}
    base = sums.get("dlx")
    for spec, total in sums.items():
        if base and spec != "dlx":
            print(f"ratio of sums, {spec} / dlx: {total / base:.2f}x")


def main(argv: list[str] | None = None) -> int:
    parser = timing_parser(__doc__.split("\n\n")[0])
    parser.add_argument(
        "--compare",
        nargs="*",
        default=["mrv"],
        metavar="SPEC",
        help="backends to run beside dlx (default: mrv; none: --compare with no value)",
    )
    args = parser.parse_args(argv)
    repeats = max(1, args.repeats)
    specs = ["dlx", *args.compare]
    groups = [(args.dataset.name, load_puzzles(args.dataset))]
    sized = [record.puzzle for record in read_puzzles(str(SIZES)).records]
    for n in (16, 25):
        groups.append((f"{SIZES.name}, {n}x{n}", [p for p in sized if p.n == n]))
    print(f"backends {', '.join(specs)}; wall ms per puzzle, median of {repeats} run(s)")
    for title, puzzles in groups:
        if puzzles:
            report(title, specs, puzzles, repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
