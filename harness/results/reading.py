"""Reading a results CSV back: every row checked, a torn last line dropped.

Every reader of a results CSV (``harness table``, ``check``, ``report``, ``plot``,
``--resume``, ``--baseline``) takes its text from :func:`results_text` and checks it with
:func:`check_text`, so that a file one of them refuses, all refuse, with the same line:

- the header holds every required column, each column once, none unnamed;
- every row has as many fields as the header (a blank line is a row of none);
- ``dataset``, ``puzzle`` and ``backend`` are never empty; ``status`` is one of the statuses;
- ``line``, ``repeat`` and ``limit`` are whole numbers below 10^18; ``size``, ``givens``,
  ``jobs`` and ``solutions`` are too, or empty;
- every other base column with numbers (times, memory, search counters) is empty or a
  finite number, never negative; a counter too large for 64 bits is a large number.

A byte order mark before the header is skipped.

A last line without its newline was torn by a kill mid-write: it is dropped, as ``--resume``
drops it before writing on.

Two ways of reading apply these rules: the whole text at once, column by column
(:func:`check_text`, for the tables, the report and the gate), or a row at a time in bounded
memory (:func:`check_results`, for ``--resume`` and ``--baseline``).
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends.base import Status
from harness.gc_pause import gc_paused
from harness.results.schema import (
    INTEGER_COLUMNS,
    NUMBER_COLUMNS,
    ResultsError,
    require_columns,
    row_key,
    unescape_cell,
)

if TYPE_CHECKING:
    import numpy as np

STATUSES = frozenset(s.value for s in Status)
#: Columns a results CSV never leaves empty (besides the numbered ones).
TEXT_KEYS = ("dataset", "puzzle", "backend")
#: Columns that are empty or a whole number below 10^18.
WHOLE_OR_EMPTY = ("size", "givens", "jobs", "solutions")
#: The longest cell read (a 300 KB message is read; a longer one is not a results CSV).
FIELD_LIMIT = 1 << 24
_WHOLE = re.compile(r"[0-9]{1,18}").fullmatch
_WHOLE_OR_EMPTY = re.compile(r"[0-9]{0,18}").fullmatch
#: A number of zero or more in plain or scientific notation (no sign, space, ``_``, inf, nan).
_DECIMAL = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?").fullmatch
_QUOTED = methodcaller("startswith", "'")


def results_text(path: Path | str) -> str:
    """The text of a results CSV without a torn last line; :class:`ResultsError` when it
    cannot be read as UTF-8 text."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ResultsError(f"{path}: cannot read it: {reason}") from None
    if "\0" in text:
        raise ResultsError(f"{path}: not a results CSV (it holds NUL bytes)")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    return text


def parse_text(path: Path | str, text: str) -> tuple[list[str], list[list[str]]]:
    """The header and the rows' fields of ``text`` (cells unescaped), every row checked
    to have the header's width; :class:`ResultsError` naming the line otherwise."""
    if not text.strip():
        return [], []
    csv.field_size_limit(min(FIELD_LIMIT, sys.maxsize))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [unescape_cell(c) for c in next(reader, [])]
        _check_header(path, header)
        rows = list(reader)
    except csv.Error as exc:
        raise ResultsError(f"{path}:{reader.line_num}: not CSV: {exc}") from None
    width = len(header)
    if set(map(len, rows)) - {width}:
        index = next(i for i, fields in enumerate(rows) if len(fields) != width)
        count = len(rows[index])
        raise ResultsError(
            f"{path}:{_line_of(text, index)}: {count} field(s), the header has {width}"
        )
    if "'" in text:  # a cell may carry the formula escape (see harness.results.schema)
        for i, fields in enumerate(rows):
            if any(map(_QUOTED, fields)):
                rows[i] = [unescape_cell(f) for f in fields]
    return header, rows


def _check_header(path: Path | str, header: Sequence[str]) -> None:
    require_columns(path, header)
    if "" in header:
        raise ResultsError(f"{path}:1: column {header.index('') + 1} has no name")
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        raise ResultsError(f"{path}:1: column {twice[0]!r} appears more than once")


def check_text(path: Path | str, text: str) -> tuple[list[str], list[list[str]]]:
    """:func:`parse_text`, then every cell checked (see the module's rules)."""
    with gc_paused():  # millions of cells, none of them garbage: the collector's passes only cost
        header, rows = parse_text(path, text)
        if not rows:
            return header, rows
        columns = dict(zip(header, zip(*rows, strict=True), strict=True))
    for name in header:
        index = _first_bad(name, columns[name])
        if index is not None:
            value = columns[name][index]
            line = _line_of(text, index)
            raise ResultsError(f"{path}:{line}: {_problem(name, value)}")
    return header, rows


def _first_bad(name: str, cells: Sequence[str]) -> int | None:
    """The index of the first cell of column ``name`` that breaks its rule, or None."""
    if name == "status":
        if STATUSES.issuperset(cells):
            return None
        ok = STATUSES.__contains__
    elif name in TEXT_KEYS:
        ok = bool
    elif name in INTEGER_COLUMNS:
        ok = _WHOLE
    elif name in WHOLE_OR_EMPTY:
        ok = _WHOLE_OR_EMPTY
    elif name in NUMBER_COLUMNS:
        if _all_quantities(cells):
            return None
        ok = _is_quantity
    else:
        return None
    if all(map(ok, cells)):
        return None
    return next(i for i, cell in enumerate(cells) if not ok(cell))


def _all_quantities(cells: Sequence[str]) -> bool:
    """Whether no cell is empty and every one is :func:`_is_quantity`: the common case, in
    passes at C speed (float() alone would also take spaces, ``_``, other digits, inf)."""
    try:
        values = list(map(float, cells))
    except ValueError:  # an empty cell, or text
        return False
    joined = "".join(cells)
    plain = joined.isascii() and not any(c in joined for c in "_ \t\n\r\f\v")
    return plain and math.isfinite(sum(values)) and min(values) >= 0


def _is_quantity(cell: str) -> bool:
    """An empty cell, or a finite number of zero or more."""
    return not cell or (_DECIMAL(cell) is not None and float(cell) < math.inf)


def _problem(name: str, value: str) -> str:
    shown = repr(value if len(value) <= 40 else value[:40] + "...")
    if name == "status":
        return f"status is {shown}, not one of {' '.join(sorted(STATUSES))}"
    if name in TEXT_KEYS:
        return f"{name} is empty"
    if name in INTEGER_COLUMNS or name in WHOLE_OR_EMPTY:
        return f"{name} is {shown}, not a whole number below 10^18"
    return f"{name} is {shown}, not a number (finite, zero or more)"


def _line_of(text: str, index: int) -> int:
    """The line of ``text`` on which row ``index`` (0 for the first after the header) ends."""
    reader = csv.reader(io.StringIO(text, newline=""))
    for number, _ in enumerate(reader, start=-1):
        if number == index:
            return reader.line_num
    return reader.line_num


def read_results(path: Path | str) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a results CSV (an empty file has neither), every row checked.

    Raises :class:`ResultsError`, naming the file (and the line, for a bad row), when it
    cannot be read, is not a results CSV, or has a row with too few or too many fields, an
    unknown status, or text where a number belongs.
    """
    rows: list[dict[str, str]] = []
    header = check_results(path, rows.append)
    return header, rows


def check_results(
    path: Path | str, each: Callable[[dict[str, str]], None] | None = None
) -> list[str]:
    """The header of a results CSV whose every row :func:`read_results` checks, read a row
    at a time (``each`` is given each row); raises as :func:`read_results` does."""
    try:
        with open_rows(Path(path), strict=True) as (header, rows):
            if header:
                _check_header(path, header)
            for number, row in rows:
                problem = _row_problem(header, row)
                if problem:
                    raise ResultsError(f"{path}:{number}: {problem}")
                if each is not None:
                    each(row)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ResultsError(f"{path}: cannot read it: {reason}") from None
    return header


def _row_problem(header: Sequence[str], row: Mapping[str, str]) -> str | None:
    """What is wrong with one row read from a results CSV by the module's rules, or None."""
    for name in header:
        value = row.get(name, "")
        if _first_bad(name, [value]) is not None:
            return _problem(name, value)
    return None


@dataclass
class Resumable:
    """What a resumed run needs of the rows already in its CSV: the header, how many rows,
    whether its last line is torn, and the resume keys, as sorted 64-bit hashes of
    :func:`row_key` (8 bytes a row; two keys sharing a hash, about one chance in 10^7 in
    a million rows, would make one solve look done)."""

    header: list[str]
    rows: int
    keys: np.ndarray

    def done(self, key: tuple[str, ...]) -> bool:
        """Whether the CSV holds a row with this resume key."""
        import numpy as np

        at = int(np.searchsorted(self.keys, hash(key)))
        return at < len(self.keys) and self.keys[at] == hash(key)


def check_resumable(
    path: Path, limit: int, each: Callable[[dict[str, str]], None] | None = None
) -> Resumable:
    """The rows of ``path``, which a run with ``limit`` is about to complete, read a row at
    a time (each also given to ``each``).

    Raises :class:`ResultsError` unless it is a results CSV whose rows were measured under
    the same solution limit: with another limit, the same key would mean another measurement.
    """
    keys: list[int] = []
    other: list[str] = []

    def take(row: dict[str, str]) -> None:
        if row["limit"] != str(limit):
            other.append(row["limit"])
        keys.append(hash(row_key(row)))
        if each is not None:
            each(row)

    header = check_results(path, take)
    if other:
        raise ResultsError(
            f"{path}: its rows were measured with --limit-solutions {min(other)}, "
            f"not {limit}; resume with the same limit or choose another --out"
        )
    import numpy as np  # here: a run that resumes nothing does not load it

    return Resumable(header, len(keys), np.sort(np.array(keys, dtype=np.int64)))


def read_rows(path: Path, strict: bool = False) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a results CSV; a torn last line (killed mid-write) is dropped.

    Cells are unescaped (see :func:`unescape_cell`). With ``strict``, a row with more or
    fewer fields than the header raises :class:`ResultsError` naming its line.
    """
    with open_rows(path, strict) as (header, rows):
        return header, [row for _, row in rows]


@contextmanager
def open_rows(
    path: Path, strict: bool = False
) -> Iterator[tuple[list[str], Iterator[tuple[int, dict[str, str]]]]]:
    """``with open_rows(path) as (header, rows)``: the header and an iterator of (line
    number, row), read a line at a time, cells unescaped, a torn last line dropped. With
    ``strict``, a row with more or fewer fields than the header raises
    :class:`ResultsError` naming its line; else a short row reads as empty cells."""
    with path.open("rb") as binary:
        reader = csv.reader(whole_lines(binary))
        header = [unescape_cell(c) for c in next(reader, [])]
        if header and header[0].startswith("\ufeff"):  # a byte order mark
            header[0] = header[0][1:]
        yield header, _rows(path, reader, header, strict)


def _rows(
    path: Path, reader: Any, header: list[str], strict: bool
) -> Iterator[tuple[int, dict[str, str]]]:
    width = len(header)
    for fields in reader:
        if len(fields) != width:
            if strict:
                raise ResultsError(
                    f"{path}:{reader.line_num}: {len(fields)} field(s), the header has {width}"
                )
            fields += [""] * (width - len(fields))
        yield reader.line_num, dict(zip(header, map(unescape_cell, fields), strict=False))


def whole_lines(binary: Iterator[bytes]) -> Iterator[str]:
    """The lines of a binary file as text, but a last one without its line break (torn)."""
    for line in binary:
        if not line.endswith(b"\n"):
            return
        yield line.decode("utf-8")
