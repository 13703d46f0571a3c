"""The summary tables of :mod:`harness.tables.summary` for pandas callers (``harness table``,
``harness report``, the gate): DataFrames in, DataFrames or text out.

The aggregation is :mod:`harness.tables.summary`'s (and :mod:`harness.tables.rows`'s) and the
printing :mod:`harness.tables.render`'s, all plain Python, so that ``harness run`` prints its
tables without pandas; each function here turns a DataFrame into columns or row dicts
(None where unknown), calls them, and turns what they give back into a DataFrame. See
:mod:`harness.tables.summary` for what the columns mean.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from harness.results import BASE_COLUMNS, ResultsError, require_columns, unescape_cell
from harness.tables import humanize
from harness.tables import render as printed
from harness.tables import rows as puzzle_rows
from harness.tables import summary as plain_summary
from harness.tables.render import LABELS, STATUS_COLUMNS, WIDTH, cell
from harness.tables.summary import ANSWERED, NUMERIC

__all__ = ["ANSWERED", "LABELS", "NUMERIC", "STATUS_COLUMNS", "WIDTH", "cell"]

#: The columns CSV output keeps unless asked for every column.
KEY_COLUMNS = ("backend", "dataset", "size", "tier", "solved", "correct", "timeouts", "wrong")
KEY_COLUMNS += ("errors", "x_fastest", "median_ms", "own_ms", "nodes_median")


def load(path: str | Path) -> pd.DataFrame:
    """Read a results CSV with the right dtypes (puzzle text stays text).

    Raises :class:`harness.results.ResultsError`, naming the file, for one that is
    unreadable or not a results CSV.
    """
    try:
        frame = pd.read_csv(path, dtype={"puzzle": str, "solution": str, "message": str})
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # pandas' parse errors too
        raise ResultsError(f"{path}: cannot read it as a results CSV: {exc}") from None
    require_columns(path, frame.columns)
    for column in frame.columns[[pd.api.types.is_string_dtype(t) for t in frame.dtypes]]:
        frame[column] = frame[column].map(unescape_cell, na_action="ignore")  # see results.py
    return frame


def _columns(frame: pd.DataFrame, names: Sequence[str]) -> puzzle_rows.Columns:
    """``frame``'s columns among ``names`` as lists, None where unknown."""
    present = [c for c in names if c in frame.columns]
    return {c: frame[c].astype(object).where(frame[c].notna(), None).tolist() for c in present}


def _is_native(frame: pd.DataFrame, column: str) -> bool:
    return column not in BASE_COLUMNS and pd.api.types.is_numeric_dtype(frame[column])


def _puzzles(frame: pd.DataFrame, numeric: Sequence[str]) -> puzzle_rows.Columns:
    """:func:`harness.tables.rows.reduce` of ``frame``, reading only the columns it needs."""
    first = [c for c in puzzle_rows.FIRST if c in frame.columns and c not in numeric]
    names = [*puzzle_rows.PUZZLE_KEYS, "repeat", *numeric, *first]
    return puzzle_rows.reduce(_columns(frame, names), numeric, first)


def per_puzzle(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, line, backend): medians over repeats, the status of repeat 0."""
    numeric = [c for c in frame.columns if c in NUMERIC or _is_native(frame, c)]
    numeric = [c for c in numeric if c not in puzzle_rows.FIRST]
    table = pd.DataFrame(_puzzles(frame, numeric))
    for column in puzzle_rows.FIRST:
        if column in table and table[column].isna().all():  # NaN as pandas' groupby gives
            table[column] = table[column].astype(float)
    return table


def grouping(frame: pd.DataFrame) -> tuple[str, ...]:
    """:func:`harness.tables.summary.grouping`: backend x dataset (x size where a dataset mixes)."""
    return plain_summary.grouping(_columns(frame, ["dataset", "size"]))


def summary(frame: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """The comparison table (:func:`harness.tables.summary.summary`): one row per group."""
    table = plain_summary.summary(_puzzles(frame, plain_summary.SUMMARY_NUMERIC), by)
    return pd.DataFrame(table)


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
    puzzles = _puzzles(frame, plain_summary.SUMMARY_NUMERIC)
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


def to_json(table: pd.DataFrame) -> str:
    """The table as a JSON list of row objects, one key per line (for scripts)."""
    return json.dumps(records(table), indent=1)


def to_csv(table: pd.DataFrame) -> str:
    """The table as CSV: numbers in plain decimals (never scientific notation)."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=[str(c) for c in table.columns])
    writer.writeheader()
    for row in records(table):
        writer.writerow({k: "" if v is None else humanize.plain(v) for k, v in row.items()})
    return buffer.getvalue().rstrip("\n")
