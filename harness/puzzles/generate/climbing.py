"""Adversarial hill-climbing: moves that keep a puzzle unique and minimal while raising a
backend's nodes.

:func:`climb` keeps the puzzle's solution grid fixed and repeats ``iterations`` times: a
move (:func:`mutate`) fills one empty clue group from the solution and, half the time,
empties one given group; a result with more than one solution is refused; otherwise
:func:`~harness.puzzles.generate.carving.minimize` then empties every group it can (the filled group
last), so every puzzle on the way stays unique and minimal. The move is kept when the target
backend's ``nodes`` (``limit=1``) do not fall, so the climb can cross plateaus and never ends
below its start. Every random choice comes from the candidate's own generator: same seed,
same climb.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from backends.base import Backend
from backends.puzzle import Puzzle
from harness.puzzles.generate.carving import count_solutions, emptied, minimize
from harness.puzzles.generate.common import DEFAULT_ITERATIONS
from harness.puzzles.generate.hardness import effort
from harness.puzzles.generate.symmetry import clue_groups

#: The share of adversarial moves that also empty a given group (the rest only fill one).
MOVE_SHARE = 0.5


def mutate(
    puzzle: Puzzle,
    solution: Puzzle,
    rng: random.Random,
    check: Backend,
    symmetry: str = "none",
    min_givens: int = 0,
) -> Puzzle | None:
    """One adversarial move from the unique ``puzzle`` (see the module docstring).

    Fills a random empty clue group from ``solution``; with probability
    :data:`MOVE_SHARE` also empties a random given group, and returns None when that leaves
    more than one solution. Then :func:`minimize` (the filled group last). The result is
    unique, and minimal for ``symmetry``; None also when no group is empty.
    """
    groups = clue_groups(puzzle.box, symmetry)
    given = [g for g in groups if puzzle.cells[g[0]]]
    empty = [g for g in groups if not puzzle.cells[g[0]]]
    if not empty:
        return None
    filled = rng.choice(empty)
    cells = list(puzzle.cells)
    for c in filled:
        cells[c] = solution.cells[c]
    moved = Puzzle(puzzle.box, tuple(cells))
    if given and rng.random() < MOVE_SHARE:
        moved = emptied(moved, rng.choice(given))
        if count_solutions(check, moved) != 1:
            return None
    return minimize(moved, rng, check, symmetry, min_givens, filled)


@dataclass(frozen=True)
class Climb:
    """The end of one hill-climb: the puzzle, its nodes, the nodes it started from, and how
    many of the ``iterations`` moves were kept."""

    puzzle: Puzzle
    nodes: int
    start_nodes: int
    kept: int
    iterations: int


def climb(
    puzzle: Puzzle,
    solution: Puzzle,
    rng: random.Random,
    target: Backend,
    check: Backend,
    iterations: int = DEFAULT_ITERATIONS,
    symmetry: str = "none",
    min_givens: int = 0,
) -> Climb:
    """Hill-climb from ``puzzle`` (unique, solved by ``solution``) to raise ``target``'s nodes.

    ``iterations`` moves of :func:`mutate`, each kept when the nodes do not fall; ``check``
    proves uniqueness. Deterministic in ``rng``'s state.
    """
    best, score = puzzle, effort(target, puzzle, solution)
    start, kept = score, 0
    for _ in range(iterations):
        trial = mutate(best, solution, rng, check, symmetry, min_givens)
        if trial is None or trial == best:
            continue
        nodes = effort(target, trial, solution)
        if nodes >= score:
            best, score, kept = trial, nodes, kept + 1
    return Climb(best, score, start, kept, iterations)
