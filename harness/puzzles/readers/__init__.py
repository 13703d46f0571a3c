"""Read puzzle files: one puzzle per line, multi-line grids, CSV, tdoku lines, gzip, stdin.

Entry points: :func:`read_puzzles` (a path, ``-`` for standard input) and :func:`read_text`
(text already in memory). Both return a :class:`ReadResult`: the puzzles read, as
:class:`PuzzleRecord` s, and every line that could not be read, as :class:`BadLine` s with a
precise reason. Bad content never raises; only a file that cannot be read as text at all raises
:class:`DatasetError`.

Layouts, told apart line by line:

* **One puzzle per line** (:mod:`.one_line`). The first token of the line (up to whitespace or
  one of ``: ; , # |``) has 16, 81, 256 or 625 symbols. Whatever follows is kept raw (stripped)
  in ``meta``. A field of the meta with the grid's number of characters, at least half of them
  symbols, is the expected solution. In tdoku's ``puzzle:count:solution`` the count is the
  expected number of solutions and the third field the expected solution. A field that claims
  to be a solution but has another length is a bad line (``expected solution has 80 cells``).
* **Multi-line grids** (:mod:`.grids`), one grid row per line: 4, 9, 16 or 25 cells, optionally
  decorated with ``|`` and spaces. Separator lines made of ``- = + | ~`` are skipped; blank
  lines, ``=`` lines and header lines (``Grid 01``, ``Puzzle 3:``) separate grids. A 16x16 or
  25x25 row may also be ``n`` whitespace-separated numbers (``10 11 . 3 ...``, ``0`` or ``.``
  for empty).
* **CSV with a header** (:mod:`.csv_layout`) whose columns name the puzzle (``quizzes``,
  ``puzzle``...) and, if any, the solution (``solutions``, ``solution``...); the other fields
  are kept in ``meta``. A first line of names without a puzzle column is a bad line saying so.

``#`` comment lines and blank lines are skipped; CRLF endings and a UTF-8 BOM are fine. A line
longer than :data:`MAX_LINE` characters is a bad line (``line too long``), read in bounded
memory (:mod:`.source`: every input is opened once, gzip sniffed from the bytes read).

Ambiguities, resolved on purpose:

* A 16-symbol line using only ``1-4`` and empty marks is a one-line 4x4 puzzle, unless the lines
  that follow continue a 16x16 grid (a row with another symbol, or a decorated row) before 16
  such lines have gone by, or it comes straight after a header line, where a grid is expected.
* A line of only ``-``, ``=``, ``+``, ``|`` and ``~`` is a separator, never a puzzle or a row,
  unless it holds spaces, no ``+ = ~``, and splits into a row's cells (``- - - | - - - | - - -``).
* In a 16x16/25x25 grid with any multi-digit number, every cell is read as a decimal number
  (``0`` empty); otherwise the grid's symbols go through the alphabet detection of
  :mod:`backends.puzzle`, over the whole grid (one-line: over the puzzle and its solution).

Speed: lines are streamed a block of text at a time (:mod:`.source`), and puzzles are checked
in batches of a few thousand (:mod:`.check`), in pure Python, without numpy (:mod:`.batch`);
:mod:`.dispatch` sends each line to its layout, except runs of plain one-line puzzles (nothing
but a puzzle's symbols on the line), which take a fast path that reads and checks a whole run
at once (:mod:`.plain`), with the same results.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from itertools import chain, compress, repeat
from typing import TextIO

from harness.puzzles.readers import dispatch
from harness.puzzles.readers.dispatch import parse
from harness.puzzles.readers.records import (
    KEPT_BAD,
    BadLine,
    BadLines,
    DatasetError,
    PuzzleRecord,
    ReadResult,
    format_bad_lines,
)
from harness.puzzles.readers.source import MAX_LINE, bounded_batches, open_text

__all__ = [
    "MAX_LINE",
    "BadLine",
    "BadLines",
    "DatasetError",
    "PuzzleRecord",
    "ReadResult",
    "format_bad_lines",
    "iter_puzzles",
    "iter_text",
    "read_puzzles",
    "read_text",
]


def read_puzzles(path: str | os.PathLike[str], stdin: TextIO | None = None) -> ReadResult:
    """Read every puzzle of the file at ``path`` (``-``: ``stdin``, default ``sys.stdin``).

    Plain or gzip (by ``.gz`` suffix or gzip magic), UTF-8. Raises :class:`DatasetError`
    only when the file as a whole cannot be read; bad lines go in ``ReadResult.bad``.
    """
    return _collect(_file_batches(path, stdin))


def read_text(text: str, dataset: str) -> ReadResult:
    """Parse puzzle text already in memory, naming it ``dataset`` in the results. Never raises."""
    return _collect(_text_batches(text, dataset))


def iter_puzzles(
    path: str | os.PathLike[str], stdin: TextIO | None = None
) -> Iterator[PuzzleRecord | BadLine]:
    """Stream :func:`read_puzzles`' records and bad lines, in line order, in bounded memory.

    A missing or unopenable file raises :class:`DatasetError` at once; one found to be
    binary, undecodable or corrupt gzip further on raises it during the iteration.
    """
    return chain.from_iterable(_file_batches(path, stdin))


def iter_text(text: str, dataset: str) -> Iterator[PuzzleRecord | BadLine]:
    """Stream :func:`read_text`'s records and bad lines, in line order. Never raises."""
    return chain.from_iterable(_text_batches(text, dataset))


def _file_batches(
    path: str | os.PathLike[str], stdin: TextIO | None
) -> Iterator[list[PuzzleRecord | BadLine]]:
    """The file opened at once (a DatasetError now, not on first use), then parsed batches."""
    path = os.fspath(path)  # the dataset is named in rows as the string the caller gave
    handle, owned = open_text(path, stdin)
    return _parse_then_close(handle, owned, path)


def _text_batches(text: str, dataset: str) -> Iterator[list[PuzzleRecord | BadLine]]:
    lines = io.StringIO(text.removeprefix("\ufeff"), newline=None)
    return parse(bounded_batches(lines, dataset, dispatch.BATCH, text_only=True), dataset)


def _parse_then_close(
    handle: TextIO, owned: bool, dataset: str
) -> Iterator[list[PuzzleRecord | BadLine]]:
    try:
        yield from parse(bounded_batches(handle, dataset, dispatch.BATCH), dataset)
    finally:
        if owned:
            handle.close()


def _collect(batches: Iterator[list[PuzzleRecord | BadLine]]) -> ReadResult:
    """Gather parsed batches into a ReadResult (a batch split by type without a Python loop
    per item)."""
    records: list[PuzzleRecord] = []
    bad = BadLines(KEPT_BAD)
    for batch in batches:
        before = len(records)
        records.extend(compress(batch, map(isinstance, batch, repeat(PuzzleRecord))))
        if len(records) - before < len(batch):
            bad.add(compress(batch, map(isinstance, batch, repeat(BadLine))))
    return ReadResult(tuple(records), tuple(bad.kept), bad.more)
