"""Results CSVs read for the report and the gate: only the columns they use, in compact dtypes.

A million rows of a results CSV hold two 81-character texts each (the puzzle and its
solution) that neither the report's plots nor its tables show. Reading every column as
:func:`harness.tables.frames.load` does costs gigabytes; here a caller names its columns,
text it groups by becomes a category (a handful of distinct values), and numbers are
parsed by pandas' C reader. A torn last line (a run killed mid-write) is dropped, as
:func:`harness.results.read_rows` drops it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

import pandas as pd

from harness.results import ResultsError, require_columns, unescape_cell
from harness.tables.rows import FIRST, PUZZLE_KEYS
from harness.tables.summary import NUMERIC

#: Text columns with few distinct values, held as categories.
CATEGORIES = ("dataset", "backend", "status", "host", "tier")
#: Canonical grid text (digits, letters, dots): never begins with a character the writer
#: quotes, so it is not searched for quotes to take off.
GRIDS = ("puzzle", "solution")


def header(path: str | Path) -> list[str]:
    """The CSV's column names (raises :class:`ResultsError` for a file that has none)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            names = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ResultsError(f"{path}: cannot read it as a results CSV: {exc}") from None
    names = [unescape_cell(n) for n in names]
    require_columns(path, names)
    return names


def torn(path: str | Path) -> bool:
    """Whether the file's last line lacks its newline (a row cut short by a kill)."""
    return rows_end(path) != Path(path).stat().st_size


def rows_end(path: str | Path, block: int = 1 << 16) -> int:
    """The size of the file up to and with its last newline (all of it when it ends in one):
    what follows is a torn row."""
    with open(path, "rb") as handle:
        end = handle.seek(0, 2)
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            if chunk.rfind(b"\n") >= 0:
                return start + chunk.rfind(b"\n") + 1
            end = start
    return 0


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


def read(path: str | Path, dtypes: Mapping[str, str | None], checked: bool = False) -> pd.DataFrame:
    """The columns of ``dtypes`` the file has (None: as pandas infers it), one row per CSV row
    up to a torn last line (left out).

    Only an empty cell is unknown (NaN); text such as ``NA`` stays text, so a number column
    holding it fails to parse. Raises :class:`ResultsError`, naming the file, for a file that
    is unreadable, not a results CSV, or has text where a number belongs; every cell is first
    checked by the rules every reader applies (:func:`harness.results.reading.check_text`),
    unless the caller has ``checked`` them.
    """
    if not checked:
        from harness.results.reading import check_text, results_text

        check_text(path, results_text(path))
    names = header(path)
    usecols = [c for c in names if c in dtypes]
    types = {c: dtypes[c] for c in usecols if dtypes[c] is not None}
    types.update({c: "category" for c in usecols if c in CATEGORIES})
    try:
        with open(path, "rb") as handle:
            rows = io.BufferedReader(_Head(handle, rows_end(path)))
            frame = pd.read_csv(
                rows,
                usecols=usecols,
                dtype=types,
                keep_default_na=False,
                na_values=[""],
                encoding="utf-8-sig",
            )
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # pandas' parse errors too
        raise ResultsError(f"{path}: cannot read it as a results CSV: {exc}") from None
    return unescaped(frame)


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
    from harness.results import BASE_COLUMNS

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
