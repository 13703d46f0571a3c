"""Read puzzle files: one puzzle per line, multi-line grids, CSV, tdoku lines, gzip, stdin.

Entry points: :func:`read_puzzles` (a path, ``-`` for standard input) and :func:`read_text`
(text already in memory). Both return a :class:`ReadResult`: the puzzles read, as
:class:`PuzzleRecord` s, and every line that could not be read, as :class:`BadLine` s with a
precise reason. Bad content never raises; only a file that cannot be read as text at all raises
:class:`DatasetError`.

Layouts, told apart line by line:

* **One puzzle per line.** The first token of the line (up to whitespace or one of ``: ; , # |``)
  has 16, 81, 256 or 625 symbols. Whatever follows is kept raw (stripped) in ``meta``. A field
  of the meta with the grid's number of characters, at least half of them symbols, is the
  expected solution. In tdoku's ``puzzle:count:solution`` the count is the expected number of
  solutions and the third field, if it has the grid's size, the expected solution.
* **Multi-line grids**, one grid row per line: 4, 9, 16 or 25 cells, optionally decorated with
  ``|`` and spaces. Separator lines made of ``- = + | ~`` are skipped; blank lines, ``=`` lines
  and header lines (``Grid 01``, ``Puzzle 3:``) separate grids. A 16x16 or 25x25 row may also be
  ``n`` whitespace-separated numbers (``10 11 . 3 ...``, ``0`` or ``.`` for empty).
* **CSV with a header** whose columns name the puzzle (``quizzes``, ``puzzle``...) and, if any,
  the solution (``solutions``, ``solution``...); the other fields are kept in ``meta``.

``#`` comment lines and blank lines are skipped; CRLF endings and a UTF-8 BOM are fine.

Ambiguities, resolved on purpose:

* A 16-symbol line using only ``1-4`` and empty marks is a one-line 4x4 puzzle, unless the lines
  that follow continue a 16x16 grid (a row with another symbol, or a decorated row) before 16
  such lines have gone by, or it comes straight after a header line, where a grid is expected.
* A line of only ``-``, ``=``, ``+``, ``|`` and ``~`` is a separator, never a puzzle or a row,
  unless it holds spaces, no ``+ = ~``, and splits into a row's cells (``- - - | - - - | - - -``).
* In a 16x16/25x25 grid with any multi-digit number, every cell is read as a decimal number
  (``0`` empty); otherwise the grid's symbols go through the alphabet detection of
  :mod:`backends.puzzle`, over the whole grid (one-line: over the puzzle and its solution).

Speed: lines are streamed, and puzzles are checked in batches of a few thousand with numpy.
"""

from __future__ import annotations

import csv
import gc
import gzip
import io
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from functools import cache
from itertools import islice
from typing import TYPE_CHECKING, TextIO

from backends.errors import PuzzleError, SudokuError
from backends.puzzle import (
    CELL_COUNTS,
    EMPTY_MARKS,
    SIZES,
    Puzzle,
    alphabets,
    canonical_alphabet,
    detect_alphabet,
    geometry,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "BadLine",
    "DatasetError",
    "PuzzleRecord",
    "ReadResult",
    "format_bad_lines",
    "iter_puzzles",
    "iter_text",
    "read_puzzles",
    "read_text",
]


class DatasetError(SudokuError):
    """A dataset cannot be read at all: missing, a directory, unreadable, not gzip, not text."""


@dataclass(frozen=True)
class PuzzleRecord:
    """One puzzle read from a dataset, with what the file says about it."""

    dataset: str  # the path as the user gave it ("-" for stdin)
    line: int  # 1-based line where the puzzle starts
    puzzle: Puzzle
    expected_count: int | None  # expected number of solutions, if the file says
    expected_solution: Puzzle | None  # expected solution grid, if the file gives one
    meta: str  # anything after the grid on its line, raw (stripped)


@dataclass(frozen=True)
class BadLine:
    """A line (or the first line of a grid) that could not be read, and why."""

    dataset: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.dataset}:{self.line}: {self.reason}"


@dataclass(frozen=True)
class ReadResult:
    """Everything read from one dataset: good puzzles and bad lines, each in line order."""

    records: tuple[PuzzleRecord, ...]
    bad: tuple[BadLine, ...]


# --------------------------------------------------------------------------- public API


def read_puzzles(path: str | os.PathLike[str], stdin: TextIO | None = None) -> ReadResult:
    """Read every puzzle of the file at ``path`` (``-``: ``stdin``, default ``sys.stdin``).

    Plain or gzip (by ``.gz`` suffix or gzip magic), UTF-8. Raises :class:`DatasetError`
    only when the file as a whole cannot be read; bad lines go in ``ReadResult.bad``.
    """
    return _collect(iter_puzzles(path, stdin))


def read_text(text: str, dataset: str) -> ReadResult:
    """Parse puzzle text already in memory, naming it ``dataset`` in the results. Never raises."""
    return _collect(iter_text(text, dataset))


def iter_puzzles(
    path: str | os.PathLike[str], stdin: TextIO | None = None
) -> Iterator[PuzzleRecord | BadLine]:
    """Stream :func:`read_puzzles`' records and bad lines, in line order, in bounded memory.

    A missing or unopenable file raises :class:`DatasetError` at once; one found to be
    binary, undecodable or corrupt gzip further on raises it during the iteration.
    """
    path = os.fspath(path)  # the dataset is named in rows as the string the caller gave
    if path == "-":
        return _Parser(path).items(_stream_lines(stdin if stdin is not None else sys.stdin, path))
    return _items_then_close(_open_text(path), path)


def iter_text(text: str, dataset: str) -> Iterator[PuzzleRecord | BadLine]:
    """Stream :func:`read_text`'s records and bad lines, in line order. Never raises."""
    lines = io.StringIO(text.removeprefix("\ufeff"), newline=None)
    return _Parser(dataset).items(lines)


def format_bad_lines(bad: Sequence[BadLine], limit: int = 20) -> str:
    """Up to ``limit`` bad lines as ``FILE:LINE: reason``, then ``... and K more bad lines``."""
    shown = [str(item) for item in bad[: max(limit, 0)]]
    hidden = len(bad) - len(shown)
    if hidden > 0:
        shown.append(f"... and {hidden} more bad line{'' if hidden == 1 else 's'}")
    return "\n".join(shown)


# --------------------------------------------------------------------------- getting lines

_GZIP_MAGIC = b"\x1f\x8b"


def _open_text(path: str) -> io.TextIOWrapper:
    """Open ``path`` as UTF-8 text (BOM dropped, universal newlines), ungzipping if needed."""
    try:
        with open(path, "rb") as probe:
            magic = probe.read(2)
        binary = gzip.open(path, "rb") if magic == _GZIP_MAGIC else open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        raise DatasetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DatasetError(f"{path}: is a directory, not a puzzle file") from None
    except PermissionError:
        raise DatasetError(f"{path}: permission denied") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot open: {exc.strerror or exc}") from None
    if magic != _GZIP_MAGIC and path.lower().endswith(".gz"):
        binary.close()
        raise DatasetError(f"{path}: not a gzip file (no gzip magic number)")
    return io.TextIOWrapper(binary, encoding="utf-8-sig", errors="strict", newline=None)


def _stream_lines(handle: Iterable[str], dataset: str) -> Iterator[str]:
    """The lines of an open text stream; a NUL byte or undecodable bytes make a DatasetError."""
    first = True
    try:
        for line in handle:
            if first:
                first = False
                line = line.removeprefix("\ufeff")
            if "\x00" in line:
                raise DatasetError(f"{dataset}: binary data (a NUL byte), not a text puzzle file")
            yield line
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.start + 1]
        raise DatasetError(f"{dataset}: not UTF-8 text (cannot decode byte {bad!r})") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise DatasetError(f"{dataset}: corrupt gzip data ({exc})") from None
    except OSError as exc:
        raise DatasetError(f"{dataset}: cannot read: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- symbols

_ROW_WIDTHS: tuple[int, ...] = tuple(sorted(SIZES))  # 4, 9, 16, 25
_LENGTHS_TEXT = "16, 81, 256 or 625"
_WIDTHS_TEXT = "4, 9, 16 or 25"
_EMPTY_TEXT = "".join(sorted(EMPTY_MARKS))
_RULE_CHARS = frozenset("-=+|~ \t\f\v")
_RULE_START = frozenset("-=+|~")
_NOT_A_ROW = frozenset("+=~")  # a line holding one of these is a separator, never a row
_FOUR_BY_FOUR = frozenset("1234") | EMPTY_MARKS
_BIG_CELL_COUNTS = frozenset(count for count in CELL_COUNTS if count > 16)
_INVALID = "\x7f"  # what a digit table maps a foreign character to (above every n)

# A one-line puzzle's token: everything up to whitespace or a metadata delimiter.
_TOKEN = re.compile(r"[^\s:;,#|]*")
_META_START = frozenset(":;,#|")
_QUOTES = frozenset("\"'")
_TDOKU_COUNT = re.compile(r":\s*(\d{1,18})(?!\d)")
# A header: a capitalised word ('Grid 01', 'Puzzle 3:', 'SUDOKU') or a word and a number,
# at most 12 letters, then a space, ':', '#' or the end.
_HEADER = re.compile(r"(?:[A-Z][A-Za-z]{1,11}|[A-Za-z]{2,12}(?=\s*#?\s*\d))(?:[\s:#]|$)")
_ROW_TOKEN = re.compile(r"[^\s|]+")

_PUZZLE_COLUMNS = ("quizzes", "quiz", "puzzles", "puzzle", "sudoku", "grid", "problem", "question")
_SOLUTION_COLUMNS = ("solutions", "solution", "answers", "answer", "solved")


@cache
def _symbols(n: int) -> frozenset[str]:
    """Every character that is a symbol of some alphabet for side ``n``, or an empty mark."""
    chars = {ch for alphabet in alphabets(n).values() for ch in alphabet}
    return frozenset(chars | {ch.lower() for ch in chars} | EMPTY_MARKS)


@cache
def _meta_field(ncells: int) -> re.Pattern[str]:
    """Finds metadata fields of exactly ``ncells`` characters (candidate solutions)."""
    return re.compile(rf"(?<![^\s:;,#|])[^\s:;,#|]{{{ncells}}}(?![^\s:;,#|])")


@cache
def _non_symbols(n: int) -> dict[int, None]:
    """A ``str.translate`` table deleting every symbol and empty mark of side ``n``."""
    return dict.fromkeys(map(ord, _symbols(n)))


@cache
def _digit_table(n: int, alphabet: str) -> dict[int, str]:
    """A ``str.translate`` table: symbol -> chr(digit), empty -> chr(0), chr(0..n) -> 0x7f.

    Every other character is left as it is, which is above ``n`` too, so a translated
    character is a digit exactly when its code is at most ``n``.
    """
    table = {code: _INVALID for code in range(n + 1)}
    table.update({ord(ch): "\x00" for ch in EMPTY_MARKS})
    for digit, ch in enumerate(alphabet, start=1):
        table[ord(ch.upper())] = chr(digit)
        table[ord(ch.lower())] = chr(digit)
    return table


def _first_bad(text: str, n: int, alphabet: str) -> int | None:
    """Index of the first character of ``text`` that is not a symbol of ``alphabet``."""
    digits = text.translate(_digit_table(n, alphabet))
    return next((i for i, ch in enumerate(digits) if ord(ch) > n), None)


def _alphabet_words(n: int, alphabet: str) -> str:
    """An alphabet in people's words: '1-9', '1-9, A-G', '0-9, A-F', 'A-P'."""
    if n > 9 and alphabet.startswith("123456789"):
        return f"1-9, A-{alphabet[-1]}"
    if n > 9 and alphabet.startswith("0123456789"):
        return f"0-9, A-{alphabet[-1]}"
    return f"{alphabet[0]}-{alphabet[-1]}"


def _describe_alphabet(n: int, alphabet: str | None = None) -> str:
    """What a cell may hold: '1-9, or an empty mark (one of *-.0_)'."""
    if alphabet is None:
        shown = " or ".join(_alphabet_words(n, a) for a in alphabets(n).values())
    else:
        shown = _alphabet_words(n, alphabet)
    return f"{shown}, or an empty mark (one of {_EMPTY_TEXT})"


# --------------------------------------------------------------------------- Puzzle building

_PUZZLE_IS_BOX_AND_CELLS = tuple(f.name for f in fields(Puzzle)) == ("box", "cells")


_set = object.__setattr__


def _checked_puzzle(box: int, cells: tuple[int, ...]) -> Puzzle:
    """A Puzzle from cells this module has already range-checked, skipping the re-check.

    ``Puzzle.__post_init__`` re-validates every cell, which was the largest single cost of
    reading a big file; these cells come out of a digit table, so they are ints in ``0..n``
    by construction. The fields are set with ``object.__setattr__``, as a frozen dataclass's
    own ``__init__`` sets them. Falls back to the normal constructor should Puzzle gain
    other fields.
    """
    if not _PUZZLE_IS_BOX_AND_CELLS:
        return Puzzle(box, cells)
    puzzle = object.__new__(Puzzle)
    _set(puzzle, "box", box)
    _set(puzzle, "cells", cells)
    return puzzle


def _record(
    dataset: str,
    line: int,
    puzzle: Puzzle,
    expected_count: int | None,
    expected_solution: Puzzle | None,
    meta: str,
) -> PuzzleRecord:
    """A PuzzleRecord set up as its frozen dataclass ``__init__`` would, minus the call cost."""
    record = object.__new__(PuzzleRecord)
    _set(record, "dataset", dataset)
    _set(record, "line", line)
    _set(record, "puzzle", puzzle)
    _set(record, "expected_count", expected_count)
    _set(record, "expected_solution", expected_solution)
    _set(record, "meta", meta)
    return record


# --------------------------------------------------------------------------- batch checks

# numpy is imported where it is used, so that importing this module (and the CLI) stays quick.


@cache
def _unit_index(box: int) -> np.ndarray:
    """Cell indices of every unit, shaped (n, 3n): row k holds each unit's k-th cell, so
    that reductions run over the first axis (fast, contiguous)."""
    import numpy as np

    return np.ascontiguousarray(np.array(geometry(box).units, dtype=np.intp).T)


@cache
def _bit_table(n: int) -> np.ndarray:
    """For every uint8 value: a digit's bit, 0 for empty and for anything above n."""
    import numpy as np

    bits = [0] + [1 << d for d in range(1, n + 1)] + [0] * (255 - n)
    return np.array(bits, dtype=np.uint16 if n <= 9 else np.uint32)


def _to_grid(texts: list[str], table: dict[int, str], ncells: int) -> np.ndarray:
    """Equal-length symbol strings as a (K, ncells) uint8 array of digits (above n: bad)."""
    import numpy as np

    blob = "".join(texts).translate(table).encode("latin-1", "replace")
    return np.frombuffer(blob, dtype=np.uint8).reshape(len(texts), ncells)


def _has_duplicates(grid: np.ndarray, n: int) -> np.ndarray:
    """For each row of ``grid`` (digits, 0 empty), whether some unit holds a digit twice."""
    import numpy as np

    bits = _bit_table(n)[grid.T[_unit_index(SIZES[n])]]  # (n, 3n, K)
    union = np.bitwise_or.reduce(bits, axis=0)
    total = bits.sum(axis=0, dtype=bits.dtype)
    return (union != total).any(axis=0)


# --------------------------------------------------------------------------- messages


def _bad_char_reason(text: str, n: int, alphabet: str | None, where: Callable[[int], str]) -> str:
    """Why ``text`` has a bad character: which one, where, and what was expected.

    With ``alphabet`` None, the text fitted no alphabet: name the first character that no
    alphabet has, or else the first that mixes alphabets.
    """
    if alphabet is not None:
        index = _first_bad(text, n, alphabet)
        if index is not None:
            return (
                f"bad character {text[index]!r} at {where(index)}; "
                f"expected {_describe_alphabet(n, alphabet)}"
            )
        return "bad character"  # not reached: callers have seen one
    symbols = _symbols(n)
    for index, ch in enumerate(text):
        if ch not in symbols:
            return f"bad character {ch!r} at {where(index)}; expected {_describe_alphabet(n)}"
    index = _first_bad(text, n, canonical_alphabet(n)) or 0
    return (
        f"character {text[index]!r} at {where(index)} mixes alphabets: no single {n}x{n} "
        f"alphabet ({_describe_alphabet(n)}) has every symbol used"
    )


def _conflict_reason(puzzle: Puzzle, alphabet: str | None) -> str:
    """'digit 7 appears twice in row 3', for the first repeated digit of ``puzzle``.

    The digit is shown in the file's own ``alphabet``, or as a number when None.
    """
    found = puzzle.conflicts()
    unit, digit = found[0]
    geo = puzzle.geometry
    times = sum(1 for cell in geo.units[unit] if puzzle.cells[cell] == digit)
    count = "twice" if times == 2 else f"{times} times"
    more = ""
    if len(found) > 1:
        more = f" (and {len(found) - 1} more conflict{'' if len(found) == 2 else 's'})"
    symbol = str(digit) if alphabet is None else alphabet[digit - 1]
    return f"digit {symbol} appears {count} in {geo.unit_name(unit)}{more}"


def _wrong_length(size: int) -> str:
    """The reason for a line that is neither a one-line puzzle nor the start of a grid."""
    if size == 0:
        return "no puzzle: the line starts with a metadata delimiter (one of : ; , |)"
    return (
        f"wrong length: {size} cells; expected {_LENGTHS_TEXT} for a one-line puzzle, "
        f"or {_WIDTHS_TEXT} for a grid row followed by the grid's other rows"
    )


# --------------------------------------------------------------------------- the parser

_BATCH = 4096


@dataclass(slots=True)
class _Candidate:
    """A puzzle found in the text, waiting for its symbols to be checked in a batch."""

    line: int
    text: str  # the puzzle's symbols, one per cell, no separators
    raw: str  # the physical line (one-line layouts), to locate columns in messages
    meta: str = ""
    solution: str | None = None
    count: int | None = None
    alphabet: str | None = None  # forced alphabet (numeric grids), else detected
    rows: tuple[tuple[int, str], ...] | None = None  # (line, raw) of each row of a grid
    numeric: bool = False  # a grid whose cells are whitespace-separated numbers

    def where(self, index: int) -> str:
        """Where cell ``index`` of the puzzle is: 'column 12' or 'line 5, column 3'."""
        if self.rows is None:
            return f"column {max(self.raw.find(self.text), 0) + index + 1}"
        n = len(self.rows)
        line, raw = self.rows[index // n]
        starts = _cell_starts(raw, self.numeric)
        column = starts[index % n] + 1 if index % n < len(starts) else 0
        return f"line {line}, column {column}"

    def where_solution(self, index: int) -> str:
        """Where cell ``index`` of the expected solution is on the line."""
        solution = self.solution or ""
        after = self.raw.find(self.text)
        start = self.raw.find(solution, after + len(self.text)) if after >= 0 else -1
        if start < 0:
            start = max(self.raw.find(solution), 0)
        return f"column {start + index + 1}"


@dataclass(slots=True)
class _Grid:
    """A multi-line grid being collected."""

    start: int
    n: int
    rows: list[tuple[int, str, list[str]]]  # (line, raw, cells)
    error: str | None = None
    absorbed: int = 0  # leading rows first held back as possible 4x4 puzzles


@dataclass(slots=True)
class _CsvLayout:
    delimiter: str
    puzzle: int
    solution: int | None
    names: tuple[str, ...]


class _Parser:
    """A line-by-line state machine; records and bad lines come out in line order.

    ``out`` holds results in line order; a puzzle's slot stays None until the batch it waits
    in (``waiting``) is checked.
    """

    def __init__(self, dataset: str) -> None:
        self.dataset = dataset
        self.out: list[PuzzleRecord | BadLine | None] = []
        self.waiting: list[tuple[int, _Candidate]] = []
        self.csv: _CsvLayout | None = None
        self.seen_content = False
        self.grid: _Grid | None = None
        self.small: list[tuple[int, str, str]] = []  # 16-symbol lines that may be 4x4 puzzles
        self.after_header = False

    # ---- output

    def bad(self, line: int, reason: str) -> None:
        self.out.append(BadLine(self.dataset, line, reason))

    def candidate(self, cand: _Candidate) -> None:
        self.waiting.append((len(self.out), cand))
        self.out.append(None)

    def items(self, lines: Iterable[str]) -> Iterator[PuzzleRecord | BadLine]:
        """Parse ``lines``; yield records and bad lines in line order, a batch at a time.

        The cyclic garbage collector is paused while a batch is parsed (never while the
        caller holds control): a batch allocates thousands of objects and no cycles, and
        the collector's repeated passes over them tripled the time of a large file.
        """
        numbered = enumerate(lines, start=1)
        while True:
            with _gc_paused():
                chunk = list(islice(numbered, _BATCH))
                if chunk:
                    self.feed(chunk)
                    if self.waiting:
                        self.resolve()
                else:
                    self.end_grid()
                    self.flush_small()
                    self.resolve()
                done = self.ready()
            yield from done
            if not chunk:
                return

    def ready(self) -> list[PuzzleRecord | BadLine]:
        """Take the finished items (every slot is filled once nothing waits)."""
        done, self.out = self.out, []
        return done  # type: ignore[return-value]  # no None left after resolve()

    # ---- lines

    def feed(self, lines: Iterable[tuple[int, str]]) -> None:
        """Take numbered lines one by one; puzzles found wait in ``waiting``."""
        token_match = _TOKEN.match
        for number, raw in lines:
            line = raw.strip()
            if not line:
                if self.grid is not None:
                    self.end_grid()
                if self.small:
                    self.flush_small()
                continue
            first = line[0]
            if first == "#":
                continue
            if (  # the common case, first: a one-line 9x9/16x16/25x25 puzzle, nothing pending
                first not in _RULE_START
                and self.grid is None
                and self.csv is None
                and self.seen_content
                and not self.small
                and not self.after_header
            ):
                token = token_match(line).group()  # type: ignore[union-attr]  # always matches
                if len(token) in _BIG_CELL_COUNTS:
                    if len(token) == len(line):
                        self.candidate(_Candidate(number, token, raw))
                    else:
                        self.one_line(number, raw, token, line[len(token) :].strip())
                    continue
            if self.csv is not None:
                self.csv_row(number, raw, line)
                continue
            if not self.seen_content:
                self.seen_content = True
                if self.csv_header(line):
                    continue
            if self.grid is not None and self.grid_line(number, raw, line):
                continue
            self.idle_line(number, raw, line)

    def idle_line(self, number: int, raw: str, line: str) -> None:
        """A content line outside any grid."""
        after_header, self.after_header = self.after_header, False
        if line[0] in _RULE_START and _is_rule(line):
            self.rule_line(number, raw, line)
            return
        token = _TOKEN.match(line).group()  # type: ignore[union-attr]  # always matches
        size = len(token)
        if size in CELL_COUNTS:
            rest = line[size:]
            if size == 16 and not rest:
                if after_header:
                    self.start_grid(number, raw, list(token), 16)
                    return
                if set(token) <= _FOUR_BY_FOUR:
                    self.small.append((number, raw, token))
                    return
                if _plausible(list(token), 16):
                    self.grid_of_16(number, raw, list(token))
                    return
            if self.small:
                self.flush_small()
            self.one_line(number, raw, token, rest.strip())
            return
        cells = _split_row(line)
        width = len(cells)
        if width in _ROW_WIDTHS and _plausible(cells, width):
            if width == 16:
                self.grid_of_16(number, raw, cells)
            else:
                self.flush_small()
                self.start_grid(number, raw, cells, width)
            return
        self.flush_small()
        if _HEADER.match(line):
            self.after_header = True
        elif width in _ROW_WIDTHS and _mostly_plausible(cells, width):
            self.start_grid(number, raw, cells, width)  # its bad symbols are reported later
        elif width in _ROW_WIDTHS:
            self.bad(number, _bad_cell_reason(raw, cells, width))
        else:
            rest = line[size:].lstrip()
            self.bad(number, _wrong_length(size if not rest or rest[0] in _META_START else width))

    def rule_line(self, number: int, raw: str, line: str) -> None:
        """A line of separator characters outside a grid: a separator, or a row of '-'s."""
        if "=" in line:
            self.flush_small()
            return
        if (" " in line or "\t" in line) and not (set(line) & _NOT_A_ROW):
            cells = _split_row(line)
            if len(cells) in _ROW_WIDTHS:
                self.flush_small()
                self.start_grid(number, raw, cells, len(cells))

    # ---- one-line puzzles

    def one_line(self, number: int, raw: str, token: str, meta: str) -> None:
        """A one-line puzzle; a meta field of the grid's size, mostly symbols, is its solution."""
        solution = None
        count = None
        ncells = len(token)
        if meta[:1] == ":":  # tdoku's ':count:solution' (solution empty or the grid's size)
            parts = meta.split(":")
            if len(parts) == 3 and _is_count(parts[1]) and len(parts[2]) in (0, ncells):
                solution = parts[2] or None
                self.candidate(_Candidate(number, token, raw, meta, solution, int(parts[1])))
                return
        if meta:
            for match in _meta_field(ncells).finditer(meta):
                field = match.group()
                if _mostly_symbols(field, ncells):
                    solution = field
                    break
            if meta[0] == ":":
                match = _TDOKU_COUNT.match(meta)
                if match:
                    count = int(match.group(1))
        self.candidate(_Candidate(number, token, raw, meta, solution, count))

    # ---- 16-symbol lines that may be 4x4 puzzles or 16x16 rows

    def flush_small(self) -> None:
        """The 16-symbol lines held back are one-line 4x4 puzzles after all."""
        small, self.small = self.small, []
        for number, raw, token in small:
            self.candidate(_Candidate(number, token, raw))

    def grid_of_16(self, number: int, raw: str, cells: list[str]) -> None:
        """A row that can only be 16x16: it starts a grid, or continues held-back lines."""
        if not self.small or len(self.small) >= 16:
            self.flush_small()
            self.start_grid(number, raw, cells, 16)
            return
        small, self.small = self.small, []
        first_line, first_raw, first_token = small[0]
        self.start_grid(first_line, first_raw, list(first_token), 16)
        assert self.grid is not None
        self.grid.absorbed = len(small)
        for line, row_raw, token in small[1:]:
            self.add_row(line, row_raw, list(token))
        self.add_row(number, raw, cells)

    # ---- multi-line grids

    def start_grid(self, number: int, raw: str, cells: list[str], n: int) -> None:
        self.grid = _Grid(number, n, [])
        self.add_row(number, raw, cells)

    def add_row(self, number: int, raw: str, cells: list[str]) -> None:
        grid = self.grid
        assert grid is not None
        if len(cells) != grid.n and grid.error is None:
            grid.error = (
                f"rows of unequal length: line {number} has {len(cells)} cells, "
                f"line {grid.start} has {grid.n}"
            )
        grid.rows.append((number, raw, cells))
        if len(grid.rows) == grid.n:
            self.grid = None
            self.finish_grid(grid)

    def grid_line(self, number: int, raw: str, line: str) -> bool:
        """Feed a line to the grid being read; False when the line is not part of it."""
        grid = self.grid
        assert grid is not None
        rule = _is_rule(line)
        if not rule or ((" " in line or "\t" in line) and not (set(line) & _NOT_A_ROW)):
            cells = _split_row(line, grid.n)
            if len(cells) == grid.n:
                self.add_row(number, raw, cells)
                return True
        if rule:
            if "=" in line:
                self.end_grid()
            return True
        if _HEADER.match(line):
            self.end_grid()
            return False
        token = _TOKEN.match(line).group()  # type: ignore[union-attr]  # always matches
        if len(token) in CELL_COUNTS and len(token) != grid.n:
            self.end_grid()
            return False
        self.add_row(number, raw, _split_row(line, grid.n))
        return True

    def end_grid(self) -> None:
        """The grid being read ends here, before its last row: report it.

        Rows held back as possible 4x4 puzzles and then taken into this grid are 4x4
        puzzles after all, since the grid did not come to be.
        """
        grid, self.grid = self.grid, None
        if grid is None:
            return
        if grid.absorbed:
            for line, raw, cells in grid.rows[: grid.absorbed]:
                self.candidate(_Candidate(line, "".join(cells), raw))
            grid.rows = grid.rows[grid.absorbed :]
            grid.start = grid.rows[0][0]
        n = grid.n
        line, raw, cells = grid.rows[0]
        if grid.error is not None:
            self.bad(grid.start, grid.error)
        elif len(grid.rows) > 1:
            self.bad(grid.start, f"grid cut short: {len(grid.rows)} of {n} rows")
        elif not all(_plausible([cell], n) for cell in cells):
            self.bad(grid.start, _bad_cell_reason(raw, cells, n))
        elif n == 16:
            self.bad(grid.start, "grid cut short: 1 of 16 rows")
        else:
            self.bad(
                grid.start,
                f"wrong length: {n} cells; expected {_LENGTHS_TEXT} for a one-line puzzle "
                f"(as the first row of a {n}x{n} grid, it lacks the other {n - 1} rows)",
            )

    def finish_grid(self, grid: _Grid) -> None:
        """A grid with all its rows: make it a candidate, reading numbers if it has any."""
        if grid.error is not None:
            self.bad(grid.start, grid.error)
            return
        n = grid.n
        rows = tuple((line, raw) for line, raw, _ in grid.rows)
        if not (n > 9 and any(len(cell) > 1 for _, _, cells in grid.rows for cell in cells)):
            text = "".join("".join(cells) for _, _, cells in grid.rows)
            self.candidate(_Candidate(grid.start, text, "", rows=rows))
            return
        symbols = "." + canonical_alphabet(n)
        text_cells = []
        for r, (_, _, cells) in enumerate(grid.rows):
            for c, cell in enumerate(cells):
                if cell in EMPTY_MARKS:
                    text_cells.append(".")
                elif _is_number(cell, n):
                    text_cells.append(symbols[int(cell)])
                else:
                    where = _Candidate(grid.start, "", "", rows=rows, numeric=True).where
                    self.bad(grid.start, _bad_cell_text(cell, where(r * n + c), n, True))
                    return
        text = "".join(text_cells)
        alphabet = canonical_alphabet(n)
        self.candidate(_Candidate(grid.start, text, "", alphabet=alphabet, rows=rows, numeric=True))

    # ---- CSV

    def csv_header(self, line: str) -> bool:
        """Recognise a CSV header naming a puzzle column, and remember the layout."""
        for delimiter in (",", ";", "\t"):
            if delimiter not in line:
                continue
            names = tuple(_unquote(name).lower() for name in _csv_split(line, delimiter))
            puzzle = next((names.index(c) for c in _PUZZLE_COLUMNS if c in names), None)
            if puzzle is None:
                continue
            solution = next((names.index(c) for c in _SOLUTION_COLUMNS if c in names), None)
            self.csv = _CsvLayout(delimiter, puzzle, solution, names)
            return True
        return False

    def csv_row(self, number: int, raw: str, line: str) -> None:
        layout = self.csv
        assert layout is not None
        values = _csv_split(line, layout.delimiter)
        count = len(values)
        if layout.puzzle >= count:
            self.bad(
                number,
                f"{count} field{'' if count == 1 else 's'}: no {layout.names[layout.puzzle]!r} "
                f"(field {layout.puzzle + 1})",
            )
            return
        token = _unquote(values[layout.puzzle])
        size = len(token)
        if size not in CELL_COUNTS:
            self.bad(
                number,
                f"wrong length: {size} cells in column {layout.names[layout.puzzle]!r}; "
                f"expected {_LENGTHS_TEXT}",
            )
            return
        solution = None
        if layout.solution is not None and layout.solution < count:
            solution = _unquote(values[layout.solution]) or None
            if solution is not None and len(solution) != size:
                self.bad(
                    number,
                    f"expected solution in column {layout.names[layout.solution]!r} has "
                    f"{len(solution)} cells, the puzzle {size}",
                )
                return
        del values[layout.puzzle]
        meta = values[0].strip() if count == 2 else layout.delimiter.join(values).strip()
        self.candidate(_Candidate(number, token, raw, meta, solution))

    # ---- checking candidates in batches

    def resolve(self) -> None:
        """Check every waiting candidate's symbols, duplicates and solution; fill ``out``."""
        waiting, self.waiting = self.waiting, []
        groups: dict[tuple[int, str], list[tuple[int, _Candidate]]] = {}
        for slot, cand in waiting:
            n = CELL_COUNTS[len(cand.text)]
            alphabet = cand.alphabet
            if alphabet is None:
                alphabet = canonical_alphabet(n) if n <= 9 else self.detect(slot, cand, n)
                if alphabet is None:
                    continue
            groups.setdefault((n, alphabet), []).append((slot, cand))
        for (n, alphabet), items in groups.items():
            self.resolve_group(n, alphabet, items)

    def detect(self, slot: int, cand: _Candidate, n: int) -> str | None:
        """The alphabet of a 16x16/25x25 candidate and its solution; None after a BadLine."""
        try:
            return detect_alphabet(cand.text + (cand.solution or ""), n)
        except PuzzleError:
            pass
        try:
            alphabet = detect_alphabet(cand.text, n)
        except PuzzleError:
            reason = _bad_char_reason(cand.text, n, None, cand.where)
        else:
            solution = cand.solution or ""
            if _first_bad(solution, n, alphabet) is None:  # not reached: it would have fitted
                reason = "expected solution: its alphabet differs from the puzzle's"
            else:
                reason = "expected solution: " + _bad_char_reason(
                    solution, n, alphabet, cand.where_solution
                )
        self.out[slot] = BadLine(self.dataset, cand.line, reason)
        return None

    def resolve_group(self, n: int, alphabet: str, items: list[tuple[int, _Candidate]]) -> None:
        """Check candidates of one size and alphabet together, with numpy."""
        box = SIZES[n]
        ncells = n * n
        table = _digit_table(n, alphabet)
        grid = _to_grid([cand.text for _, cand in items], table, ncells)
        problem = (grid > n).any(axis=1) | _has_duplicates(grid, n)
        with_solution = [k for k, (_, cand) in enumerate(items) if cand.solution is not None]
        if with_solution:
            everyone = len(with_solution) == len(items)
            texts = [items[k][1].solution or "" for k in with_solution]
            sgrid = _to_grid(texts, table, ncells)
            givens = grid if everyone else grid[with_solution]
            problem[slice(None) if everyone else with_solution] |= (
                (sgrid > n).any(axis=1)
                | (sgrid == 0).any(axis=1)
                | _has_duplicates(sgrid, n)
                | ((givens != 0) & (givens != sgrid)).any(axis=1)
            )
        expected: list[Puzzle | None] = [None] * len(items)
        if with_solution:
            for k, row in zip(with_solution, sgrid.tolist(), strict=True):
                expected[k] = _checked_puzzle(box, tuple(row))
        dataset = self.dataset
        out = self.out
        for (slot, cand), bad, row, solution in zip(
            items, problem.tolist(), grid.tolist(), expected, strict=True
        ):
            if bad:
                out[slot] = BadLine(dataset, cand.line, _explain(cand, n, alphabet))
            else:
                out[slot] = _record(
                    dataset,
                    cand.line,
                    _checked_puzzle(box, tuple(row)),
                    cand.count,
                    solution,
                    cand.meta,
                )


def _explain(cand: _Candidate, n: int, alphabet: str) -> str:
    """Why the batch check refused a candidate (the slow way: only bad ones come here)."""
    box = SIZES[n]
    if _first_bad(cand.text, n, alphabet) is not None:
        return _bad_char_reason(cand.text, n, alphabet, cand.where)
    table = _digit_table(n, alphabet)
    puzzle = Puzzle(box, tuple(map(ord, cand.text.translate(table))))
    if puzzle.conflicts():
        return _conflict_reason(puzzle, None if cand.numeric else alphabet)
    solution = cand.solution or ""
    if _first_bad(solution, n, alphabet) is not None:
        return "expected solution: " + _bad_char_reason(solution, n, alphabet, cand.where_solution)
    expected = Puzzle(box, tuple(map(ord, solution.translate(table))))
    empty = [cell for cell, digit in enumerate(expected.cells) if not digit]
    if empty:
        return (
            f"expected solution is incomplete: {len(empty)} empty "
            f"cell{'' if len(empty) == 1 else 's'}, the first at {cand.where_solution(empty[0])}"
        )
    if expected.conflicts():
        return "expected solution is invalid: " + _conflict_reason(expected, alphabet)
    geo = puzzle.geometry
    for cell, (given, value) in enumerate(zip(puzzle.cells, expected.cells, strict=True)):
        if given and given != value:
            return (
                f"expected solution contradicts the givens at {geo.cell_name(cell)}: "
                f"the puzzle has {alphabet[given - 1]}, the solution {alphabet[value - 1]}"
            )
    return "refused by the batch check"  # not reached


def _items_then_close(handle: io.TextIOWrapper, dataset: str) -> Iterator[PuzzleRecord | BadLine]:
    with handle:
        yield from _Parser(dataset).items(_stream_lines(handle, dataset))


def _collect(items: Iterator[PuzzleRecord | BadLine]) -> ReadResult:
    """Gather streamed items into a ReadResult, with the cyclic garbage collector paused.

    The records pile up, and no cycles are made: left on, the collector would rescan the
    growing heap again and again.
    """
    records: list[PuzzleRecord] = []
    bad: list[BadLine] = []
    with _gc_paused():
        for item in items:
            if isinstance(item, PuzzleRecord):
                records.append(item)
            else:
                bad.append(item)
    return ReadResult(tuple(records), tuple(bad))


# --------------------------------------------------------------------------- helpers


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block, then restore it as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _is_rule(line: str) -> bool:
    """A line made only of separator characters (``- = + | ~`` and spaces)."""
    return set(line) <= _RULE_CHARS


def _split_row(line: str, n: int | None = None) -> list[str]:
    """A grid row's cells: for 16x16/25x25, ``n`` whitespace-separated tokens if the line has
    exactly that many and one is longer than a character (numbers); else one per character."""
    parts = line.replace("|", " ").split()
    expected = (16, 25) if n is None else (n,) if n > 9 else ()
    if len(parts) in expected and any(len(part) > 1 for part in parts):
        return parts
    return list("".join(parts))


def _plausible(cells: list[str], n: int) -> bool:
    """Whether every cell could be a symbol (or, for n > 9, a number) of an n x n grid."""
    symbols = _FOUR_BY_FOUR if n == 4 else _symbols(n)
    for cell in cells:
        if len(cell) == 1:
            if cell not in symbols:
                return False
        elif not (n > 9 and _is_number(cell, n)):
            return False
    return True


def _is_number(cell: str, n: int) -> bool:
    """Whether ``cell`` is a decimal number from 0 to ``n`` (ASCII digits only)."""
    return cell.isascii() and cell.isdigit() and len(cell) <= 3 and int(cell) <= n


def _is_count(text: str) -> bool:
    """Whether ``text`` is a solution count: 1 to 18 ASCII digits."""
    return 0 < len(text) <= 18 and text.isascii() and text.isdigit()


def _mostly_symbols(field: str, ncells: int) -> bool:
    """Whether at least half of a metadata field's characters are grid symbols."""
    return 2 * len(field.translate(_non_symbols(CELL_COUNTS[ncells]))) <= ncells


def _mostly_plausible(cells: list[str], n: int) -> bool:
    """Whether at least half the cells could be symbols: a row with a typo, not junk."""
    return 2 * sum(_plausible([cell], n) for cell in cells) >= len(cells)


def _cell_starts(raw: str, numeric: bool) -> list[int]:
    """The 0-based column where each cell of a grid row starts."""
    if numeric:
        return [match.start() for match in _ROW_TOKEN.finditer(raw)]
    return [i for i, ch in enumerate(raw) if not ch.isspace() and ch != "|"]


def _bad_cell_reason(raw: str, cells: list[str], n: int) -> str:
    """Why a line with a row's number of cells is not a row: its first impossible cell."""
    index = next(i for i, cell in enumerate(cells) if not _plausible([cell], n))
    numeric = any(len(cell) > 1 for cell in cells)
    starts = _cell_starts(raw, numeric)
    column = starts[index] + 1 if index < len(starts) else 0
    return _bad_cell_text(cells[index], f"column {column}", n, numeric)


def _bad_cell_text(cell: str, where: str, n: int, numeric: bool) -> str:
    """'bad character 'x' at column 3; expected ...' or the same for a number."""
    if numeric:
        return (
            f"bad number {cell!r} at {where}; expected 1-{n}, "
            f"or 0 or one of {_EMPTY_TEXT} for an empty cell"
        )
    return f"bad character {cell!r} at {where}; expected {_describe_alphabet(n)}"


def _unquote(value: str) -> str:
    """A CSV field without surrounding spaces and quotes."""
    value = value.strip()
    if value[:1] in _QUOTES or value[-1:] in _QUOTES:
        value = value.strip("\"'").strip()
    return value


def _csv_split(line: str, delimiter: str) -> list[str]:
    """Split one CSV line; the csv module only when quotes are present."""
    if '"' not in line:
        return line.split(delimiter)
    try:
        return next(csv.reader([line], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return line.split(delimiter)
