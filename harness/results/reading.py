"""Reading a results CSV back, a row at a time: every row checked, a torn last line dropped."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
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

_STATUSES = frozenset(s.value for s in Status)


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
                require_columns(path, header)
            for number, row in rows:
                problem = _row_problem(row)
                if problem:
                    raise ResultsError(f"{path}:{number}: {problem}")
                if each is not None:
                    each(row)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ResultsError(f"{path}: cannot read it: {exc}") from None
    return header


def _row_problem(row: Mapping[str, str]) -> str | None:
    """What is wrong with one row read from a results CSV, or None."""
    if row.get("status") not in _STATUSES:
        return f"unknown status {row.get('status')!r}; expected one of {', '.join(_STATUSES)}"
    for column in INTEGER_COLUMNS:
        if not row.get(column, "").isdigit():
            return f"{column} is {row.get(column)!r}, not a whole number"
    for column in NUMBER_COLUMNS:
        value = row.get(column) or ""
        try:
            if value:
                float(value)
        except ValueError:
            return f"{column} is {value!r}, not a number"
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
