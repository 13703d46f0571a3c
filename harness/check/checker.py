"""The independent answer checker.

It shares no code with any backend: it derives rows, columns and boxes itself from the
grid's length with plain arithmetic, and trusts nothing the backend says. A grid is
accepted only if it keeps every given and every row, column and box holds each digit
``1..n`` exactly once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from math import isqrt
from operator import itemgetter
from typing import NamedTuple


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


class _Lanes(NamedTuple):
    """What the quick test of :func:`check_solution` needs for an ``n`` x ``n`` grid."""

    digits: bytes  # the bytes 1..n
    width: int  # bytes in a lane: one bit per digit 1..n-1
    tables: tuple[bytes, ...]  # per byte of a lane: each digit's bit in it (bytes.translate)
    shift: int  # bits in a lane
    box: int
    rows: int  # a full lane at the start of every row
    columns: int  # a full lane at every cell of the first row
    boxes: int  # a full lane at the top left cell of every box


@cache
def _lanes(n: int) -> _Lanes:
    """The quick test's tables for side ``n`` (see :func:`_valid`)."""
    width = (n - 1 + 7) // 8
    tables = []
    for byte in range(width):
        table = bytearray(256)
        for digit in range(8 * byte + 1, min(n - 1, 8 * byte + 8) + 1):
            table[digit] = 1 << (digit - 1 - 8 * byte)
        tables.append(bytes(table))
    shift, full, box = 8 * width, (1 << max(n - 1, 0)) - 1, max(1, isqrt(n))  # 1: empty grid

    def lanes_at(cells: Iterable[int]) -> int:
        return sum(full << (shift * cell) for cell in cells)

    return _Lanes(
        bytes(range(1, n + 1)),
        width,
        tuple(tables),
        shift,
        box,
        lanes_at(row * n for row in range(n)),
        lanes_at(range(n)),
        lanes_at(top * n + left for top in range(0, n, box) for left in range(0, n, box)),
    )


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


def all_valid(givens: Sequence[Sequence[int]], answers: Sequence[bytes], n: int) -> bool:
    """Whether every answer (bytes, one a grid) is a valid completion of its givens, for
    ``n`` x ``n`` grids: the test of :func:`_valid` once over all the grids laid end to
    end, which costs about as much as a few grids alone. False says only that some answer
    is not valid, or not bytes of ``n * n`` digits: each is then checked alone.

    Laid end to end, the grids stay apart: a unit's cells gathered into its first cell's
    lane all lie in that unit, so in that grid; the lanes tested are only those. The digit
    ``n`` is counted over all of them: a grid whose units hold every other digit holds at
    most ``n`` cells of ``n`` (one in each row), so ``n`` times as many as there are grids
    means ``n`` in each."""
    size = n * n
    if not answers or n > 255 or any(type(a) is not bytes or len(a) != size for a in answers):
        return False
    try:
        given = b"".join([bytes(cells) for cells in givens])
    except ValueError:  # a given below 0 or above 255
        return False
    return len(given) == size * len(answers) and _valid_grids(b"".join(answers), given, n)


def _valid(givens: Sequence[int], answer: Sequence[int], n: int) -> bool:
    """The whole check at C speed (no Python loop over cells, as :func:`_reason` has):
    True only for a valid completion; False says nothing of why (see :func:`_valid_grids`)."""
    if n > 255:  # a digit would not fit a byte: the loop decides
        return False
    if type(answer) is not bytes and set(map(type, answer)) != {int}:
        return False  # not bool, float or str: they would compare equal
    try:
        grid, given = bytes(answer), bytes(givens)
    except ValueError:  # a value below 0 or above 255
        return False
    return _valid_grids(grid, given, n)


def _valid_grids(grid: bytes, given: bytes, n: int) -> bool:
    """Whether ``grid`` (one or more ``n`` x ``n`` grids, a byte a cell, end to end) keeps
    the ``given`` cells (as many, 0 for an empty cell) and every unit of every grid holds
    each digit ``1..n`` once.

    The grids' digits become one integer of lanes, one a cell, each with the bit ``d - 1``
    of its digit ``d`` set for ``d`` below ``n`` (row-major, the first cell lowest). Lanes
    shifted down and ORed together gather a unit's cells into the lane of its first cell:
    all ``n - 1`` bits are set there when the unit holds every digit below ``n``, in
    ``n - 1`` of its ``n`` cells. The digit ``n`` is counted apart: a row holding every
    other digit has room for one ``n`` at most, so a grid holding ``n`` of them holds one in
    the cell each row has left; likewise for the columns and the boxes."""
    lanes = _lanes(n)
    grids = len(grid) // (n * n)
    if grid.translate(None, lanes.digits) or grid.count(n) != n * grids:  # not all digits
        return False
    kept = int.from_bytes(grid, "little") & int.from_bytes(given.translate(_GIVEN), "little")
    if kept != int.from_bytes(given, "little"):  # some given is changed
        return False
    if lanes.width == 1:
        wide: bytes | bytearray = grid.translate(lanes.tables[0])
    else:
        wide = bytearray(len(grid) * lanes.width)
        for byte, table in enumerate(lanes.tables):
            wide[byte :: lanes.width] = grid.translate(table)
    cells = int.from_bytes(wide, "little")
    lane, box, n_lanes = lanes.shift, lanes.box, n * lanes.shift
    across = down = cells  # each lane ORed with the box - 1 lanes after it, or below it
    for k in range(1, box):
        across |= cells >> (k * lane)
        down |= cells >> (k * n_lanes)
    rows, boxes, columns = across, across, down
    for k in range(1, box):
        rows |= across >> (k * box * lane)
        boxes |= across >> (k * n_lanes)
        columns |= down >> (k * box * n_lanes)
    width = n * n_lanes // 8  # bytes of one grid's lanes
    for found, full in ((rows, lanes.rows), (columns, lanes.columns), (boxes, lanes.boxes)):
        if grids > 1:  # the same lanes in every grid
            full = int.from_bytes(full.to_bytes(width, "little") * grids, "little")
        if found & full != full:
            return False
    return True


#: A given's cell (any byte but 0) as 0xFF: the mask of the answer's cells that must match.
_GIVEN = bytes([0, *[255] * 255])


def _reason(givens: Sequence[int], answer: Sequence[int], n: int) -> str | None:
    """Why ``answer`` is not a valid completion (the first fault found), or None."""
    for cell, (given, value) in enumerate(zip(givens, answer, strict=True)):
        if type(value) is int and value == 0:
            return f"r{cell // n + 1}c{cell % n + 1} is empty"
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
