"""Reading a results CSV back: every row checked, a torn last line dropped.

Every reader of a results CSV (``harness table``, ``check``, ``report``, ``plot``,
``--resume``, ``--baseline``) holds it to these rules, so that a file one of them refuses,
all refuse, with the same line:

- the header holds every required column, each column once, none unnamed;
- every row has as many fields as the header (a blank line is a row of none);
- ``dataset``, ``puzzle`` and ``backend`` are never empty; ``status`` is one of the statuses;
- ``line``, ``repeat`` and ``limit`` are whole numbers below 10^18; ``size``, ``givens``,
  ``jobs`` and ``solutions`` are too, or empty;
- every other base column with numbers (times, memory, search counters) is empty or a
  finite number of zero or more in plain or scientific notation (no sign, no space).

A byte order mark before the header is skipped; a file of nothing but white space has no
header and no rows.

A last line without its newline was torn by a kill mid-write: it is dropped, as ``--resume``
drops it before writing on.

:func:`check_results` applies the rules a row at a time in bounded memory and names the
first bad row (``--resume``, ``--baseline``, and every refusal's message);
:mod:`harness.results.scan` applies them by columns over the bytes (the tables, the report
and the gate), and hands a file it cannot take to :func:`check_results`.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends.base import Status
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
#: Bytes read at a time (then cut back to the last line break).
BLOCK = 1 << 23
#: The longest header read (a longer one is read a row at a time).
HEADER = 1 << 20
#: The most bytes a block with quotes may grow to, for a quoted cell that runs on.
QUOTED = 1 << 26
#: The longest cell read (a 300 KB message is read; a longer one is not a results CSV).
FIELD_LIMIT = 1 << 24
#: Columns never empty, and columns that are empty or a whole number.
TEXT_KEYS = ("dataset", "puzzle", "backend")
WHOLE_OR_EMPTY = ("size", "givens", "jobs", "solutions")
#: Rows checked together, column by column.
BATCH = 4096
_WHOLE = re.compile(r"[0-9]{1,18}").fullmatch
_WHOLE_OR_EMPTY = re.compile(r"[0-9]{0,18}").fullmatch
#: A number of zero or more in plain or scientific notation (no sign, space, ``_``, inf, nan).
_QUOTED = methodcaller("startswith", "'")
_DECIMAL = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?").fullmatch


def _check_header(path: Path | str, header: Sequence[str]) -> None:
    require_columns(path, header)
    if "" in header:
        raise ResultsError(f"{path}:1: column {header.index('') + 1} has no name")
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        raise ResultsError(f"{path}:1: column {twice[0]!r} appears more than once")


def _is_quantity(cell: str) -> bool:
    """An empty cell, or a finite number of zero or more."""
    return not cell or (_DECIMAL(cell) is not None and float(cell) < math.inf)


def rule(name: str) -> Callable[[str], object] | None:
    """What a cell of column ``name`` must be (a predicate on its unescaped text), or None
    for a column without a rule."""
    if name == "status":
        return STATUSES.__contains__
    if name in TEXT_KEYS:
        return bool
    if name in INTEGER_COLUMNS:
        return _WHOLE
    if name in WHOLE_OR_EMPTY:
        return _WHOLE_OR_EMPTY
    if name in NUMBER_COLUMNS:
        return _is_quantity
    return None


def _problem(name: str, value: str) -> str:
    shown = repr(value if len(value) <= 40 else value[:40] + "...")
    if name == "status":
        return f"status is {shown}, not one of {' '.join(sorted(STATUSES))}"
    if name in TEXT_KEYS:
        return f"{name} is empty"
    if name in INTEGER_COLUMNS or name in WHOLE_OR_EMPTY:
        return f"{name} is {shown}, not a whole number below 10^18"
    return f"{name} is {shown}, not a number (finite, zero or more)"


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
        with Path(path).open("rb") as handle:
            if holds_nul(handle):
                raise ResultsError(f"{path}: not a results CSV (it holds NUL bytes)")
            if blank(handle, rows_end(handle)):
                return []
        with open_rows(Path(path), strict=True) as (header, rows):
            _check_header(path, header)
            _check_rows(path, header, rows, each)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ResultsError(f"{path}: cannot read it: {reason}") from None
    return header


def check_lines(path: Path | str, header: list[str], text: str, first: int) -> None:
    """Check the rows of ``text``, lines of the results CSV ``path`` under ``header`` from
    line ``first`` on, as :func:`check_results` checks the file's rows (the first bad one
    named by its line in the file)."""
    _check_header(path, header)
    csv.field_size_limit(min(FIELD_LIMIT, sys.maxsize))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        _check_rows(path, header, _rows(Path(path), reader, header, True, first - 1))
    except csv.Error as exc:
        raise ResultsError(f"{path}: cannot read it: {exc}") from None


def _check_rows(
    path: Path | str,
    header: list[str],
    rows: Iterator[tuple[int, dict[str, str]]],
    each: Callable[[dict[str, str]], None] | None = None,
) -> None:
    """Raise :class:`ResultsError` at the first of ``rows`` (line number, row) that breaks
    a rule (or that cannot be read); give each other to ``each``. Rows are checked a batch
    at a time, column by column, and a batch with a bad cell row by row."""
    rules = [(name, ok) for name in header if (ok := rule(name)) is not None]
    batch: list[tuple[int, dict[str, str]]] = []
    while True:
        try:
            batch.append(next(rows))
        except StopIteration:
            break
        except (ResultsError, csv.Error):  # a row of another width: an earlier bad row first
            _check_batch(path, rules, batch, each)
            raise
        if len(batch) == BATCH:
            _check_batch(path, rules, batch, each)
            batch = []
    _check_batch(path, rules, batch, each)


def _check_batch(
    path: Path | str,
    rules: list[tuple[str, Callable[[str], object]]],
    batch: list[tuple[int, dict[str, str]]],
    each: Callable[[dict[str, str]], None] | None,
) -> None:
    """:func:`_check_rows` of one batch."""
    if not all(all(map(ok, [row[name] for _, row in batch])) for name, ok in rules):
        for number, row in batch:
            for name, ok in rules:
                if not ok(row[name]):
                    raise ResultsError(f"{path}:{number}: {_problem(name, row[name])}")
    if each is not None:
        for _, row in batch:
            each(row)


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
    csv.field_size_limit(min(FIELD_LIMIT, sys.maxsize))
    with path.open("rb") as binary:
        reader = csv.reader(whole_lines(binary))
        header = [unescape_cell(c) for c in next(reader, [])]
        if header and header[0].startswith("\ufeff"):  # a byte order mark
            header[0] = header[0][1:]
        yield header, _rows(path, reader, header, strict)


def _rows(
    path: Path, reader: Any, header: list[str], strict: bool, before: int = 0
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) of each row of ``reader``, whose lines follow ``before`` others."""
    width = len(header)
    for fields in reader:
        if len(fields) != width:
            if strict:
                line, count = before + reader.line_num, len(fields)
                raise ResultsError(f"{path}:{line}: {count} field(s), the header has {width}")
            fields += [""] * (width - len(fields))
        if any(map(_QUOTED, fields)):  # a cell may carry the formula escape (see schema)
            fields = list(map(unescape_cell, fields))
        yield before + reader.line_num, dict(zip(header, fields, strict=False))


def whole_lines(binary: Iterator[bytes]) -> Iterator[str]:
    """The lines of a binary file as text, but a last one without its line break (torn)."""
    for line in binary:
        if not line.endswith(b"\n"):
            return
        yield line.decode("utf-8")


def holds_nul(handle) -> bool:
    """Whether the file holds a NUL byte (in a torn last line too): not a text file."""
    handle.seek(0)
    return any(b"\0" in block for block in iter(lambda: handle.read(BLOCK), b""))


def blank(handle, end: int) -> bool:
    """Whether the file holds nothing but white space up to ``end`` (a file of no rows)."""
    handle.seek(0)
    return not any(block.strip() for block in blocks(handle, end))


def rows_end(handle, block: int = 1 << 16) -> int:
    """The size of the file up to and with its last newline (all of it when it ends in one):
    what follows is a torn row."""
    end = handle.seek(0, 2)
    while end > 0:
        start = max(0, end - block)
        handle.seek(start)
        chunk = handle.read(end - start)
        if chunk.rfind(b"\n") >= 0:
            return start + chunk.rfind(b"\n") + 1
        end = start
    return 0


def blocks(handle, end: int) -> Iterator[bytes]:
    """The bytes from the handle's place to ``end``, in blocks that end with a line break."""
    rest = b""
    while handle.tell() < end:
        data = rest + handle.read(min(BLOCK, end - handle.tell()))
        cut = data.rfind(b"\n") + 1
        rest = data[cut:]
        if cut:
            yield data[:cut]
