"""Per-node speed of the ``mrv`` backend against a plain set-based version of the same search.

Usage::

    python benchmarks/bench_mrv.py [--dataset PATH] [--repeats R] [--reference-limit K]

Runs ``mrv`` (defaults: fewest-candidates cell, ascending digits, forward checking) on every
puzzle of the dataset (Norvig's top95 by default), and, side by side in the same process, a
straightforward reference written the way seed 000's write-up describes its search: Python
sets of options, the affected cells recomputed at every node, the first cell with strictly
fewest options, digits in ascending order, stop at the first solution. Both count nodes the
same way (calls of the search), so the per-node figures compare like with like, and the
script says whether the two node counts agree puzzle by puzzle.

CPU time is ``time.process_time``; each run repeats ``R`` times (interleaved: mrv, then the
reference) and the medians are printed. The reference is slow (tens of seconds over top95),
so ``--reference-limit K`` runs it on the first K puzzles only; mrv's figures are then given
both over the whole dataset and over those same K puzzles.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import check_answer, load_puzzles, timing_parser

from backends.mrv import MrvBackend
from backends.puzzle import Puzzle

# --- the reference: seed 000's search as its write-up describes it, on Python sets ---------


def affected(cell: int, box: int) -> set[int]:
    """Every cell sharing a row, column or box with ``cell``, itself excluded (recomputed)."""
    n = box * box
    row, col = divmod(cell, n)
    top, left = row - row % box, col - col % box
    cells = {row * n + c for c in range(n)} | {r * n + col for r in range(n)}
    cells |= {(top + r) * n + left + c for r in range(box) for c in range(box)}
    cells.discard(cell)
    return cells


def reference_solve(digits: list[int], box: int) -> tuple[list[int] | None, int]:
    """The first solution (or None) and the number of search calls made to find it."""
    n = box * box
    grid = list(digits)
    options = [
        set(range(1, n + 1)) - {grid[p] for p in affected(cell, box)} if not grid[cell] else set()
        for cell in range(n * n)
    ]
    calls = 0

    def dive() -> bool:
        nonlocal calls
        calls += 1
        target, fewest = -1, n + 1
        for cell in range(n * n):
            if grid[cell] == 0 and len(options[cell]) < fewest:
                target, fewest = cell, len(options[cell])
        if target < 0:
            return True
        peers = affected(target, box)
        for digit in sorted(options[target]):
            touched = [p for p in peers if digit in options[p]]
            grid[target] = digit
            for p in touched:
                options[p].remove(digit)
            if dive():
                return True
            for p in touched:
                options[p].add(digit)
        grid[target] = 0
        return False

    return (grid if dive() else None), calls


# --- timing --------------------------------------------------------------------------------


def run_mrv(puzzles: list[Puzzle]) -> Iterator[tuple[int, float]]:
    """(nodes, CPU seconds) per puzzle, encode and solve included; every answer checked."""
    backend = MrvBackend()
    for puzzle in puzzles:
        start = time.process_time()
        result = backend.solve(backend.encode(puzzle))
        cpu = time.process_time() - start
        check_answer("mrv", puzzle, result.solution)
        assert result.nodes is not None
        yield result.nodes, cpu


def run_reference(puzzles: list[Puzzle]) -> Iterator[tuple[int, float]]:
    """(nodes, CPU seconds) per puzzle for the set-based reference; every answer checked."""
    for puzzle in puzzles:
        start = time.process_time()
        solution, calls = reference_solve(list(puzzle.cells), puzzle.box)
        cpu = time.process_time() - start
        check_answer("the reference", puzzle, solution)
        yield calls, cpu


def main(argv: list[str] | None = None) -> int:
    parser = timing_parser(__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reference-limit",
        type=int,
        default=None,
        metavar="K",
        help="run the slow reference on the first K puzzles only (default: all)",
    )
    args = parser.parse_args(argv)
    puzzles = load_puzzles(args.dataset)
    k = len(puzzles) if args.reference_limit is None else min(args.reference_limit, len(puzzles))

    mrv_all: list[float] = []
    mrv_first_k: list[float] = []
    ref_first_k: list[float] = []
    mrv_nodes: list[int] = []
    ref_nodes: list[int] = []
    for _ in range(max(1, args.repeats)):
        runs = list(run_mrv(puzzles))
        mrv_nodes = [nodes for nodes, _ in runs]
        mrv_all.append(sum(cpu for _, cpu in runs))
        mrv_first_k.append(sum(cpu for _, cpu in runs[:k]))
        ref_runs = list(run_reference(puzzles[:k]))
        ref_nodes = [nodes for nodes, _ in ref_runs]
        ref_first_k.append(sum(cpu for _, cpu in ref_runs))

    def line(label: str, nodes: int, cpus: list[float]) -> float:
        cpu = statistics.median(cpus)
        per_node = cpu / nodes * 1e6
        print(f"{label:<34} nodes {nodes:>10,}  cpu {cpu:8.3f} s  {per_node:7.3f} us/node")
        return per_node

    repeats = max(1, args.repeats)
    print(f"dataset {args.dataset} ({len(puzzles)} puzzles); medians of {repeats} run(s)")
    line(f"mrv, all {len(puzzles)} puzzles", sum(mrv_nodes), mrv_all)
    mine = line(f"mrv, first {k} puzzles", sum(mrv_nodes[:k]), mrv_first_k)
    theirs = line(f"set-based reference, first {k}", sum(ref_nodes), ref_first_k)
    same = sum(a == b for a, b in zip(mrv_nodes[:k], ref_nodes, strict=True))
    print(f"node counts equal on {same} of {k} puzzles")
    print(f"per-node speed ratio (reference us/node / mrv us/node): {theirs / mine:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
