"""ac3: depth-first backtracking with AC-3 propagation over units (seed 004).

Candidates are bitmasks, one int per cell: bit ``d - 1`` set means digit ``d`` is still
possible. A cell with exactly one bit is solved.

Propagation (:func:`ac3`) works over a queue of unit indices. Revising a unit
(:func:`revise`) enforces :func:`naked_single`, :func:`hidden_single` and
:func:`naked_double`; :func:`hidden_double` runs only when those three changed nothing in the
unit. Every cell a rule changes re-queues the units that contain it (the revised unit
included). The root queues every unit; after an assignment only the assigned cell's units
are queued.

The search is "select a cell, order its values, assign, infer, recurse", and each step is a
small named function passed in as a parameter:

* cell selection -- :func:`select_fewest` (approach A: the unit with the fewest candidates
  over its unsolved cells, then its unsolved cell with the fewest candidates) or
  :func:`select_most` (approach B: the unit with the most, then the cell with the most).
  Ties go to the lowest unit index (rows, then columns, then boxes) and the first cell.
* value order -- :func:`order_most_placed` (A-1: digits already placed most often on the
  whole grid first), :func:`order_least_placed` (A-2: least often first) or
  :func:`order_random` (a shuffle). Ties go to the smaller digit. A cell counts as placed
  when one candidate is left in it, whether given, assigned or deduced.
* inference -- :func:`infer`, AC-3 from the assigned cell's units (all units at the root).

``order=random`` draws from a ``random.Random(seed)`` made afresh for every solve, so a given
puzzle, seed and set of options always explores the same tree: its counters repeat exactly,
which is why the backend declares itself deterministic.

Counters follow :mod:`backends.base`: ``nodes`` is the root plus one per value tried,
``guesses`` the search nodes that branched on a cell, ``backtracks`` the tried values whose
subtree did not bring the search to its solution limit (with limit 2 on a puzzle with one
solution, that includes the branch that held it). The solver has no native statistics.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, ClassVar

from backends.base import Backend, Option, SolveResult, Status
from backends.puzzle import Cell, Digit, Geometry, Grid, Puzzle, Unit, geometry

Candidates = list[int]
#: A propagation rule: narrows the candidates of one unit in place. Returns the cells it
#: changed, or None when the unit is contradictory.
Rule = Callable[[Candidates, Unit], list[Cell] | None]
#: Picks the next cell to branch on, or None when every cell is solved.
Select = Callable[[Candidates, Geometry], Cell | None]
#: The digits of ``cell`` in the order to try them.
Order = Callable[[Candidates, Cell, random.Random], list[Digit]]
#: Propagates after ``cell`` was assigned (None: the root). False on a contradiction.
Infer = Callable[[Candidates, Geometry, Cell | None], bool]

#: How many nodes pass between two looks at the clock (the first look is at the root).
CLOCK_EVERY = 64


# --- propagation rules -------------------------------------------------------------------


def naked_single(cand: Candidates, unit: Unit) -> list[Cell] | None:
    """A cell with one candidate owns that digit: remove it from the rest of the unit."""
    placed = 0
    for c in unit:
        m = cand[c]
        if not m & (m - 1):  # one candidate, or none
            if not m or placed & m:
                return None
            placed |= m
    changed: list[Cell] = []
    if placed:
        for c in unit:
            m = cand[c]
            if m & (m - 1) and m & placed:
                m &= ~placed
                if not m:
                    return None
                cand[c] = m
                changed.append(c)
    return changed


def hidden_single(cand: Candidates, unit: Unit) -> list[Cell] | None:
    """A digit that fits one cell only in the unit goes there: drop that cell's other digits."""
    seen = twice = 0
    for c in unit:
        m = cand[c]
        twice |= seen & m
        seen |= m
    if seen != (1 << len(unit)) - 1:
        return None  # some digit has no place left in the unit
    only = seen & ~twice
    changed: list[Cell] = []
    if only:
        for c in unit:
            m = cand[c]
            hit = m & only
            if hit:
                if hit & (hit - 1):
                    return None  # two digits both need this one cell
                if m != hit:
                    cand[c] = hit
                    changed.append(c)
    return changed


def naked_double(cand: Candidates, unit: Unit) -> list[Cell] | None:
    """Two cells holding the same two candidates own them: remove both from the rest."""
    first: dict[int, Cell] = {}
    pairs: list[tuple[Cell, Cell, int]] = []
    for c in unit:
        m = cand[c]
        rest = m & (m - 1)
        if rest and not rest & (rest - 1):  # exactly two candidates
            if m in first:
                pairs.append((first[m], c, m))
            else:
                first[m] = c
    changed: list[Cell] = []
    for a, b, pair in pairs:
        for c in unit:
            m = cand[c]
            if m & pair and c != a and c != b:
                m &= ~pair
                if not m:
                    return None
                cand[c] = m
                changed.append(c)
    return changed


def hidden_double(cand: Candidates, unit: Unit) -> list[Cell] | None:
    """Two digits that fit the same two cells only: drop those cells' other digits."""
    seen = twice = thrice = 0
    for c in unit:
        m = cand[c]
        thrice |= twice & m
        twice |= seen & m
        seen |= m
    exactly_two = twice & ~thrice
    if not exactly_two & (exactly_two - 1):  # fewer than two such digits
        return []
    digits_at: dict[tuple[Cell, ...], int] = {}
    bits = exactly_two
    while bits:
        bit = bits & -bits
        bits ^= bit
        where = tuple(c for c in unit if cand[c] & bit)
        digits_at[where] = digits_at.get(where, 0) | bit
    changed: list[Cell] = []
    for where, digits in digits_at.items():
        if not digits & (digits - 1):
            continue  # a lone digit: no pair
        if digits.bit_count() > 2:
            return None  # three digits for two cells
        for c in where:
            m = cand[c] & digits
            if not m:
                return None  # the cell already belongs to another hidden pair
            if m != cand[c]:
                cand[c] = m
                changed.append(c)
    return changed


#: Rules every revision runs, in order; HIDDEN_RULE runs only when these changed nothing.
ALWAYS_RULES: tuple[Rule, ...] = (naked_single, hidden_single, naked_double)
HIDDEN_RULE: Rule = hidden_double


def revise(cand: Candidates, unit: Unit) -> list[Cell] | None:
    """Apply the rules to one unit; the cells changed, or None on a contradiction."""
    changed: list[Cell] = []
    for rule in ALWAYS_RULES:
        got = rule(cand, unit)
        if got is None:
            return None
        changed += got
    if not changed:
        return HIDDEN_RULE(cand, unit)
    return changed


def ac3(cand: Candidates, geo: Geometry, start: Iterable[int]) -> bool:
    """Revise units from a queue until nothing changes; False on a contradiction.

    ``start`` holds the unit indices queued first. A changed cell queues each of its units
    that is not already waiting.
    """
    units = geo.units
    units_of = geo.units_of
    queue = list(dict.fromkeys(start))
    waiting = [False] * len(units)
    for u in queue:
        waiting[u] = True
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        waiting[u] = False
        changed = revise(cand, units[u])
        if changed is None:
            return False
        for c in changed:
            for v in units_of[c]:
                if not waiting[v]:
                    waiting[v] = True
                    queue.append(v)
    return True


def infer(cand: Candidates, geo: Geometry, cell: Cell | None) -> bool:
    """AC-3 from the units of the assigned ``cell``, or from every unit at the root."""
    return ac3(cand, geo, range(len(geo.units)) if cell is None else geo.units_of[cell])


# --- cell selection ----------------------------------------------------------------------


def _unit_loads(cand: Candidates, geo: Geometry) -> list[int]:
    """For each unit, the total number of candidates over its unsolved cells."""
    sizes = [m.bit_count() for m in cand]
    return [sum(s for c in unit if (s := sizes[c]) > 1) for unit in geo.units]


def select_fewest(cand: Candidates, geo: Geometry) -> Cell | None:
    """Approach A: the unit with the fewest candidates, then its cell with the fewest (>1)."""
    loads = _unit_loads(cand, geo)
    best = min((load for load in loads if load), default=0)
    if not best:
        return None
    unit = geo.units[loads.index(best)]
    return min((c for c in unit if cand[c] & (cand[c] - 1)), key=lambda c: cand[c].bit_count())


def select_most(cand: Candidates, geo: Geometry) -> Cell | None:
    """Approach B: the unit with the most candidates, then its cell with the most."""
    loads = _unit_loads(cand, geo)
    best = max(loads)
    if not best:
        return None
    unit = geo.units[loads.index(best)]
    return max((c for c in unit if cand[c] & (cand[c] - 1)), key=lambda c: cand[c].bit_count())


# --- value order -------------------------------------------------------------------------


def digits_of(mask: int) -> list[Digit]:
    """The digits in a candidate mask, ascending."""
    digits = []
    while mask:
        bit = mask & -mask
        mask ^= bit
        digits.append(bit.bit_length())
    return digits


def placed_counts(cand: Candidates) -> dict[int, int]:
    """How many cells hold each digit alone, keyed by the digit's bit."""
    counts: dict[int, int] = {}
    for m in cand:
        if not m & (m - 1):
            counts[m] = counts.get(m, 0) + 1
    return counts


def order_most_placed(cand: Candidates, cell: Cell, rng: random.Random) -> list[Digit]:
    """A-1: the digits already placed most often on the grid first (ties: smaller first)."""
    counts = placed_counts(cand)
    return sorted(digits_of(cand[cell]), key=lambda d: -counts.get(1 << (d - 1), 0))


def order_least_placed(cand: Candidates, cell: Cell, rng: random.Random) -> list[Digit]:
    """A-2: the digits placed least often on the grid first (ties: smaller first)."""
    counts = placed_counts(cand)
    return sorted(digits_of(cand[cell]), key=lambda d: counts.get(1 << (d - 1), 0))


def order_random(cand: Candidates, cell: Cell, rng: random.Random) -> list[Digit]:
    """The digits shuffled by ``rng``."""
    digits = digits_of(cand[cell])
    rng.shuffle(digits)
    return digits


SELECTS: dict[str, Select] = {"A": select_fewest, "B": select_most}
ORDERS: dict[str, Order] = {
    "most": order_most_placed,
    "least": order_least_placed,
    "random": order_random,
}


# --- search ------------------------------------------------------------------------------


class _Timeout(Exception):
    """The deadline passed; unwinds the search."""


@dataclass
class Search:
    """One depth-first search: select a cell, order its values, assign, infer, recurse."""

    geo: Geometry
    select: Select
    order: Order
    infer: Infer
    rng: random.Random
    limit: int = 1
    deadline: float | None = None
    nodes: int = 0
    guesses: int = 0
    backtracks: int = 0
    timed_out: bool = False
    solutions: list[Grid] = field(default_factory=list)

    def run(self, cand: Candidates) -> None:
        """Search from the root candidates (not yet propagated) for up to ``limit`` answers."""
        self.nodes = 1
        if not self.infer(cand, self.geo, None):
            return
        try:
            self._descend(cand)
        except _Timeout:
            self.timed_out = True

    def _past_deadline(self) -> bool:
        return self.deadline is not None and perf_counter() > self.deadline

    def _descend(self, cand: Candidates) -> bool:
        """Explore below a propagated node; True once the search should stop."""
        cell = self.select(cand, self.geo)
        if cell is None:
            self.solutions.append(tuple(m.bit_length() for m in cand))
            return len(self.solutions) >= self.limit
        self.guesses += 1
        for digit in self.order(cand, cell, self.rng):
            if self.nodes % CLOCK_EVERY == 1 and self._past_deadline():
                raise _Timeout
            self.nodes += 1
            child = cand[:]
            child[cell] = 1 << (digit - 1)
            if self.infer(child, self.geo, cell) and self._descend(child):
                return True
            self.backtracks += 1
        return False


# --- backend -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Encoded:
    """A puzzle as the solver sees it: its geometry and one candidate mask per cell."""

    geo: Geometry
    cand: tuple[int, ...]


def encode_puzzle(puzzle: Puzzle) -> Encoded:
    """Givens become one-bit masks, empty cells hold every digit. No propagation yet."""
    full = (1 << puzzle.n) - 1
    return Encoded(geometry(puzzle.box), tuple(1 << (d - 1) if d else full for d in puzzle.cells))


def _upper(text: str) -> str:
    return text.strip().upper()


def _lower(text: str) -> str:
    return text.strip().lower()


class Ac3Backend(Backend):
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
    deterministic: ClassVar[bool] = True  # order=random included: seeded afresh per solve

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.select: Select = SELECTS[self.config["select"]]
        self.order: Order = ORDERS[self.config["order"]]

    def encode(self, puzzle: Puzzle) -> Encoded:
        return encode_puzzle(puzzle)

    def solve(
        self, encoded: Encoded, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        if limit < 1:
            raise ValueError(f"limit must be 1 or more, got {limit!r}")
        start = perf_counter()
        search = Search(
            geo=encoded.geo,
            select=self.select,
            order=self.order,
            infer=infer,
            rng=random.Random(self.config["seed"]),
            limit=limit,
            deadline=None if time_limit is None else start + time_limit,
        )
        search.run(list(encoded.cand))
        found = search.solutions
        if search.timed_out:
            status = Status.TIMEOUT
            message = f"time limit {time_limit}s reached after {len(found)} solution(s)"
        else:
            status = Status.SOLVED if found else Status.UNSAT
            message = ""
        return SolveResult(
            status,
            solution=found[0] if found else None,
            solutions_found=len(found),
            nodes=search.nodes,
            guesses=search.guesses,
            backtracks=search.backtracks,
            message=message,
        )
