"""Appending rows to a results CSV so that an interrupted run leaves a valid file."""

from __future__ import annotations

import csv
import io
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.check.crosscheck import Settle, cross_check
from harness.results.provenance import replace_atomically
from harness.results.schema import (
    _STARTS_RISKY,
    _TEXT,
    Key,
    _format,
    _text_key,
    escape_cell,
    row_key,
)

#: The longest a written row may wait in the writer's buffer (see there), seconds.
FLUSH_S = 0.05


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
        # _format, inlined: it runs for every cell of every row
        texts = [_TEXT.get(type(v), str)(v) for v in [get(c) for c in self.columns]]
        if any(map(_STARTS_RISKY, texts)):
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
