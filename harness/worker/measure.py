"""Measurement inside a worker: build (cached), warm up untimed, encode and solve timed.

Times are ``perf_counter`` (wall) and ``process_time`` (CPU) around each phase; the peak
resident memory is the worker's high-water mark since a reset just before encoding.
"""

from __future__ import annotations

import contextlib
import os
import resource
import time
import traceback

from backends import make_backend
from backends.base import Backend, SolveResult, Status
from backends.puzzle import Puzzle
from harness.worker.wire import Outcome, WireTask, compact

perf_counter = time.perf_counter
process_time = time.process_time


def _open_clear_refs() -> int | None:
    """The worker's own ``/proc/self/clear_refs``, kept open (an open costs 8 us a solve)."""
    try:
        return os.open("/proc/self/clear_refs", os.O_WRONLY)
    except OSError:
        return None


def _peak_rss_reset(fd: int | None) -> None:
    if fd is None:
        return
    with contextlib.suppress(OSError):  # Linux >= 4.0: "5" resets VmHWM to the current RSS
        os.write(fd, b"5")


def _peak_rss_mib() -> float:
    """Peak resident memory since the last reset, MiB (1 us, against 20 us for /proc).

    After the reset, Linux's ``ru_maxrss`` follows the reset high-water mark; in a process
    whose threads have exited it may keep their larger peak, so it can over-report, never
    under-report.
    """
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def warmup_puzzle(box: int) -> Puzzle:
    """An easy valid puzzle of box side ``box``: a pattern grid with one blank per row."""
    n = box * box
    cells = [((r % box) * box + r // box + c) % n + 1 for r in range(n) for c in range(n)]
    for r in range(n):
        cells[r * n + (r * 7) % n] = 0
    return Puzzle(box, tuple(cells))


class WorkerState:
    """What a worker keeps between tasks: built backends, warmed (spec, box) pairs, an fd."""

    def __init__(self) -> None:
        self.cache: dict[str, Backend] = {}
        self.warmed: set[tuple[str, int]] = set()
        self.clear_refs = _open_clear_refs()

    def backend(self, spec: str) -> Backend:
        backend = self.cache.get(spec)
        if backend is None:
            backend = self.cache[spec] = make_backend(spec)
        return backend


def warm_up(wire: WireTask, state: WorkerState) -> None:
    """Build the task's backend and warm it up on an easy puzzle of the same size, once per
    (spec, box) in this worker: imports, caches and tables load here, untimed. Never raises:
    :func:`measure` reports a backend that fails.
    """
    spec, box, _, limit, _ = wire
    state.warmed.add((spec, box))
    with contextlib.suppress(Exception):
        backend = state.backend(spec)
        backend.solve(backend.encode(warmup_puzzle(box)), limit=limit)


def measure(wire: WireTask, state: WorkerState) -> Outcome:
    """Run one task (its :meth:`Task.wire` tuple) here: build (cached), encode, solve.

    The backend's own ``time_limit`` is what is left of ``timeout`` after encoding, so a
    backend that watches the clock stops in time and reports its counters (the parent kills
    the worker only :func:`~harness.worker.pool.kill_grace` later).

    Never raises for a backend's failure: that is an ERROR outcome with the exception in
    ``message`` (MEMOUT for a MemoryError), and the phase times measured before it.
    """
    spec, box, cells, limit, timeout = wire
    begin = perf_counter()
    times: tuple[float, ...] = ()
    try:
        backend = state.backend(spec)
        puzzle = Puzzle.unchecked(box, tuple(cells))  # the parent's Puzzle checked them
        _peak_rss_reset(state.clear_refs)
        w0, c0 = perf_counter(), process_time()
        encoded = backend.encode(puzzle)
        w1, c1 = perf_counter(), process_time()
        left = None if timeout is None else max(0.0, timeout - (w1 - w0))
        result: SolveResult = backend.solve(encoded, limit=limit, time_limit=left)
        w2, c2 = perf_counter(), process_time()
        times = (w1 - w0, c1 - c0, w2 - w1, c2 - c1, _peak_rss_mib())
        if not isinstance(result, SolveResult):
            raise TypeError(f"solve() returned {type(result).__name__}, not SolveResult")
        native = result.native
        undeclared = native.keys() - set(type(backend).native_counters)
        if undeclared:
            raise ValueError(f"native statistic {min(undeclared)!r} is not in native_counters")
        solution = result.solution
        done = perf_counter()
        return Outcome(
            result.status,
            result.message,
            None if solution is None else compact(solution),
            result.solutions_found,
            result.nodes,
            result.guesses,
            result.backtracks,
            tuple(native.items()),
            *times,
            done - begin,
            done,
        )
    except MemoryError:
        status, message = Status.MEMOUT, "MemoryError inside the backend"
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        status = Status.ERROR
        place = f"{os.path.basename(where.filename)}:{where.lineno}"
        message = f"{type(exc).__name__}: {exc} ({place})"
    done = perf_counter()
    measured = times or (None,) * 5
    return Outcome(status, message, None, None, None, None, None, (), *measured, done - begin, done)
