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


def _masks(cells: Sequence[int], n: int) -> tuple[list[int], list[int], list[int], list]:
    """The digits each row, column and box holds (bit masks), and the empty cells as
    (cell, row, column, box)."""
    box = isqrt(n)
    rows, cols, boxes = [0] * n, [0] * n, [0] * n
    empty = []
    for i, value in enumerate(cells):
        r, c = divmod(i, n)
        b = (r // box) * box + c // box
        if value:
            rows[r] |= 1 << (value - 1)
            cols[c] |= 1 << (value - 1)
            boxes[b] |= 1 << (value - 1)
        else:
            empty.append((i, r, c, b))
    return rows, cols, boxes, empty


def other_solution(
    givens: Sequence[int],
    known: Sequence[int],
    seconds: float = float("inf"),
    max_nodes: int | None = None,
) -> tuple[int, ...] | None:
    """A completion of ``givens`` other than ``known``, or None when ``known`` is the only one.

    Raises :class:`Unsettled` after ``seconds`` or ``max_nodes`` search nodes without an answer.
    """
    n = isqrt(len(givens))
    full = (1 << n) - 1
    cells = list(givens)
    rows, cols, boxes, empty = _masks(cells, n)
    deadline = time.perf_counter() + seconds
    target = list(known)
    steps = 0

    def search() -> bool:
        nonlocal steps
        steps += 1
        if steps % 1024 == 0 and time.perf_counter() > deadline:
            raise Unsettled(f"no answer within {seconds:g} s")
        if max_nodes is not None and steps > max_nodes:
            raise Unsettled(f"no answer within {max_nodes:,} search nodes")
        best, best_free, best_count = None, 0, n + 1
        for entry in empty:  # the open cell with the fewest candidates
            if cells[entry[0]]:
                continue
            free = full & ~(rows[entry[1]] | cols[entry[2]] | boxes[entry[3]])
            count = free.bit_count()
            if count < best_count:
                best, best_free, best_count = entry, free, count
                if count <= 1:
                    break
        if best is None:
            return cells != target
        i, r, c, b = best
        while best_free:
            bit = best_free & -best_free
            best_free ^= bit
            cells[i] = bit.bit_length()
            rows[r], cols[c], boxes[b] = rows[r] | bit, cols[c] | bit, boxes[b] | bit
            if search():
                return True
            rows[r], cols[c], boxes[b] = rows[r] ^ bit, cols[c] ^ bit, boxes[b] ^ bit
        cells[i] = 0
        return False

    return tuple(cells) if search() else None
