"""Reading a results CSV back: every row checked, a torn last line dropped."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path

from backends.base import Status
from harness.results.schema import (
    INTEGER_COLUMNS,
    NUMBER_COLUMNS,
    ResultsError,
    require_columns,
    unescape_cell,
)


def read_results(path: Path | str) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a results CSV (an empty file has neither), every row checked.

    Raises :class:`ResultsError`, naming the file (and the line, for a bad row), when it
    cannot be read, is not a results CSV, or has a row with too few or too many fields, an
    unknown status, or text where a number belongs.
    """
    try:
        header, rows = read_rows(Path(path), strict=True)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ResultsError(f"{path}: cannot read it: {exc}") from None
    if header:
        require_columns(path, header)
    for number, row in enumerate(rows, start=2):
        problem = _row_problem(row)
        if problem:
            raise ResultsError(f"{path}:{number}: {problem}")
    return header, rows


def _row_problem(row: Mapping[str, str]) -> str | None:
    """What is wrong with one row read from a results CSV, or None."""
    statuses = {s.value for s in Status}
    if row.get("status") not in statuses:
        return f"unknown status {row.get('status')!r}; expected one of {', '.join(statuses)}"
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


def check_resumable(path: Path, limit: int) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of ``path``, which a run with ``limit`` is about to complete.

    Raises :class:`ResultsError` unless it is a results CSV whose rows were measured under
    the same solution limit: with another limit, the same key would mean another measurement.
    """
    header, rows = read_results(path)
    limits = sorted({row["limit"] for row in rows} - {str(limit)})
    if limits:
        raise ResultsError(
            f"{path}: its rows were measured with --limit-solutions {limits[0]}, "
            f"not {limit}; resume with the same limit or choose another --out"
        )
    return header, rows


def read_rows(path: Path, strict: bool = False) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a results CSV; a torn last line (killed mid-write) is dropped.

    Cells are unescaped (see :func:`unescape_cell`). With ``strict``, a row with more or
    fewer fields than the header raises :class:`ResultsError` naming its line.
    """
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.reader(io.StringIO(text))
    header = [unescape_cell(c) for c in next(reader, [])]
    rows = []
    for fields in reader:
        if len(fields) != len(header) and strict:
            raise ResultsError(
                f"{path}:{reader.line_num}: {len(fields)} field(s), the header has {len(header)}"
            )
        fields += [""] * (len(header) - len(fields))  # a short row reads as empty cells
        rows.append({c: unescape_cell(v) for c, v in zip(header, fields, strict=False)})
    return header, rows
