"""Carving: emptying clue groups of a grid while its solution stays unique.

Uniqueness is a backend's ``limit=2`` solve. Without symmetry a group is one cell, and
carving a full grid gives a **minimal** puzzle: removing any one given leaves two or more
solutions (:func:`is_minimal`). One pass suffices, because a clue that was needed stays
needed as more clues go (fewer givens never rule out a solution). With a symmetry a group
is the set of cells the symmetry maps onto each other, and the result is minimal *for its
symmetry*: no group can go, though a single given of a group sometimes could.
"""

from __future__ import annotations

import random

from backends.base import Backend
from backends.puzzle import Puzzle
from harness.puzzles.generate.common import solve_checked
from harness.puzzles.generate.symmetry import clue_groups


def count_solutions(backend: Backend, puzzle: Puzzle, limit: int = 2) -> int:
    """How many solutions ``backend`` finds for ``puzzle``, up to ``limit``."""
    return solve_checked(backend, puzzle, limit).solutions_found


def emptied(puzzle: Puzzle, group: tuple[int, ...]) -> Puzzle:
    """``puzzle`` with the cells of ``group`` emptied."""
    cells = list(puzzle.cells)
    for c in group:
        cells[c] = 0
    return Puzzle(puzzle.box, tuple(cells))


def minimize(
    puzzle: Puzzle,
    rng: random.Random,
    backend: Backend,
    symmetry: str = "none",
    min_givens: int = 0,
    last: tuple[int, ...] = (),
) -> Puzzle:
    """Empty the given clue groups of ``puzzle`` in a random order while it stays unique.

    A group stays emptied when ``backend`` finds exactly one solution with ``limit=2``. The
    group ``last``, if given, is tried after all the others. No group is emptied that would
    leave fewer than ``min_givens`` givens, and the pass stops once exactly ``min_givens``
    are left (0: never). ``puzzle`` must have a unique solution.
    """
    groups = [g for g in clue_groups(puzzle.box, symmetry) if puzzle.cells[g[0]] and g != last]
    rng.shuffle(groups)
    if last and puzzle.cells[last[0]]:
        groups.append(last)
    givens = puzzle.givens
    for group in groups:
        if givens <= min_givens:
            break
        if givens - len(group) < min_givens:
            continue
        trial = emptied(puzzle, group)
        if count_solutions(backend, trial) == 1:
            puzzle, givens = trial, givens - len(group)
    return puzzle


def carve(
    solution: Puzzle,
    rng: random.Random,
    backend: Backend,
    min_givens: int = 0,
    symmetry: str = "none",
) -> Puzzle:
    """Empty the clue groups of ``solution`` in a random order while the solution stays unique.

    That is :func:`minimize` from the full grid: with ``min_givens=0`` and no symmetry the
    result is a minimal puzzle. Without symmetry the random order is the same shuffle of
    the cells as it always was, so older outputs stay reproducible.
    """
    return minimize(solution, rng, backend, symmetry, min_givens)


def removable_groups(
    puzzle: Puzzle, backend: Backend, symmetry: str = "none"
) -> list[tuple[int, ...]]:
    """The given clue groups whose removal alone keeps ``puzzle``'s solution unique."""
    return [
        group
        for group in clue_groups(puzzle.box, symmetry)
        if puzzle.cells[group[0]] and count_solutions(backend, emptied(puzzle, group)) == 1
    ]


def is_minimal(puzzle: Puzzle, backend: Backend, symmetry: str = "none") -> bool:
    """True when ``puzzle`` is unique and removing any one given (group, with ``symmetry``)
    leaves two or more solutions, as ``backend`` counts with ``limit=2``."""
    if count_solutions(backend, puzzle) != 1:
        return False
    return not removable_groups(puzzle, backend, symmetry)
