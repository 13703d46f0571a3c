"""The fast path: plain one-line puzzles, read and checked a whole stretch of lines at a time.

A *plain* line is a one-line puzzle alone on its line, in the canonical alphabet, in the
symbols of :data:`PLAIN`: the 9x9 ``1-9`` with ``.``, ``0``, ``_`` or ``*`` for empty, or the
16x16 / 25x25 ``1-9`` and letters, either case, with ``.``, ``_`` or ``*`` (a ``0`` there
may make the alphabet zero-based: such lines take the general path). Nothing else is on the
line, not even a space, and it ends with its line break.

Where the dispatcher would make such a line a candidate for the batch check anyway (outside
a grid, after the first line, not in CSV), its record is built here without a
:class:`.check.PendingPuzzle`, for a whole stretch of plain lines at once (blank lines and
comments between them change nothing there, and are skipped): the symbols become digits with
one ``bytes.translate``, the repeated digits are found by the batch check (:mod:`.batch`), and
the cells of every puzzle come out of one ``Struct.iter_unpack``. The records and bad lines
are those the general path makes (a refused puzzle is explained by the same
:func:`.check.explain`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from operator import itemgetter

from backends.puzzle import CELL_COUNTS, SIZES, canonical_alphabet
from harness.puzzles.readers.batch import byte_table, repeated_in
from harness.puzzles.readers.check import Item, PendingPuzzle, explain
from harness.puzzles.readers.records import BadLine, new_records

#: The symbols of a plain line, by grid side.
PLAIN: dict[int, str] = {
    9: "123456789.0_*",
    16: "123456789ABCDEFGabcdefg._*",
    25: "123456789ABCDEFGHIJKLMNOPabcdefghijklmnop._*",
}
_PLAIN_LENGTHS = frozenset(n * n + 1 for n in PLAIN)  # with the line break

#: What :func:`plain_kinds` calls a line: plain (by side), neutral (blank, a comment: where a
#: lone one-line puzzle is expected, such a line changes nothing), other.
KIND = {9: "a", 16: "b", 25: "c"}
NEUTRAL = "-"
OTHER = "."
SIDE = {kind: n for n, kind in KIND.items()}


@cache
def stretches(least: int) -> re.Pattern[str]:
    """Finds, in :func:`plain_kinds`' string, the stretches of ``least`` lines or more that
    are plain lines of one side and neutral lines."""
    return re.compile("|".join(f"[{kind}{NEUTRAL}]{{{least},}}" for kind in KIND.values()))


_LAST = itemgetter(slice(-1, None))  # a line's last character, if any


@cache
def _plain_bytes(n: int) -> bytes:
    """The symbols of a plain line of side ``n``, as the bytes to delete with
    ``bytes.translate`` (the text is encoded as Latin-1, every other character as ``?``)."""
    return PLAIN[n].encode("ascii")


def plain_kinds(lines: Sequence[str | None]) -> tuple[str, bytes | None]:
    """What each line is, one character a line: :data:`KIND` of its side for a plain line,
    :data:`NEUTRAL` for a blank line or a comment, :data:`OTHER` for any other line; and
    when every line is plain and of one size, the lines as bytes (for :func:`plain_items`).

    Whole-batch string operations tell a batch without a line of a plain line's length, or
    one of plain lines of one size (the usual files); any other batch looks at its 9x9 lines
    together, the others one by one.
    """
    count = len(lines)
    try:
        lengths = set(map(len, lines))  # type: ignore[arg-type]
    except TypeError:  # a None: a line too long (rare)
        return "".join(map(_kind, lines)), None
    if lengths.isdisjoint(_PLAIN_LENGTHS):
        return OTHER * count, None
    data = "".join(lines).encode("latin-1", "replace")  # type: ignore[arg-type]
    breaks = b"\n" * count
    if len(lengths) == 1:  # every line plain, each ending with its only line break?
        (length,) = lengths
        n = CELL_COUNTS[length - 1]
        if data[length - 1 :: length] == breaks == data.translate(None, _plain_bytes(n)):
            return KIND[n] * count, data
    ends = "".join(map(_LAST, lines))
    if ends != "\n" * count or data.count(b"\n") != count:
        if ends[:-1] == "\n" * (count - 1):  # the text's last line, unended: never plain
            return plain_kinds(lines[:-1])[0] + _kind(lines[-1]), None
        return "".join(map(_kind, lines)), None  # not lines as read: one break each
    rests = data.translate(None, _plain_bytes(9)).split(b"\n")  # what is left of 9x9 lines
    nine = KIND[9]
    kinds = [
        (OTHER if rest else nine)
        if len(line) == 82  # type: ignore[arg-type]
        else NEUTRAL
        if line == "\n" or line[:1] == "#"  # type: ignore[index]
        else _kind(line)
        for line, rest in zip(lines, rests, strict=False)  # rests: one more, empty
    ]
    return "".join(kinds), None


def _kind(line: str | None) -> str:
    """What a line is (see :func:`plain_kinds`), the slow way."""
    if line is None:
        return OTHER
    if not line.strip() or line.lstrip()[:1] == "#":
        return NEUTRAL
    n = CELL_COUNTS.get(len(line) - 1, 0)
    if (
        n in PLAIN
        and line[-1] == "\n"
        and line.encode("latin-1", "replace").translate(None, _plain_bytes(n)) == b"\n"
    ):
        return KIND[n]
    return OTHER


def plain_items(
    dataset: str, numbers: Sequence[int], lines: Sequence[str], n: int, data: bytes | None = None
) -> list[Item]:
    """The records of plain lines of side ``n``, on lines ``numbers``, and the bad lines
    among them (a digit twice in a unit), in line order. ``data``: the lines as bytes, if at
    hand."""
    digits, refused = _checked(lines, n, data)
    items: list[Item] = new_records(dataset, numbers, SIZES[n], digits)
    for index in refused:
        items[index] = _bad_line(dataset, numbers[index], lines[index], n)
    return items


def plain_bad_lines(
    dataset: str, numbers: Sequence[int], lines: Sequence[str], n: int, data: bytes | None = None
) -> list[BadLine]:
    """The bad lines among plain lines of side ``n`` (:func:`plain_items`' bad lines), in
    line order, without making the records of the others."""
    _, refused = _checked(lines, n, data)
    return [_bad_line(dataset, numbers[index], lines[index], n) for index in refused]


def _checked(lines: Sequence[str], n: int, data: bytes | None) -> tuple[bytes, list[int]]:
    """Plain lines of side ``n`` as one ``bytes`` of digits, and the indices of the lines
    with a digit twice in a unit, in order."""
    if data is None:
        data = "".join(lines).encode("ascii")
    digits = data.translate(byte_table(n, canonical_alphabet(n)), b"\n")
    return digits, repeated_in(digits, n)


def _bad_line(dataset: str, number: int, line: str, n: int) -> BadLine:
    """A plain line the batch check refused, and why."""
    reason = explain(PendingPuzzle(number, line[:-1], line), n, canonical_alphabet(n))
    return BadLine(dataset, number, reason)
