"""The ``mrv`` backend: seed 000's backtracking, on the shared search core.

The defaults are seed 000's algorithm: branch on the empty cell with the fewest candidates
(the first such cell in index order), try its digits in ascending order, and after each
assignment remove the digit from the peers' candidates (forward checking), with no other
propagation. With these defaults its node count in first-solution mode equals the number of
calls seed 000's recursive solver makes with its values taken in ascending order.

Options swap the heuristics of :mod:`backends.engines.search`: ``select`` (mrv, first, max),
``order`` (ascending) and ``inference`` (forward, singles, check), e.g.
``--backend mrv:select=first,inference=singles``.
"""

from __future__ import annotations

from typing import ClassVar

from backends.base import Option
from backends.engines.search.backend import SearchBackend, select_option
from backends.engines.search.core import Heuristics
from backends.engines.search.heuristics import INFERENCES, ORDERS, SELECTS


class MrvBackend(SearchBackend):
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

    def heuristics(self) -> Heuristics:
        """The selection, order and inference the options name."""
        return Heuristics(
            select=SELECTS[self.config["select"]],
            order=ORDERS[self.config["order"]],
            inference=INFERENCES[self.config["inference"]],
        )
