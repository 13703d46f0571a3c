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
from collections.abc import Callable, Iterable
from typing import Any

from backends import make_backend
from backends.base import Backend, SolveResult, Status
from backends.puzzle import Puzzle
from harness.outcome import Outcome
from harness.run.worker.wire import WireTask, compact

perf_counter = time.perf_counter
process_time = time.process_time


def _open_clear_refs() -> int | None:
    """The worker's own ``/proc/self/clear_refs``, kept open (not opened again each solve)."""
    try:
        return os.open("/proc/self/clear_refs", os.O_WRONLY)
    except OSError:
        return None


def _peak_rss_reset(fd: int | None) -> None:
    if fd is None:
        return
    try:  # noqa: SIM105 - contextlib.suppress would add a context manager to every solve
        os.write(fd, b"5")  # Linux >= 4.0: "5" resets VmHWM to the current RSS
    except OSError:
        pass


def _peak_rss_mib() -> float:
    """Peak resident memory since the last reset, MiB (one system call, no /proc file).

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


class ProcessPeaks:
    """The memory high-water marks of the processes a backend runs (a ``cmd:`` solver),
    through their ``/proc`` files, kept open to reset and read them."""

    def __init__(self) -> None:
        self._files: dict[int, tuple[int, int]] = {}  # pid -> (clear_refs fd, status fd)

    def reset(self, pids: tuple[int, ...]) -> None:
        """Reset the marks of ``pids``; forget processes that are gone."""
        for pid in self._files.keys() - set(pids):
            for fd in self._files.pop(pid):
                os.close(fd)
        for pid in pids:
            files = self._files.get(pid) or self._open(pid)
            if files is None:  # gone already: nothing to reset or read
                continue
            with contextlib.suppress(OSError):
                os.write(files[0], b"5")

    def _open(self, pid: int) -> tuple[int, int] | None:
        """``pid``'s two files, kept; None (nothing left open) when it has gone."""
        try:
            clear = os.open(f"/proc/{pid}/clear_refs", os.O_WRONLY)
        except OSError:
            return None
        try:
            status = os.open(f"/proc/{pid}/status", os.O_RDONLY)
        except OSError:
            os.close(clear)
            return None
        self._files[pid] = (clear, status)
        return clear, status

    def peak_mib(self) -> float:
        """The sum of the marks since :meth:`reset`, MiB."""
        total = 0.0
        for _, status in self._files.values():
            with contextlib.suppress(OSError, ValueError):
                text = os.pread(status, 4096, 0)
                start = text.index(b"VmHWM:") + 6
                total += int(text[start : text.index(b"kB", start)]) / 1024
        return total


class WorkerState:
    """What a worker keeps between tasks: built backends, warmed (spec, box) pairs and why
    a warm-up failed, an fd."""

    def __init__(self) -> None:
        self.cache: dict[str, Backend] = {}
        self.warmed: set[tuple[str, int]] = set()
        self.broken: dict[tuple[str, int], str] = {}  # (spec, box) -> the warm-up's failure
        self.clear_refs = _open_clear_refs()
        #: spec -> its backend's ``processes()`` when it runs processes of its own
        self.processes: dict[str, Callable[[], tuple[int, ...]]] = {}
        #: spec -> its backend's (solve_call, solve_decode) when it splits its solve so
        self.split: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {}
        self.peaks = ProcessPeaks()
        self._declared: dict[str, frozenset[str]] = {}

    def undeclared(self, spec: str, names: Iterable[str]) -> set[str]:
        """Which of ``names`` ``spec``'s backend does not declare (``native_counters``,
        which a ``cmd:`` solver's backend widens as new keys come)."""
        known = self._declared.get(spec)
        if known is None or not known.issuperset(names):
            known = self._declared[spec] = frozenset(self.backend(spec).native_counters)
        return set(names) - known

    def backend(self, spec: str) -> Backend:
        backend = self.cache.get(spec)
        if backend is None:
            backend = self.cache[spec] = make_backend(spec)
            processes = getattr(backend, "processes", None)
            if callable(processes):
                self.processes[spec] = processes
            call, decode = (getattr(backend, f"solve_{s}", None) for s in ("call", "decode"))
            if callable(call) and callable(decode):
                self.split[spec] = (call, decode)
        return backend


def warm_up(wire: WireTask, state: WorkerState) -> str | None:
    """Build the task's backend and warm it up on an easy puzzle of the same size, once per
    (spec, box) in this worker: imports, caches and tables load here, untimed.

    Returns why the warm-up failed (the backend raised), or None; a failed (spec, box) is
    recorded in ``state.broken``. Never raises.
    """
    spec, box, _, limit, _ = wire
    key = (spec, box)
    state.warmed.add(key)
    try:
        backend = state.backend(spec)
        backend.solve(backend.encode(warmup_puzzle(box)), limit=limit)
    except Exception as exc:
        state.broken[key] = failure = f"warm-up failed: {describe(exc)}"
        return failure
    return None


def describe(exc: BaseException) -> str:
    """An exception as one line: its type, message and the place it was raised."""
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__}: {exc} ({os.path.basename(where.filename)}:{where.lineno})"


def measure(wire: WireTask, state: WorkerState) -> tuple[Any, ...]:
    """Run one task (its :meth:`Task.wire` tuple) here: build (cached), encode, solve.
    Returns the :class:`Outcome` as the plain tuple :meth:`Outcome.wire` makes, built
    directly: it goes straight into the next batch.

    Never raises for a backend's failure: that is an ERROR outcome with the exception in
    ``message`` (MEMOUT for a MemoryError), and the phase times measured before it.
    """
    spec, box, cells, limit, timeout = wire
    begin = perf_counter()
    times: list[float | None] = []
    try:
        backend = state.backend(spec)
        puzzle = Puzzle.unchecked(box, tuple(cells))  # the parent's Puzzle checked them
        split = state.split.get(spec)
        call = None if split is None else split[0]
        encoded, result = _timed(backend, puzzle, limit, timeout, spec, state, times, call)
        if split is not None:
            result = split[1](result, encoded)
        return _answer(result, state, spec, times, begin)
    except MemoryError:
        status, message = Status.MEMOUT, "MemoryError inside the backend"
    except Exception as exc:
        status, message = Status.ERROR, describe(exc)
    measured = (*times[:4], None, times[4]) if times else (None,) * 6
    wall = perf_counter() - begin
    return Outcome(status, message, None, None, None, None, None, (), *measured, wall).wire()


def _timed(
    backend: Backend,
    puzzle: Puzzle,
    limit: int,
    timeout: float | None,
    spec: str,
    state: WorkerState,
    times: list[float | None],
    call: Callable[..., Any] | None = None,
) -> tuple[Any, Any]:
    """Encode and solve ``puzzle``, timed; append to ``times`` the encode wall and CPU
    seconds, the solve's, and the peak memory MiB. Returns the encoded puzzle and what the
    solve returned.

    The backend's own ``time_limit`` is what is left of ``timeout`` after encoding, so a
    backend that watches the clock stops in time and reports its counters (the parent kills
    the worker only :func:`~harness.run.worker.pool.kill_grace` later). A backend that
    splits its solve is given ``call``, its ``solve_call`` (one call into native code, say),
    as the timed solve phase; its ``solve_decode`` reads the answer afterwards, untimed, as
    the checker does, and its time limit is the parent's kill alone. Each clock is read
    right at the edge of its phase: the wall clock innermost, so the CPU clock's system
    call is harness time, not the backend's. The solve's CPU time is not measured (None) for
    a backend whose work runs in a process of its own (``in_process`` False: ``cmd:``).
    """
    processes = state.processes.get(spec)
    if processes is not None:
        state.peaks.reset(processes())
    _peak_rss_reset(state.clear_refs)
    c0 = process_time()
    w0 = perf_counter()
    encoded = backend.encode(puzzle)
    w1 = perf_counter()
    c1 = process_time()
    if call is None:
        left = None if timeout is None else max(0.0, timeout - (w1 - w0))
        w1b = perf_counter()
        result = backend.solve(encoded, limit=limit, time_limit=left)
    else:
        w1b = perf_counter()
        result = call(encoded, limit)
    w2 = perf_counter()
    c2 = process_time()
    peak = _peak_rss_mib()
    if processes is not None:  # the backend's own processes count too
        peak += state.peaks.peak_mib()
    solve_cpu = c2 - c1 if backend.in_process else None  # another process's work: not ours
    times += (w1 - w0, c1 - c0, w2 - w1b, solve_cpu, peak)
    return encoded, result


def _answer(
    result: Any, state: WorkerState, spec: str, times: list[float | None], begin: float
) -> tuple[Any, ...]:
    """The wire tuple of a solve's ``result`` (raises when it breaks the contract: not a
    :class:`SolveResult`, or a native statistic its backend does not declare)."""
    if not isinstance(result, SolveResult):
        raise TypeError(f"solve() returned {type(result).__name__}, not SolveResult")
    native = result.native
    undeclared = state.undeclared(spec, native) if native else None
    if undeclared:
        raise ValueError(f"native statistic {min(undeclared)!r} is not in native_counters")
    solution = result.solution
    if solution is not None:
        solution = compact(solution)
    encode_s, encode_cpu_s, solve_s, solve_cpu_s, peak = times
    return (
        result.status._value_,
        result.message,
        solution,
        result.solutions_found,
        result.nodes,
        result.guesses,
        result.backtracks,
        tuple(native.items()) if native else (),
        encode_s,
        encode_cpu_s,
        solve_s,
        solve_cpu_s,
        result.own_solve_s,
        peak,
        perf_counter() - begin,
        None,
    )
