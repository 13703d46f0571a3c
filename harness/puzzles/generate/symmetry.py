"""Symmetries of the givens: which cells are emptied or filled together (a clue group)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from backends.puzzle import Puzzle, geometry
from harness.puzzles.generate.common import GenerateError

#: A symmetry: the images of cell (row, col) of an ``n`` x ``n`` grid under its generators.
Symmetry = Callable[[int, int, int], tuple[tuple[int, int], ...]]


def no_symmetry(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """No symmetry: every cell is a group of its own."""
    return ()


def half_turn(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A half turn about the centre (the classic newspaper symmetry)."""
    return ((n - 1 - row, n - 1 - col),)


def quarter_turn(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A quarter turn about the centre (groups of four, one in the centre)."""
    return ((col, n - 1 - row),)


def mirror(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A reflection in the vertical centre line: left and right swap."""
    return ((row, n - 1 - col),)


def diagonal(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A reflection in the main diagonal (top left to bottom right)."""
    return ((col, row),)


def antidiagonal(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """A reflection in the anti-diagonal (top right to bottom left)."""
    return ((n - 1 - col, n - 1 - row),)


def dihedral(row: int, col: int, n: int) -> tuple[tuple[int, int], ...]:
    """Every rotation and reflection of the square (groups of up to eight)."""
    return (*quarter_turn(row, col, n), *mirror(row, col, n))


#: The symmetries ``--symmetry`` takes, by name.
SYMMETRIES: dict[str, Symmetry] = {
    "none": no_symmetry,
    "rotational": half_turn,
    "quarter": quarter_turn,
    "mirror": mirror,
    "diagonal": diagonal,
    "antidiagonal": antidiagonal,
    "dihedral": dihedral,
}

#: How each symmetry's clue groups are described in a file's header.
SYMMETRY_WORDS: dict[str, str] = {
    "rotational": "a half turn about the centre",
    "quarter": "a quarter turn about the centre",
    "mirror": "a reflection in the vertical centre line",
    "diagonal": "a reflection in the main diagonal",
    "antidiagonal": "a reflection in the anti-diagonal",
    "dihedral": "every rotation and reflection of the square",
}


def check_symmetry(symmetry: str) -> None:
    """Raise :class:`GenerateError` when ``symmetry`` is not one of :data:`SYMMETRIES`."""
    if symmetry not in SYMMETRIES:
        raise GenerateError(f"symmetry {symmetry!r} is not one of {', '.join(SYMMETRIES)}")


@cache
def clue_groups(box: int, symmetry: str = "none") -> tuple[tuple[int, ...], ...]:
    """The groups of cells that are emptied or filled together under ``symmetry``.

    Each group is an orbit of the symmetry (sorted cells), and the groups come in the order
    of their first cell; without symmetry, ``((0,), (1,), ...)``.
    """
    check_symmetry(symmetry)
    images = SYMMETRIES[symmetry]
    n = geometry(box).n
    seen: set[int] = set()
    groups: list[tuple[int, ...]] = []
    for start in range(n * n):
        if start in seen:
            continue
        orbit, todo = {start}, [start]
        while todo:
            row, col = divmod(todo.pop(), n)
            for r, c in images(row, col, n):
                if r * n + c not in orbit:
                    orbit.add(r * n + c)
                    todo.append(r * n + c)
        seen |= orbit
        groups.append(tuple(sorted(orbit)))
    return tuple(groups)


def is_symmetric(puzzle: Puzzle, symmetry: str) -> bool:
    """True when every clue group of ``symmetry`` is all given or all empty in ``puzzle``."""
    return all(
        len({bool(puzzle.cells[c]) for c in group}) == 1
        for group in clue_groups(puzzle.box, symmetry)
    )
