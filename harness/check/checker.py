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
    if type(answer) is bytes:  # as a worker sends it: every value an int
        return _valid_bytes(givens, answer, n)
    bits, full, digits = _placements(n)
    return (
        set(map(type, answer)) == {int}  # not bool, float or str: they would compare equal
        and digits.issuperset(answer)
        and list(compress(answer, givens)) == list(filter(None, givens))
        and sum(map(getitem, bits, answer)) == full  # see _placements
    )


@cache
def _codes(n: int) -> tuple[bytes, bytes, int]:
    """For :func:`_valid_bytes`: the digits 1..n as bytes; the table that turns a given
    into 255 and a blank into 0; and, as one big number of 3 * n * n bytes (every cell's
    row, then every cell's column, then every cell's box), each unit's code before a value
    is added: n times its place among the 3 * n units (row, column and box ``i`` at 3i,
    3i + 1 and 3i + 2)."""
    box = isqrt(n)
    starts = []
    for kind in range(3):
        for cell in range(n * n):
            row, column = divmod(cell, n)
            unit = (row, column, row // box * box + column // box)[kind]
            starts.append((3 * unit + kind) * n)
    return bytes(range(1, n + 1)), bytes([0] + [255] * 255), int.from_bytes(bytes(starts))


def _valid_bytes(givens: Sequence[int], answer: bytes, n: int) -> bool:
    """:func:`_valid` for an answer as bytes, every value an int (grids up to 9x9; larger
    ones take the general way, as a tuple).

    Each cell's value added to the codes of its 3 units (:func:`_codes`) gives the (unit,
    value) pairs it fills, one byte each, 1 to 3 * n * n: all 243 additions of a 9x9 grid
    are one addition of big numbers. The grid is valid iff every value is a digit, the
    givens are kept and no two cells fill the same pair: iff the pairs are 3 * n * n
    distinct bytes, which ``bytes.maketrans`` counts: it sets the byte of each pair in
    a table of the 256 bytes to 0 (the byte 0 is 0 already, and no pair)."""
    size = n * n
    if n > 9:
        return _valid(givens, tuple(answer), n)
    digits, mark, starts = _codes(n)
    if answer.translate(None, digits):  # a value that is not a digit 1..n
        return False
    given = bytes(givens)
    value = int.from_bytes(answer)
    if value & int.from_bytes(given.translate(mark)) != int.from_bytes(given):
        return False  # a given changed
    thrice = value | value << 8 * size | value << 16 * size  # as rows, columns, boxes
    pairs = (thrice + starts).to_bytes(3 * size)
    return bytes.maketrans(pairs, bytes(3 * size)).count(0) == 3 * size + 1


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
