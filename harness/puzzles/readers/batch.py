"""The batch check, in pure Python: many puzzles of one size at once, as big-int bit planes.

A batch of K puzzles arrives as one ``bytes`` of digits, puzzle after puzzle (0: empty, above
n: not a symbol). Each cell's K digits (a slice with a step) become one-hot bits through
``bytes.translate``, read as one int: byte ``p * K + k`` of it holds puzzle k's bit for the
digits ``8p + 1 .. 8p + 8`` (the plane p). Checking a unit is then a few big-int ``&`` and
``|`` over its cells, for every puzzle of the batch at once, and no lane ever spills into
the next (no carries). Only the puzzles flagged are looked at one by one, elsewhere.

An expected solution is held to the harness's one answer checker
(:mod:`harness.check.checker`), as a backend's answer is: a valid completion of the puzzle.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache, reduce
from itertools import accumulate
from operator import and_, or_
from struct import Struct

from backends.puzzle import SIZES, Grid, Unit, geometry
from harness.check.checker import all_valid, check_solution
from harness.puzzles.readers.symbols import digit_table


def check(
    texts: Sequence[str], solutions: Sequence[str | None], n: int, alphabet: str
) -> tuple[set[int], Iterator[Grid], list[Grid | None]]:
    """Check equal-length puzzles and their expected solutions (``None``: none given).

    Returns the indices of the puzzles refused (a foreign symbol, a digit twice in a unit; a
    solution the answer checker refuses), and the cells of every puzzle and expected
    solution (those of a refused one mean nothing).
    """
    ncells = n * n
    units = geometry(SIZES[n]).units
    digits = to_digits(texts, n, alphabet)
    bits = cell_bits(digits, ncells, n)
    refused = set(foreign(digits, ncells, n))
    refused.update(flagged(repeated(bits, units), len(texts), n))
    expected: list[Grid | None] = [None] * len(texts)
    solved = [k for k, solution in enumerate(solutions) if solution is not None]
    if solved:
        sdigits = to_digits([solutions[k] or "" for k in solved], n, alphabet)
        grids = list(grid_struct(ncells).iter_unpack(sdigits))
        givens = [digits[k * ncells : (k + 1) * ncells] for k in solved]
        answers = [sdigits[j * ncells : (j + 1) * ncells] for j in range(len(solved))]
        if not all_valid(givens, answers, n):  # some is refused: which, one at a time
            refused.update(
                k
                for k, given, cells in zip(solved, givens, grids, strict=True)
                if check_solution(tuple(given), cells) is not None
            )
        for k, cells in zip(solved, grids, strict=True):
            expected[k] = cells
    return refused, grid_struct(ncells).iter_unpack(digits), expected


@cache
def grid_struct(ncells: int) -> Struct:
    """Unpacks a grid's digits from bytes into a tuple of ints."""
    return Struct(f"{ncells}B")


@cache
def byte_table(n: int, alphabet: str) -> bytes:
    """:func:`digit_table` as a ``bytes.translate`` table: symbol -> digit, empty -> 0, and
    every other byte to a value above ``n`` (itself, or 0x7f for the bytes 0..n)."""
    table = digit_table(n, alphabet)
    return bytes(ord(table.get(code, chr(code))) for code in range(256))


def to_digits(texts: Sequence[str], n: int, alphabet: str) -> bytes:
    """Equal-length symbol strings as one ``bytes`` of digits (above ``n``: not a symbol).

    A character beyond Latin-1 becomes ``?``, which is no symbol of any alphabet.
    """
    return "".join(texts).encode("latin-1", "replace").translate(byte_table(n, alphabet))


@cache
def _planes(n: int) -> tuple[bytes, ...]:
    """``bytes.translate`` tables, one per plane of 8 digits: a digit -> its bit, else 0."""
    tables = []
    for first in range(1, n + 1, 8):
        table = bytearray(256)
        for digit in range(first, min(first + 8, n + 1)):
            table[digit] = 1 << (digit - first)
        tables.append(bytes(table))
    return tuple(tables)


def cell_bits(digits: bytes, ncells: int, n: int) -> list[int]:
    """For each cell, the one-hot bits of every puzzle's digit there, as one int."""
    tables = _planes(n)
    columns = [digits[cell::ncells] for cell in range(ncells)]
    if len(tables) == 1:
        (table,) = tables
        return [int.from_bytes(column.translate(table), "little") for column in columns]
    return [
        int.from_bytes(b"".join([column.translate(table) for table in tables]), "little")
        for column in columns
    ]


def repeated_in(digits: bytes, n: int) -> list[int]:
    """The indices of the puzzles of side ``n`` (``digits`` as :func:`to_digits` makes them,
    every one a digit of 0..n) where some unit holds a digit twice."""
    ncells = n * n
    units = geometry(SIZES[n]).units
    return flagged(repeated(cell_bits(digits, ncells, n), units), len(digits) // ncells, n)


def repeated(bits: list[int], units: Sequence[Unit]) -> int:
    """The lanes where some unit holds a digit twice: a cell's bits meeting those of the
    cells before it in the unit."""
    twice = 0
    for unit in units:
        cells = [bits[cell] for cell in unit]
        twice |= reduce(or_, map(and_, accumulate(cells[:-1], or_), cells[1:]), 0)
    return twice


def flagged(lanes: int, count: int, n: int) -> list[int]:
    """The indices of the puzzles (of ``count``) that have a bit set in ``lanes``."""
    if not lanes:
        return []
    planes = len(_planes(n))
    data = lanes.to_bytes(planes * count, "little")
    folded = reduce(
        or_, [int.from_bytes(data[p * count : (p + 1) * count], "little") for p in range(planes)]
    )
    return [k for k, flag in enumerate(folded.to_bytes(count, "little")) if flag]


def foreign(digits: bytes, ncells: int, n: int) -> list[int]:
    """The indices of the puzzles holding a character that is no symbol of the alphabet."""
    valid = bytes(range(n + 1))
    if not digits.translate(None, valid):
        return []
    count = len(digits) // ncells
    return [k for k in range(count) if digits[k * ncells : (k + 1) * ncells].translate(None, valid)]
