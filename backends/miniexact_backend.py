"""The ``miniexact`` backend: Knuth's Algorithm X in C (MiniExact), on the ``dlx`` matrix.

``encode`` builds the same exact-cover matrix as the ``dlx`` backend
(:func:`backends.dlx.build_matrix`: givens pre-selected, one item per constraint no given
meets, one option per candidate left) and loads it into a MiniExact Algorithm X problem, as
``dlx`` builds its links in ``encode``. ``solve`` asks MiniExact for a solution, and for
another one when ``limit`` is 2: each further ``solve()`` call of MiniExact's simplified API
resumes the enumeration. MiniExact chooses items by MRV (fewest options), Knuth's heuristic.

MiniExact reports no search statistics, so ``nodes``, ``guesses`` and ``backtracks`` stay
``None``; ``native`` carries the matrix's ``columns`` (items) and ``rows`` (options), as
``dlx`` does. MiniExact cannot be interrupted: ``time_limit`` is left to the harness, which
kills the worker at the timeout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from backends.base import Backend, Option, SolveResult, Status
from backends.dlx import Matrix, build_matrix
from backends.errors import BackendError, UnknownStatusError
from backends.puzzle import Grid, Puzzle

#: MiniExact's return codes (SAT-solver style): 10 a solution, 20 no (more) solutions, 0 error.
FOUND, EXHAUSTED, FAILED = 10, 20, 0


def translate_status(code: int) -> Status:
    """A MiniExact return code as a Status; 0 (an error) raises BackendError."""
    if code == FOUND:
        return Status.SOLVED
    if code == EXHAUSTED:
        return Status.UNSAT
    if code == FAILED:
        raise BackendError("MiniExact reported an error (its message is on stderr)")
    raise UnknownStatusError(f"MiniExact returned an unknown code {code!r}")


@dataclass
class Loaded:
    """The matrix, and the MiniExact problem holding it (``None`` when nothing is left to
    search: every cell given, or givens that clash). ``row_of`` maps MiniExact's option
    numbers to matrix rows; ``searched`` is set once :meth:`MiniexactBackend.solve` has used
    the problem (MiniExact then resumes where it stopped, so a second solve reloads it)."""

    matrix: Matrix
    problem: Any
    row_of: dict[int, int]
    searched: bool = False


def load(matrix: Matrix) -> Loaded:
    """A fresh MiniExact Algorithm X problem holding ``matrix`` (no search yet)."""
    from miniexact import miniexacts_x

    if not matrix.consistent or not matrix.ncols:
        return Loaded(matrix, None, {})
    problem = miniexacts_x()
    items = [problem.primary(str(c)) for c in range(matrix.ncols)]
    col = matrix.col
    row_of = {
        problem.add([items[col[node]] for node in range(4 * r, 4 * r + 4)]): r
        for r in range(matrix.nrows)
    }
    return Loaded(matrix, problem, row_of)


def decode(loaded: Loaded, options: Any) -> Grid:
    """The grid of the selected options (MiniExact's option numbers)."""
    matrix = loaded.matrix
    grid = list(matrix.givens)
    for option in options:
        cell, digit = matrix.cell_digit(4 * loaded.row_of[option])
        grid[cell] = digit
    return tuple(grid)


class MiniexactBackend(Backend):
    """Exact cover by MiniExact's Algorithm X (C, dancing links) on the dlx matrix."""

    name: ClassVar[str] = "miniexact"
    summary: ClassVar[str] = (
        "MiniExact: Knuth's Algorithm X in C (dancing links, MRV) on the dlx exact-cover matrix"
    )
    requires: ClassVar[str] = "miniexact"
    imports: ClassVar[str] = "miniexact"
    options: ClassVar[tuple[Option, ...]] = ()
    native_counters: ClassVar[tuple[str, ...]] = ("columns", "rows")

    def encode(self, puzzle: Puzzle) -> Loaded:
        """The dlx matrix (givens pre-selected), loaded into a MiniExact problem."""
        return load(build_matrix(puzzle))

    def solve(
        self, encoded: Loaded, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Enumerate up to ``limit`` exact covers; decoding included. A problem already searched
        is loaded again first, so that the same encoding can be solved twice."""
        matrix = encoded.matrix
        native = {"columns": matrix.ncols, "rows": matrix.nrows}
        if not matrix.consistent:
            return SolveResult(Status.UNSAT, native=native, message="givens repeat a digit")
        if encoded.problem is None:  # every cell given: the givens are the one solution
            return SolveResult(Status.SOLVED, matrix.givens, 1, native=native)
        if encoded.searched:
            encoded = load(matrix)
        encoded.searched = True
        first = None
        found = 0
        while found < limit:
            if translate_status(encoded.problem.solve()) is not Status.SOLVED:
                break
            found += 1
            first = first or decode(encoded, encoded.problem.selected_options())
        if not found:
            return SolveResult(Status.UNSAT, native=native)
        return SolveResult(Status.SOLVED, first, found, native=native)
