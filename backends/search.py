"""One backtracking search over bitmask candidate sets, its heuristics passed as parameters.

In the spirit of aima-python's ``backtracking_search(csp, select_unassigned_variable,
order_domain_values, inference)``: :func:`search` is the only loop, and a backend is a choice
of three small named functions:

* **select** ``(cands, t) -> cell``: the cell to branch on, or ``-1`` when every cell is
  assigned. :func:`first`, :func:`mrv`, :func:`max_candidates`.
* **order** ``(cands, cell, t) -> bits``: the candidate bits of ``cell`` in the order to try
  them. :func:`ascending`.
* **inference** ``(cands, cell, bit, t) -> bool``: called right after the core assigned
  ``bit`` to ``cell`` in a fresh copy of the state; prunes that copy in place and returns
  False on a contradiction. It is also called once at the root with ``cell == ROOT`` (and
  ``bit == 0``) to make the starting state consistent. :func:`forward`, :func:`singles`,
  :func:`check` (alias :data:`none`).

State
-----
The state is a ``list[int]``, one packed int per cell of a
:class:`~backends.puzzle.Geometry` (``n`` digits, ``ncells`` cells). Its low ``n`` bits are
the candidate set: bit ``d - 1`` is set when digit ``d`` is still possible. Above them:

* an **unassigned** cell holds ``count << t.count_shift | cell << n | bits``, where ``count``
  is the number of candidate bits. Because the count sits on top and the cell index below it,
  ``min(cands)`` *is* the minimum-remaining-values cell, first in index order on ties, in one
  C-level call; the count also tells a dead cell (``count == 0``) and a forced one.
* an **assigned** cell holds ``t.assigned | bit``: ``t.assigned`` is ``(n + 1) <<
  t.count_shift``, more than any unassigned value, so ``mask >= t.assigned`` means assigned
  and ``min(cands) >= t.assigned`` means solved.

Build values with :meth:`Tables.open_value`; read them with :meth:`Tables.count`,
:meth:`Tables.cell_of` and :meth:`Tables.digit` (or ``mask & t.full`` for the candidate
bits). An inference that removes candidate bits ``b`` (with ``k`` bits) from an unassigned
value subtracts ``b + k * t.one``; :func:`check_state` verifies these invariants in tests.

Givens start assigned. An unassigned cell holding a single candidate is *not* assigned: under
:func:`forward` the search still branches on it (a node, not a guess), as seed 000 does,
while :func:`singles` assigns it during propagation, as Norvig does.

Counting (see :mod:`backends.base`)
-----------------------------------
``nodes`` is the root plus one per value tried; a value that its inference refutes at once
still counts (and is a backtrack). ``guesses`` counts nodes whose chosen cell had more than one
candidate. ``backtracks`` counts tried values that the search undoes before moving on: every
refuted or exhausted subtree, and, when counting to two, a subtree that held only one solution.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from backends.base import SolveResult, Status
from backends.puzzle import Geometry, Grid, Puzzle, geometry

#: The ``cell`` argument an inference receives for the root call.
ROOT = -1

State = list[int]


@dataclass(frozen=True)
class Tables:
    """Per-size constants and lookup data for the search, derived from a :class:`Geometry`."""

    geo: Geometry
    n: int = field(init=False)
    ncells: int = field(init=False)
    full: int = field(init=False)  # every candidate bit: (1 << n) - 1
    index_mask: int = field(init=False)  # the cell-index field, once shifted down by n
    count_shift: int = field(init=False)  # where the candidate count starts
    one: int = field(init=False)  # 1 << count_shift: one candidate in the count field
    assigned: int = field(init=False)  # (n + 1) << count_shift: the floor of assigned values
    peers: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    units: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    unit_bits: tuple[int, ...] = field(init=False, repr=False)  # per cell: 1 << each unit

    def __post_init__(self) -> None:
        n = self.geo.n
        index_bits = (self.geo.ncells - 1).bit_length()
        count_shift = n + index_bits
        for name, value in (
            ("n", n),
            ("ncells", self.geo.ncells),
            ("full", (1 << n) - 1),
            ("index_mask", (1 << index_bits) - 1),
            ("count_shift", count_shift),
            ("one", 1 << count_shift),
            ("assigned", (n + 1) << count_shift),
            ("peers", self.geo.peers),
            ("units", self.geo.units),
            ("unit_bits", tuple(sum(1 << u for u in us) for us in self.geo.units_of)),
        ):
            object.__setattr__(self, name, value)

    def open_value(self, cell: int, bits: int) -> int:
        """The packed value of unassigned ``cell`` with candidate bits ``bits``."""
        return bits.bit_count() << self.count_shift | cell << self.n | bits

    def count(self, mask: int) -> int:
        """How many candidates an unassigned value holds (``n + 1`` for an assigned one)."""
        return mask >> self.count_shift

    def cell_of(self, mask: int) -> int:
        """The cell index an unassigned value carries."""
        return (mask >> self.n) & self.index_mask

    def digit(self, mask: int) -> int:
        """The digit of an assigned (or single-candidate) value."""
        return (mask & self.full).bit_length()


@cache
def tables(box: int) -> Tables:
    """The (cached) search tables for box side ``box``."""
    return Tables(geometry(box))


class Start(NamedTuple):
    """What encoding a puzzle gives the search: its tables and the root state."""

    tables: Tables
    cands: tuple[int, ...]


def initial_state(puzzle: Puzzle) -> Start:
    """The root state: givens assigned, every empty cell's candidates minus its peers' givens.

    A given that repeats a peer's given becomes a dead cell (no candidates), so the search
    reports the puzzle UNSAT at the root.
    """
    t = tables(puzzle.box)
    cells = puzzle.cells
    cands: list[int] = []
    for cell, digit in enumerate(cells):
        seen = 0
        for p in t.peers[cell]:
            if cells[p]:
                seen |= 1 << (cells[p] - 1)
        if digit:
            bit = 1 << (digit - 1)
            cands.append(t.open_value(cell, 0) if seen & bit else t.assigned | bit)
        else:
            cands.append(t.open_value(cell, t.full & ~seen))
    return Start(t, tuple(cands))


def check_state(cands: Sequence[int], t: Tables) -> str | None:
    """``None`` when every value is well formed (see the module docstring), else the first fault.

    For tests and debugging of inferences; the search never calls it.
    """
    if len(cands) != t.ncells:
        return f"{len(cands)} values for {t.ncells} cells"
    for cell, mask in enumerate(cands):
        bits = mask & t.full
        if mask >= t.assigned:
            if mask != t.assigned | bits or bits.bit_count() != 1:
                return f"cell {cell}: assigned value {mask:#x} is not one flag and one digit"
        elif mask != t.open_value(cell, bits):
            return f"cell {cell}: value {mask:#x} should be {t.open_value(cell, bits):#x}"
    return None


# --- cell selection: (cands, t) -> cell, or -1 when every cell is assigned ------------------


def first(cands: State, t: Tables) -> int:
    """The first unassigned cell in index order."""
    assigned = t.assigned
    for cell, mask in enumerate(cands):
        if mask < assigned:
            return cell
    return -1


def mrv(cands: State, t: Tables) -> int:
    """Minimum remaining values: the unassigned cell with the fewest candidates, first on ties."""
    best = min(cands)  # count first, then cell index: see the module docstring
    return -1 if best >= t.assigned else (best >> t.n) & t.index_mask


def max_candidates(cands: State, t: Tables) -> int:
    """The unassigned cell with the most candidates, first on ties (a deliberately poor rule)."""
    assigned, shift = t.assigned, t.count_shift
    best_cell, best = -1, 0
    for cell, mask in enumerate(cands):
        if mask < assigned and mask >> shift > best:
            best_cell, best = cell, mask >> shift
    return best_cell


# --- value order: (cands, cell, t) -> candidate bits in the order to try -------------------


@cache
def bits_of(mask: int) -> tuple[int, ...]:
    """The set bits of ``mask``, lowest first."""
    bits = []
    while mask:
        low = mask & -mask
        bits.append(low)
        mask ^= low
    return tuple(bits)


def ascending(cands: State, cell: int, t: Tables) -> Sequence[int]:
    """The cell's candidates, smallest digit first."""
    return bits_of(cands[cell] & t.full)


# --- inference: (cands, cell, bit, t) -> consistent? ---------------------------------------


def check(cands: State, cell: int, bit: int, t: Tables) -> bool:
    """No pruning: the value must only differ from every assigned peer's value."""
    if cell == ROOT:
        return True
    mine = t.assigned | bit
    return all(cands[p] != mine for p in t.peers[cell])


#: No forward checking, only the validity check on assignment.
none = check


def forward(cands: State, cell: int, bit: int, t: Tables) -> bool:
    """Forward checking: remove the digit from the peers' candidates; fail if one empties."""
    if cell == ROOT:
        return True
    one = t.one
    step = bit + one
    for p in t.peers[cell]:
        mask = cands[p]
        if mask & bit:
            mask -= step
            if mask < one:
                return False
            cands[p] = mask
    return True


def singles(cands: State, cell: int, bit: int, t: Tables) -> bool:
    """Forward checking plus naked and hidden singles, to a fixpoint (Norvig's propagation).

    A cell left with one candidate is assigned and its digit removed from its peers; a digit
    with one place left in a unit is assigned there. Fails when a cell has no candidate, a
    digit has no place in a unit, or one cell is the only place for two digits of a unit.
    Only the units of cells that changed are searched for hidden singles.
    """
    full, assigned, one, peers, units, unit_bits = (
        t.full,
        t.assigned,
        t.one,
        t.peers,
        t.units,
        t.unit_bits,
    )
    two = one + one
    queue: list[tuple[int, int]] = []
    if cell == ROOT:
        dirty = (1 << len(units)) - 1
        for c, mask in enumerate(cands):
            if one <= mask < two:
                cands[c] = assigned | (mask & full)
                queue.append((c, mask & full))
    else:
        dirty = unit_bits[cell]  # the cell lost its other candidates
        queue.append((cell, bit))
    while True:
        while queue:
            c, b = queue.pop()
            step = b + one
            for p in peers[c]:
                mask = cands[p]
                if mask & b:
                    if mask >= assigned:
                        return False  # an assigned peer holds the same digit
                    mask -= step
                    if mask < two:
                        if mask < one:
                            return False
                        mask = assigned | (mask & full)
                        queue.append((p, mask & full))
                    cands[p] = mask
                    dirty |= unit_bits[p]
        while dirty:
            low = dirty & -dirty
            dirty ^= low
            unit = units[low.bit_length() - 1]
            once = twice = 0
            for p in unit:
                mask = cands[p] & full
                twice |= once & mask
                once |= mask
            if once != full:
                return False  # a digit with no place in this unit
            hidden = once & ~twice
            if not hidden:
                continue
            for p in unit:
                mask = cands[p]
                if mask < assigned and mask & hidden:
                    mask &= hidden
                    if mask & (mask - 1):
                        return False  # one cell is the only place of two digits
                    cands[p] = assigned | mask
                    queue.append((p, mask))
                    dirty |= unit_bits[p]
        if not queue:
            return True


Select = Callable[[State, Tables], int]
Order = Callable[[State, int, Tables], Sequence[int]]
Inference = Callable[[State, int, int, Tables], bool]

SELECTS: dict[str, Select] = {"mrv": mrv, "first": first, "max": max_candidates}
ORDERS: dict[str, Order] = {"ascending": ascending}
INFERENCES: dict[str, Inference] = {"forward": forward, "singles": singles, "check": check}


# --- the search -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How one search ended: its status, the solutions found (up to the limit), its counters."""

    status: Status
    solutions: tuple[Grid, ...]
    nodes: int
    guesses: int
    backtracks: int

    def result(self, message: str = "") -> SolveResult:
        """The outcome as the backend contract's :class:`SolveResult`."""
        return SolveResult(
            status=self.status,
            solution=self.solutions[0] if self.solutions else None,
            solutions_found=len(self.solutions),
            nodes=self.nodes,
            guesses=self.guesses,
            backtracks=self.backtracks,
            message=message,
        )


#: The most nodes that pass between two looks at the clock when a deadline is set. The
#: stride starts at 1 and doubles while looks come less than 5 ms apart, so slow
#: inferences (a 25x25 ``singles`` node can take a millisecond) still stop near the deadline.
DEADLINE_STRIDE = 1024


def search(
    start: Start,
    select: Select = mrv,
    order: Order = ascending,
    inference: Inference = forward,
    limit: int = 1,
    deadline: float | None = None,
) -> Outcome:
    """Depth-first search for up to ``limit`` solutions from ``start``.

    ``deadline`` is a :func:`time.perf_counter` value; once passed (looked at every
    :data:`DEADLINE_STRIDE` nodes at most) the search returns TIMEOUT with its counters so far and
    any solution already found (counting to two, the first one may be in hand).
    Each branch works on a copy of its parent's state, so nothing is ever undone.
    """
    if limit < 1:
        raise ValueError(f"limit must be 1 or more, got {limit!r}")
    t = start.tables
    flag, full, one = t.assigned, t.full, t.one
    two = one + one
    clock = time.perf_counter
    stride, last_look = 1, clock()
    next_look = 1 + stride if deadline is not None else float("inf")
    nodes, guesses, backtracks = 1, 0, 0
    solutions: list[Grid] = []

    cands = list(start.cands)
    if min(cands) < one or not inference(cands, ROOT, 0, t):  # a dead cell, or refuted
        return Outcome(Status.UNSAT, (), nodes, guesses, backtracks)

    # Each frame: (state, chosen cell, iterator over the bits still to try there).
    stack: list[tuple[State, int, Iterator[int]]] = []
    while True:
        cell = select(cands, t)
        if cell < 0:
            solutions.append(tuple((mask & full).bit_length() for mask in cands))
            if len(solutions) >= limit:
                return Outcome(Status.SOLVED, tuple(solutions), nodes, guesses, backtracks)
            if stack:
                backtracks += 1  # counting on: this solution's assignment is undone
        else:
            if cands[cell] >= two:  # two or more candidates
                guesses += 1
            stack.append((cands, cell, iter(order(cands, cell, t))))
        # Descend into the next value that survives its inference, popping exhausted frames.
        while stack:
            parent, cell, values = stack[-1]
            for bit in values:
                nodes += 1
                if nodes >= next_look:
                    now = clock()
                    if now > deadline:  # type: ignore[operator]
                        return Outcome(Status.TIMEOUT, tuple(solutions), nodes, guesses, backtracks)
                    if now - last_look < 0.005 and stride < DEADLINE_STRIDE:
                        stride += stride
                    last_look = now
                    next_look = nodes + stride
                child = parent.copy()
                child[cell] = bit | flag
                if inference(child, cell, bit, t):
                    cands = child
                    break
                backtracks += 1
            else:
                stack.pop()
                if stack:
                    backtracks += 1  # the value that led to the exhausted frame
                continue
            break
        else:
            status = Status.SOLVED if solutions else Status.UNSAT
            return Outcome(status, tuple(solutions), nodes, guesses, backtracks)
