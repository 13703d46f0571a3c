"""Benchmark the ac3 backend on Norvig's top95: every select x order combination, side by side.

Prints, per combination, the total nodes, guesses and backtracks (limit 1) beside the seed
author's 2,540 nodes, and the median and max milliseconds per puzzle (encode + solve). The
combinations run interleaved, puzzle by puzzle, in one process (which one goes first rotates),
and each puzzle's time is the median of ``--repeats`` runs, so a noisy shared machine hits
them all alike. Compare the ratios, not the absolute times.

    .venv/bin/python benchmarks/bench_ac3.py [--repeats 3] [--dataset PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from time import perf_counter

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from backends.ac3 import ORDERS, SELECTS, Ac3Backend  # noqa: E402
from backends.puzzle import Puzzle  # noqa: E402

SEED_AUTHOR_NODES = 2540  # the seed author's total on top95
DEFAULT_DATASET = PROJECT.parent / "shared" / "datasets" / "norvig-top95.txt"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per puzzle")
    args = parser.parse_args()
    if not args.dataset.exists():
        print(f"dataset {args.dataset} is absent; nothing to measure")
        return 1
    puzzles = [Puzzle.parse(line) for line in args.dataset.read_text().split()]
    combos = [(s, o) for s in SELECTS for o in ORDERS]
    backends = {combo: Ac3Backend(select=combo[0], order=combo[1]) for combo in combos}
    seconds: dict[tuple[str, str], list[list[float]]] = {c: [] for c in combos}
    effort: dict[tuple[str, str], list[int]] = {c: [0, 0, 0] for c in combos}

    for backend in backends.values():  # warm up, untimed
        backend.solve(backend.encode(puzzles[0]))
    for puzzle in puzzles:
        runs: dict[tuple[str, str], list[float]] = {c: [] for c in combos}
        for repeat in range(args.repeats):
            shift = repeat % len(combos)  # rotate who goes first
            for combo in combos[shift:] + combos[:shift]:
                backend = backends[combo]
                start = perf_counter()
                result = backend.solve(backend.encode(puzzle))
                runs[combo].append(perf_counter() - start)
                if result.status != "SOLVED":
                    raise SystemExit(f"{combo}: {result.status} on {puzzle}")
                if repeat == 0:  # counters repeat exactly; count them once
                    total = effort[combo]
                    total[0] += result.nodes or 0
                    total[1] += result.guesses or 0
                    total[2] += result.backtracks or 0
        for combo in combos:
            seconds[combo].append(runs[combo])

    base_median = statistics.median(statistics.median(r) for r in seconds[("A", "most")])
    print(
        f"ac3 on {args.dataset.name}: {len(puzzles)} puzzles, limit 1, "
        f"median of {args.repeats} runs per puzzle; seed author's total: "
        f"{SEED_AUTHOR_NODES:,} nodes"
    )
    header = (
        f"{'select':>6} {'order':>6} {'nodes':>7} {'vs 2540':>7} {'guesses':>7} "
        f"{'backtr':>7} {'med ms':>7} {'max ms':>7} {'total s':>7} {'med/A,most':>10}"
    )
    print(header)
    print("-" * len(header))
    for combo in combos:
        per_puzzle = [statistics.median(r) for r in seconds[combo]]
        median = statistics.median(per_puzzle)
        nodes, guesses, backtracks = effort[combo]
        print(
            f"{combo[0]:>6} {combo[1]:>6} {nodes:>7,} {nodes / SEED_AUTHOR_NODES:>7.2f} "
            f"{guesses:>7,} {backtracks:>7,} {median * 1000:>7.2f} "
            f"{max(per_puzzle) * 1000:>7.1f} {sum(per_puzzle):>7.2f} "
            f"{median / base_median:>10.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
