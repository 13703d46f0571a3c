"""Appending rows to a results CSV so that an interrupted run leaves a valid file."""

from __future__ import annotations

import csv
import io
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.results.lock import Lock
from harness.results.provenance import replace_atomically
from harness.results.schema import cell_texts, escape_cell

#: The longest a written row may wait in the writer's buffer (see there), seconds.
FLUSH_S = 0.05
#: A cell change: row index (0 = the first row after the header) -> column -> new text.
Changes = Mapping[int, Mapping[str, str]]


class RowWriter:
    """Appends rows to a CSV, so an interrupted run leaves a valid file; holds no row.

    Rows are flushed in batches: a finished row is in the file within :data:`FLUSH_S` of
    being written, provided the caller calls :meth:`flush_stale` while it waits (the runner
    has the worker pool do so), and at once on :meth:`close`, which every stop short of
    SIGKILL reaches (Ctrl-C, SIGTERM, an error). A run killed outright loses at most the
    rows of that last window; a torn last line is cut off on reading and on resuming.

    ``header`` is the header of the rows already in the file when a run is resumed (they
    are kept; a torn last line is cut off, and when the new run needs columns the file
    lacks, the file is rewritten once, atomically, with the wider header). Without it the
    file is started afresh; overwriting an existing one is an error the caller must avoid.
    ``lock``, the run's lock on the file (:class:`harness.results.lock.Lock`), is taken on
    each new version before it replaces the file.
    """

    def __init__(
        self,
        path: Path,
        columns: Sequence[str],
        header: list[str] | None = None,
        lock: Lock | None = None,
    ) -> None:
        self.path = path
        self._lock = None if lock is None else lock.take
        header = header or []
        self.columns = header + [c for c in columns if c not in header]
        path.parent.mkdir(parents=True, exist_ok=True)
        if not header:
            rewrite(path, self.columns, fresh=True, lock=self._lock)
        elif self.columns != header or not _ends_with_newline(path):
            rewrite(path, self.columns, lock=self._lock)
        self._open()

    def _open(self) -> None:
        self._file = self.path.open("a", newline="", encoding="utf-8", buffering=1 << 16)
        self._writer = csv.writer(self._file)
        self._since: float | None = None  # when the oldest row not yet flushed was written

    def write(self, row: Mapping[str, Any]) -> None:
        """Append ``row`` (its columns' values; others are ignored). It reaches the file at
        once when the oldest row still buffered is :data:`FLUSH_S` old, else at the next
        :meth:`flush_stale`, :meth:`flush` or :meth:`close`."""
        self._writer.writerow([escape_cell(t) for t in cell_texts(map(row.get, self.columns))])
        now = time.perf_counter()
        if self._since is None:
            self._since = now
        elif self._stale(now):
            self.flush()

    def flush_stale(self) -> None:
        """Write out the buffered rows when the oldest has waited :data:`FLUSH_S` or more."""
        if self._stale(time.perf_counter()):
            self.flush()

    def _stale(self, now: float) -> bool:
        """Whether the oldest buffered row (if any) has waited :data:`FLUSH_S` at ``now``."""
        return self._since is not None and now - self._since >= FLUSH_S

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

    def change(self, changes: Changes) -> None:
        """Set the given cells of rows already written (the cross-check's verdicts): the
        file is rewritten once, a row at a time, atomically."""
        if changes:
            self._file.close()
            rewrite(self.path, self.columns, changes, lock=self._lock)
            self._open()

    def add_columns(self, names: Iterable[str]) -> None:
        """Widen the header with ``names`` it lacks (native statistics first met during the
        run, from a ``cmd:`` solver): the file is rewritten once, atomically; earlier rows
        keep empty cells there."""
        new = [name for name in names if name not in self.columns]
        if new:
            self.columns = [*self.columns, *new]
            self._file.close()
            rewrite(self.path, self.columns, lock=self._lock)
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


def rewrite(
    path: Path,
    columns: Sequence[str],
    changes: Changes | None = None,
    fresh: bool = False,
    lock: Callable[[int], None] | None = None,
) -> None:
    """Write ``path`` again, atomically, a row at a time: the header ``columns`` (a wider
    one than the file's: its rows get empty cells there), the cells in ``changes`` set, a
    torn last line left out. ``fresh``: a new file of the header only. ``lock`` is given
    the new file before it replaces the old (see
    :func:`~harness.results.provenance.replace_atomically`)."""
    changes = changes or {}

    def write(f: io.TextIOBase) -> None:
        writer = csv.writer(f)
        writer.writerow([escape_cell(c) for c in columns])
        if fresh:
            return
        with path.open("rb") as old:
            reader = csv.reader(whole_lines(old))
            next(reader, [])  # the old header
            width = len(columns)
            at: Callable[[str], int] = columns.index
            for index, fields in enumerate(reader):
                fields += [""] * (width - len(fields))
                for column, text in changes.get(index, {}).items():
                    fields[at(column)] = escape_cell(text)
                writer.writerow(fields)

    replace_atomically(path, write, lock)


def whole_lines(binary: Iterable[bytes]) -> Iterator[str]:
    """The lines of a binary file as text, but a last one without its line break (torn)."""
    for line in binary:
        if not line.endswith(b"\n"):
            return
        yield line.decode("utf-8")
