"""Known puzzles, builders, the public sets and an independent answer check for the tests."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from backends.base import Backend, SearchOutcome, SolveResult, Status
from backends.puzzle import Puzzle

#: The public puzzle collections, kept beside the project and never copied into it.
SHARED_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
#: The datasets the project ships.
PROJECT_DATASETS = Path(__file__).resolve().parents[1] / "datasets"

# Norvig's top95, puzzle 1.
TOP95_FIRST = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
# Norvig's hardest, puzzle 1.
HARDEST_FIRST = "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4."
# Norvig's easy50, puzzle 1 (Project Euler 96, grid 01): naked and hidden singles solve it.
EASY_FIRST = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
#: UNSAT that needs search: Norvig's first "hardest" puzzle (unique) with r1c3 set to 1, a
#: digit no peer holds but the unique solution does not have there.
WRONG_GIVEN = HARDEST_FIRST[:2] + "1" + HARDEST_FIRST[3:]
# Row 1 holds 1-7; 8 sits in the columns of both its empty cells, so 8 has no place there.
NO_PLACE_FOR_8 = "1234567.." + "." * 18 + ".......8." + "." * 18 + "........8" + "." * 18


def shipped(name: str) -> list[Puzzle]:
    """The puzzles of one of the project's own datasets/ files, read as `harness run` reads
    them (comments skipped, tdoku's ``puzzle:count`` form understood)."""
    from harness.puzzles.readers import read_puzzles

    return [record.puzzle for record in read_puzzles(PROJECT_DATASETS / name).records]


def public_file(name: str) -> Path:
    """The path of a public dataset file, or a skip naming that one path."""
    path = SHARED_DATASETS / name
    if not path.is_file():
        pytest.skip(f"public dataset absent: {path}")
    return path


def public_set(name: str) -> list[Puzzle]:
    """The puzzles of a public dataset file, or a skip naming it (:func:`public_file`)."""
    return [Puzzle.parse(line) for line in public_file(name).read_text().split()]


def plain_grid(box: int) -> list[int]:
    """A valid solved grid from the box-shift formula, digits in their natural order."""
    n = box * box
    return [(box * (r % box) + r // box + c) % n + 1 for r in range(n) for c in range(n)]


def formula_grid(box: int, seed: int = 0) -> list[int]:
    """A valid solved grid: the box-shift pattern, its digits shuffled."""
    digits = list(range(1, box * box + 1))
    random.Random(seed).shuffle(digits)
    return [digits[d - 1] for d in plain_grid(box)]


def with_blanks(grid: list[int], share: float, seed: int = 0) -> Puzzle:
    """The grid with a share of its cells emptied (seeded)."""
    cells = list(grid)
    for c in random.Random(seed).sample(range(len(cells)), int(share * len(cells))):
        cells[c] = 0
    return Puzzle.from_digits(tuple(cells))


def solves(puzzle: Puzzle, grid: tuple[int, ...] | None) -> bool:
    """Independent check: a full valid grid that keeps every given."""
    box, n = puzzle.box, puzzle.box * puzzle.box
    if grid is None or len(grid) != n * n:
        return False
    want = set(range(1, n + 1))
    rows = [grid[r * n : (r + 1) * n] for r in range(n)]
    cols = [grid[c::n] for c in range(n)]
    boxes = [
        [grid[(br * box + i) * n + bc * box + j] for i in range(box) for j in range(box)]
        for br in range(box)
        for bc in range(box)
    ]
    kept = all(g == d for g, d in zip(grid, puzzle.cells, strict=True) if d)
    return kept and all(set(group) == want for group in rows + cols + boxes)


def run(backend: Backend, puzzle: Puzzle, limit: int = 1) -> SolveResult:
    """Encode then solve."""
    return backend.solve(backend.encode(puzzle), limit=limit)


def effort(
    result: SolveResult | SearchOutcome,
) -> tuple[Status, int | None, int | None, int | None]:
    """The status and search counters of a result or a search outcome, to compare at once."""
    return result.status, result.nodes, result.guesses, result.backtracks


def no_digit_left(box: int) -> Puzzle:
    """UNSAT without equal givens: row 1 holds 1..n-1, the last column's bottom holds n."""
    n = box * box
    cells = [0] * (n * n)
    cells[: n - 1] = range(1, n)
    cells[n * n - 1] = n
    return Puzzle.from_digits(tuple(cells))


def many_solutions(box: int) -> Puzzle:
    """A puzzle with several solutions: an empty grid, or for 16x16 a sparse formula grid."""
    if box < 4:
        return Puzzle.from_digits((0,) * box**4)
    return with_blanks(formula_grid(box, seed=box), 0.6, seed=box)


def duplicate_given(box: int) -> Puzzle:
    """UNSAT with equal givens: digit 1 twice in row 1."""
    n = box * box
    return Puzzle.from_digits((1, 1) + (0,) * (n * n - 2))
