"""Puzzle builders and an independent answer check shared by the backend test files."""

from __future__ import annotations

import random

from backends.puzzle import Puzzle


def formula_grid(box: int, seed: int = 0) -> list[int]:
    """A valid solved grid: the box-shift pattern, its digits shuffled."""
    n = box * box
    digits = list(range(1, n + 1))
    random.Random(seed).shuffle(digits)
    return [digits[(box * (r % box) + r // box + c) % n] for r in range(n) for c in range(n)]


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
