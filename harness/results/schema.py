"""The results CSV's schema: its columns, the resume key, and formula escaping.

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
host            the machine that solved it (``--cluster`` runs spread over several)
status          SOLVED, UNSAT, TIMEOUT, UNKNOWN, WRONG, ERROR, MEMOUT or UNAVAILABLE
solutions       solutions found under the limit (empty when unknown)
solution        the first solution, canonical one-line text (empty if none; ``?`` marks a
                cell of a refused answer that holds no digit)
encode_s        wall seconds (``perf_counter``) of the backend's encode step
solve_s         wall seconds of the backend's solve step (search and decoding); for a
                row whose worker the parent killed, the time it ran
encode_cpu_s    CPU seconds (``process_time``, worker process) of encode
solve_cpu_s     CPU seconds of solve
own_solve_s     the solver's own clock for the solve, seconds, when it reports one (a
                ``lib:`` solver's ``own_ns``, a ``cmd:`` solver's ``time_us``); else empty
check_s         wall seconds of the independent check, done in the harness process (answers
                checked together, a worker's batch at a time, share the batch's time)
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

Text that a spreadsheet would run as a formula (a cell beginning with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return, such as a dataset named ``=HYPERLINK(...).txt`` or a
backend message) is written with a leading ``'``, as OWASP recommends for CSV injection; a
number (``-1.5``) and a lone ``-`` (stdin) are left as they are, and a text that already
begins with ``'`` before one of those characters gets one more. The results engine
(:func:`harness.results.engine.unescaped`) takes the ``'`` off again, so ``harness check``
sees the raw value; pandas' own ``read_csv`` shows it with the ``'``.

"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from backends.base import COUNTERS
from backends.errors import SudokuError

#: The measured columns, each a number (or empty): phase times and peak memory.
MEASURE_COLUMNS: tuple[str, ...] = (
    "encode_s",
    "solve_s",
    "encode_cpu_s",
    "solve_cpu_s",
    "own_solve_s",
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
    "host",
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
REQUIRED_COLUMNS: tuple[str, ...] = (*KEY_COLUMNS, "limit", "status", "solve_s")
#: Columns that hold a whole number in every row, and columns that hold a number or nothing.
INTEGER_COLUMNS: tuple[str, ...] = ("line", "repeat", "limit")
NUMBER_COLUMNS: tuple[str, ...] = (
    "size",
    "givens",
    "jobs",
    "solutions",
    *MEASURE_COLUMNS,
    *COUNTERS,
)
#: Each base column's type as the results engine reads it (:mod:`harness.results.engine`):
#: whole numbers as BIGINT, measures and counters as DOUBLE (a count past 2**53 is held to
#: double precision), text as VARCHAR. Native statistics are read by name.
SQL_TYPES: dict[str, str] = {
    **{c: "VARCHAR" for c in BASE_COLUMNS},
    **{c: "BIGINT" for c in (*INTEGER_COLUMNS, "size", "givens", "jobs", "solutions")},
    **{c: "DOUBLE" for c in (*MEASURE_COLUMNS, *COUNTERS)},
}
#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class ResultsError(SudokuError):
    """A results CSV that cannot be resumed or compared; the message names the file."""


def require_columns(path: Path | str, header: Iterable[str]) -> None:
    """Raise :class:`ResultsError` unless ``header`` has every required column."""
    missing = [c for c in REQUIRED_COLUMNS if c not in set(header)]
    if missing:
        raise ResultsError(f"{path}: not a harness results CSV (no column {', '.join(missing)})")


Key = tuple[str, ...]


def row_key(row: Mapping[str, Any]) -> Key:
    """The resume key of a row, as strings (so CSV-read and fresh rows compare equal)."""
    return tuple(str(row[c]) for c in KEY_COLUMNS)


def columns_for(native: Iterable[str]) -> list[str]:
    """The CSV header: the base columns, then native statistics in sorted order."""
    extra = sorted(set(native) - set(BASE_COLUMNS))
    return [*BASE_COLUMNS, *extra]


#: The decimals a float keeps in the CSV (nanoseconds of a time).
DECIMALS = 9


#: How a float is written: in fixed point with :data:`DECIMALS` decimals. The text reads
#: back as ``round(value, DECIMALS)`` (both round the exact binary value half to even).
FLOAT_FORMAT = f"%.{DECIMALS}f"


def cell_texts(values: Iterable[Any]) -> list[str]:
    """Values as their CSV texts, the one table of the CSV's formats: empty for None, a
    float in :data:`FLOAT_FORMAT` (to the nanosecond, ``0.000012346``), anything else as
    ``str``."""
    return [
        FLOAT_FORMAT % v if isinstance(v, float) else "" if v is None else str(v) for v in values
    ]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _needs_quote(text: str) -> bool:
    if text.startswith("'"):
        return _needs_quote(text[1:])  # so that the quote taken off on reading is ours
    return text.startswith(FORMULA_STARTS) and text != "-" and not _is_number(text)


def escape_cell(text: str) -> str:
    """``text`` as written to the CSV: a leading ``'`` when a spreadsheet would run it."""
    return "'" + text if _needs_quote(text) else text


def unescape_cell(text: str) -> str:
    """The raw value of a cell :func:`escape_cell` wrote."""
    return text[1:] if text.startswith("'") and _needs_quote(text[1:]) else text
