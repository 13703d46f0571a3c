"""Whether a file is a results CSV a harness run wrote, told by its first line and its
metadata only (the rows are the readers' to check)."""

from __future__ import annotations

import csv
from pathlib import Path

from harness.results.companions import meta_path_for
from harness.results.metadata import read_meta
from harness.results.schema import ResultsError, require_columns, unescape_cell

#: The longest first line read: a header of every column, native statistics included.
FIRST_LINE_BYTES = 1 << 20
#: Fields the metadata of every run holds (beside those :func:`read_meta` checks).
RUN_FIELDS = ("project_version", "backends", "datasets", "limits")


def check_run(path: Path) -> None:
    """Raise :class:`ResultsError`, one line naming the file and why, unless ``path`` is a
    results CSV of a harness run: its first line, ended by a line break, is a header with
    every required column (:func:`~harness.results.schema.require_columns`), and it has
    metadata (:func:`~harness.results.metadata.read_meta`) holding :data:`RUN_FIELDS`. An
    empty file passes on its metadata alone: a run stopped before it wrote the header."""
    try:
        with open(path, "rb") as f:
            first = f.readline(FIRST_LINE_BYTES)
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if first:
        require_columns(path, _header(path, first))
    meta = read_meta(path)
    if meta is None:
        raise ResultsError(
            f"{path}: no {meta_path_for(path).name} beside it, so not known as a harness run"
        )
    missing = [field for field in RUN_FIELDS if field not in meta]
    if missing:
        raise ResultsError(f"{path}: its metadata has no {missing[0]}: not a harness run's")


def _header(path: Path, first: bytes) -> list[str]:
    """The column names of a first line, which must end with a line break."""
    if not first.endswith(b"\n"):
        lone_cr = b"\r" in first
        why = "its lines end with a carriage return alone" if lone_cr else "no line break ends it"
        raise ResultsError(f"{path}: not a harness results CSV ({why})")
    try:
        fields = next(csv.reader([first.decode("utf-8-sig")]))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ResultsError(f"{path}: not a harness results CSV (its first line: {exc})") from None
    return [unescape_cell(name) for name in fields]
