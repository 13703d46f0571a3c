"""Results CSVs read for the table, the report and the gate: only the columns they use, in
compact dtypes, every row checked.

A million rows of a results CSV hold two 81-character texts each (the puzzle and its
solution) that neither the tables nor the report show. Here a caller names its columns,
text it groups by becomes a category (a handful of distinct values), and numbers are
parsed by pandas' C reader. Every row is first held to the rules of
:mod:`harness.results.reading`: by columns (:func:`harness.results.scan.scan` over the bytes,
then the parsed numbers and statuses here), and a file that breaks one is read again a row
at a time (:func:`harness.results.check_results`) to name its first bad row. A torn last
line (a run killed mid-write) is dropped, as :func:`harness.results.read_rows` drops it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import BinaryIO, NoReturn

import numpy as np
import pandas as pd

from harness.results import (
    BASE_COLUMNS,
    INTEGER_COLUMNS,
    NUMBER_COLUMNS,
    ResultsError,
    check_results,
    unescape_cell,
)
from harness.results import scan as bytes_scan
from harness.results.reading import STATUSES, check_lines
from harness.tables.rows import FIRST, PUZZLE_KEYS
from harness.tables.summary import NUMERIC

#: Text columns with few distinct values, held as categories.
CATEGORIES = ("dataset", "backend", "status", "host", "tier")
#: Canonical grid text (digits, letters, dots): never begins with a character the writer
#: quotes, so it is not searched for quotes to take off.
GRIDS = ("puzzle", "solution")
#: Number columns whose values (not only their bytes) are checked once parsed.
QUANTITIES = tuple(
    c for c in NUMBER_COLUMNS if c not in bytes_scan.WHOLE_OR_EMPTY and c not in INTEGER_COLUMNS
)


class _Head(io.RawIOBase):
    """The first ``size`` bytes of a binary file, read as a file of its own."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        super().__init__()
        self._handle, self._left = handle, size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        size = min(len(buffer), self._left)
        got = self._handle.readinto(memoryview(buffer)[:size]) if size else 0
        self._left -= got or 0
        return got or 0


def read(
    path: str | Path, dtypes: Mapping[str, str | type | None], natives: bool = False
) -> pd.DataFrame:
    """The columns of ``dtypes`` the file has (None: as pandas infers it; a number column:
    float64), and with ``natives`` the native statistics' columns too (as pandas infers
    them); one row per CSV row up to a torn last line (left out); no rows (and only the
    columns of ``dtypes``) for a file of no text.

    Only an empty cell is unknown (NaN). Raises :class:`ResultsError`, naming the file (and
    the line of the first bad row), for a file that is unreadable, not a results CSV, or has
    a row that breaks the rules of :mod:`harness.results.reading`.
    """
    try:
        layout = bytes_scan.scan(path, partial(_lines_ok, path))
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if layout.ok is False:
        _refuse(path, "a row breaks the rules of a results CSV", layout)
    names = layout.header if layout.ok else check_results(path)  # names the first bad row
    if not names:
        return pd.DataFrame(columns=list(dtypes))
    if natives:
        others = [c for c in names if c not in BASE_COLUMNS]
        dtypes = {**dtypes, **{c: dtypes.get(c) for c in others}}
    try:
        frame = _parsed(path, names, layout.end, dtypes)
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # pandas' parse errors too
        _refuse(path, f"cannot read it as a results CSV: {exc}", layout)
    if not _values_ok(frame):
        _refuse(path, "a status or a number breaks the rules of a results CSV", layout)
    frame = frame[[c for c in frame.columns if c in dtypes]]
    return unescaped(frame)


def by_columns(path: str | Path) -> bool | None:
    """Whether every row of a readable file keeps the rules of
    :mod:`harness.results.reading`, told by columns alone, as :func:`read` tells it before
    it reads a row at a time (None: the bytes cannot tell, see
    :func:`harness.results.scan.scan`)."""
    layout = bytes_scan.scan(path)
    if not layout.ok or not layout.header:
        return layout.ok
    try:
        frame = _parsed(path, layout.header, layout.end, {})
    except (UnicodeDecodeError, ValueError):
        return False
    return _values_ok(frame)


def _parsed(
    path: str | Path, names: list[str], end: int, dtypes: Mapping[str, str | type | None]
) -> pd.DataFrame:
    """The columns of ``dtypes``, of the statuses and of the quantities, of the file's first
    ``end`` bytes, as pandas parses them."""
    usecols = [c for c in names if c in dtypes or c in QUANTITIES or c == "status"]
    types = {c: dtypes[c] for c in usecols if dtypes.get(c) is not None}
    types |= {c: "float64" for c in usecols if c in QUANTITIES and dtypes.get(c) is None}
    types |= {c: "category" for c in usecols if c in CATEGORIES}
    with open(path, "rb") as handle:
        rows = io.BufferedReader(_Head(handle, end), buffer_size=1 << 20)
        return pd.read_csv(
            rows,
            usecols=usecols,
            dtype=types,
            keep_default_na=False,
            na_values=[""],
            encoding="utf-8-sig",
            index_col=False,
        )


def _refuse(path: str | Path, reason: str, layout: bytes_scan.Scanned) -> NoReturn:
    """Raise :class:`ResultsError` naming the first bad row, or ``reason`` when reading a row
    at a time finds none. A file the bytes can tell is searched by blocks (the first whose
    rows break a rule by columns, or that holds quotes, is read a row at a time), another a
    row at a time."""
    if layout.ok is None or not layout.header:
        check_results(path)
    else:
        header = layout.header
        check_lines(path, header, "", 2)  # the header
        rules = bytes_scan.column_rules(header)
        for line, data, between in bytes_scan.regions(path, layout.end):
            if not between:
                check_results(path)
            elif b'"' in data or not (
                bytes_scan.block_ok(data, rules, len(header)) and _block_values_ok(data, header)
            ):
                check_lines(path, header, data.decode("utf-8", "replace"), line)
    raise ResultsError(f"{path}: {reason}")


def _lines_ok(path: str | Path, header: list[str], text: str, first: int) -> bool:
    """Whether the rows of ``text``, lines of ``path`` from line ``first`` on, keep the rules
    (read a row at a time)."""
    try:
        check_lines(path, header, text, first)
    except ResultsError:
        return False
    return True


def _block_values_ok(data: bytes, header: list[str]) -> bool:
    """Whether the rows of ``data`` (lines of a results CSV) pass :func:`_values_ok`."""
    usecols = [c for c in header if c in QUANTITIES or c == "status"]
    types = {c: "float64" for c in usecols if c in QUANTITIES} | {"status": "category"}
    try:
        frame = pd.read_csv(
            io.BytesIO(data),
            names=header,
            header=None,
            usecols=usecols,
            dtype=types,
            keep_default_na=False,
            na_values=[""],
            index_col=False,
        )
    except (UnicodeDecodeError, ValueError):
        return False
    return _values_ok(frame)


def _values_ok(frame: pd.DataFrame) -> bool:
    """Whether every status is one of the statuses and every parsed quantity is finite
    (their bytes are checked by :func:`harness.results.scan.scan`)."""
    status = frame["status"]
    if status.isna().any() or not set(status.cat.categories) <= STATUSES:
        return False
    for column in [c for c in QUANTITIES if c in frame.columns]:
        values = pd.to_numeric(frame[column], errors="coerce")
        if values.isna().sum() != frame[column].isna().sum():
            return False
        if not bytes_scan.quantities_ok(values.to_numpy(dtype=np.float64)):
            return False
    return True


def unescaped(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the leading ``'`` the writer adds to formula-like text taken off again
    (see :func:`harness.results.escape_cell`); a category's values are fixed once each."""
    for column in [c for c in frame.columns if c not in GRIDS]:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            fixed = [unescape_cell(str(c)) for c in values.cat.categories]
            if fixed != list(values.cat.categories) and len(set(fixed)) == len(fixed):
                frame[column] = values.cat.rename_categories(fixed)
            elif fixed != list(values.cat.categories):
                frame[column] = values.astype(str).map(unescape_cell).astype("category")
        elif pd.api.types.infer_dtype(values, skipna=True) == "string":  # numbers need none
            quoted = values.str.startswith("'", na=False)
            if quoted.any():
                frame[column] = values.where(~quoted, values[quoted].map(unescape_cell))
    return frame


def per_puzzle(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, line, puzzle, backend), as :func:`harness.tables.frames.per_puzzle`
    gives it, in pandas: the median of each number over the repeats, and of ``status`` (and
    the other columns a puzzle takes from one row) the first known value by repeat, puzzles in
    order of first appearance by repeat. A frame of one row per puzzle is returned as it is."""
    keys = [k for k in PUZZLE_KEYS if k in frame.columns]
    numbers = [c for c in frame.columns if _is_number(frame, c) and c not in FIRST]
    firsts = [c for c in FIRST if c in frame.columns]
    columns = [*keys, *numbers, *firsts]
    single = "repeat" not in frame or frame["repeat"].nunique(dropna=False) <= 1
    if single and _unique(frame, keys):
        return frame[columns].reset_index(drop=True)
    ordered = frame.sort_values("repeat", kind="stable") if "repeat" in frame else frame
    grouped = ordered.groupby(keys, sort=False, dropna=False, observed=True)
    parts = [grouped[numbers].median()] if numbers else []
    parts += [grouped[firsts].first()] if firsts else []
    table = pd.concat(parts, axis=1) if parts else grouped.size().to_frame().iloc[:, :0]
    return table.reset_index()[columns]


def _unique(frame: pd.DataFrame, keys: list[str]) -> bool:
    """Whether no two rows have the same ``keys`` (distinct lines, or lines and backends,
    are enough, and cheaper to tell than the puzzles' text)."""
    for subset in (["line"], ["line", "backend"]):
        if all(k in keys for k in subset) and not frame.duplicated(subset).any():
            return True
    return not frame.duplicated(keys).any()


def _is_number(frame: pd.DataFrame, column: str) -> bool:
    """A measured column, a counter, or a native statistic of numbers (not a key)."""
    if column in PUZZLE_KEYS or column in ("repeat", "limit", "jobs", "line"):
        return False
    numeric = pd.api.types.is_numeric_dtype(frame[column])
    return column in NUMERIC or (column not in BASE_COLUMNS and numeric)


def concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``frames`` one after another, their category columns still categories."""
    if len(frames) == 1:
        return frames[0]
    joined = pd.concat(frames, ignore_index=True)
    for column in joined.columns:
        if any(isinstance(f[column].dtype, pd.CategoricalDtype) for f in frames if column in f):
            joined[column] = joined[column].astype("category")
    return joined
