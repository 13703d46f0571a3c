"""ac3: backtracking with AC-3 propagation over units (seed 004), on the shared search core.

The search is :func:`backends.engines.search.core.search`; this module only supplies its three
heuristics, each a small named function in the core's signatures:

* inference -- :func:`infer`: AC-3 from the assigned cell's units (every unit at the root).
* cell selection -- :func:`select_fewest` (approach A: the unit with the fewest candidates
  over its unsolved cells, then its unsolved cell with the fewest candidates) or
  :func:`select_most` (approach B: the unit with the most, then the cell with the most).
  Ties go to the lowest unit index (rows, then columns, then boxes) and the first cell.
* value order -- :func:`order_most_placed` (A-1: digits already placed most often on the
  whole grid first), :func:`order_least_placed` (A-2: least often first) or a shuffle made
  by :func:`shuffled`. Ties go to the smaller digit. A cell counts as placed when one
  candidate is left in it, whether given, assigned or deduced.

The state is the core's (see :mod:`backends.engines.search`): one packed int per cell whose low
``n`` bits are the candidates. Cells the rules narrow to one candidate stay unassigned in
that encoding; a cell with one candidate counts as solved here, so the selections return
``-1`` once every cell holds one candidate, and the core reads the solution from the bits.

Propagation (:func:`ac3`) works over a queue of unit indices. Revising a unit
(:func:`revise`) enforces :func:`naked_single`, :func:`hidden_single` and
:func:`naked_double`; :func:`hidden_double` runs only when those three changed nothing in the
unit. Every cell a rule changes re-queues the units that contain it (the revised unit
included).

``order=random`` draws from a ``random.Random(seed)`` made afresh for every solve, so a given
puzzle, seed and set of options always explores the same tree: its counters repeat exactly,
which is why the backend declares itself deterministic.

Counters are the core's (see :mod:`backends.engines.search` and :mod:`backends.base`). The solver
has no native statistics.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar

from backends.base import Option
from backends.engines.search.backend import SearchBackend
from backends.engines.search.core import Heuristics
from backends.engines.search.heuristics import bits_of
from backends.engines.search.state import ROOT, Order, SearchTables, Select, Start, State, tables
from backends.puzzle import Cell, Puzzle, Unit

#: A propagation rule: narrows the candidates of one unit in place. Returns the cells it
#: changed, or None when the unit is contradictory.
Rule = Callable[[State, Unit, SearchTables], list[Cell] | None]


# --- propagation rules -------------------------------------------------------------------


def naked_single(cands: State, unit: Unit, t: SearchTables) -> list[Cell] | None:
    """A cell with one candidate owns that digit: remove it from the rest of the unit."""
    full = t.full
    placed = 0
    for c in unit:
        m = cands[c] & full
        if not m & (m - 1):  # one candidate, or none
            if not m or placed & m:
                return None
            placed |= m
    if not placed:
        return []
    return _remove(cands, [c for c in unit if (m := cands[c] & full) & (m - 1)], placed, t)


def _remove(cands: State, cells: Iterable[Cell], digits: int, t: SearchTables) -> list[Cell] | None:
    """Remove ``digits`` from ``cells``: the cells that lost one, or None if one empties."""
    full = t.full
    changed: list[Cell] = []
    for c in cells:
        m = cands[c] & full
        if m & digits:
            m &= ~digits
            if not m:
                return None
            cands[c] = t.open_value(c, m)
            changed.append(c)
    return changed


def hidden_single(cands: State, unit: Unit, t: SearchTables) -> list[Cell] | None:
    """A digit that fits one cell only in the unit goes there: drop that cell's other digits."""
    full = t.full
    seen = twice = 0
    for c in unit:
        m = cands[c] & full
        twice |= seen & m
        seen |= m
    if seen != full:
        return None  # some digit has no place left in the unit
    only = seen & ~twice
    changed: list[Cell] = []
    if only:
        for c in unit:
            m = cands[c] & full
            hit = m & only
            if hit:
                if hit & (hit - 1):
                    return None  # two digits both need this one cell
                if m != hit:
                    cands[c] = t.open_value(c, hit)
                    changed.append(c)
    return changed


def naked_double(cands: State, unit: Unit, t: SearchTables) -> list[Cell] | None:
    """Two cells holding the same two candidates own them: remove both from the rest."""
    full = t.full
    first: dict[int, Cell] = {}
    pairs: list[tuple[Cell, Cell, int]] = []
    for c in unit:
        m = cands[c] & full
        rest = m & (m - 1)
        if rest and not rest & (rest - 1):  # exactly two candidates
            if m in first:
                pairs.append((first[m], c, m))
            else:
                first[m] = c
    changed: list[Cell] = []
    for a, b, pair in pairs:
        got = _remove(cands, [c for c in unit if c != a and c != b], pair, t)
        if got is None:
            return None
        changed += got
    return changed


def hidden_double(cands: State, unit: Unit, t: SearchTables) -> list[Cell] | None:
    """Two digits that fit the same two cells only: drop those cells' other digits."""
    full = t.full
    seen = twice = thrice = 0
    for c in unit:
        m = cands[c] & full
        thrice |= twice & m
        twice |= seen & m
        seen |= m
    exactly_two = twice & ~thrice
    if not exactly_two & (exactly_two - 1):  # fewer than two such digits
        return []
    digits_at: dict[tuple[Cell, ...], int] = {}
    for bit in bits_of(exactly_two):
        where = tuple(c for c in unit if cands[c] & bit)
        digits_at[where] = digits_at.get(where, 0) | bit
    changed: list[Cell] = []
    for where, digits in digits_at.items():
        if not digits & (digits - 1):
            continue  # a lone digit: no pair
        if digits.bit_count() > 2:
            return None  # three digits for two cells
        for c in where:
            m = cands[c] & full
            kept = m & digits
            if not kept:
                return None  # the cell already belongs to another hidden pair
            if kept != m:
                cands[c] = t.open_value(c, kept)
                changed.append(c)
    return changed


#: Rules every revision runs, in order; HIDDEN_RULE runs only when these changed nothing.
ALWAYS_RULES: tuple[Rule, ...] = (naked_single, hidden_single, naked_double)
HIDDEN_RULE: Rule = hidden_double


def revise(cands: State, unit: Unit, t: SearchTables) -> list[Cell] | None:
    """Apply the rules to one unit; the cells changed, or None on a contradiction."""
    changed: list[Cell] = []
    for rule in ALWAYS_RULES:
        got = rule(cands, unit, t)
        if got is None:
            return None
        changed += got
    if not changed:
        return HIDDEN_RULE(cands, unit, t)
    return changed


def ac3(cands: State, t: SearchTables, start: Iterable[int]) -> bool:
    """Revise units from a queue until nothing changes; False on a contradiction.

    ``start`` holds the unit indices queued first. A changed cell queues each of its units
    that is not already waiting.
    """
    units = t.units
    units_of = t.geo.units_of
    queue = list(dict.fromkeys(start))
    waiting = [False] * len(units)
    for u in queue:
        waiting[u] = True
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        waiting[u] = False
        changed = revise(cands, units[u], t)
        if changed is None:
            return False
        for c in changed:
            for v in units_of[c]:
                if not waiting[v]:
                    waiting[v] = True
                    queue.append(v)
    return True


def infer(cands: State, cell: int, bit: int, t: SearchTables) -> bool:
    """AC-3 from the units of the assigned ``cell``, or from every unit at the root."""
    return ac3(cands, t, range(len(t.units)) if cell == ROOT else t.geo.units_of[cell])


# --- cell selection ----------------------------------------------------------------------


def _unit_loads(cands: State, t: SearchTables) -> list[int]:
    """For each unit, the total number of candidates over its unsolved cells."""
    full = t.full
    sizes = [(m & full).bit_count() for m in cands]
    return [sum(s for c in unit if (s := sizes[c]) > 1) for unit in t.units]


def select_fewest(cands: State, t: SearchTables) -> int:
    """Approach A: the unit with the fewest candidates, then its cell with the fewest (>1)."""
    loads = _unit_loads(cands, t)
    best = min((load for load in loads if load), default=0)
    if not best:
        return -1
    full = t.full
    sizes = {c: (cands[c] & full).bit_count() for c in t.units[loads.index(best)]}
    return min((c for c, s in sizes.items() if s > 1), key=sizes.__getitem__)


def select_most(cands: State, t: SearchTables) -> int:
    """Approach B: the unit with the most candidates, then its cell with the most."""
    loads = _unit_loads(cands, t)
    best = max(loads)
    if not best:
        return -1
    full = t.full
    sizes = {c: (cands[c] & full).bit_count() for c in t.units[loads.index(best)]}
    return max((c for c, s in sizes.items() if s > 1), key=sizes.__getitem__)


# --- value order -------------------------------------------------------------------------


def placed_counts(cands: State, t: SearchTables) -> dict[int, int]:
    """How many cells hold each digit alone, keyed by the digit's bit."""
    full = t.full
    counts: dict[int, int] = {}
    for value in cands:
        m = value & full
        if not m & (m - 1):
            counts[m] = counts.get(m, 0) + 1
    return counts


def order_most_placed(cands: State, cell: int, t: SearchTables) -> Sequence[int]:
    """A-1: the digits already placed most often on the grid first (ties: smaller first)."""
    counts = placed_counts(cands, t)
    return sorted(bits_of(cands[cell] & t.full), key=lambda bit: -counts.get(bit, 0))


def order_least_placed(cands: State, cell: int, t: SearchTables) -> Sequence[int]:
    """A-2: the digits placed least often on the grid first (ties: smaller first)."""
    counts = placed_counts(cands, t)
    return sorted(bits_of(cands[cell] & t.full), key=lambda bit: counts.get(bit, 0))


def shuffled(rng: random.Random) -> Order:
    """A value order that shuffles each cell's digits with ``rng``."""

    def order_random(cands: State, cell: int, t: SearchTables) -> Sequence[int]:
        """The cell's digits in an order drawn from the solve's generator."""
        bits = list(bits_of(cands[cell] & t.full))
        rng.shuffle(bits)
        return bits

    return order_random


SELECTS: dict[str, Select] = {"A": select_fewest, "B": select_most}
#: The fixed orders by option value; ``random`` is made per solve by :func:`shuffled`.
ORDERS: dict[str, Order | None] = {
    "most": order_most_placed,
    "least": order_least_placed,
    "random": None,
}


# --- backend -----------------------------------------------------------------------------


def encode_puzzle(puzzle: Puzzle) -> Start:
    """Givens assigned, empty cells open with every digit: AC-3 does all the filtering."""
    t = tables(puzzle.box)
    return Start(
        t,
        tuple(
            t.assigned | 1 << (d - 1) if d else t.open_value(c, t.full)
            for c, d in enumerate(puzzle.cells)
        ),
    )


def _upper(text: str) -> str:
    return text.strip().upper()


def _lower(text: str) -> str:
    return text.strip().lower()


class Ac3Backend(SearchBackend):
    """Seed 004's solver: AC-3 over units with four rules, unit-then-cell selection."""

    name: ClassVar[str] = "ac3"
    summary: ClassVar[str] = (
        "backtracking with AC-3 over units (naked/hidden singles and doubles), bitmasks"
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "select",
            "A",
            "cell choice: A = unit with the fewest candidates, then its cell with the fewest; "
            "B = unit with the most, then its cell with the most",
            choices=tuple(SELECTS),
            parse=_upper,
        ),
        Option(
            "order",
            "most",
            "value order: most = digits placed most often on the grid first (A-1), "
            "least = placed least often first (A-2), random = shuffled by seed",
            choices=tuple(ORDERS),
            parse=_lower,
        ),
        Option(
            "seed",
            0,
            "seed for order=random; a fresh generator per solve, so runs repeat exactly",
            parse=int,
        ),
    )
    # deterministic (the default) with order=random too: the generator is seeded afresh per solve

    def encode(self, puzzle: Puzzle) -> Start:
        """Givens assigned, empty cells open with every digit."""
        return encode_puzzle(puzzle)

    def heuristics(self) -> Heuristics:
        """Approach A or B, order A-1, A-2 or a shuffle seeded afresh per solve, and AC-3."""
        order = ORDERS[self.config["order"]] or shuffled(random.Random(self.config["seed"]))
        return Heuristics(select=SELECTS[self.config["select"]], order=order, inference=infer)
