"""Settling a disputed solution count with the harness's own search.

Under ``--limit-solutions 2`` one backend may claim a unique solution while another claims
two, both returning the same first grid: no checked answer refutes either claim, and a
backend reports only its first solution. The harness then looks itself for a solution
other than that grid, by plain bitmask backtracking that shares no code with any backend;
what it finds is checked by :mod:`harness.check.checker` like any answer. Finding one refutes the
unique claim; exhausting the search refutes the claim of two. See
:func:`harness.check.crosscheck.cross_check`. A lone backend's claim of two solutions is
checked the same way, within a budget of search nodes (:func:`harness.check.judge.judge`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from math import isqrt


class Unsettled(Exception):
    """The search ran out of its time or node budget before settling the count."""


def _layout(n: int) -> tuple[list[tuple[int, int, int]], list[list[int]]]:
    """Each cell's row, column and box, and the cells of every unit (rows, columns, boxes)."""
    box = isqrt(n)
    where = [(i // n, i % n, (i // n // box) * box + i % n // box) for i in range(n * n)]
    units = [
        [i for i in range(n * n) if where[i][kind] == k] for kind in range(3) for k in range(n)
    ]
    return where, units


def other_solution(
    givens: Sequence[int],
    known: Sequence[int],
    seconds: float = float("inf"),
    max_nodes: int | None = None,
) -> tuple[int, ...] | None:
    """A completion of ``givens`` other than ``known`` (any completion, for ``known`` empty),
    or None when there is none.

    The search branches where the grid is most constrained, as exact cover does: on the
    open cell with the fewest candidates, or on the digit a unit lacks that has the fewest
    places left in it, whichever has fewer choices (a choice of none ends the branch). So it
    settles a hard puzzle with no solution in thousands of nodes, where branching on cells
    alone takes millions. Raises :class:`Unsettled` after ``seconds`` or ``max_nodes``
    search nodes without an answer.
    """
    n = isqrt(len(givens))
    full = (1 << n) - 1
    cells = list(givens)
    where, units = _layout(n)
    rows, cols, boxes = [0] * n, [0] * n, [0] * n
    for i, value in enumerate(cells):
        if value:
            r, c, b = where[i]
            rows[r], cols[c], boxes[b] = (
                rows[r] | 1 << value - 1,
                cols[c] | 1 << value - 1,
                boxes[b] | 1 << value - 1,
            )
    deadline = time.perf_counter() + seconds
    target = list(known)
    steps = 0

    def place(i: int, bit: int) -> None:
        r, c, b = where[i]
        cells[i] = bit.bit_length()
        rows[r], cols[c], boxes[b] = rows[r] | bit, cols[c] | bit, boxes[b] | bit

    def take_back(i: int, bit: int) -> None:
        r, c, b = where[i]
        cells[i] = 0
        rows[r], cols[c], boxes[b] = rows[r] ^ bit, cols[c] ^ bit, boxes[b] ^ bit

    def choices() -> list[tuple[int, int]] | None:
        """The (cell, digit bit) choices to branch on, fewest first found; None when the
        grid is full."""
        free: dict[int, int] = {}
        best: list[tuple[int, int]] | None = None
        for i, value in enumerate(cells):
            if not value:
                r, c, b = where[i]
                free[i] = full & ~(rows[r] | cols[c] | boxes[b])
                count = free[i].bit_count()
                if best is None or count < len(best):
                    best = [(i, bit) for bit in _bits(free[i])]
                    if count <= 1:
                        return best
        if best is None:
            return None
        for unit in units:
            placed = 0
            for i in unit:
                if cells[i]:
                    placed |= 1 << cells[i] - 1
            for bit in _bits(full & ~placed):
                places = [(i, bit) for i in unit if i in free and free[i] & bit]
                if len(places) < len(best):
                    best = places
                    if len(best) <= 1:
                        return best
        return best

    def search() -> bool:
        nonlocal steps
        steps += 1
        if steps % 1024 == 0 and time.perf_counter() > deadline:
            raise Unsettled(f"no answer within {seconds:g} s")
        if max_nodes is not None and steps > max_nodes:
            raise Unsettled(f"no answer within {max_nodes:,} search nodes")
        options = choices()
        if options is None:
            return cells != target
        for i, bit in options:
            place(i, bit)
            if search():
                return True
            take_back(i, bit)
        return False

    return tuple(cells) if search() else None


def _bits(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first, each as a one-bit mask."""
    found = []
    while mask:
        bit = mask & -mask
        found.append(bit)
        mask ^= bit
    return found
