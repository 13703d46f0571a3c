"""The fast path: runs of plain one-line puzzles, read and checked a whole run at a time.

A *plain* line is a one-line puzzle alone on its line, in the canonical alphabet, in the
symbols of :data:`PLAIN`: the 9x9 ``1-9`` with ``.``, ``0``, ``_`` or ``*`` for empty, or the
16x16 / 25x25 ``1-9`` and letters, either case, with ``.``, ``_`` or ``*`` (a ``0`` there
may make the alphabet zero-based: such lines take the general path). Nothing else is on the
line, not even a space, and it ends with its line break.

Where the dispatcher would make such a line a candidate for the batch check anyway (outside
a grid, after the first line, not in CSV), its record is built here without a
:class:`.check.Candidate`: the run's symbols become digits with one ``bytes.translate``, the
repeated digits are found by the batch check (:mod:`.batch`), and the cells of every puzzle
come out of one ``Struct.iter_unpack``. The records and bad lines are those the general path
makes (a refused puzzle is explained by the same :func:`.check.explain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from operator import itemgetter

from backends.puzzle import CELL_COUNTS, SIZES, canonical_alphabet
from harness.readers.batch import byte_table, grid_struct, repeated_in
from harness.readers.check import Candidate, Item, explain
from harness.readers.records import BadLine, new_records

#: The symbols of a plain line, by grid side.
PLAIN: dict[int, str] = {
    9: "123456789.0_*",
    16: "123456789ABCDEFGabcdefg._*",
    25: "123456789ABCDEFGHIJKLMNOPabcdefghijklmnop._*",
}
_PLAIN_LENGTHS = frozenset(n * n + 1 for n in PLAIN)  # with the line break
_LAST = itemgetter(slice(-1, None))  # a line's last character, if any


@cache
def _plain_bytes(n: int) -> bytes:
    """The symbols of a plain line of side ``n``, as the bytes to delete with
    ``bytes.translate`` (the text is encoded as Latin-1, every other character as ``?``)."""
    return PLAIN[n].encode("ascii")


def plain_sides(lines: Sequence[str | None]) -> tuple[list[int], bytes | None]:
    """For each line, the side of its grid when it is a plain line (9, 16, 25), else 0; and
    when every line is plain and of one size, the lines as bytes (for :func:`plain_items`).

    Whole-batch string operations tell a batch without a line of a plain line's length, or
    one of plain lines of one size (the usual files); any other batch looks at its 9x9 lines
    together, the others one by one.
    """
    count = len(lines)
    try:
        lengths = set(map(len, lines))  # type: ignore[arg-type]
    except TypeError:  # a None: a line too long (rare)
        return [_side(line) for line in lines], None
    if lengths.isdisjoint(_PLAIN_LENGTHS):
        return [0] * count, None
    data = "".join(lines).encode("latin-1", "replace")  # type: ignore[arg-type]
    breaks = b"\n" * count
    if len(lengths) == 1:  # every line plain, each ending with its only line break?
        (length,) = lengths
        n = CELL_COUNTS[length - 1]
        if data[length - 1 :: length] == breaks == data.translate(None, _plain_bytes(n)):
            return [n] * count, data
    ends = "".join(map(_LAST, lines))
    if ends != "\n" * count or data.count(b"\n") != count:
        if ends[:-1] == "\n" * (count - 1):  # the text's last line, unended: never plain
            return [*plain_sides(lines[:-1])[0], 0], None
        return [_side(line) for line in lines], None  # not lines as read: one break each
    rests = data.translate(None, _plain_bytes(9)).split(b"\n")  # what is left of 9x9 lines
    sides = [
        (9 if not rest else 0) if len(line) == 82 else _side(line)  # type: ignore[arg-type]
        for line, rest in zip(lines, rests, strict=False)  # rests: one more, empty
    ]
    return sides, None


def _side(line: str | None) -> int:
    """The side of a plain line's grid, else 0 (one line, the slow way)."""
    if line is None or line[-1:] != "\n":
        return 0
    n = CELL_COUNTS.get(len(line) - 1, 0)
    if n in PLAIN and line.encode("latin-1", "replace").translate(None, _plain_bytes(n)) == b"\n":
        return n
    return 0


def plain_items(
    dataset: str, first: int, lines: Sequence[str], n: int, data: bytes | None = None
) -> list[Item]:
    """The records of plain lines of side ``n``, the first on line ``first``, and the bad
    lines among them (a digit twice in a unit), in line order. ``data``: the lines as bytes,
    if at hand."""
    alphabet = canonical_alphabet(n)
    ncells = n * n
    if data is None:
        data = "".join(lines).encode("ascii")
    digits = data.translate(byte_table(n, alphabet), b"\n")
    refused = repeated_in(digits, ncells, n)
    box = SIZES[n]
    items: list[Item] = new_records(dataset, first, box, grid_struct(ncells).iter_unpack(digits))
    for index in refused:
        line = lines[index]
        reason = explain(Candidate(first + index, line[:-1], line), n, alphabet)
        items[index] = BadLine(dataset, first + index, reason)
    return items
