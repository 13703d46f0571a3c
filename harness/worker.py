"""Worker processes: every solve runs in one, and its limits are enforced from outside.

Limits. The parent never trusts a worker to stop. Each worker is its own process group
(session). A backend is given what is left of the timeout after encoding as its own time
limit, so one that watches the clock stops in time and reports its counters. When a solve
runs :func:`kill_grace` past its timeout, or the worker's resident memory passes the limit,
the parent sends SIGTERM to the whole group, then SIGKILL after :data:`GRACE_S`, records
TIMEOUT or MEMOUT with the time the solve ran, and starts a fresh worker. This holds for C
extensions that never return to the interpreter (pycosat, python-constraint's compiled
core), which no in-process alarm can stop. A worker that dies by itself (segfault,
``os._exit``) gives an ERROR outcome naming the signal or exit code. A worker dies with the
parent, even one killed by SIGKILL (Linux's ``PR_SET_PDEATHSIG``), so none is orphaned.

Warm-up. Before its first task of a (backend, grid size), a worker sends a "warming"
notice, builds the backend and solves an easy puzzle, untimed, then sends a "ready" notice,
and the parent starts that task's clock again. Until then the warm-up has its own limit,
:data:`WARMUP_TIMEOUT_S`.

Wire. Only plain data crosses the pipes: a batch of task tuples (backend spec, box side,
cells as bytes, limit, timeout) goes in, one outcome dict per task comes back, sent before
the next task starts, so a killed worker's finished answers are never lost. Models and
solver objects are built inside the worker; the caller's ``tag`` never leaves the parent.

Throughput. The harness must cost little next to a sub-millisecond solve. The parent keeps
enough tasks queued at each worker to cover :data:`QUEUE_AHEAD_S` of solving (at least 2,
at most :data:`MAX_DEPTH`), so the worker never waits for the parent; for slow solves the
queue stays at 2, so ``--jobs N`` does not strand long tasks behind a busy worker at the
end of a run. When solves are short, the parent polls every :data:`POLL_S` instead of
blocking on the pipes: the wake-up of a blocked reader is paid by the writing worker.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
import multiprocessing as mp
import operator
import os
import resource
import signal
import threading
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

#: The worker's notices about a task's warm-up, sent before its outcome.
WARMING, READY = "warming", "ready"
perf_counter = time.perf_counter
process_time = time.process_time

#: Seconds between SIGTERM and SIGKILL when a worker is stopped.
GRACE_S = 0.3
#: The parent kills a solve this long after its timeout (see :func:`kill_grace`).
KILL_GRACE_MAX_S = 0.5
#: Seconds a worker may spend building and warming up a backend (imports, tables) before
#: a task, apart from the task's own timeout.
WARMUP_TIMEOUT_S = 60.0
#: How often the parent samples a busy worker's memory, seconds.
MEMORY_POLL_S = 0.05
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
_PR_SET_PDEATHSIG = 1  # prctl option, <linux/prctl.h>
#: File descriptors of the parent's ends of every open worker pipe (closed in each child).
_parent_ends: set[int] = set()
#: Seconds of solving the parent keeps queued at each worker (see the module docstring).
QUEUE_AHEAD_S = 0.01
#: Most tasks queued at one worker.
MAX_DEPTH = 32
#: Tasks shorter than this on average are collected by polling every POLL_S seconds.
QUICK_S = 0.002
POLL_S = 0.002


@dataclass(frozen=True)
class Task:
    """One solve to run. Only :meth:`wire` crosses the pipe."""

    backend: str  # spec, e.g. "ac3:select=B"
    puzzle: Puzzle
    limit: int = 1
    timeout: float | None = None
    tag: Any = None  # the caller's handle, returned untouched with the outcome; never sent

    def wire(self) -> tuple[str, int, bytes, int, float | None]:
        """What the worker gets: cheap to pickle (digits fit a byte: n <= 25)."""
        return (self.backend, self.puzzle.box, bytes(self.puzzle.cells), self.limit, self.timeout)


def kill_grace(timeout: float) -> float:
    """How long after ``timeout`` the parent kills a solve: 0.1 s + 10 %, at most 0.5 s.

    A backend that watches its ``time_limit`` stops by itself within it and its row keeps
    its counters; one that cannot (a C extension) is killed, and its row has none. Either
    way the row is TIMEOUT, and the kill comes well within ``timeout`` + 1 s.
    """
    return min(KILL_GRACE_MAX_S, 0.1 + 0.1 * timeout)


# --------------------------------------------------------------------------- worker side


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


class _WorkerState:
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


def warm_up(wire: tuple[str, int, bytes, int, float | None], state: _WorkerState) -> None:
    """Build the task's backend and warm it up on an easy puzzle of the same size, once per
    (spec, box) in this worker: imports, caches and tables load here, untimed. Never raises:
    :func:`measure` reports a backend that fails.
    """
    spec, box, _, limit, _ = wire
    state.warmed.add((spec, box))
    with contextlib.suppress(Exception):
        backend = state.backend(spec)
        backend.solve(backend.encode(warmup_puzzle(box)), limit=limit)


def measure(wire: tuple[str, int, bytes, int, float | None], state: _WorkerState) -> dict[str, Any]:
    """Run one task (its :meth:`Task.wire` tuple) here: build (cached), encode, solve.

    The backend's own ``time_limit`` is what is left of ``timeout`` after encoding, so a
    backend that watches the clock stops in time and reports its counters (the parent kills
    the worker only :func:`kill_grace` later).

    Returns the outcome dict: status (its value), solution (the backend's digits, as bytes
    or a tuple, checked by the parent, or None), solutions, counters, native statistics, phase
    timings and peak memory. Never raises for a backend's failure: that is an ERROR outcome
    with the exception in ``message``.
    """
    spec, box, cells, limit, timeout = wire
    out: dict[str, Any] = {"status": Status.ERROR.value, "native": {}}
    begin = perf_counter()
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
        out["encode_s"] = w1 - w0
        out["encode_cpu_s"] = c1 - c0
        out["solve_s"] = w2 - w1
        out["solve_cpu_s"] = c2 - c1
        out["peak_rss_mib"] = _peak_rss_mib()
        if not isinstance(result, SolveResult):
            raise TypeError(f"solve() returned {type(result).__name__}, not SolveResult")
        native = result.native
        undeclared = native.keys() - set(type(backend).native_counters)
        if undeclared:
            raise ValueError(f"native statistic {min(undeclared)!r} is not in native_counters")
        solution = result.solution
        out["status"] = result.status._value_
        out["solution"] = None if solution is None else _compact(solution)
        out["solutions"] = result.solutions_found
        out["nodes"] = result.nodes
        out["guesses"] = result.guesses
        out["backtracks"] = result.backtracks
        out["native"] = dict(native)
        out["message"] = result.message
    except MemoryError:
        out.update(status=Status.MEMOUT.value, message="MemoryError inside the backend")
    except Exception as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        out.update(
            status=Status.ERROR.value,
            message=f"{type(exc).__name__}: {exc} ({os.path.basename(where.filename)}:"
            f"{where.lineno})",
        )
    out["done_at"] = done = perf_counter()  # the parent's clock too (monotonic)
    out["wall_s"] = done - begin
    return out


def _compact(solution: object) -> bytes | tuple[int, ...]:
    """A grid's digits to send: as bytes when they fit (the common case, 5x cheaper to
    pickle), else as a tuple of ints for the parent's checker to refuse.

    Raises TypeError for a value that is not an integer (a float, a string).
    """
    if type(solution) in (tuple, list):
        with contextlib.suppress(ValueError):  # a digit below 0 or above 255
            return bytes(solution)  # type: ignore[arg-type]
    return tuple(map(operator.index, solution))  # type: ignore[call-overload]


def _die_with_parent(parent: int) -> None:
    """Have Linux SIGKILL this worker when the parent dies, even by SIGKILL (which leaves
    it no chance to stop its workers): an orphan would go on solving, or hang, unseen."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the pipes' EOF must do
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _worker_main(
    tasks: Connection, results: Connection, parent: int, inherited: tuple[int, ...]
) -> None:
    os.setsid()  # own process group, so the parent can kill everything it starts
    _die_with_parent(parent)
    for fd in inherited:  # the parent's pipe ends: with them open, no worker would see EOF
        with contextlib.suppress(OSError):
            os.close(fd)
    faulthandler.disable()  # a crash is reported by the parent, not as a traceback dump
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    for signum in (signal.SIGTERM, signal.SIGHUP):  # not the parent's handlers: just die
        signal.signal(signum, signal.SIG_DFL)
    state = _WorkerState()
    try:
        while True:
            batch = tasks.recv()
            if batch is None:
                return
            for wire in batch:  # one answer per task, sent before the next task starts
                if (wire[0], wire[1]) not in state.warmed:  # the parent times it apart
                    results.send((WARMING,))
                    warm_up(wire, state)
                    results.send((READY, perf_counter()))  # the task's clock starts now
                results.send(measure(wire, state))
    except (EOFError, OSError):  # the parent has gone: nobody wants the answers
        return


# --------------------------------------------------------------------------- parent side

_background_imports: list[threading.Thread] = []


def import_in_background(*modules: str) -> None:
    """Import ``modules`` in a thread of this (parent) process, while the workers solve.

    The parent mostly waits during a run, so what it needs afterwards (pandas, for the
    table) loads for free. A failed import is left for the caller's own import to report.
    Every fork of a worker first waits for these threads: forking while another thread holds
    an import lock could leave the child deadlocked on its first import.
    """

    def load() -> None:
        for name in modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)

    thread = threading.Thread(target=load, name="background-import", daemon=True)
    thread.start()
    _background_imports.append(thread)


def _join_background_imports() -> None:
    while _background_imports:
        _background_imports.pop().join()


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

    Up to :meth:`depth` tasks are in flight, so the worker starts its next solve without
    waiting for the parent; the head of ``inflight`` is the one running, since ``started``.
    """

    def __init__(self, ctx: Any) -> None:
        _join_background_imports()  # never fork while another thread may hold an import lock
        # one pipe each way: a one-way pipe is cheaper per message than a duplex socket
        child_tasks, self.tasks = ctx.Pipe(duplex=False)
        self.results, child_results = ctx.Pipe(duplex=False)
        _parent_ends.update((self.tasks.fileno(), self.results.fileno()))
        args = (child_tasks, child_results, os.getpid(), tuple(_parent_ends))
        self.proc = ctx.Process(target=_worker_main, args=args, daemon=True)
        self.proc.start()
        child_tasks.close()
        child_results.close()
        self.inflight: deque[Task] = deque()
        self.warming = False  # the head task is in its untimed warm-up (the worker said so)
        self.started = 0.0
        self.next_memory_check = 0.0
        self.mean_task_s: float | None = None  # running mean of this worker's task times

    def send(self, tasks: list[Task]) -> None:
        """Queue ``tasks`` at the worker, in one message."""
        if not self.inflight:
            self._head_started(time.perf_counter())
        self.inflight.extend(tasks)
        # a dead worker: the pool sees EOF on its results and requeues these tasks
        with contextlib.suppress(OSError):
            self.tasks.send([task.wire() for task in tasks])

    def depth(self, cap: int) -> int:
        """How many tasks to keep queued: :data:`QUEUE_AHEAD_S` of work, 2 to ``cap``."""
        if self.mean_task_s is None:
            return min(2, cap)
        return max(min(2, cap), min(cap, int(QUEUE_AHEAD_S / max(self.mean_task_s, 1e-6))))

    def learn(self, outcome: dict[str, Any]) -> None:
        wall = outcome.get("wall_s")
        if isinstance(wall, float):
            m = self.mean_task_s
            self.mean_task_s = wall if m is None else 0.8 * m + 0.2 * wall

    def _head_started(self, now: float) -> None:
        self.started = now
        self.next_memory_check = now + MEMORY_POLL_S

    def finished(self, done_at: float | None) -> Task:
        """The head task is done; the next one (if any) started when the worker sent it.

        ``done_at`` is the worker's ``perf_counter`` when it finished (the same monotonic
        clock in every process); None means now.
        """
        task = self.inflight.popleft()
        self.warming = False
        if self.inflight:
            now = time.perf_counter()
            self._head_started(now if done_at is None else min(max(done_at, self.started), now))
        return task

    def restart(self, at: float) -> None:
        """The head task's clock starts again at ``at`` (after the worker's warm-up)."""
        self.warming = False
        self._head_started(min(max(at, self.started), time.perf_counter()))

    def quick(self) -> bool:
        """Whether this worker's tasks are short enough to collect by polling."""
        return self.mean_task_s is not None and self.mean_task_s < QUICK_S

    def deadline(self) -> float | None:
        timeout = self.inflight[0].timeout
        if timeout is None:
            return None
        if self.warming:
            return self.started + max(timeout, WARMUP_TIMEOUT_S)
        return self.started + timeout + kill_grace(timeout)

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
        self.close_pipes()

    def stop(self) -> None:
        with contextlib.suppress(OSError, BrokenPipeError):
            self.tasks.send(None)
        self.proc.join(1.0)
        if self.proc.is_alive():
            self.kill()
        else:
            self.close_pipes()

    def close_pipes(self) -> None:
        for end in (self.tasks, self.results):
            if not end.closed:
                _parent_ends.discard(end.fileno())
                end.close()


class _Feed:
    """The tasks still to send: those a killed worker gave back first, then the caller's
    iterable, drawn from only as workers need tasks."""

    def __init__(self, tasks: Iterable[Task]) -> None:
        self._front: deque[Task] = deque()
        self._source = iter(tasks)

    def __bool__(self) -> bool:
        if not self._front:
            task = next(self._source, None)
            if task is None:
                return False
            self._front.append(task)
        return True

    def take(self, count: int) -> list[Task]:
        taken: list[Task] = []
        while len(taken) < count and self:
            taken.append(self._front.popleft())
        return taken

    def give_back(self, tasks: Iterable[Task]) -> None:
        """Put ``tasks`` (in their order) before every other task still to send."""
        self._front.extendleft(reversed(list(tasks)))


class WorkerPool:
    """``jobs`` worker processes; :meth:`run` yields ``(task, outcome)`` as solves finish.

    This is the one place that decides how a (backend, puzzle) pair is executed. Each
    worker holds up to ``depth`` tasks so it never idles waiting for the parent; when a
    worker is killed, the tasks queued behind the killed one go to its replacement.
    """

    def __init__(
        self, jobs: int = 1, memory_limit_mib: float | None = None, depth: int = MAX_DEPTH
    ) -> None:
        if jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        self.jobs = jobs
        self.depth = max(1, depth)  # the most tasks queued at one worker
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

    def _replace(self, worker: _Worker, pending: _Feed) -> None:
        """Kill ``worker``; its queued tasks (all but the head) go back to the front."""
        worker.kill()
        worker.inflight.popleft()
        pending.give_back(worker.inflight)
        self._workers[self._workers.index(worker)] = _Worker(self._ctx)

    def _refill(self, worker: _Worker, pending: _Feed) -> None:
        tasks = pending.take(worker.depth(self.depth) - len(worker.inflight))
        if tasks:
            worker.send(tasks)

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, dict[str, Any]]]:
        """Run ``tasks``; yield each with its outcome as it finishes.

        ``tasks`` is drawn only as workers need more, so a generator lets the first solves
        start while the rest are still being built.
        """
        pending = _Feed(tasks)
        if not self._workers:
            self.__enter__()
        while pending or any(w.inflight for w in self._workers):
            for worker in self._workers:
                self._refill(worker, pending)
            busy = [w for w in self._workers if w.inflight]
            now = time.perf_counter()
            wake = [w.next_memory_check for w in busy if self.memory_limit_mib]
            wake += [d for d in (w.deadline() for w in busy) if d is not None]
            timeout = max(0.0, min(wake) - now) if wake else None
            pipes = [w.results for w in busy]
            if all(w.quick() for w in busy):
                # Short solves: sleep, then take every answer waiting. A process blocked on
                # a pipe must be woken by each write, and that wake-up (~10 us) is paid by
                # the writing worker, between two solves.
                time.sleep(POLL_S if timeout is None else min(POLL_S, timeout))
                ready = wait(pipes, 0)
            else:
                ready = wait(pipes, timeout)
            now = time.perf_counter()
            for worker in busy:
                if worker.results in ready:
                    yield from self._answers(worker, pending)
                    continue
                task = worker.inflight[0]
                elapsed = now - worker.started
                deadline = worker.deadline()
                if deadline is not None and now >= deadline:
                    during = " during the warm-up" if worker.warming else ""
                    self._replace(worker, pending)
                    message = f"killed{during} after {elapsed:.3f} s"
                    yield task, _killed(Status.TIMEOUT, message, elapsed)
                elif self.memory_limit_mib and now >= worker.next_memory_check:
                    worker.next_memory_check = now + MEMORY_POLL_S
                    rss = worker.rss_mib()
                    if rss > self.memory_limit_mib:
                        self._replace(worker, pending)
                        message = f"killed at {rss:.0f} MiB > limit {self.memory_limit_mib:.0f}"
                        yield task, _killed(Status.MEMOUT, message, elapsed, rss)

    def _answers(self, worker: _Worker, pending: _Feed) -> Iterator[tuple[Task, dict[str, Any]]]:
        """Every answer waiting in ``worker``'s pipe; a dead worker's head task is ERROR."""
        while worker.inflight:
            task = worker.inflight[0]
            try:
                outcome = worker.results.recv()
                if type(outcome) is tuple:  # a notice about the head task's warm-up
                    if outcome[0] == WARMING:
                        worker.warming = True
                    else:  # (READY, t): warmed up, the timed part starts at t
                        worker.restart(outcome[1])
                    if not worker.results.poll():
                        return
                    continue
            except (EOFError, OSError):
                elapsed = time.perf_counter() - worker.started
                worker.proc.join(1.0)
                message = _describe_death(worker.proc.exitcode)
                self._replace(worker, pending)
                yield task, _killed(Status.ERROR, message, elapsed)
                return
            if type(outcome.get("solution")) is bytes:  # see _compact
                outcome["solution"] = tuple(outcome["solution"])
            worker.finished(outcome.pop("done_at", None))
            worker.learn(outcome)
            if len(worker.inflight) < 2:  # keep it busy while the caller handles the answer
                self._refill(worker, pending)
            yield task, outcome
            if not worker.results.poll():
                return


def _killed(status: Status, message: str, elapsed: float, rss: float | None = None) -> dict:
    return {
        "status": status.value,
        "message": message,
        "native": {},
        "wall_s": elapsed,
        "solve_s": elapsed,
        "peak_rss_mib": rss,
    }
