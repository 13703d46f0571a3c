"""One backtracking search over bitmask candidate sets, its heuristics passed as parameters.

In the spirit of aima-python's ``backtracking_search(csp, select_unassigned_variable,
order_domain_values, inference)``: :func:`search` holds the only search logic, and a backend
is a choice of three small named functions:

* **select** ``(cands, t) -> cell``: the cell to branch on, or ``-1`` when the state is a
  solution (every cell assigned, or every cell down to one candidate for rules that keep
  solved cells open). :func:`first`, :func:`mrv`, :func:`max_candidates`.
* **order** ``(cands, cell, t) -> bits``: the candidate bits of ``cell`` in the order to try
  them. :func:`ascending`.
* **inference** ``(cands, cell, bit, t) -> bool``: called right after the core assigned
  ``bit`` to ``cell`` in a fresh copy of the state; prunes that copy in place and returns
  False on a contradiction. It is also called once at the root with ``cell == ROOT`` (and
  ``bit == 0``) to make the starting state consistent; ``search(root=...)`` may run another
  inference there (a presolve). :func:`check` (alias :data:`none`), :func:`forward`,
  :func:`singles` and the pair rules of :data:`PAIRS`, all but the first two built on
  :func:`propagate`; :func:`with_locked` adds locked candidates to singles and pairs.

Two drivers walk the same tree: :func:`iterative` (an explicit stack) and :func:`recursive`.
Both only ask :func:`search`'s node expansion for the next child, so their trees and counters
are identical by construction.

A backend on this core subclasses :class:`SearchBackend`: it declares its options and returns
the :class:`Heuristics` they choose; encoding and solving (:func:`solve`) are shared.

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
still counts (and is a backtrack). A value the deadline stops before it is tried does not
count. ``guesses`` counts nodes whose chosen cell had more than one candidate.
``backtracks`` counts tried values that the search undoes before moving on: every refuted or
exhausted subtree, and, when counting to two, a subtree that held only one solution.
"""

from __future__ import annotations

import contextlib
import sys
import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, reduce
from operator import itemgetter, or_
from typing import ClassVar, NamedTuple

from backends.base import Backend, Option, SolveResult, Status
from backends.puzzle import Geometry, Grid, Puzzle, geometry

#: The ``cell`` argument an inference receives for the root call.
ROOT = -1

State = list[int]
#: Reads the values of fixed cells of a state, as a tuple, in C (an ``operator.itemgetter``).
Getter = Callable[[Sequence[int]], tuple[int, ...]]


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
    peer_values: tuple[Getter, ...] = field(init=False, repr=False)  # per cell: its peers
    unit_values: tuple[Getter, ...] = field(init=False, repr=False)  # per unit: its cells
    # per segment (a box-line intersection): its cells
    segment_values: tuple[Getter, ...] = field(init=False, repr=False)
    # per segment: the segments beside it on its line, those parallel to it in its box, and
    # getters of the rest of the line and of the rest of the box
    segments: tuple[tuple[tuple[int, ...], tuple[int, ...], Getter, Getter], ...] = field(
        init=False, repr=False
    )

    def __post_init__(self) -> None:
        geo = self.geo
        n = geo.n
        index_bits = (geo.ncells - 1).bit_length()
        count_shift = n + index_bits
        # Box-line intersections ("segments"), rows first: each with the segments beside it
        # on its line and the segments parallel to it in its box.
        segments = [
            (b, li, tuple(c for c in box if c in line))
            for b, box in enumerate(geo.boxes)
            for li, line in enumerate((*geo.rows, *geo.cols))
            if any(c in line for c in box)
        ]
        segment_info = []
        for b, li, cells in segments:
            horizontal = li < n
            line_others = tuple(
                j for j, (_, lj, _) in enumerate(segments) if lj == li and segments[j][2] != cells
            )
            box_others = tuple(
                j
                for j, (bj, lj, cj) in enumerate(segments)
                if bj == b and (lj < n) == horizontal and cj != cells
            )
            line_rest = tuple(c for j in line_others for c in segments[j][2])
            box_rest = tuple(c for j in box_others for c in segments[j][2])
            segment_info.append(
                (line_others, box_others, itemgetter(*line_rest), itemgetter(*box_rest))
            )
        for name, value in (
            ("n", n),
            ("ncells", geo.ncells),
            ("full", (1 << n) - 1),
            ("index_mask", (1 << index_bits) - 1),
            ("count_shift", count_shift),
            ("one", 1 << count_shift),
            ("assigned", (n + 1) << count_shift),
            ("peers", geo.peers),
            ("units", geo.units),
            ("unit_bits", tuple(sum(1 << u for u in us) for us in geo.units_of)),
            ("peer_values", tuple(itemgetter(*ps) for ps in geo.peers)),
            ("unit_values", tuple(itemgetter(*u) for u in geo.units)),
            ("segment_values", tuple(itemgetter(*cells) for _, _, cells in segments)),
            ("segments", tuple(segment_info)),
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
    bits = [1 << digit >> 1 for digit in puzzle.cells]  # 0 for an empty cell
    seen = [reduce(or_, unit(bits)) for unit in t.unit_values]
    full, assigned, open_value = t.full, t.assigned, t.open_value
    cands: list[int] = []
    for cell, (row, col, box) in enumerate(t.geo.units_of):
        bit = bits[cell]
        if not bit:
            cands.append(open_value(cell, full & ~(seen[row] | seen[col] | seen[box])))
        elif bit in t.peer_values[cell](bits):
            cands.append(open_value(cell, 0))
        else:
            cands.append(assigned | bit)
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
    """The unassigned cell with the most candidates, first on ties (seed 003's choice)."""
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
    return t.assigned | bit not in t.peer_values[cell](cands)


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


#: ``propagate`` flags: the pair rules to apply in each unit besides the singles.
HIDDEN_PAIRS = 1
NAKED_PAIRS = 2


def propagate(
    cands: State, t: Tables, queue: list[tuple[int, int]], dirty: int, pairs: int
) -> bool:
    """Naked and hidden singles (and the ``pairs`` rules) to a fixpoint; False on a contradiction.

    ``queue`` holds (cell, bit) for cells just assigned whose digit the peers still hold;
    ``dirty`` has bit ``u`` set for each unit ``u`` to search for hidden singles. Every change
    queues or dirties what it affects, so on True no rule applies anywhere.

    * naked single: an assigned digit leaves the peers; a cell left with one digit is assigned.
    * hidden single: a digit with one open place in a unit is assigned there.
    * :data:`HIDDEN_PAIRS` (Vermeer's rule for N = 2): two digits that are both confined to
      the same two open cells of a unit drop every other digit from those cells.
    * :data:`NAKED_PAIRS`: two open cells of a unit holding the same two digits remove them
      from the unit's other cells.

    Contradictions: a cell without candidates, a digit assigned twice in a unit or with no
    place in it, one cell the only place of two digits, three digits confined to two cells.
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
            # Open cells' values are OR-ed whole: the bits above ``full`` are masked off below.
            once = twice = thrice = placed = 0
            for p in unit:
                mask = cands[p]
                if mask >= assigned:
                    placed |= mask
                else:
                    thrice |= twice & mask
                    twice |= once & mask
                    once |= mask
            if (once | placed) & full != full:
                return False  # a digit with no place in this unit
            hidden = once & ~(twice | placed) & full
            if hidden:
                for p in unit:
                    mask = cands[p]
                    if mask < assigned and mask & hidden:
                        mask &= hidden
                        if mask & (mask - 1):
                            return False  # one cell is the only place of two digits
                        cands[p] = assigned | mask
                        queue.append((p, mask))
                        dirty |= unit_bits[p]
                break  # drain the queue first; the unit is dirty again by then
            if pairs & HIDDEN_PAIRS:
                doubles = twice & ~(thrice | placed) & full  # digits with exactly two places
                if doubles & (doubles - 1):
                    changed = _hidden_pairs(cands, unit, doubles, t)
                    if changed < 0:
                        return False
                    dirty |= changed
            if pairs & NAKED_PAIRS:
                changed = _naked_pairs(cands, unit, t, queue)
                if changed < 0:
                    return False
                dirty |= changed
        else:
            if not queue:
                return True


def _hidden_pairs(cands: State, unit: tuple[int, ...], doubles: int, t: Tables) -> int:
    """Hidden pairs among the ``doubles`` digits (two places each) of ``unit``.

    Two open cells sharing two of those digits hold every place of both, so they keep only
    those two. Returns the units to search again, or -1 on a contradiction: three digits
    confined to two cells, or a cell that two disjoint pairs both claim.
    """
    full, assigned, n, unit_bits = t.full, t.assigned, t.n, t.unit_bits
    two = t.one + t.one
    seen: list[tuple[int, int]] = []
    dirty = 0
    for p in unit:
        mask = cands[p]
        if mask < assigned:
            mine = mask & doubles
            if mine & (mine - 1):
                for q, theirs in seen:
                    pair = mine & theirs
                    if pair & (pair - 1):
                        if pair.bit_count() > 2:
                            return -1
                        for cell in (q, p):
                            bits = cands[cell] & full
                            if bits & pair != pair:
                                return -1  # an earlier pair already took this cell
                            if bits != pair:
                                cands[cell] = two | cell << n | pair
                                dirty |= unit_bits[cell]
                seen.append((p, mine))
    return dirty


def _naked_pairs(
    cands: State, unit: tuple[int, ...], t: Tables, queue: list[tuple[int, int]]
) -> int:
    """Naked pairs in ``unit``: two open cells holding the same two digits own them.

    Removes both digits from the unit's other open cells; a cell left with one digit is
    assigned and queued. Returns the units to search again, or -1 on a contradiction (a
    third cell with the same two digits, or a cell left with none).
    """
    full, assigned, one, n, unit_bits = t.full, t.assigned, t.one, t.n, t.unit_bits
    two = one + one
    three = two + one
    first_at: dict[int, int] = {}
    pairs: list[tuple[int, int, int]] = []
    for p in unit:
        mask = cands[p]
        if two <= mask < three:
            bits = mask & full
            q = first_at.get(bits)
            if q is None:
                first_at[bits] = p
            elif q < 0:
                return -1
            else:
                pairs.append((bits, q, p))
                first_at[bits] = -1
    dirty = 0
    for pair, a, b in pairs:
        for p in unit:
            mask = cands[p]
            if mask & pair and mask < assigned and p != a and p != b:
                left = mask & full & ~pair
                if not left:
                    return -1
                if left & (left - 1):
                    cands[p] = left.bit_count() * one | p << n | left
                else:
                    cands[p] = assigned | left
                    queue.append((p, left))
                dirty |= unit_bits[p]
    return dirty


def _start(cands: State, cell: int, bit: int, t: Tables) -> tuple[list[tuple[int, int]], int]:
    """What :func:`propagate` starts from: after an assignment, that cell and its units; at
    the root, every open cell left with one candidate (now assigned) and every unit."""
    if cell != ROOT:
        return [(cell, bit)], t.unit_bits[cell]
    full, assigned, one = t.full, t.assigned, t.one
    two = one + one
    queue = []
    for c, mask in enumerate(cands):
        if one <= mask < two:
            cands[c] = assigned | (mask & full)
            queue.append((c, mask & full))
    return queue, (1 << len(t.units)) - 1


def singles(cands: State, cell: int, bit: int, t: Tables) -> bool:
    """Norvig's propagation: naked and hidden singles to a fixpoint (see :func:`propagate`)."""
    queue, dirty = _start(cands, cell, bit, t)
    return propagate(cands, t, queue, dirty, 0)


def hidden_pairs(cands: State, cell: int, bit: int, t: Tables) -> bool:
    """Singles plus Vermeer's rule for N = 2, hidden pairs (see :func:`propagate`)."""
    queue, dirty = _start(cands, cell, bit, t)
    return propagate(cands, t, queue, dirty, HIDDEN_PAIRS)


def naked_pairs(cands: State, cell: int, bit: int, t: Tables) -> bool:
    """Singles plus naked pairs (see :func:`propagate`)."""
    queue, dirty = _start(cands, cell, bit, t)
    return propagate(cands, t, queue, dirty, NAKED_PAIRS)


def both_pairs(cands: State, cell: int, bit: int, t: Tables) -> bool:
    """Singles plus hidden and naked pairs (see :func:`propagate`)."""
    queue, dirty = _start(cands, cell, bit, t)
    return propagate(cands, t, queue, dirty, HIDDEN_PAIRS | NAKED_PAIRS)


def locked_candidates(cands: State, t: Tables, queue: list[tuple[int, int]]) -> int:
    """Pointing and claiming over every box-line intersection, once.

    A digit whose open places in a box all lie on one line leaves the rest of that line
    (pointing); one whose open places on a line all lie in one box leaves the rest of that
    box (claiming). A cell left with one candidate is assigned and put on ``queue`` for
    :func:`propagate`. Returns the units of the cells changed (0 if none), or -1 on a
    contradiction.

    The unions of every segment (box-line intersection) are taken once, in C, before any
    removal; a removal can only make later decisions of the same pass more cautious or act
    in a state that has no solution anyway, so the pass stays sound. The state must hold no
    assigned digit among a peer's candidates (as :func:`propagate` leaves it): then an
    assigned cell changes no decision, so assigned values are OR-ed in with the open ones.
    """
    full = t.full
    dirty = 0
    unions = [reduce(or_, cells(cands)) for cells in t.segment_values]
    for inside, (line_others, box_others, line_rest, box_rest) in zip(
        unions, t.segments, strict=True
    ):
        inside &= full
        if inside:
            in_line = in_box = 0
            for j in line_others:
                in_line |= unions[j]
            for j in box_others:
                in_box |= unions[j]
            pointing = inside & in_line & ~in_box
            claiming = inside & in_box & ~in_line
            for drop, cells in ((pointing, line_rest), (claiming, box_rest)):
                if drop:
                    changed = _remove(cands, cells, drop, t, queue)
                    if changed < 0:
                        return -1
                    dirty |= changed
    return dirty


def _remove(cands: State, cells: Getter, drop: int, t: Tables, queue: list[tuple[int, int]]) -> int:
    """Remove ``drop`` from the open cells ``cells`` reads: the units changed, or -1."""
    full, assigned, unit_bits = t.full, t.assigned, t.unit_bits
    dirty = 0
    for mask in cells(cands):
        gone = mask & drop
        if gone and mask < assigned:
            left = (mask & full) ^ gone
            if not left:
                return -1
            cell = t.cell_of(mask)
            if left & (left - 1):
                cands[cell] = t.open_value(cell, left)
            else:
                cands[cell] = assigned | left
                queue.append((cell, left))
            dirty |= unit_bits[cell]
    return dirty


def with_locked(pairs: int = 0) -> Inference:
    """Singles (and the ``pairs`` rules of :func:`propagate`), then locked candidates, to a
    fixpoint of both.

    Pass it as ``search(root=...)`` for locked candidates at the root only, or as the
    inference for locked candidates after every assignment too.
    """

    def locked(cands: State, cell: int, bit: int, t: Tables) -> bool:
        queue, dirty = _start(cands, cell, bit, t)
        while propagate(cands, t, queue, dirty, pairs):
            dirty = locked_candidates(cands, t, queue)
            if dirty <= 0:
                return dirty == 0
        return False

    rules = [
        name for flag, name in ((HIDDEN_PAIRS, "hidden"), (NAKED_PAIRS, "naked")) if pairs & flag
    ]
    locked.__name__ = locked.__qualname__ = "_".join(["singles", *rules, "locked"])
    locked.__doc__ = "Singles, the pair rules asked for, and locked candidates, to a fixpoint."
    return locked


Select = Callable[[State, Tables], int]
Order = Callable[[State, int, Tables], Sequence[int]]
Inference = Callable[[State, int, int, Tables], bool]

SELECTS: dict[str, Select] = {"mrv": mrv, "first": first, "max": max_candidates}
ORDERS: dict[str, Order] = {"ascending": ascending}
INFERENCES: dict[str, Inference] = {"forward": forward, "singles": singles, "check": check}
#: Singles plus pair rules, by the name of the rule added.
PAIRS: dict[str, Inference] = {
    "none": singles,
    "hidden": hidden_pairs,
    "naked": naked_pairs,
    "both": both_pairs,
}
#: The :func:`propagate` flags of each entry of :data:`PAIRS`.
PAIR_FLAGS: dict[str, int] = {
    "none": 0,
    "hidden": HIDDEN_PAIRS,
    "naked": NAKED_PAIRS,
    "both": HIDDEN_PAIRS | NAKED_PAIRS,
}


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


Expand = Callable[[State], Iterator[State]]


def iterative(expand: Expand, root: State) -> None:
    """Walk the tree below ``root`` depth first with an explicit stack (seed 002's form)."""
    stack = [expand(root)]
    while stack:
        for child in stack[-1]:
            stack.append(expand(child))
            break
        else:
            stack.pop()


def recursive(expand: Expand, root: State) -> None:
    """Walk the tree below ``root`` depth first by recursion (seed 000's form)."""
    for child in expand(root):
        recursive(expand, child)


Driver = Callable[[Expand, State], None]
DRIVERS: dict[str, Driver] = {"iterative": iterative, "recursive": recursive}


class _Stop(Exception):
    """Unwinds a driver: the solution limit was reached, or the deadline passed."""


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
    root: Inference | None = None,
    driver: Driver = iterative,
) -> Outcome:
    """Depth-first search for up to ``limit`` solutions from ``start``.

    ``root`` is the inference run once at the root (default: ``inference``), e.g. singles
    before plain backtracking. ``driver`` walks the tree (:func:`iterative` or
    :func:`recursive`); the tree and the counters do not depend on it.
    ``deadline`` is a :func:`time.perf_counter` value; once passed (looked at before the
    first value and then every :data:`DEADLINE_STRIDE` nodes at most) the search returns
    TIMEOUT with its counters so far and any solution already found (counting to two, the
    first one may be in hand). Each branch works on a copy of its parent's state, so nothing
    is ever undone.
    """
    if limit < 1:
        raise ValueError(f"limit must be 1 or more, got {limit!r}")
    t = start.tables
    flag, full, one = t.assigned, t.full, t.one
    two = one + one
    clock = time.perf_counter
    stride, last_look = 1, clock()
    next_look = 1 if deadline is not None else float("inf")
    nodes, guesses, backtracks = 1, 0, 0
    solutions: list[Grid] = []
    timed_out = False

    def look() -> None:
        """Stop the search when the deadline has passed; else plan the next look."""
        nonlocal stride, last_look, next_look, timed_out
        now = clock()
        if now > deadline:  # type: ignore[operator]
            timed_out = True
            raise _Stop
        if now - last_look < 0.005 and stride < DEADLINE_STRIDE:
            stride += stride
        last_look = now
        next_look = nodes + stride

    def expand(cands: State) -> Iterator[State]:
        """The one node expansion: pick a cell, then yield each child its inference keeps."""
        nonlocal nodes, guesses, backtracks
        cell = select(cands, t)
        if cell < 0:
            solutions.append(tuple((mask & full).bit_length() for mask in cands))
            if len(solutions) >= limit:
                raise _Stop
            return
        if cands[cell] >= two:  # two or more candidates
            guesses += 1
        for bit in order(cands, cell, t):
            if nodes >= next_look:
                look()
            nodes += 1
            child = cands.copy()
            child[cell] = bit | flag
            if inference(child, cell, bit, t):
                yield child  # the driver explores the child's subtree before resuming here
            backtracks += 1  # refuted, exhausted, or (counting on) its solution is undone

    cands = list(start.cands)
    if min(cands) < one or not (root or inference)(cands, ROOT, 0, t):  # dead, or refuted
        return Outcome(Status.UNSAT, (), nodes, guesses, backtracks)
    if driver is recursive:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), t.ncells + 1000))
    with contextlib.suppress(_Stop):
        driver(expand, cands)
    status = Status.TIMEOUT if timed_out else Status.SOLVED if solutions else Status.UNSAT
    return Outcome(status, tuple(solutions), nodes, guesses, backtracks)


@dataclass(frozen=True)
class Heuristics:
    """The functions one search runs with (see :func:`search` for each)."""

    select: Select = mrv
    order: Order = ascending
    inference: Inference = forward
    root: Inference | None = None
    driver: Driver = iterative


def solve(
    start: Start,
    limit: int = 1,
    time_limit: float | None = None,
    heuristics: Heuristics = Heuristics(),
) -> SolveResult:
    """:func:`search` as a backend's ``solve`` step: the deadline is ``time_limit`` from now."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    h = heuristics
    outcome = search(start, h.select, h.order, h.inference, limit, deadline, h.root, h.driver)
    message = (
        f"time limit {time_limit}s reached after {len(outcome.solutions)} solution(s)"
        if outcome.status is Status.TIMEOUT
        else ""
    )
    return outcome.result(message)


class SearchBackend(Backend):
    """A backend that is a choice of :class:`Heuristics` for the one search of this module.

    Subclasses declare their options and say, in :meth:`heuristics`, which functions those
    options choose; encoding (:func:`initial_state`) and solving are shared.
    """

    deterministic: ClassVar[bool] = True
    max_box: ClassVar[int] = 5

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
