"""The ``mrv`` backend: seed 000's backtracking, on the shared search core.

The defaults are seed 000's algorithm: branch on the empty cell with the fewest candidates
(the first such cell in index order), try its digits in ascending order, and after each
assignment remove the digit from the peers' candidates (forward checking), with no other
propagation. With these defaults its node count in first-solution mode equals the number of
calls seed 000's recursive solver makes with its values taken in ascending order.

Options swap the heuristics of :mod:`backends.search`: ``select`` (mrv, first, max), ``order``
(ascending) and ``inference`` (forward, singles, check), e.g.
``--backend mrv:select=first,inference=singles``.
"""

from __future__ import annotations

from typing import ClassVar

from backends.base import Backend, Option, SolveResult
from backends.puzzle import Puzzle
from backends.search import INFERENCES, ORDERS, SELECTS, Start, initial_state, select_option, solve


class MrvBackend(Backend):
    """Depth-first search on bitmask candidates; heuristics chosen by options."""

    name: ClassVar[str] = "mrv"
    summary: ClassVar[str] = (
        "backtracking on bitmask candidates: fewest-candidates cell, ascending digits, "
        "forward checking (seed 000)"
    )
    options: ClassVar[tuple[Option, ...]] = (
        select_option("mrv"),
        Option("order", "ascending", "order of the digits tried", choices=tuple(ORDERS)),
        Option(
            "inference",
            "forward",
            "pruning after each assignment: forward (forward checking), singles (plus naked "
            "and hidden singles), check (none: only refuse a digit an assigned peer holds)",
            choices=tuple(INFERENCES),
        ),
    )
    deterministic: ClassVar[bool] = True
    max_box: ClassVar[int] = 5

    def encode(self, puzzle: Puzzle) -> Start:
        """The root state: givens assigned, empty cells' candidates filtered by the givens."""
        return initial_state(puzzle)

    def solve(self, encoded: Start, limit: int = 1, time_limit: float | None = None) -> SolveResult:
        """Search for up to ``limit`` solutions; TIMEOUT (with counters) once time runs out."""
        return solve(
            encoded,
            limit,
            time_limit,
            select=SELECTS[self.config["select"]],
            order=ORDERS[self.config["order"]],
            inference=INFERENCES[self.config["inference"]],
        )
