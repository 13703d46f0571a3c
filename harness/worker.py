"""Worker processes: every solve runs in one, and its limits are enforced from outside.

The parent never trusts a worker to stop. Each worker is its own process group (session).
When a solve passes its deadline, or the worker's resident memory passes the limit, the
parent sends SIGTERM to the whole group, then SIGKILL after a short grace period, records
TIMEOUT or MEMOUT with the time the solve ran, and starts a fresh worker. This holds for C
extensions that never return to the interpreter (pycosat, python-constraint's compiled
core), which no in-process alarm can stop. A worker that dies by itself (segfault,
``os._exit``) gives an ERROR outcome naming the signal or exit code.

Only plain data crosses the pipe: a :class:`Task` (backend spec and puzzle text) goes in,
an outcome dict comes back. Models and solver objects are built inside the worker.
"""

from __future__ import annotations

import contextlib
import faulthandler
import multiprocessing as mp
import os
import resource
import signal
import time
import traceback
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from backends import make_backend
from backends.base import Backend, SolveResult, Status
from backends.puzzle import Puzzle

#: Seconds between SIGTERM and SIGKILL when a worker is stopped.
GRACE_S = 0.3
#: How often the parent samples a busy worker's memory, seconds.
MEMORY_POLL_S = 0.05
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Task:
    """One solve to run: plain, picklable data only."""

    backend: str  # spec, e.g. "ac3:select=B"
    puzzle: str  # canonical one-line text
    limit: int = 1
    timeout: float | None = None
    tag: Any = None  # the caller's handle, returned untouched with the outcome


# --------------------------------------------------------------------------- worker side


def _peak_rss_reset() -> None:
    try:  # Linux >= 4.0: writing 5 resets the peak RSS (VmHWM) to the current RSS.
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


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


def measure(task: Task, cache: dict[str, Backend], warmed: set[tuple[str, int]]) -> dict[str, Any]:
    """Run one task in this process: build (cached), warm up (untimed), encode, solve.

    Returns the outcome dict: status, solution text, solutions, counters, native statistics,
    phase timings and peak memory. Never raises for a backend's failure: that is an ERROR
    outcome with the exception in ``message``.
    """
    out: dict[str, Any] = {"status": Status.ERROR, "native": {}}
    begin = time.perf_counter()
    try:
        backend = cache.get(task.backend)
        if backend is None:
            backend = cache[task.backend] = make_backend(task.backend)
        puzzle = Puzzle.parse(task.puzzle)
        if (task.backend, puzzle.box) not in warmed:  # imports, caches, tables: untimed
            w = time.perf_counter()
            warm = warmup_puzzle(puzzle.box)
            backend.solve(backend.encode(warm), limit=task.limit)
            warmed.add((task.backend, puzzle.box))
            begin += time.perf_counter() - w  # the warm-up is not part of this task's time
        _peak_rss_reset()
        w0, c0 = time.perf_counter(), time.process_time()
        encoded = backend.encode(puzzle)
        w1, c1 = time.perf_counter(), time.process_time()
        result: SolveResult = backend.solve(encoded, limit=task.limit, time_limit=task.timeout)
        w2, c2 = time.perf_counter(), time.process_time()
        out.update(
            encode_s=w1 - w0,
            encode_cpu_s=c1 - c0,
            solve_s=w2 - w1,
            solve_cpu_s=c2 - c1,
            peak_rss_mib=_peak_rss_mib(),
        )
        if not isinstance(result, SolveResult):
            raise TypeError(f"solve() returned {type(result).__name__}, not SolveResult")
        undeclared = sorted(set(result.native) - set(type(backend).native_counters))
        if undeclared:
            raise ValueError(f"native statistic {undeclared[0]!r} is not in native_counters")
        solution = (
            Puzzle(puzzle.box, tuple(result.solution)).to_string()
            if result.solution is not None
            else None
        )
        out.update(
            status=result.status,
            solution=solution,
            solutions=result.solutions_found,
            nodes=result.nodes,
            guesses=result.guesses,
            backtracks=result.backtracks,
            native=dict(result.native),
            message=result.message,
        )
    except MemoryError:
        out.update(status=Status.MEMOUT, message="MemoryError inside the backend")
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        out.update(
            status=Status.ERROR,
            message=f"{type(exc).__name__}: {exc} ({os.path.basename(where.filename)}:"
            f"{where.lineno})",
        )
    out["wall_s"] = time.perf_counter() - begin
    return out


def _worker_main(conn: Connection) -> None:
    os.setsid()  # own process group, so the parent can kill everything it starts
    faulthandler.disable()  # a crash is reported by the parent, not as a traceback dump
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    cache: dict[str, Backend] = {}
    warmed: set[tuple[str, int]] = set()
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        conn.send(measure(task, cache, warmed))


# --------------------------------------------------------------------------- parent side


def _describe_death(exitcode: int | None) -> str:
    if exitcode is None:
        return "worker vanished"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"worker died: killed by {name}"
    return f"worker died: exited with code {exitcode}"


class _Worker:
    """The parent's handle on one worker: its pipe, and the tasks sent to it, in order.

    Up to ``depth`` tasks are in flight, so the worker starts its next solve without waiting
    for the parent; the head of ``inflight`` is the one running, since ``started``.
    """

    def __init__(self, ctx: Any) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.inflight: deque[Task] = deque()
        self.started = 0.0
        self.next_memory_check = 0.0

    def send(self, task: Task) -> None:
        if not self.inflight:
            self._head_started(time.perf_counter())
        self.inflight.append(task)
        self.conn.send(task)

    def _head_started(self, now: float) -> None:
        self.started = now
        self.next_memory_check = now + MEMORY_POLL_S

    def finished(self, now: float) -> Task:
        """The head task is done; the next one (if any) started just now."""
        task = self.inflight.popleft()
        if self.inflight:
            self._head_started(now)
        return task

    def deadline(self) -> float | None:
        head = self.inflight[0]
        return self.started + head.timeout if head.timeout is not None else None

    def rss_mib(self) -> float:
        """The worker's resident memory now (all its threads), MiB."""
        try:  # /proc costs ~20 us; psutil's process-tree walk costs milliseconds
            with open(f"/proc/{self.proc.pid}/statm") as f:
                return int(f.read().split()[1]) * PAGE_BYTES / 2**20
        except (OSError, ValueError, IndexError):
            import psutil

            try:
                return psutil.Process(self.proc.pid).memory_info().rss / 2**20
            except psutil.Error:
                return 0.0

    def kill(self) -> None:
        """SIGTERM the worker's process group, SIGKILL it after the grace period."""
        pid = self.proc.pid
        if pid is None:
            return
        for sig, wait_s in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            self.proc.join(wait_s)
            if not self.proc.is_alive():
                break
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # reap anything left in the group after the leader
        self.proc.join(1.0)
        self.conn.close()

    def stop(self) -> None:
        with contextlib.suppress(OSError, BrokenPipeError):
            self.conn.send(None)
        self.proc.join(1.0)
        if self.proc.is_alive():
            self.kill()
        else:
            self.conn.close()


class WorkerPool:
    """``jobs`` worker processes; :meth:`run` yields ``(task, outcome)`` as solves finish.

    This is the one place that decides how a (backend, puzzle) pair is executed. Each
    worker holds up to ``depth`` tasks so it never idles waiting for the parent; when a
    worker is killed, the tasks queued behind the killed one go to its replacement.
    """

    def __init__(
        self, jobs: int = 1, memory_limit_mib: float | None = None, depth: int = 2
    ) -> None:
        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        self.jobs = jobs
        self.depth = max(1, depth)
        self.memory_limit_mib = memory_limit_mib
        self._ctx = mp.get_context("fork")
        self._workers: list[_Worker] = []

    def __enter__(self) -> WorkerPool:
        self._workers = [_Worker(self._ctx) for _ in range(self.jobs)]
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._workers:
            if worker.inflight:
                worker.kill()
            else:
                worker.stop()
        self._workers = []

    def _replace(self, worker: _Worker, pending: deque[Task]) -> None:
        """Kill ``worker``; its queued tasks (all but the head) go back to the front."""
        worker.kill()
        worker.inflight.popleft()
        pending.extendleft(reversed(worker.inflight))
        self._workers[self._workers.index(worker)] = _Worker(self._ctx)

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, dict[str, Any]]]:
        pending = deque(tasks)
        if not self._workers:
            self.__enter__()
        while pending or any(w.inflight for w in self._workers):
            for worker in self._workers:
                while len(worker.inflight) < self.depth and pending:
                    worker.send(pending.popleft())
            busy = [w for w in self._workers if w.inflight]
            now = time.perf_counter()
            wake = [w.next_memory_check for w in busy if self.memory_limit_mib]
            wake += [d for d in (w.deadline() for w in busy) if d is not None]
            timeout = max(0.0, min(wake) - now) if wake else None
            ready = wait([w.conn for w in busy], timeout)
            now = time.perf_counter()
            for worker in busy:
                task = worker.inflight[0]
                elapsed = now - worker.started
                deadline = worker.deadline()
                if worker.conn in ready:
                    try:
                        outcome = worker.conn.recv()
                    except (EOFError, OSError):
                        worker.proc.join(1.0)
                        message = _describe_death(worker.proc.exitcode)
                        self._replace(worker, pending)
                        yield task, _killed(Status.ERROR, message, elapsed)
                        continue
                    worker.finished(now)
                    yield task, outcome
                elif deadline is not None and now >= deadline:
                    self._replace(worker, pending)
                    yield task, _killed(Status.TIMEOUT, f"killed after {elapsed:.3f} s", elapsed)
                elif self.memory_limit_mib and now >= worker.next_memory_check:
                    worker.next_memory_check = now + MEMORY_POLL_S
                    rss = worker.rss_mib()
                    if rss > self.memory_limit_mib:
                        self._replace(worker, pending)
                        message = f"killed at {rss:.0f} MiB > limit {self.memory_limit_mib:.0f}"
                        yield task, _killed(Status.MEMOUT, message, elapsed, rss)


def _killed(status: Status, message: str, elapsed: float, rss: float | None = None) -> dict:
    return {
        "status": status,
        "message": message,
        "native": {},
        "wall_s": elapsed,
        "solve_s": elapsed,
        "peak_rss_mib": rss,
    }
