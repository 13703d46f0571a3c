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

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from backends import make_backend
from backends.base import Backend
from backends.puzzle import Puzzle
from harness.checker import check_solution
from harness.readers import read_puzzles

PROJECT = Path(__file__).resolve().parents[1]
DEFAULT_DATASET = PROJECT.parent / "shared" / "datasets" / "norvig-top95.txt"
SIZES = PROJECT / "datasets" / "sizes.txt"


@dataclass
class Tally:
    """One backend's figures on one group of puzzles."""

    nodes: int = 0
    guesses: int = 0
    updates: int | None = None
    encode_ms: list[list[float]] = field(default_factory=list)  # per puzzle, per run
    total_ms: list[list[float]] = field(default_factory=list)

    def medians(self, runs: list[list[float]]) -> list[float]:
        return [statistics.median(times) for times in runs]


def run_once(backend: Backend, puzzle: Puzzle) -> tuple[float, float, int, int, int | None]:
    """(encode ms, encode + solve ms, nodes, guesses, updates) for one checked solve."""
    start = time.perf_counter()
    encoded = backend.encode(puzzle)
    encoded_at = time.perf_counter()
    result = backend.solve(encoded)
    end = time.perf_counter()
    problem = check_solution(puzzle.cells, result.solution)
    if problem:
        raise SystemExit(f"{backend.spec} gave a wrong answer for {puzzle}: {problem}")
    updates = result.native.get("updates")
    return (
        (encoded_at - start) * 1e3,
        (end - start) * 1e3,
        result.nodes or 0,
        result.guesses or 0,
        None if updates is None else int(updates),
    )


def measure(specs: list[str], puzzles: list[Puzzle], repeats: int) -> dict[str, Tally]:
    """Every backend on every puzzle, ``repeats`` times, interleaved puzzle by puzzle."""
    backends = {spec: make_backend(spec) for spec in specs}
    tallies = {spec: Tally() for spec in specs}
    for backend in backends.values():  # warm caches and tables, untimed
        for box in sorted({p.box for p in puzzles}):
            warm = next(p for p in puzzles if p.box == box)
            backend.solve(backend.encode(warm))
    for puzzle in puzzles:
        for spec, backend in backends.items():
            tally = tallies[spec]
            encodes: list[float] = []
            totals: list[float] = []
            for _ in range(repeats):
                encode_ms, total_ms, nodes, guesses, updates = run_once(backend, puzzle)
                encodes.append(encode_ms)
                totals.append(total_ms)
            tally.nodes += nodes
            tally.guesses += guesses
            if updates is not None:
                tally.updates = (tally.updates or 0) + updates
            tally.encode_ms.append(encodes)
            tally.total_ms.append(totals)
    return tallies


def report(title: str, tallies: dict[str, Tally], count: int) -> None:
    print(f"\n{title} ({count} puzzles)")
    print(
        f"{'backend':<12}{'nodes':>11}{'guesses':>10}{'updates':>12}"
        f"{'enc med':>9}{'med ms':>9}{'max ms':>10}{'sum ms':>11}"
    )
    sums: dict[str, float] = {}
    for spec, tally in tallies.items():
        totals = tally.medians(tally.total_ms)
        sums[spec] = sum(totals)
        updates = "-" if tally.updates is None else f"{tally.updates:,}"
        print(
            f"{spec:<12}{tally.nodes:>11,}{tally.guesses:>10,}{updates:>12}"
            f"{statistics.median(tally.medians(tally.encode_ms)):>9.3f}"
            f"{statistics.median(totals):>9.3f}{max(totals):>10.3f}{sums[spec]:>11.1f}"
        )
    base = sums.get("dlx")
    for spec, total in sums.items():
        if base and spec != "dlx":
            print(f"ratio of sums, {spec} / dlx: {total / base:.2f}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET, help="9x9 puzzle file")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each puzzle (median)")
    parser.add_argument(
        "--compare",
        nargs="*",
        default=["mrv"],
        metavar="SPEC",
        help="backends to run beside dlx (default: mrv; none: --compare with no value)",
    )
    args = parser.parse_args(argv)
    if not args.dataset.is_file():
        print(
            f"dataset {args.dataset} not found: this benchmark needs the public puzzle sets "
            "in /work/shared/datasets (or pass --dataset PATH)",
            file=sys.stderr,
        )
        return 2
    repeats = max(1, args.repeats)
    specs = ["dlx", *args.compare]
    lines = [line.strip() for line in args.dataset.read_text().splitlines() if line.strip()]
    groups = [(args.dataset.name, [Puzzle.parse(line) for line in lines])]
    sized = [record.puzzle for record in read_puzzles(str(SIZES)).records]
    for n in (16, 25):
        groups.append((f"{SIZES.name}, {n}x{n}", [p for p in sized if p.n == n]))
    print(f"backends {', '.join(specs)}; wall ms per puzzle, median of {repeats} run(s)")
    for title, puzzles in groups:
        if puzzles:
            report(title, measure(specs, puzzles, repeats), len(puzzles))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
