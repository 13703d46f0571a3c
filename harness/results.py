"""Result rows: the CSV schema, crash-safe appending, resume keys and cross-checks.

One row is one measurement: one backend on one puzzle, one repeat. Every row is a flat dict;
pandas builds the tables from them. Columns, in order:

==============  ============================================================================
dataset         the puzzle file as given on the command line
line            1-based line of the puzzle in that file
puzzle          the puzzle's canonical one-line text
size            grid side n (4, 9, 16, 25)
givens          number of filled cells
backend         backend spec with its non-default options, e.g. ``ac3:select=B``
repeat          0-based repeat index (``--repeat K`` gives 0..K-1)
limit           solutions asked for: 1 = find one, 2 = prove uniqueness
jobs            worker processes that ran in parallel (it changes timings)
status          SOLVED, UNSAT, TIMEOUT, UNKNOWN, WRONG, ERROR, MEMOUT or UNAVAILABLE
solutions       solutions found under the limit (empty when unknown)
solution        the first solution, canonical one-line text (empty if none; ``?`` marks a
                cell of a refused answer that holds no digit)
encode_s        wall seconds (``perf_counter``) of the backend's encode step
solve_s         wall seconds of the backend's solve step (search and decoding); for a
                row whose worker the parent killed, the time it ran
encode_cpu_s    CPU seconds (``process_time``, worker process) of encode
solve_cpu_s     CPU seconds of solve
check_s         wall seconds of the independent check, done in the harness process
wall_s          wall seconds of the whole task in the worker (encode, solve and the work
                around them; the untimed warm-up excluded); for a row whose worker the
                parent killed or lost, the time from the task's start to that moment
peak_rss_mib    the worker's peak resident memory during this solve, MiB
nodes           search nodes (see backends/base.py); empty when the backend cannot count
guesses         branch points with more than one candidate; empty when not counted
backtracks      dead ends; empty when not counted
message         why a row is not SOLVED/UNSAT (error text, checker's reason, ...)
<native>        each backend's native statistics under their own names, after the above
==============  ============================================================================
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from backends.base import COUNTERS, Status
from backends.errors import SudokuError

#: The measured columns, each a number (or empty): phase times and peak memory.
MEASURE_COLUMNS: tuple[str, ...] = (
    "encode_s",
    "solve_s",
    "encode_cpu_s",
    "solve_cpu_s",
    "check_s",
    "wall_s",
    "peak_rss_mib",
)

BASE_COLUMNS: tuple[str, ...] = (
    "dataset",
    "line",
    "puzzle",
    "size",
    "givens",
    "backend",
    "repeat",
    "limit",
    "jobs",
    "status",
    "solutions",
    "solution",
    *MEASURE_COLUMNS,
    *COUNTERS,  # nodes, guesses, backtracks
    "message",
)

#: What identifies one measurement; ``--resume`` skips keys already in the CSV.
KEY_COLUMNS: tuple[str, ...] = ("dataset", "line", "puzzle", "backend", "repeat")
#: Columns without which a file is not a results CSV the harness can resume or compare.
REQUIRED_COLUMNS: tuple[str, ...] = (*KEY_COLUMNS, "limit", "status")


class ResultsError(SudokuError):
    """A results CSV that cannot be resumed or compared; the message names the file."""


def require_columns(path: Path | str, header: Iterable[str]) -> None:
    """Raise :class:`ResultsError` unless ``header`` has every required column."""
    missing = [c for c in REQUIRED_COLUMNS if c not in set(header)]
    if missing:
        raise ResultsError(f"{path}: not a harness results CSV (no column {', '.join(missing)})")


def read_results(path: Path | str) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a results CSV (an empty file has neither).

    Raises :class:`ResultsError`, naming the file, when it cannot be read or is not a
    results CSV.
    """
    try:
        header, rows = read_rows(Path(path))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ResultsError(f"{path}: cannot read it: {exc}") from None
    if header:
        require_columns(path, header)
    return header, rows


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


Key = tuple[str, ...]


def row_key(row: Mapping[str, Any]) -> Key:
    """The resume key of a row, as strings (so CSV-read and fresh rows compare equal)."""
    return tuple(str(row[c]) for c in KEY_COLUMNS)


def columns_for(native: Iterable[str]) -> list[str]:
    """The CSV header: the base columns, then native statistics in sorted order."""
    extra = sorted(set(native) - set(BASE_COLUMNS))
    return [*BASE_COLUMNS, *extra]


def _format(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(round(value, 9))
    return str(value)


def read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a results CSV; a torn last line (killed mid-write) is dropped."""
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.DictReader(io.StringIO(text))
    header = list(reader.fieldnames or [])
    return header, [dict(r) for r in reader]


class RowWriter:
    """Appends rows to a CSV, flushing each one, so an interrupted run leaves a valid file.

    ``existing`` is the header and rows already in the file (as :func:`check_resumable`
    read them) when a run is resumed: they are kept, a torn last line is cut off, and when
    the new run needs columns the file lacks, the file is rewritten once (atomically) with
    the wider header. Without it the file is started afresh; overwriting an existing one is
    an error the caller must avoid.
    """

    def __init__(
        self,
        path: Path,
        columns: Sequence[str],
        existing: tuple[list[str], list[dict[str, str]]] | None = None,
    ) -> None:
        self.path = path
        header, rows = existing if existing is not None else ([], [])
        self.columns = header + [c for c in columns if c not in header]
        self.rows: list[dict[str, str]] = rows  # every row of the file, as written
        self.done: set[Key] = {row_key(r) for r in rows}
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.columns != header or not _ends_with_newline(path):
            _rewrite(path, self.columns, rows)
        self._open()

    def _open(self) -> None:
        self._file = self.path.open("a", newline="", encoding="utf-8")
        self._writer = csv.DictWriter(self._file, self.columns, extrasaction="raise")

    def write(self, row: Mapping[str, Any]) -> None:
        text = {c: _format(row.get(c)) for c in self.columns}
        self._writer.writerow(text)
        self._file.flush()
        self.done.add(row_key(text))
        self.rows.append(text)

    def cross_check(self) -> int:
        """Apply :func:`cross_check` to every row of the file; rewrite it if any changed.

        Returns how many rows became WRONG. The rows are held in memory, so this costs no
        re-reading of the file.
        """
        changed = cross_check(self.rows)
        if changed:
            self._file.close()
            _rewrite(self.path, self.columns, self.rows)
            self._open()
        return changed

    def add_columns(self, names: Iterable[str]) -> None:
        """Widen the header with ``names`` it lacks (native statistics first met during the
        run, from a ``cmd:`` solver): the file is rewritten once, atomically; earlier rows
        keep empty cells there."""
        new = [name for name in names if name not in self.columns]
        if new:
            self.columns = [*self.columns, *new]
            self._file.close()
            _rewrite(self.path, self.columns, self.rows)
            self._open()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> RowWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ends_with_newline(path: Path) -> bool:
    """Whether ``path`` exists and its last byte ends a line (no torn row to cut off)."""
    try:
        with path.open("rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"
    except OSError:  # absent, or empty (cannot seek before the start)
        return False


def _rewrite(path: Path, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: row.get(c, "") for c in columns})
    os.replace(tmp, path)


def cross_check(rows: list[dict[str, str]]) -> int:
    """Mark as WRONG every claim another backend's *checked* answer refutes; return how many.

    Within one (dataset, line, puzzle, limit): a checked SOLVED row refutes every UNSAT
    row; two SOLVED rows with different checked solutions prove at least two solutions, so
    a row that claims exactly one solution under limit 2 is refuted. Rows are changed in place.
    """

    def group_of(row: dict[str, str]) -> tuple[str, ...]:
        return (row["dataset"], str(row["line"]), row["puzzle"], str(row["limit"]))

    claims = {  # the groups holding a claim that could be refuted: most runs have none
        group_of(row)
        for row in rows
        if row["status"] == Status.UNSAT
        or (row["status"] == Status.SOLVED and str(row["limit"]) == "2")
    }
    if not claims:
        return 0
    groups: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for row in rows:
        key = group_of(row)
        if key in claims:
            groups.setdefault(key, []).append(row)
    changed = 0
    for group in groups.values():
        solved = [r for r in group if r["status"] == Status.SOLVED]
        if not solved:
            continue
        witness = solved[0]
        distinct = {r["solution"] for r in solved}
        for row in group:
            reason = ""
            if row["status"] == Status.UNSAT:
                reason = f"claimed UNSAT, but {witness['backend']} found a checked solution"
            elif (
                row["status"] == Status.SOLVED
                and str(row["limit"]) == "2"
                and str(row["solutions"]) == "1"
                and len(distinct) > 1
            ):
                other = next(r for r in solved if r["solution"] != row["solution"])
                reason = (
                    f"claimed a unique solution, but {other['backend']} found a different "
                    "checked one"
                )
            if reason:
                row["status"] = Status.WRONG
                row["message"] = reason
                changed += 1
    return changed
