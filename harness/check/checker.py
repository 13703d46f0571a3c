"""The independent answer checker.

It shares no code with any backend: it derives rows, columns and boxes itself from the
grid's length with plain arithmetic, and trusts nothing the backend says. A grid is
accepted only if it keeps every given and every row, column and box holds each digit
``1..n`` exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from itertools import compress
from math import isqrt
from operator import getitem, itemgetter


@cache
def _unit_cells(n: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Every unit of an ``n`` x ``n`` grid, as its name and its cells: row, column and box
    ``i`` for each ``i`` in turn."""
    box = isqrt(n)
    units: list[tuple[str, tuple[int, ...]]] = []
    for i in range(n):
        units.append((f"row {i + 1}", tuple(i * n + c for c in range(n))))
        units.append((f"column {i + 1}", tuple(r * n + i for r in range(n))))
        top, left = (i // box) * box, (i % box) * box
        cells = tuple((top + dr) * n + left + dc for dr in range(box) for dc in range(box))
        units.append((f"box {i + 1}", cells))
    return tuple(units)


@cache
def _units(n: int) -> tuple[tuple[str, Callable[[Sequence[int]], tuple[int, ...]]], ...]:
    """Every unit of an ``n`` x ``n`` grid: its name and a getter of its ``n`` values."""
    return tuple((name, itemgetter(*cells)) for name, cells in _unit_cells(n))


@cache
def _placements(n: int) -> tuple[tuple[tuple[int, ...], ...], int, frozenset[int]]:
    """For the quick test of :func:`check_solution`: per cell and value, the bits of the
    (unit, value) pairs the value fills (one bit each in its row, column and box); the
    number whose every such bit is set; the digits 1..n.

    Summed over a grid of digits, the bits reach that number exactly when no two cells
    fill the same (unit, value) pair: every term has 3 bits, the target has all 3 * n**2
    of them, and an addition whose terms share a bit carries, which leaves the sum fewer
    bits than its terms had, for good. So the sum is the target iff every unit holds each
    digit once."""
    bits = [[0] * (n + 1) for _ in range(n * n)]
    for position, (_, cells) in enumerate(_unit_cells(n)):
        for cell in cells:
            for value in range(1, n + 1):
                bits[cell][value] |= 1 << (position * n + value - 1)
    return tuple(map(tuple, bits)), (1 << (3 * n * n)) - 1, frozenset(range(1, n + 1))


def check_solution(givens: Sequence[int], answer: Sequence[int] | None) -> str | None:
    """``None`` when ``answer`` is a valid completion of ``givens``, else the reason.

    Both are row-major sequences of ints; ``0`` in ``givens`` is an empty cell.
    """
    if answer is None:
        return "no grid returned"
    size = len(givens)
    n = isqrt(size)
    if n * n != size or isqrt(n) ** 2 != n:
        return f"puzzle has {size} cells, not a square grid of square boxes"
    if len(answer) != size:
        return f"answer has {len(answer)} cells, expected {size}"
    if _valid(givens, answer, n):
        return None
    return _reason(givens, answer, n)


def _valid(givens: Sequence[int], answer: Sequence[int], n: int) -> bool:
    """The whole check at C speed (no Python loop over cells, as :func:`_reason` has):
    True only for a valid completion; False says nothing of why."""
    bits, full, digits = _placements(n)
    return (
        set(map(type, answer)) == {int}  # not bool, float or str: they would compare equal
        and digits.issuperset(answer)
        and list(compress(answer, givens)) == list(filter(None, givens))
        and sum(map(getitem, bits, answer)) == full  # see _placements
    )


def _reason(givens: Sequence[int], answer: Sequence[int], n: int) -> str | None:
    """Why ``answer`` is not a valid completion (the first fault found), or None."""
    for cell, (given, value) in enumerate(zip(givens, answer, strict=True)):
        if type(value) is bool or not isinstance(value, int) or not 1 <= value <= n:
            return f"r{cell // n + 1}c{cell % n + 1} holds {value!r}, not a digit 1..{n}"
        if given and given != value:
            return f"r{cell // n + 1}c{cell % n + 1} changes the given {given} to {value}"
    digits = set(range(1, n + 1))
    for name, values_of in _units(n):
        values = set(values_of(answer))
        if len(values) != n:  # every value is a digit 1..n (checked above): one is missing
            missing = sorted(digits - values)
            return f"{name} lacks digit {missing[0]}"
    return None


def first_difference(a: Sequence[int], b: Sequence[int]) -> str:
    """Where two grids of the same size first differ, as ``r1c2: 3 vs 4``."""
    n = isqrt(len(a))
    for cell, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y:
            return f"r{cell // n + 1}c{cell % n + 1}: {x} vs {y}"
    return "no difference"
