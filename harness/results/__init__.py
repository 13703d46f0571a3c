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

Text that a spreadsheet would run as a formula (a cell beginning with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return, such as a dataset named ``=HYPERLINK(...).txt`` or a
backend message) is written with a leading ``'``, as OWASP recommends for CSV injection; a
number (``-1.5``) and a lone ``-`` (stdin) are left as they are, and a text that already
begins with ``'`` before one of those characters gets one more. :func:`read_rows` and
:func:`harness.tables.frames.load` take the ``'`` off again, so ``harness check`` sees the raw
value;
pandas' own ``read_csv`` shows it with the ``'``.

One run writes a CSV at a time: :func:`exclusive` holds an ``fcntl`` lock on
``<csv>.lock`` while a run writes it, and a second run on the same file is refused.
"""

from __future__ import annotations

import csv
import fcntl
import io
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Any

from backends.base import COUNTERS, Status
from backends.errors import SudokuError
from harness.results.provenance import replace_atomically

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
#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: The first characters of a cell :func:`escape_cell` may change.
_ESCAPE_FIRST = frozenset(["'", *FORMULA_STARTS])
#: The longest a written row may wait in :class:`RowWriter`'s buffer (see there), seconds.
FLUSH_S = 0.05


class ResultsError(SudokuError):
    """A results CSV that cannot be resumed or compared; the message names the file."""


def require_columns(path: Path | str, header: Iterable[str]) -> None:
    """Raise :class:`ResultsError` unless ``header`` has every required column."""
    missing = [c for c in REQUIRED_COLUMNS if c not in set(header)]
    if missing:
        raise ResultsError(f"{path}: not a harness results CSV (no column {', '.join(missing)})")


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


Key = tuple[str, ...]


def row_key(row: Mapping[str, Any]) -> Key:
    """The resume key of a row, as strings (so CSV-read and fresh rows compare equal)."""
    return tuple(str(row[c]) for c in KEY_COLUMNS)


def columns_for(native: Iterable[str]) -> list[str]:
    """The CSV header: the base columns, then native statistics in sorted order."""
    extra = sorted(set(native) - set(BASE_COLUMNS))
    return [*BASE_COLUMNS, *extra]


def _format(value: Any) -> str:
    """A value as its CSV text: empty for None, floats to the nanosecond."""
    return _TEXT.get(type(value), str)(value)


def _float_text(value: float) -> str:
    return repr(round(value, 9))


#: How :func:`_format` writes a value of each type (any other type: ``str``).
_TEXT: dict[type, Callable[[Any], str]] = {float: _float_text, type(None): lambda _: ""}
#: Finds, in a row's cells joined with and after NUL, one whose first character means it may
#: need :func:`escape_cell`: one search a row (~1 us), where a test per cell cost ~4 us.
_RISKY_CELL = re.compile("\0[" + re.escape("".join(sorted(_ESCAPE_FIRST))) + "]")
#: :func:`row_key` of a row whose cells are text already (the writer's), at C speed.
_text_key = itemgetter(*KEY_COLUMNS)


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


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (through ``<path>.lock``) while a run writes it.

    Raises :class:`ResultsError` at once when another run holds it. The lock file is
    removed on release; a run that locked a lock file just removed tries again.
    """
    lock = path.with_name(path.name + ".lock")
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise ResultsError(
                f"{path} is being written by another run (pid {holder}); "
                "wait for it to finish, or choose another --out"
            ) from None
        try:
            still_there = os.stat(lock, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            still_there = False
        if still_there:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)


class RowWriter:
    """Appends rows to a CSV, so an interrupted run leaves a valid file.

    Rows are flushed in batches: a finished row is in the file within :data:`FLUSH_S` of
    being written, provided the caller calls :meth:`flush_stale` while it waits (the runner
    has the worker pool do so), and at once on :meth:`close`, which every stop short of
    SIGKILL reaches (Ctrl-C, SIGTERM, an error). A run killed outright loses at most the
    rows of that last window; a torn last line is cut off on reading and on resuming.

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
        self._file = self.path.open("a", newline="", encoding="utf-8", buffering=1 << 16)
        self._writer = csv.writer(self._file)
        self._since: float | None = None  # when the oldest row not yet flushed was written

    def write(self, row: Mapping[str, Any]) -> None:
        """Append ``row`` (its columns' values; others are ignored). It reaches the file at
        once when the oldest row still buffered is :data:`FLUSH_S` old, else at the next
        :meth:`flush_stale`, :meth:`flush` or :meth:`close`."""
        get = row.get
        # _format, inlined: a call per cell would cost ~1.5 us a row
        texts = [_TEXT.get(type(v), str)(v) for v in [get(c) for c in self.columns]]
        if _RISKY_CELL.search("\0" + "\0".join(texts)):
            self._writer.writerow([escape_cell(t) for t in texts])
        else:
            self._writer.writerow(texts)
        text = dict(zip(self.columns, texts, strict=True))
        self.done.add(_text_key(text))
        self.rows.append(text)
        if self._since is None:
            self._since = time.perf_counter()
        else:
            self.flush_stale()

    def flush_stale(self) -> None:
        """Write out the buffered rows when the oldest has waited :data:`FLUSH_S` or more."""
        if self._since is not None and time.perf_counter() - self._since >= FLUSH_S:
            self.flush()

    def flush(self) -> None:
        """Write out every buffered row."""
        self._file.flush()
        self._since = None

    def waiting(self, long: bool) -> None:
        """The caller is about to wait for more rows: write out the buffered ones if the
        wait may be ``long``, else those that are due (see :meth:`flush_stale`)."""
        if long:
            self.flush()
        else:
            self.flush_stale()

    def cross_check(self, settle: Settle | None = None) -> int:
        """Apply :func:`cross_check` to every row of the file; rewrite it if any changed.

        Returns how many rows became WRONG. The rows are held in memory, so this costs no
        re-reading of the file.
        """
        changed = cross_check(self.rows, settle)
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
    def write(f: io.TextIOBase) -> None:
        writer = csv.writer(f)
        writer.writerow([escape_cell(c) for c in columns])
        for row in rows:
            writer.writerow([escape_cell(_format(row.get(c))) for c in columns])

    replace_atomically(path, write)


#: Settles a disputed count: (puzzle text, the solution both sides found) -> a checked
#: second solution's text, or None when that one is the only solution; raises
#: :class:`harness.check.dispute.Unsettled` when it cannot tell in time.
Settle = Callable[[str, str], str | None]


def cross_check(rows: list[dict[str, str]], settle: Settle | None = None) -> int:
    """Mark as WRONG every claim another backend's *checked* answer refutes; return how many.

    Within one (dataset, line, puzzle, limit): a checked SOLVED row refutes every UNSAT
    row; two SOLVED rows with different checked solutions prove at least two solutions, so
    a row that claims exactly one solution under limit 2 is refuted. When, under limit 2,
    one row claims one solution and another two with the same grid, ``settle`` decides:
    a second solution refutes the claims of one, its absence the claims of two. Rows are
    changed in place.
    """

    def group_of(row: dict[str, str]) -> tuple[str, ...]:
        return (row["dataset"], str(row["line"]), row["puzzle"], str(row["limit"]))

    unsat, solved = Status.UNSAT.value, Status.SOLVED.value  # plain str: compare 5x faster
    claims = {  # the groups holding a claim that could be refuted: most runs have none
        group_of(row)
        for row in rows
        if (status := row["status"]) == unsat or (status == solved and str(row["limit"]) == "2")
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
        changed += _refute(group)
        if settle is not None:
            changed += _settle(group, settle)
    return changed


def _refute(group: list[dict[str, str]]) -> int:
    """Mark the claims of one group that its checked solutions refute; return how many."""
    solved = [r for r in group if r["status"] == Status.SOLVED]
    if not solved:
        return 0
    witness = solved[0]
    distinct = {r["solution"] for r in solved}
    changed = 0
    for row in group:
        reason = ""
        if row["status"] == Status.UNSAT:
            reason = f"claimed UNSAT, but {witness['backend']} found a checked solution"
        elif _claims(row, "1") and len(distinct) > 1:
            other = next(r for r in solved if r["solution"] != row["solution"])
            reason = (
                f"claimed a unique solution, but {other['backend']} found a different checked one"
            )
        if reason:
            row["status"] = Status.WRONG
            row["message"] = reason
            changed += 1
    return changed


def _claims(row: Mapping[str, str], count: str) -> bool:
    return (
        row["status"] == Status.SOLVED
        and str(row["limit"]) == "2"
        and str(row["solutions"]) == count
    )


def _settle(group: list[dict[str, str]], settle: Settle) -> int:
    """Settle one group's dispute (claims of one and of two, one same grid); how many fell."""
    ones = [r for r in group if _claims(r, "1")]
    twos = [r for r in group if _claims(r, "2")]
    if not ones or not twos or len({r["solution"] for r in ones + twos}) > 1:
        return 0
    from harness.check.dispute import Unsettled

    try:
        second = settle(ones[0]["puzzle"], ones[0]["solution"])
    except Unsettled as exc:
        for row in ones + twos:
            row["message"] = f"disputed count (1 or 2 solutions) not settled: {exc}"
        return 0
    if second is not None:
        fallen = ones
        reason = f"claimed a unique solution, but the harness found a second one: {second}"
    else:
        fallen = twos
        reason = "claimed 2 solutions, but the harness's exhaustive search finds only one"
    for row in fallen:
        row["status"] = Status.WRONG
        row["message"] = reason
    return len(fallen)
