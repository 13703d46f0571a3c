"""The named choices of a search: which cell to branch on, in which order to try its values,
and which inference to run, each a small function registered under its option value.

* **select** ``(cands, t) -> cell``: the cell to branch on, or ``-1`` when the state is a
  solution (every cell assigned, or every cell down to one candidate for rules that keep
  solved cells open). :func:`first`, :func:`mrv`, :func:`max_candidates`.
* **order** ``(cands, cell, t) -> bits``: the candidate bits of ``cell`` in the order to try
  them. :func:`ascending`.
* **inference**: see :mod:`backends.engines.search.propagation`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from backends.engines.search.propagation import check, forward, singles
from backends.engines.search.state import Inference, Order, SearchTables, Select, State

# --- cell selection: (cands, t) -> cell, or -1 when every cell is assigned ------------------


def first(cands: State, t: SearchTables) -> int:
    """The first unassigned cell in index order."""
    assigned = t.assigned
    for cell, mask in enumerate(cands):
        if mask < assigned:
            return cell
    return -1


def mrv(cands: State, t: SearchTables) -> int:
    """Minimum remaining values: the unassigned cell with the fewest candidates, first on ties."""
    best = min(cands)  # count first, then cell index: see the state module
    return -1 if best >= t.assigned else (best >> t.n) & t.index_mask


def max_candidates(cands: State, t: SearchTables) -> int:
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


def ascending(cands: State, cell: int, t: SearchTables) -> Sequence[int]:
    """The cell's candidates, smallest digit first."""
    return bits_of(cands[cell] & t.full)


SELECTS: dict[str, Select] = {"mrv": mrv, "first": first, "max": max_candidates}
ORDERS: dict[str, Order] = {"ascending": ascending}
INFERENCES: dict[str, Inference] = {"forward": forward, "singles": singles, "check": check}
