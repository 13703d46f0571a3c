"""The ``norvig`` backend: seed 001's constraint propagation and search, on the search core.

Norvig's two rules, applied to a fixpoint after every assignment (and at the root): a cell
left with one digit gives it up to its peers (naked single), and a digit left with one place
in a unit goes there (hidden single). Then the search branches on the cell with the fewest
candidates (first in index order on ties) and tries its digits in ascending order. In
:mod:`backends.engines.search` terms: ``select=mrv``, ``order=ascending``, ``inference=singles``.
On Norvig's top95 it tries exactly as many values as Norvig's own solver (6,222 nodes).

Options:

* ``pairs`` adds a rule for N = 2 to the propagation: ``hidden`` (``true``) is Vermeer's
  (seed 001: two digits confined to the same two cells of a unit keep those cells), ``naked``
  the naked pairs (two cells of a unit holding the same two digits remove them from the rest),
  ``both`` both rules.
* ``locked`` adds locked candidates (pointing and claiming between boxes and lines):
  ``root`` at the root only, ``all`` after every assignment too. Not Norvig's; a speed option.
* ``select`` swaps the cell choice (``first``, or ``max``: seed 003's most candidates).
"""

from __future__ import annotations

from typing import ClassVar

from backends.base import Option, parse_bool
from backends.engines.search.backend import SearchBackend, select_option
from backends.engines.search.core import Heuristics
from backends.engines.search.heuristics import SELECTS
from backends.engines.search.propagation import PAIRS, with_locked, with_pairs
from backends.errors import BackendOptionError

LOCKED: tuple[str, ...] = ("none", "root", "all")


def parse_pairs(text: str) -> str:
    """A ``pairs`` value: a rule name, or a boolean (true = Vermeer's hidden pairs)."""
    lowered = text.strip().lower()
    if lowered in PAIRS:
        return lowered
    try:
        return "hidden" if parse_bool(lowered) else "none"
    except BackendOptionError:
        raise BackendOptionError(
            f"expected true, false or one of {', '.join(PAIRS)}, got {text!r}"
        ) from None


class NorvigBackend(SearchBackend):
    """Norvig's propagation (naked and hidden singles) with MRV search; Vermeer's pairs."""

    name: ClassVar[str] = "norvig"
    summary: ClassVar[str] = (
        "Norvig's propagation (naked and hidden singles) then fewest-candidates search "
        "(seed 001); pairs=true adds Vermeer's rule"
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "pairs",
            "none",
            "rule for N = 2 added to the propagation: hidden (or true: Vermeer's hidden "
            "pairs), naked (naked pairs), both, none (or false)",
            choices=tuple(PAIRS),
            parse=parse_pairs,
        ),
        Option(
            "locked",
            "none",
            "locked candidates (pointing and claiming): root (at the root only), all (after "
            "every assignment too), none",
            choices=LOCKED,
        ),
        select_option("mrv"),
    )

    def heuristics(self) -> Heuristics:
        """Fewest-candidates cell (unless ``select`` says otherwise), the propagation the
        ``pairs`` and ``locked`` options build, at the root and after each assignment."""
        pairs = PAIRS[self.config["pairs"]]
        inference = with_pairs(pairs)
        root = None
        if self.config["locked"] != "none":
            root = with_locked(pairs)
            if self.config["locked"] == "all":
                inference = root
        return Heuristics(select=SELECTS[self.config["select"]], inference=inference, root=root)
