"""The ``naive`` backend: seed 000's "5-minute hack", plain backtracking on the search core.

Branch on the first empty cell in index order, try its digits in ascending order, and
refuse a digit that an assigned peer already holds; nothing is pruned (no forward checking),
so the candidates stay those the givens leave. In :mod:`backends.engines.search` terms:
``select=first``, ``order=ascending``, ``inference=check``.

Options:

* ``iterative=true`` walks the tree with an explicit stack instead of recursion, as seed
  002's backtracking does; the tree, and so every counter, is the same.
* ``presolve=singles`` is seed 002's approach: naked and hidden singles to a fixpoint at the
  root only, then the same plain backtracking over the candidates they leave.
* ``select`` swaps the cell choice (e.g. ``max`` for seed 003's most-candidates cell).

On seed 000's puzzle this search needs hours, so under the harness it ends as TIMEOUT: the
core looks at the clock between nodes and stops itself at the time limit.
"""

from __future__ import annotations

from typing import ClassVar

from backends.base import Option, parse_bool
from backends.engines.search.backend import SearchBackend, select_option
from backends.engines.search.core import Heuristics, iterative, recursive
from backends.engines.search.heuristics import SELECTS
from backends.engines.search.propagation import check, singles

#: What ``presolve`` may run at the root before the plain search, by option value.
PRESOLVES = {"none": None, "singles": singles}


class NaiveBackend(SearchBackend):
    """Plain backtracking: first empty cell, ascending digits, validity check only."""

    name: ClassVar[str] = "naive"
    summary: ClassVar[str] = (
        "plain backtracking: first empty cell, ascending digits, no forward checking (seed 000)"
    )
    options: ClassVar[tuple[Option, ...]] = (
        select_option("first"),
        Option(
            "iterative",
            False,
            "true: an explicit-stack loop instead of recursion (seed 002); same tree and counts",
            parse=parse_bool,
        ),
        Option(
            "presolve",
            "none",
            "singles: naked and hidden singles to a fixpoint at the root only, then plain "
            "backtracking (seed 002)",
            choices=tuple(PRESOLVES),
        ),
    )
    #: 16x16 and 25x25 puzzles take this search hours; it supports (and is tested on) 9x9.
    max_box: ClassVar[int] = 3

    def heuristics(self) -> Heuristics:
        """Validity check only; the options choose the cell, the presolve and the driver."""
        return Heuristics(
            select=SELECTS[self.config["select"]],
            inference=check,
            root=PRESOLVES[self.config["presolve"]],
            driver=iterative if self.config["iterative"] else recursive,
        )
