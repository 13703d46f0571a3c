"""The search state: one packed int per cell, and the per-size tables that read it.

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

Build values with :meth:`SearchTables.open_value`; read them with :meth:`SearchTables.count`,
:meth:`SearchTables.cell_of` and :meth:`SearchTables.digit` (or ``mask & t.full`` for the candidate
bits). An inference that removes candidate bits ``b`` (with ``k`` bits) from an unassigned
value subtracts ``b + k * t.one``; :func:`check_state` verifies these invariants in tests.

Givens start assigned. An unassigned cell holding a single candidate is *not* assigned: under
:func:`~backends.engines.search.propagation.forward` the search still branches on it (a
node, not a guess), as seed 000 does, while :func:`~backends.engines.search.propagation.singles`
assigns it during propagation, as Norvig does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, reduce
from operator import itemgetter, or_
from typing import NamedTuple

from backends.puzzle import Geometry, Puzzle, geometry

#: The ``cell`` argument an inference receives for the root call.
ROOT = -1

#: One packed int per cell (see the module docstring).
State = list[int]
#: Reads the values of fixed cells of a state, as a tuple, in C (an ``operator.itemgetter``).
Getter = Callable[[Sequence[int]], tuple[int, ...]]
#: Cells just assigned, as (cell, bit), whose digit the peers may still hold.
Queue = list[tuple[int, int]]
#: A cell choice: ``(cands, t) -> cell``, or -1 when the state is a solution.
Select = Callable[[State, "SearchTables"], int]
#: A value order: ``(cands, cell, t) -> the candidate bits of cell``, in the order to try.
Order = Callable[[State, int, "SearchTables"], Sequence[int]]
#: An inference: ``(cands, cell, bit, t) -> consistent?``, pruning ``cands`` in place.
Inference = Callable[[State, int, int, "SearchTables"], bool]


@dataclass(frozen=True)
class SearchTables:
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
def tables(box: int) -> SearchTables:
    """The (cached) search tables for box side ``box``."""
    return SearchTables(geometry(box))


class Start(NamedTuple):
    """What encoding a puzzle gives the search: its tables and the root state."""

    tables: SearchTables
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


def check_state(cands: Sequence[int], t: SearchTables) -> str | None:
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
