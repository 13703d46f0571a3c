"""The summary tables of :mod:`harness.tables.summary` for pandas callers (``harness table``,
``harness report``, the gate): DataFrames in, DataFrames or text out.

The aggregation is :mod:`harness.tables.summary`'s (and :mod:`harness.tables.rows`'s, numpy)
and the printing :mod:`harness.tables.render`'s, so that ``harness run`` prints its tables
without pandas; each function here turns a DataFrame into columns or row dicts (None where
unknown), calls them, and turns what they give back into a DataFrame. See
:mod:`harness.tables.summary` for what the columns mean.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from harness.results import BASE_COLUMNS, escape_cell, unescape_cell
from harness.tables import humanize
from harness.tables import load as columns_of
from harness.tables import render as printed
from harness.tables import rows as puzzle_rows
from harness.tables import summary as plain_summary
from harness.tables.render import LABELS, STATUS_COLUMNS, WIDTH, cell
from harness.tables.summary import ANSWERED, CODED, NUMERIC

__all__ = ["ANSWERED", "LABELS", "NUMERIC", "STATUS_COLUMNS", "WIDTH", "cell"]

#: The columns CSV output keeps unless asked for every column.
KEY_COLUMNS = ("run", "backend", "dataset", "size", "tier", "puzzles", "solved", "correct")
KEY_COLUMNS += ("timeouts", "wrong", "errors", "x_fastest", "median_ms", "cpu_ms", "spread_pct")
KEY_COLUMNS += ("min_ms", "own_ms", "nodes_median")
#: Columns the tables give as "done/planned" text; JSON and CSV give them as numbers, with
#: the planned count as ``puzzles``.
FRACTIONS = ("solved", "correct")


#: Columns read as text whatever they hold (a backend named ``1`` is a name, not a number).
TEXT_COLUMNS = ("dataset", "puzzle", "backend", "host", "status", "solution", "message")


def load(path: str | Path, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Read a results CSV with the right dtypes (puzzle text stays text; numbers of the base
    columns are floats), every row checked (see :func:`harness.tables.load.read`) and a torn
    last line dropped; only ``columns`` when given (those the file has).

    Raises :class:`harness.results.ResultsError`, naming the file (and line), for one that
    is unreadable, not a results CSV, or has a bad row. A count too large for 64 bits is
    read as a (large) float.
    """
    names = BASE_COLUMNS if columns is None else columns
    types = {c: str if c in TEXT_COLUMNS else None for c in names}
    frame = columns_of.read(path, types, natives=columns is None)
    for column in frame.columns:
        if not isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = _typed(frame[column])
    return frame


#: The columns :func:`summary` reads of a results CSV (a puzzle is told apart by its line).
SUMMARY_COLUMNS = ("dataset", "line", "backend", "repeat", "status", "size", "givens")
SUMMARY_COLUMNS += ("solutions", *plain_summary.SUMMARY_NUMERIC)


def load_for_summary(path: str | Path) -> pd.DataFrame:
    """:func:`load` of the columns :func:`summary` uses; the puzzles' text too when a line
    of a dataset holds more than one puzzle (a file resumed after its dataset changed)."""
    frame = load(path, SUMMARY_COLUMNS)
    if frame.duplicated(["dataset", "line", "backend", "repeat"]).any():
        frame = load(path, [*SUMMARY_COLUMNS, "puzzle"])
    return frame


def _typed(column: pd.Series) -> pd.Series:
    """A column as read: floats where pandas kept numbers past 64 bits as Python ints,
    text with the formula escape taken off (see harness.results.schema)."""
    if pd.api.types.is_numeric_dtype(column):
        return column
    if column.dtype == object:
        cells = column.dropna()
        if all(isinstance(v, int | float) for v in cells):
            return column.astype(float)
        return column.map(lambda v: unescape_cell(v) if isinstance(v, str) else v)
    if not column.str.startswith("'").any():
        return column
    return column.map(unescape_cell, na_action="ignore")


def _columns(frame: pd.DataFrame, names: Sequence[str]) -> puzzle_rows.Columns:
    """``frame``'s columns among ``names``: the keys and :data:`FIRST` columns as
    :class:`~harness.tables.rows.Coded` (codes in order of first appearance, -1 where
    unknown), numbers as float arrays (NaN where unknown)."""
    columns: puzzle_rows.Columns = {}
    for name in (c for c in names if c in frame.columns):
        values = frame[name]
        if name in CODED:
            codes, labels = pd.factorize(values, use_na_sentinel=True)
            columns[name] = puzzle_rows.Coded(codes.astype(np.int64), labels.tolist())
        elif pd.api.types.is_numeric_dtype(values):
            columns[name] = values.to_numpy(dtype=np.float64, na_value=np.nan)
        else:  # numbers past 64 bits, read as Python ints
            columns[name] = values.astype(object).where(values.notna(), None).tolist()
    return columns


def _is_native(frame: pd.DataFrame, column: str) -> bool:
    return column not in BASE_COLUMNS and pd.api.types.is_numeric_dtype(frame[column])


def _puzzles(
    frame: pd.DataFrame, numeric: Sequence[str], spread: bool = False
) -> puzzle_rows.Columns:
    """:func:`harness.tables.rows.reduce` of ``frame``, reading only the columns it
    needs; with ``spread``, the spread of each puzzle's answered repeats too."""
    first = [c for c in puzzle_rows.FIRST if c in frame.columns and c not in numeric]
    keys = [k for k in puzzle_rows.PUZZLE_KEYS if k in frame.columns]
    columns = _columns(frame, [*keys, "repeat", *numeric, *first])
    answered = ANSWERED if spread else ()
    return puzzle_rows.reduce(columns, numeric, first, keys, answered)


def per_puzzle(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, line, backend): medians over repeats, the status of repeat 0."""
    numeric = [c for c in frame.columns if c in NUMERIC or _is_native(frame, c)]
    numeric = [c for c in numeric if c not in puzzle_rows.FIRST]
    puzzles = _puzzles(frame, numeric)
    table = pd.DataFrame(
        {c: v.decoded() if isinstance(v, puzzle_rows.Coded) else v for c, v in puzzles.items()}
    )
    for column in puzzle_rows.FIRST:
        if column in table and table[column].isna().all():  # NaN as pandas' groupby gives
            table[column] = table[column].astype(float)
    return table


def grouping(frame: pd.DataFrame) -> tuple[str, ...]:
    """:func:`harness.tables.summary.grouping`: backend x dataset (x size where a dataset mixes)."""
    return plain_summary.grouping(_columns(frame, ["dataset", "size"]))


def summary(frame: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """The comparison table (:func:`harness.tables.summary.summary`): one row per group."""
    puzzles = _puzzles(frame, plain_summary.SUMMARY_NUMERIC, spread=True)
    table = plain_summary.summary(puzzles, by)
    return pd.DataFrame(table)


def run_names(paths: Sequence[str | Path]) -> list[str]:
    """A short name per results CSV: its stem, or its path where two share a stem."""
    stems = [Path(p).stem for p in paths]
    return [s if stems.count(s) == 1 else str(p) for s, p in zip(stems, paths, strict=True)]


def summary_of_runs(
    loaded: Sequence[tuple[str | Path, pd.DataFrame]],
    by: Sequence[str] | None = None,
    merge: bool = False,
) -> pd.DataFrame:
    """:func:`summary` of several results CSVs' rows: one table per CSV, each row led by a
    ``run`` column naming its CSV (:func:`run_names`); with ``merge``, or one CSV, the rows
    of all pooled as one run (no ``run`` column)."""
    if merge or len(loaded) == 1:
        return summary(pd.concat([f for _, f in loaded], ignore_index=True), by)
    names = run_names([p for p, _ in loaded])
    tables = [summary(f, by).assign(run=n) for n, (_, f) in zip(names, loaded, strict=True)]
    table = pd.concat(tables, ignore_index=True)
    return table[["run", *(c for c in table.columns if c != "run")]]


def native_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Medians of each backend's native statistics (columns it does not report are dropped)."""
    native = [c for c in frame.columns if _is_native(frame, c)]
    if not native:
        return pd.DataFrame()
    return pd.DataFrame(plain_summary.native_summary(_puzzles(frame, native)))


def summary_by_tier(
    frame: pd.DataFrame, tiers: Mapping[str, str], order: Sequence[str] = ()
) -> pd.DataFrame:
    """:func:`harness.tables.summary.summary_by_tier`: the table per backend x dataset x tier."""
    puzzles = _puzzles(frame, plain_summary.SUMMARY_NUMERIC, spread=True)
    return pd.DataFrame(plain_summary.summary_by_tier(puzzles, tiers, order))


def render(table: pd.DataFrame, width: int | None = WIDTH) -> str:
    """:func:`harness.tables.render.render`: plain text for a terminal, split to fit ``width``."""
    return printed.render(table.to_dict("records"), width)


def markdown(table: pd.DataFrame, width: int | None = WIDTH) -> str:
    """:func:`harness.tables.render.markdown`: a Markdown table split to fit ``width``."""
    return printed.markdown(table.to_dict("records"), width)


def render_native(table: pd.DataFrame, width: int | None = WIDTH) -> str:
    """:func:`harness.tables.render.render_native`: each backend's native statistics, wrapped."""
    return printed.render_native(table.to_dict("records"), width)


def records(table: pd.DataFrame) -> list[dict[str, object]]:
    """Rows as plain dicts for JSON or CSV: numbers rounded to 6 significant figures, in
    plain decimals, None where unknown."""
    return printed.records(table.to_dict("records"))


def counted(table: pd.DataFrame) -> list[dict[str, object]]:
    """:func:`records` with ``solved`` and ``correct`` as counts, after the ``puzzles``
    they are out of (the tables give them as "done/planned" text)."""
    return [_counts(row) for row in records(table)]


def _counts(row: dict[str, object]) -> dict[str, object]:
    """``row`` with its "done/planned" cells (:data:`FRACTIONS`) as numbers."""
    out: dict[str, object] = {}
    for name, value in row.items():
        if name in FRACTIONS and isinstance(value, str) and "/" in value:
            done, _, planned = value.partition("/")
            if "puzzles" not in out:
                out["puzzles"] = int(planned)
            value = int(done)
        out[name] = value
    return out


def to_json(table: pd.DataFrame) -> str:
    """The table as a JSON list of row objects, one key per line (for scripts)."""
    return json.dumps(counted(table), indent=1)


def to_csv(table: pd.DataFrame, keys_only: bool = False, extra_keys: Sequence[str] = ()) -> str:
    """The table as CSV: numbers in plain decimals (never scientific notation), a text a
    spreadsheet would run as a formula escaped (:func:`harness.results.escape_cell`); with
    ``keys_only``, only :data:`KEY_COLUMNS` and ``extra_keys``."""
    import csv

    rows = counted(table)
    names = list(rows[0]) if rows else [str(c) for c in table.columns]
    if keys_only:
        names = [c for c in names if c in KEY_COLUMNS or c in extra_keys]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(names)
    for row in rows:
        writer.writerow([_csv_cell(row.get(c)) for c in names])
    return buffer.getvalue().rstrip("\n")


def _csv_cell(value: object) -> str:
    if value is None:
        return ""
    return escape_cell(value) if isinstance(value, str) else humanize.plain(value)
