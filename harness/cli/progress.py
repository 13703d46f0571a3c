"""The progress display of ``harness run``: elapsed time, ETA, what runs now, and how many
rows so far timed out, failed or were wrong.

The ETA prices each step left at each backend's mean worker time per step so far
(:meth:`Progress.estimate`). On a terminal it is one line redrawn in place; elsewhere (a CI
log) it is one short line every few seconds. Either fits the terminal's width (100 columns
off a terminal, unless ``COLUMNS`` says otherwise): what runs now is shortened first, so the
counts of timeouts, errors and wrong answers always show (once a line drops the dataset's
folders, every later line does, so a log's lines stay alike). At the end it prints the
total time. ``quiet`` silences all of it.
The runner calls :meth:`Progress.update` with the number of finished steps and, when it has
one, the row just written; a resumed run first calls :meth:`Progress.resuming`, which says
how many rows were done already (its steps that come without a row are counted, not shown).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, TextIO

from harness.tables.humanize import count, duration

#: Seconds between two lines when the stream is not a terminal.
LOG_INTERVAL_S = 5.0
#: Seconds between two redraws on a terminal.
REDRAW_S = 0.1
#: The statuses counted as they happen (ERROR and MEMOUT together as errors).
COUNTED = {"TIMEOUT": "timeouts", "ERROR": "errors", "MEMOUT": "errors", "WRONG": "wrong"}


class Progress:
    """Counts finished steps out of ``total`` and shows them on ``stream`` (stderr)."""

    def __init__(
        self,
        total: int,
        stream: TextIO | None = None,
        quiet: bool = False,
        interval: float = LOG_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
        tty: bool | None = None,
    ) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.interval = interval
        self.clock = clock
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = 0
        self.counts = {"timeouts": 0, "errors": 0, "wrong": 0}
        self.current = ""
        self.start = clock()
        self.shown = -float("inf")  # when the last line or redraw was written
        #: Steps that took solving: rows, but not a resumed run's (no row) nor UNAVAILABLE
        #: ones (written at once). The ETA is theirs, measured from the first of them
        #: (``first``: when, and the count then), so the start-up is left out.
        self.solved = 0
        self.first: tuple[float, int] | None = None
        #: Per backend: its solved steps and their seconds in the worker (``wall_s``).
        self.backends: dict[str, list[float]] = {}
        #: The worker seconds of the solved steps after the first.
        self.worked = 0.0
        self.resumed = 0  #: steps a resumed run had already (no row, no status counted)
        #: Whether what runs now names its dataset's folders: until a line lacks the room.
        self.folders = True

    def __enter__(self) -> Progress:
        self.start = self.clock()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.quiet:
            return
        if self.tty:
            self._write("\r" + " " * self._columns() + "\r")
        if kind is None:
            self._write(self.final_line() + "\n")

    def resuming(self, rows: int) -> None:
        """The run completes a CSV holding ``rows`` rows already: one line says so, before
        any other."""
        if not self.quiet:
            self._write(f"resuming: {_rows(rows)} already done\n")

    def update(self, steps: int = 1, row: Mapping[str, Any] | None = None) -> None:
        """``steps`` more finished; ``row`` (optional) is the row just written, None for
        steps a resumed run had already (counted, but shown with the next row)."""
        self.done += steps
        if row is None:
            self.resumed += steps
            return
        self.current = f"{row.get('backend', '')} on {row.get('dataset', '')}"
        status = str(row.get("status", ""))
        counted = COUNTED.get(status)
        if counted:
            self.counts[counted] += 1
        if status != "UNAVAILABLE":
            self._solved(steps, str(row.get("backend", "")), row.get("wall_s"))
        if self.quiet:
            return
        now = self.clock()
        if self.tty and now - self.shown >= REDRAW_S:
            self.shown = now
            width = self._columns() - 1  # the last column would wrap on some terminals
            self._write("\r" + self.line(width)[:width].ljust(width))
        elif not self.tty and now - self.shown >= self.interval:
            self.shown = now
            self._write(self.line(self._columns()) + "\n")

    def line(self, width: int | None = None) -> str:
        """The state now, e.g. ``solving 120/950 13% 0:42, ETA 4:38; mrv on hard95.txt;
        timeouts 3, errors 0, wrong 0``; within ``width`` characters where shortening
        what runs now (to ``...`` at the end) can make it fit."""
        now = self.clock()
        share = self.done / self.total if self.total else 1.0
        head = f"solving {count(self.done)}/{count(self.total)} {share:.0%} "
        head += f"{duration(now - self.start)}, ETA {self._eta(now)}"
        tail = f"; {self._counts()}"
        room = None if width is None else width - len(head) - len(tail) - len("; ")
        if room is not None and len(self.current) > room:
            self.folders = False  # from now on in every line: a log's lines stay alike
        current = self.current if self.folders else _without_folders(self.current)
        short = _shortened(current, room)
        return head + (f"; {short}" if short else "") + tail

    def _solved(self, steps: int, backend: str, wall: object) -> None:
        """Count ``steps`` solved by ``backend`` in ``wall`` seconds of worker time."""
        try:
            seconds = max(float(wall), 0.0)  # type: ignore[arg-type]
        except (TypeError, ValueError):  # no time recorded: counted at the backend's mean
            seconds = None
        spent = self.backends.setdefault(backend, [0.0, 0.0])
        if seconds is None:
            seconds = spent[1] / spent[0] * steps if spent[0] else 0.0
        spent[0] += steps
        spent[1] += seconds
        self.solved += steps
        if self.first is None:
            self.first = (self.clock(), self.solved)
        else:
            self.worked += seconds

    def _eta(self, now: float) -> str:
        """The time the steps left take, at each backend's mean so far (see
        :meth:`estimate`); ``?`` until some backend has solved twice: the plan runs every
        backend on a puzzle before the next, so by then each has been timed."""
        seconds = self.estimate(now)
        return "?" if seconds is None else duration(seconds)

    def estimate(self, now: float) -> float | None:
        """Seconds until the run ends, or None while it cannot be told (see :meth:`_eta`).

        Every backend runs every puzzle, so the steps left are shared equally among the
        backends: each step left costs the mean over the backends of their mean worker
        seconds per step. That is scaled to the run's clock by the time since the first
        solved step over the worker seconds of the steps solved since (parallel workers,
        warm-ups, the harness's own work). A slow backend therefore counts as much before
        its turn on a puzzle as after it, and the estimate moves with the puzzles' cost,
        not with the order the backends happen to run in.
        """
        if self.first is None or now <= self.first[0]:
            return None
        if not any(steps >= 2 for steps, _ in self.backends.values()):
            return None
        since, solved = self.first
        left = self.total - self.done
        if self.worked <= 0:  # no worker times: the rate of the steps since the first
            return (now - since) / (self.solved - solved) * left
        per_step = sum(spent / steps for steps, spent in self.backends.values()) / len(
            self.backends
        )
        return (now - since) / self.worked * per_step * left

    def final_line(self) -> str:
        """What the run did, in how long: ``done: 950 rows in 5:20; timeouts 3, ...``; for
        a resumed run, ``done: 40 new rows and 910 from before in 0:12; timeouts 1, ...
        in the new``: its counts are of the rows it wrote."""
        elapsed = duration(self.clock() - self.start)
        if not self.resumed:
            return f"done: {_rows(self.done)} in {elapsed}; {self._counts()}"
        new = _rows(self.done - self.resumed, "new ")
        before = f"{count(self.resumed)} from before"
        return f"done: {new} and {before} in {elapsed}; {self._counts()} in the new"

    def _counts(self) -> str:
        return ", ".join(f"{name} {count(n)}" for name, n in self.counts.items())

    def _columns(self) -> int:
        return shutil.get_terminal_size((100, 24)).columns

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def _rows(n: int, kind: str = "") -> str:
    """``1 row``, ``2 rows``; with ``kind`` ``new ``: ``2 new rows``."""
    return f"{count(n)} {kind}{'row' if n == 1 else 'rows'}"


def _shortened(current: str, room: int | None) -> str:
    """``backend on path/to/dataset`` within ``room`` characters (None: any): the dataset's
    folders go first, then its end (to ``...``); nothing when even that does not fit."""
    if room is None or len(current) <= room:
        return current
    current = _without_folders(current)
    if len(current) <= room:
        return current
    return current[: room - 3] + "..." if room >= 12 else ""


def _without_folders(current: str) -> str:
    """``backend on path/to/dataset`` as ``backend on dataset``."""
    backend, on, dataset = current.partition(" on ")
    return backend + on + dataset.rsplit("/", 1)[-1]
