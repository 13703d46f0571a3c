"""The ``bitmask`` backend's tables: everything its solver looks up, computed once per box size.

See :mod:`backends.bitmask` for the state they index (``cand``, ``pos``) and why it is laid
out this way. BitmaskTables up to 16 bits of input are lists whose ``__getitem__`` runs as a C call
inside ``map``; for 25x25 the same functions run, their results cached.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from operator import itemgetter
from typing import Any

from backends.puzzle import geometry

#: Branch-cell key of a placed cell (one candidate): larger than any candidate count.
PLACED = 99
#: The largest grid side whose lookup tables are lists (2**16 entries); 25x25 computes.
TABLE_MAX_N = 16
#: Entries kept by each 25x25 lookup's cache (its inputs have 25 bits: no table).
CACHED = 1 << 16
Lookup = Callable[[int], int]


class Memo(dict):
    """A lookup table too large to build (25x25): each entry computed when first read."""

    def __init__(self, fn: Callable[[int], Any]) -> None:
        super().__init__()
        self.fn = fn

    def __missing__(self, key: int) -> Any:
        if len(self) >= CACHED:
            self.clear()
        value = self[key] = self.fn(key)
        return value


Table = list[Any] | Memo


@dataclass(frozen=True)
class BitmaskTables:
    """Everything the solver reads for one box size, computed once (:func:`tables`).

    ``pos`` index ``kind * n * n + (d - 1) * n + j`` is unit ``j`` of a kind (rows, columns,
    boxes) for digit ``d``: the rows and columns of every digit come first, together.
    ``info[c]``: for each of the cell's three units (row, column, box), the unit's pos index
    for digit 1, the cell's bit in the unit and the unit's map from a cell bit back to the
    cell. ``members[f]``: ``getitem`` of a list giving, for each slot of pos index ``f``'s
    unit, the cell there and its ``info`` for its two other units, their pos indices for
    ``f``'s digit (a peer seen in this unit). ``board[c]``: the cell's three bits on a
    bitboard laid out as ``pos`` for digit 1,
    ``stride`` bits a mask; ``blocked[c]``: the same for the cell and all its peers.
    ``key``: candidate count of a mask, ``PLACED`` for one bit. ``seg``/``lock``: see
    :func:`backends.bitmask.locked`.
    """

    box: int
    n: int
    full: int
    info: tuple[tuple[Any, ...], ...]
    few: Table  # mask -> True when it has one bit or none
    slots_of: Table  # mask -> the indices of its bits
    members: tuple[Callable[[int], tuple[Any, ...]], ...]  # per pos index: see ``info``
    digits: Table  # mask of digits -> (digit bit, (digit - 1) * n) per digit in it
    units_of: tuple[tuple[int, int, int], ...]
    peers: tuple[Callable[[list[int]], tuple[int, ...]], ...]  # per cell: its peers' items
    board: tuple[int, ...]
    blocked: tuple[int, ...]
    stride: int
    span: int  # board bits from one digit to the next: n masks of ``stride`` bits
    every: int  # every unit's n slots on digit 1's board
    bit_of: tuple[int, ...]  # digit -> its bit (0 -> 0)
    guard: int  # the top bit of every mask of the whole board
    ones: int  # the bottom bit of every mask of the whole board
    back: tuple[dict[int, int], ...]  # per pos index: cell bit -> cell
    offset: dict[int, int]  # digit bit -> (digit - 1) * n, added to a unit's pos index
    key: Lookup
    key_table: list[int] | None  # key as a list (n <= 16), for itemgetter
    seg: tuple[Lookup, ...]  # per line of a band: line mask -> its boxes, shifted in place
    lock: Lookup  # a band's occupancy -> the (line, box) places to clear, -1 if dead
    slots: tuple[int, ...]  # a line's boxes -> the line's slots in them


def _key(mask: int) -> int:
    return PLACED if mask and not mask & (mask - 1) else mask.bit_count()


def _lookup(bits: int, fn: Lookup) -> Lookup:
    """A table's ``__getitem__`` (a C call) up to 16 bits of input; beyond, ``fn`` cached."""
    return (
        list(map(fn, range(1 << bits))).__getitem__
        if bits <= TABLE_MAX_N
        else lru_cache(CACHED)(fn)
    )


def _table(bits: int, fn: Callable[[int], Any]) -> Table:
    """``fn`` tabulated as a list up to 16 bits of input; beyond, a :class:`Memo`."""
    return list(map(fn, range(1 << bits))) if bits <= TABLE_MAX_N else Memo(fn)


def _slots_of(mask: int) -> tuple[int, ...]:
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)


def _shift(unit: tuple[int, int, Any], f: int) -> tuple[int, int, Any]:
    """A cell's (pos index, bit, back) for one unit, the index moved to pos index f's digit."""
    n = len(unit[2])
    return (unit[0] + f % (n * n) // n * n, *unit[1:])


def _boxes_of(mask: int, box: int) -> int:
    """The boxes (groups of ``box`` consecutive slots) a line's mask has places in."""
    group = (1 << box) - 1
    return sum(1 << g for g in range(box) if mask >> (g * box) & group)


def _lock(occupied: int, box: int) -> int:
    """Locked candidates to a fixpoint in one band (or stack) for one digit.

    ``occupied`` bit ``line * box + g``: the band's line holds the digit in its box ``g``.
    A line with the digit in one box only clears it from the box's other lines (claiming);
    a box with the digit in one line only clears it from the line's other boxes (pointing).
    Returns the places cleared, or -1 when a line or a box is left without the digit.
    """
    group = (1 << box) - 1
    lines = [occupied >> (r * box) & group for r in range(box)]
    changed = True
    while changed:
        changed = False
        for r, boxes in enumerate(lines):
            if not boxes:
                return -1
            if not boxes & (boxes - 1):
                for other in range(box):
                    if other != r and lines[other] & boxes:
                        lines[other] ^= boxes
                        changed = True
        for g in range(box):
            holders = [r for r in range(box) if lines[r] >> g & 1]
            if not holders:
                return -1
            if len(holders) == 1 and lines[holders[0]] != 1 << g:
                lines[holders[0]] = 1 << g
                changed = True
    return occupied & ~sum(boxes << (r * box) for r, boxes in enumerate(lines))


@cache
def tables(box: int) -> BitmaskTables:
    """The (cached) tables of box side ``box``."""
    geo = geometry(box)
    n = geo.n
    stride = 16 if n < 16 else 32  # room for a guard bit above each unit's n slots
    slot = [[0, 0, 0] for _ in range(geo.ncells)]  # the cell's index inside each unit
    for u, unit in enumerate(geo.units):
        for i, cell in enumerate(unit):
            slot[cell][u // n] = i
    back_of_unit = [{1 << i: cell for i, cell in enumerate(unit)} for unit in geo.units]
    base = [(u // n) * n * n + u % n for u in range(3 * n)]  # unit -> its pos index, digit 1
    head = [
        [(base[u], 1 << slot[c][k], back_of_unit[u]) for k, u in enumerate(geo.units_of[c])]
        for c in range(geo.ncells)
    ]
    info = tuple(tuple(x for unit in h for x in unit) for h in head)
    fields = 3 * n * n
    members = [  # per pos index: for each slot, its cell and its two other units' masks
        [
            (c, *(x for k in range(3) if k != f // (n * n) for x in _shift(head[c][k], f)))
            for c in geo.units[(f // (n * n)) * n + f % n]
        ].__getitem__
        for f in range(fields)
    ]
    board = tuple(
        sum(1 << (base[u] * stride + slot[c][k]) for k, u in enumerate(geo.units_of[c]))
        for c in range(geo.ncells)
    )
    full = (1 << n) - 1
    return BitmaskTables(
        box=box,
        n=n,
        full=full,
        info=info,
        members=tuple(members),
        few=_table(n, lambda m: not m & (m - 1)),
        slots_of=_table(n, _slots_of),
        digits=_table(n, lambda m: tuple((1 << i, i * n) for i in _slots_of(m))),
        units_of=geo.units_of,
        peers=tuple(itemgetter(*peers) for peers in geo.peers),
        board=board,
        blocked=tuple(sum({board[p] for p in (*geo.peers[c], c)}) for c in range(geo.ncells)),
        stride=stride,
        span=n * stride,
        every=sum(full << (base[u] * stride) for u in range(3 * n)),
        bit_of=(0, *(1 << d for d in range(n))),
        guard=sum(1 << (f * stride + stride - 1) for f in range(fields)),
        ones=sum(1 << (f * stride) for f in range(fields)),
        back=tuple(back_of_unit[(f // (n * n)) * n + f % n] for f in range(fields)),
        offset={1 << d: d * n for d in range(n)},
        key=_lookup(n, _key),
        key_table=list(map(_key, range(1 << n))) if n <= TABLE_MAX_N else None,
        seg=tuple(_lookup(n, lambda m, r=r: _boxes_of(m, box) << (r * box)) for r in range(box)),
        lock=_lookup(n, lambda occupied: _lock(occupied, box)),
        slots=tuple(
            sum(((1 << box) - 1) << (g * box) for g in range(box) if boxes >> g & 1)
            for boxes in range(1 << box)
        ),
    )


def unit_masks(t: BitmaskTables, boards: int) -> list[int]:
    """Cut a bitboard laid out as ``pos`` (``stride`` bits a mask) into the masks."""
    width = t.stride // 8
    return (
        memoryview(boards.to_bytes(3 * t.n * t.n * width, "little")).cast("HI"[width // 4]).tolist()
    )
