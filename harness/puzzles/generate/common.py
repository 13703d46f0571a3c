"""What every part of the generator shares: its error type, the backends it uses by default,
and a solve that refuses any answer but SOLVED or UNSAT."""

from __future__ import annotations

from backends.base import Backend, SolveResult, Status
from backends.errors import SudokuError
from backends.puzzle import Puzzle

#: The backend whose ``nodes`` rank hardness, unless told otherwise.
DEFAULT_BACKEND = "mrv"
#: The backend that tells whether naked and hidden singles alone solve a puzzle.
SINGLES_BACKEND = "mrv:inference=singles"
#: The backend that proves uniqueness while carving (any correct one gives the same puzzles;
#: singles propagation makes ``limit=2`` solves of near-minimal puzzles fastest).
CHECK_BACKEND = SINGLES_BACKEND
#: Hill-climbing moves per candidate in adversarial mode, unless told otherwise.
DEFAULT_ITERATIONS = 50
#: The givens ``harness generate`` stops carving at unless told otherwise, by grid side: 0
#: (carve to a minimal puzzle) up to 9x9, made in milliseconds; for 16x16 and 25x25 the
#: counts of the shipped files, made in seconds, where carving and ranking a minimal puzzle
#: can take many minutes (over ten for one 16x16), mostly the ranking backend's solve.
DEFAULT_MIN_GIVENS: dict[int, int] = {4: 0, 9: 0, 16: 110, 25: 330}


class GenerateError(SudokuError):
    """The generator cannot do what it was asked (bad option, too few qualifying puzzles)."""


def solve_checked(backend: Backend, puzzle: Puzzle, limit: int) -> SolveResult:
    """``backend``'s answer for ``puzzle``; an answer other than SOLVED/UNSAT is an error."""
    result = backend.solve(backend.encode(puzzle), limit=limit)
    if result.status not in (Status.SOLVED, Status.UNSAT):
        raise GenerateError(
            f"backend {backend.spec!r} returned {result.status} on {puzzle.to_string()}"
            f"{': ' + result.message if result.message else ''}"
        )
    return result
