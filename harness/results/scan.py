"""The rules of :mod:`harness.results.reading` checked by columns, over a results CSV's bytes.

:func:`scan` reads the file in blocks of whole lines (a torn last line left out) and tells
whether every row keeps the rules, without making a Python object per cell. In a block with
no quote and no carriage return but in its line ends (CRLF, as the writer ends a row, or LF;
the writer quotes only a cell holding a comma, a quote or a line break) a line is a row and a
comma ends a cell, so numpy checks it at once:
every line has the header's width; ``dataset``, ``puzzle`` and ``backend`` are not empty;
``line``, ``repeat`` and ``limit`` are 1 to 18 digits, ``size``, ``givens``, ``jobs`` and
``solutions`` 0 to 18; every other number column is empty or begins and ends with a digit
or a ``.`` (no sign, space, ``inf`` or ``nan``), and the caller checks the rest once pandas
has parsed it: that it parsed, and is finite (:func:`quantities_ok`). ``status`` is checked
by the caller too, from the few distinct values pandas reads.

A block with quotes grows until Python's csv reader reads it strictly to its end (its last
line break is not inside a quoted cell), and the caller's check reads it a row at a time by
the rules. A file whose bytes cannot tell (a carriage return but in a CRLF line end, text
that is not UTF-8, quoting the csv reader reads only leniently) is read a row at a time throughout
(:func:`harness.results.reading.check_results`), as is a file with a bad row, to name it; a
test holds the two ways to the same verdict on a corpus of corrupt files.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness.results.reading import (
    FIELD_LIMIT,
    HEADER,
    QUOTED,
    TEXT_KEYS,
    WHOLE_OR_EMPTY,
    blank,
    blocks,
    holds_nul,
    rows_end,
)
from harness.results.schema import (
    INTEGER_COLUMNS,
    NUMBER_COLUMNS,
    REQUIRED_COLUMNS,
    unescape_cell,
)

#: The longest whole number in a cell (below 10^18).
DIGITS = 18
BOM = b"\xef\xbb\xbf"

#: The bytes a number's text may begin and end with.
_NUMBER_ENDS = np.zeros(256, dtype=bool)
_NUMBER_ENDS[list(b"0123456789.")] = True


@dataclass
class Scanned:
    """What :func:`scan` found: the header (empty for a file of no text), where the whole
    rows end (a torn last line follows), and whether every row keeps the rules its bytes
    can show (None: the bytes cannot tell, for a stray carriage return, text not UTF-8, or
    quotes that no check was given for or that the csv reader reads only leniently)."""

    header: list[str]
    end: int
    ok: bool | None


#: Checks the rows of a block with quotes: (header, the block's text, its first line).
RowsCheck = Callable[[list[str], str, int], bool]


def scan(path: Path | str, quoted: RowsCheck | None = None) -> Scanned:
    """The file's header and rows' end, and whether its bytes keep the rules (see the
    module); a block with quotes is judged by ``quoted`` (without it, the bytes cannot
    tell). Raises OSError when the file cannot be read."""
    with open(path, "rb") as handle:
        end = rows_end(handle)
        if holds_nul(handle):
            return Scanned([], end, False)
        handle.seek(0)
        first = handle.readline(min(end, HEADER))
        if first.startswith(BOM):
            first = first[len(BOM) :]
        if not first.strip() and blank(handle, end):
            return Scanned([], end, True)
        if not first.endswith(b"\n") or not _plain(first):
            return Scanned([], end, None)
        header = [unescape_cell(c) for c in next(csv.reader([first.decode()]))]
        whole = set(REQUIRED_COLUMNS) <= set(header) and "" not in header
        if not whole or len(set(header)) != len(header):
            return Scanned(header, end, False)
        ruled = column_rules(header)
        for line, data, between in _regions(handle, end):
            if b'"' not in data:
                ok = block_ok(data, ruled, len(header))
            elif between and quoted is not None and _plain(data.replace(b'"', b"")):
                ok = quoted(header, data.decode(), line)
            else:
                ok = None
            if ok is not True:
                return Scanned(header, end, ok)
    return Scanned(header, end, True)


def regions(path: Path | str, end: int) -> Iterator[tuple[int, bytes, bool]]:
    """The rows of the file up to ``end`` in blocks, as :func:`scan` judges them: (line
    number of the first, bytes, whether the block ends between rows)."""
    with open(path, "rb") as handle:
        handle.readline(min(end, HEADER))
        yield from _regions(handle, end)


def _regions(handle, end: int) -> Iterator[tuple[int, bytes, bool]]:
    """The rows from the handle's place (line 2) to ``end`` in blocks of whole lines; a block
    with quotes grows, up to :data:`QUOTED` bytes, until Python's csv reader reads it
    strictly to its end (so that its last line break is not inside a quoted cell)."""
    line, held = 2, b""
    for block in blocks(handle, end):
        data = held + block
        between = b'"' not in data or _ends_between_rows(data)
        if not between and len(data) < QUOTED:
            held = data
            continue
        yield line, data, between
        if not between:
            return
        line, held = line + data.count(b"\n"), b""
    if held:
        yield line, held, False


def _ends_between_rows(data: bytes) -> bool:
    """Whether ``data``, rows of a CSV, is read strictly to its end by Python's csv reader:
    no quoted cell left open, none malformed."""
    csv.field_size_limit(min(FIELD_LIMIT, sys.maxsize))
    try:
        text = data.decode()
        for _ in csv.reader(io.StringIO(text, newline=""), strict=True):
            pass
    except (UnicodeDecodeError, csv.Error):
        return False
    return True


def _plain(data: bytes) -> bool:
    """No quote, no carriage return but in a CRLF line end, and UTF-8 text."""
    returns = data.count(b"\r")
    return _text(data) and not (returns and returns != data.count(b"\r\n"))


def _text(data: bytes) -> bool:
    """No quote, and UTF-8 text."""
    if b'"' in data:
        return False
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def column_rules(header: list[str]) -> dict[str, np.ndarray]:
    """The indexes of the columns under each rule their bytes tell something of: ``text``
    (never empty), ``whole`` (1 to 18 digits), ``whole or empty`` (0 to 18), ``number``."""
    kinds = {
        "text": TEXT_KEYS,
        "whole": INTEGER_COLUMNS,
        "whole or empty": WHOLE_OR_EMPTY,
        "number": NUMBER_COLUMNS,
    }
    ruled: dict[str, list[int]] = {kind: [] for kind in kinds}
    for index, name in enumerate(header):
        kind = next((k for k, names in kinds.items() if name in names), None)
        if kind is not None:
            ruled[kind].append(index)
    return {kind: np.array(indexes, dtype=np.intp) for kind, indexes in ruled.items()}


def block_ok(data: bytes, rules: dict[str, np.ndarray], width: int) -> bool | None:
    """Whether every line of ``data`` has ``width`` cells and each ruled cell its form (None:
    the bytes cannot tell)."""
    if not _text(data):
        return None
    raw = np.frombuffer(data, dtype=np.uint8)
    breaks = np.flatnonzero(raw == ord("\n"))
    crlf = raw[breaks - 1] == ord("\r")  # a CRLF line's last cell ends at its \r
    if np.count_nonzero(raw == ord("\r")) != np.count_nonzero(crlf):
        return None  # a carriage return but in a line end
    commas = np.flatnonzero(raw == ord(","))
    lines = len(breaks)
    if len(commas) != lines * (width - 1):
        return False
    commas = commas.reshape(lines, width - 1)
    if lines and not ((commas[:, -1] < breaks).all() and (commas[1:, 0] > breaks[:-1]).all()):
        return False  # so each line has width - 1 commas
    ends = np.hstack([commas, (breaks - crlf)[:, None]])
    starts = np.hstack([np.concatenate([[0], breaks[:-1] + 1])[:, None], commas + 1])
    lengths = ends - starts
    if not (lengths[:, rules["text"]] > 0).all():
        return False
    number = rules["number"]  # the bytes a number begins and ends with; pandas parses the rest
    first, last = raw[starts[:, number]], raw[ends[:, number] - 1]
    if not ((lengths[:, number] == 0) | (_NUMBER_ENDS[first] & _NUMBER_ENDS[last])).all():
        return False
    for kind, shortest in (("whole", 1), ("whole or empty", 0)):
        sizes = lengths[:, rules[kind]]
        if not ((sizes >= shortest) & (sizes <= DIGITS)).all():
            return False
        if not _digits(raw, starts[:, rules[kind]], sizes):
            return False
    return True


def _digits(raw: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether the cells of ``raw`` at ``starts`` (of ``lengths``, at most :data:`DIGITS`;
    arrays of one shape) hold only digits."""
    at = np.arange(int(lengths.max(initial=0)))
    inside = at < lengths[..., None]
    cells = raw[np.where(inside, starts[..., None] + at, 0)]
    return bool((~inside | (cells - ord("0") <= 9)).all())


def quantities_ok(values: np.ndarray) -> bool:
    """Whether a number column as parsed (NaN where empty) is finite where known; its
    bytes (:func:`scan`) have no sign before the first digit, so none is negative."""
    return bool(np.isfinite(values[~np.isnan(values)]).all())
