"""The base of every backend on the search core: options in, :class:`Heuristics` out."""

from __future__ import annotations

from abc import abstractmethod

from backends.base import Backend, Option, SolveResult
from backends.engines.search.core import Heuristics, solve
from backends.engines.search.heuristics import SELECTS
from backends.engines.search.state import Start, initial_state
from backends.puzzle import Puzzle


class SearchBackend(Backend):
    """A backend that is a choice of :class:`Heuristics` for the one search of this core.

    Subclasses declare their options and say, in :meth:`heuristics`, which functions those
    options choose; encoding (:func:`initial_state`) and solving are shared.
    """

    @abstractmethod
    def heuristics(self) -> Heuristics:
        """The functions this backend's options choose."""

    def encode(self, puzzle: Puzzle) -> Start:
        """The root state: givens assigned, empty cells' candidates filtered by the givens."""
        return initial_state(puzzle)

    def solve(self, encoded: Start, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        """Search for up to ``limit`` solutions; TIMEOUT (with counters) once time runs out."""
        return solve(encoded, limit, time_limit, self.heuristics())


def select_option(default: str) -> Option:
    """The ``select`` option every backend on this core declares alike."""
    return Option(
        "select",
        default,
        "cell to branch on: mrv (fewest candidates), first (index order), "
        "max (most candidates, seed 003); ties go to the first cell",
        choices=tuple(SELECTS),
    )
