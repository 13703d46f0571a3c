"""How far the ``logic`` ladder gets without guessing, and what each part of it adds.

Usage::

    python benchmarks/bench_logic.py [--count N] [--seed S] [--jobs J] [--datasets DIR]

1. **Public sets** (Norvig's top95 and hardest, from ``DIR``, by default
   ``../shared/datasets``; skipped with a note when absent): how many puzzles ``logic``
   solves with no guess, its tier mix, and, side by side in the same run, its median nodes
   and CPU time per puzzle against ``mrv:inference=singles`` (Norvig's propagation).
2. **Generated minimal puzzles**: ``N`` (default 1000) 9x9 puzzles made by
   :func:`harness.puzzles.generate.generate` (``harness generate --size 9 --count N --seed S``:
   a random grid carved to a minimal unique puzzle), rated. Reports the share solved with no
   guess, the tier mix, how many puzzles each strategy fired in, and an ablation: the
   no-guess share with the ladder cut after each level, and level 3 without its two most
   general rungs (aic, forcing chain).

Every answer is checked with the harness's checker. CPU time is ``time.process_time``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import DATASETS

from backends import make_backend
from backends.engines.strategies.board import Board
from backends.engines.strategies.ladder import LADDER, Rule, ladder
from backends.logic import LogicOutcome, fewest, run
from backends.puzzle import Puzzle
from harness.check.checker import check_solution
from harness.puzzles.generate import GenerateOptions, generate
from harness.puzzles.rating import TIERS, rating_of


def solve_logic(puzzle: Puzzle, rules: Sequence[Rule]) -> tuple[int, int, float, LogicOutcome]:
    """(nodes, guesses, CPU seconds, outcome) of one checked logic solve."""
    start = time.process_time()
    board, reason = Board.from_puzzle(puzzle)
    outcome = run(board, rules, fewest, 1, None, False, reason)
    cpu = time.process_time() - start
    problem = check_solution(puzzle.cells, outcome.solutions[0] if outcome.solutions else None)
    if problem:
        raise SystemExit(f"logic gave a wrong answer for {puzzle}: {problem}")
    return outcome.nodes, outcome.guesses, cpu, outcome


def tier_mix(outcomes: Sequence[LogicOutcome]) -> str:
    counts = Counter(rating_of(o).tier for o in outcomes)
    return ", ".join(f"{tier} {counts[tier]}" for tier in TIERS)


def public(directory: Path) -> None:
    singles = make_backend("mrv:inference=singles")
    for name in ("norvig-top95.txt", "norvig-hardest.txt"):
        path = directory / name
        if not path.is_file():
            print(f"{name}: not found in {directory}; skipped")
            continue
        lines = [x.strip() for x in path.read_text().splitlines() if x.strip()]
        puzzles = [Puzzle.parse(x) for x in lines]
        logic_runs = [solve_logic(p, LADDER) for p in puzzles]
        mrv_nodes, mrv_cpu = [], []
        for puzzle in puzzles:
            start = time.process_time()
            result = singles.solve(singles.encode(puzzle))
            mrv_cpu.append(time.process_time() - start)
            if check_solution(puzzle.cells, result.solution):
                raise SystemExit(f"mrv:inference=singles gave a wrong answer for {puzzle}")
            mrv_nodes.append(result.nodes)
        no_guess = sum(1 for _n, g, _c, _o in logic_runs if g == 0)
        ms = [c * 1000 for _n, _g, c, _o in logic_runs]
        mrv_ms = [c * 1000 for c in mrv_cpu]
        print(f"{name}: {len(puzzles)} puzzles")
        print(f"  logic solves {no_guess}/{len(puzzles)} with no guess")
        print(f"  tiers: {tier_mix([o for *_x, o in logic_runs])}")
        print(
            f"  median nodes: logic {statistics.median(n for n, *_x in logic_runs):g}, "
            f"mrv:inference=singles {statistics.median(mrv_nodes):g}"
        )
        print(
            f"  median CPU ms/puzzle: logic {statistics.median(ms):.1f} (max {max(ms):.0f}), "
            f"mrv:inference=singles {statistics.median(mrv_ms):.2f}; "
            f"ratio {statistics.median(ms) / statistics.median(mrv_ms):.0f}x"
        )


def generated(count: int, seed: int, jobs: int) -> None:
    start = time.perf_counter()
    made = generate(GenerateOptions(size=9, count=count, seed=seed), jobs=jobs)
    puzzles = [c.puzzle for c in made.kept]
    print(
        f"\ngenerated: {len(puzzles)} minimal 9x9 puzzles "
        f"(harness generate --size 9 --count {count} --seed {seed}) "
        f"in {time.perf_counter() - start:.1f} s wall"
    )
    runs = [solve_logic(p, LADDER) for p in puzzles]
    no_guess = sum(1 for _n, g, _c, _o in runs if g == 0)
    ms = [c * 1000 for _n, _g, c, _o in runs]
    print(
        f"  logic solves {no_guess}/{len(puzzles)} "
        f"({100 * no_guess / len(puzzles):.1f}%) with no guess"
    )
    print(f"  tiers: {tier_mix([o for *_x, o in runs])}")
    print(f"  CPU ms/puzzle: median {statistics.median(ms):.1f}, max {max(ms):.0f}")
    fired = Counter(name for *_x, o in runs for name in o.counts)
    print("  puzzles in which each strategy fired:")
    for rule in LADDER:
        print(f"    {rule.name:<14} level {rule.level}  {fired[rule.name]:>5}")
    print("  ablation (share solved with no guess):")
    cuts: list[tuple[str, tuple[Rule, ...]]] = [
        ("level 0 (singles)", ladder(0)),
        ("levels 0-1", ladder(1)),
        ("levels 0-2", ladder(2)),
        (
            "levels 0-3 without aic, forcing chain",
            tuple(r for r in LADDER if r.name not in ("aic", "forcing chain")),
        ),
        ("levels 0-3 without forcing chain", tuple(r for r in LADDER if r.name != "forcing chain")),
        ("full ladder", LADDER),
    ]
    for label, rules in cuts:
        if rules == LADDER:
            solved = no_guess
        else:
            solved = sum(1 for p in puzzles if solve_logic(p, rules)[1] == 0)
        print(f"    {label:<40} {solved:>5}/{len(puzzles)} ({100 * solved / len(puzzles):.1f}%)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000, help="generated puzzles")
    parser.add_argument("--seed", type=int, default=2024, help="generator seed")
    parser.add_argument("--jobs", type=int, default=2, help="generator processes")
    parser.add_argument("--datasets", type=Path, default=DATASETS, help="public sets")
    args = parser.parse_args(argv)
    public(args.datasets)
    generated(args.count, args.seed, args.jobs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
