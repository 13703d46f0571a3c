"""Solving on a Dask cluster (``harness run --cluster``): the same rows, limits and checks.

What stays in the harness process: planning, the independent check of every answer
(:func:`harness.judge.judge`), the cross-check, the resume keys and the CSV writer. Only
the harness process writes the CSV. What goes to the cluster: *chunks*, each a list of
tasks of one backend, sized to about :data:`CHUNK_TARGET_S` of solving from the times seen
so far and smaller and smaller once the end of the work is in sight (:class:`Chunker`),
through a bounded window of futures. Rows are written as chunks come back.

How a Dask worker runs a chunk: in the harness's own :class:`~harness.worker.WorkerPool`
(one solver process per Dask worker thread, kept warm across chunks), so every solve still
runs in an isolated process with the kill-based timeout and memory limits of a local run.
Dask starts its worker processes as daemons by default, and a daemon cannot start child
processes: the harness sets ``distributed.worker.daemon: False`` for the clusters it
starts (``local:N``), and refuses workers started by hand without it, saying what to set.

Faults. A Dask worker that dies mid-chunk returns nothing for that chunk: the scheduler
runs the chunk again elsewhere (``distributed.scheduler.allowed-failures`` times), and its
rows are written once, when it comes back. A chunk that kills every worker it lands on
gives one ERROR row per task, naming the failure. A scheduler that does not answer within
:data:`CONNECT_TIMEOUT_S` is one line and exit 2.
"""

from __future__ import annotations

import contextlib
import logging
import math
import multiprocessing
import pickle
import socket
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backends.base import Status
from backends.errors import SudokuError
from backends.puzzle import Puzzle
from harness import provenance
from harness.worker import Outcome, Task, WorkerPool
from harness.worker.wire import WireTask

INSTALL_HINT = "pip install 'sudoku-harness[dask]'"
#: Seconds to wait for a scheduler to answer, and for its first worker to join.
CONNECT_TIMEOUT_S = 5.0
#: Seconds of solving one chunk aims at, and the least the last chunks shrink to
#: (see :class:`Chunker`).
CHUNK_TARGET_S, MIN_CHUNK_S = 1.0, 0.05
#: Tasks in a chunk of a backend not timed yet, and the most in any chunk.
FIRST_CHUNK, MAX_CHUNK = 4, 4096
#: Full chunks per worker thread drawn ahead of those sent, and the most tasks drawn ahead.
LOOKAHEAD_CHUNKS, MAX_LOOKAHEAD = 4, 65536
#: Tasks drawn ahead between two looks at whether a chunk came back.
DRAW_STEP = 256
#: Chunks in flight per Dask worker thread: one running, one queued behind it.
WINDOW_PER_THREAD = 2
#: What a Dask worker started by hand needs, for the message that refuses it.
DAEMON_SETTING = "DASK_DISTRIBUTED__WORKER__DAEMON=False"
#: Dask settings of the clusters the harness starts (``local:N``). Workers must be able to
#: start the solver processes (see the module doc), and are forked rather than spawned: they
#: start in 0.3 s instead of 2-4 s of imports, which a 10,000-puzzle run of a fast backend
#: would feel. Dask's sampling profiler (every 10 ms) and its system monitor (every 0.5 s,
#: in the scheduler, each nanny and each worker) take CPU from the solves on a machine
#: whose every core solves; the monitor's figures only feed Dask's dashboard.
LOCAL_CONFIG = {
    "distributed.worker.daemon": False,
    "distributed.worker.multiprocessing-method": "fork",
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "5s",
}


class ClusterError(SudokuError):
    """The cluster cannot be used: not installed, not answering, or misconfigured."""


@dataclass(frozen=True)
class ClusterTarget:
    """Where to run: ``address`` (``tcp://host:port`` or ``local:N``) or a scheduler file."""

    address: str | None = None
    scheduler_file: Path | None = None

    def __str__(self) -> str:
        return self.address or f"scheduler file {self.scheduler_file}"

    @property
    def local_workers(self) -> int | None:
        """N for ``local:N``, else None."""
        if self.address is None or not self.address.startswith("local:"):
            return None
        count = self.address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--cluster {self.address!r}: local:N needs N >= 1 workers")
        return int(count)


def _dask() -> Any:
    """The ``distributed`` module, or a ClusterError with the install line."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs Dask distributed: {INSTALL_HINT}") from None
    return distributed


@contextlib.contextmanager
def connect(target: ClusterTarget) -> Iterator[Any]:
    """A Dask ``Client`` for ``target``, its workers checked; closed (and a local cluster
    stopped) on exit."""
    distributed = _dask()
    import dask

    local = target.local_workers
    # Dask's own notes (a lost worker's chunk rescheduled, ...) would break into the
    # harness's output; the rows say what happened, and its errors still show.
    logging.getLogger("distributed").setLevel(logging.ERROR)
    with contextlib.ExitStack() as stack:
        try:
            if local is not None:
                stack.enter_context(dask.config.set(LOCAL_CONFIG))
                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=local,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",
                        silence_logs=logging.ERROR,
                    )
                )
                client = stack.enter_context(distributed.Client(cluster))
            elif target.scheduler_file is not None:
                client = stack.enter_context(
                    distributed.Client(
                        scheduler_file=str(target.scheduler_file), timeout=CONNECT_TIMEOUT_S
                    )
                )
            else:
                client = stack.enter_context(
                    distributed.Client(target.address, timeout=CONNECT_TIMEOUT_S)
                )
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ClusterError(f"cannot use the Dask cluster at {target}: {reason}") from None
        yield client


def worker_facts() -> dict[str, Any]:
    """Run on each Dask worker: whether it may start processes, and its environment."""
    return {
        "daemon": multiprocessing.current_process().daemon,
        "host": socket.gethostname(),
        "environment": host_environment(),
    }


def host_environment() -> dict[str, Any]:
    """What makes one host's timings comparable with another's."""
    env = provenance.environment()
    return {key: env[key] for key in ("project_version", "python", "packages", "machine")}


def check_workers(client: Any) -> dict[str, dict[str, Any]]:
    """Every worker's facts by host; refuses daemonic workers with what to set instead."""
    facts = client.run(worker_facts)
    daemonic = sorted(address for address, fact in facts.items() if fact["daemon"])
    if daemonic:
        raise ClusterError(
            f"Dask worker(s) {', '.join(daemonic)} run as daemonic processes, which cannot "
            f"start the harness's solver processes; start each as `{DAEMON_SETTING} dask "
            "worker ...` (or set distributed.worker.daemon: False in its Dask config)"
        )
    return {fact["host"]: fact["environment"] for fact in facts.values()}


def hosts_meta(hosts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The ``.meta.json`` entry: each host's environment, and which parts differ."""
    differ = sorted(
        key
        for key in ("project_version", "python", "packages", "machine")
        if len({repr(_comparable(key, env[key])) for env in hosts.values()}) > 1
    )
    return {"hosts": hosts, "hosts_differ": differ}


def _comparable(key: str, value: Any) -> Any:
    """A host's ``key`` without what differs between any two hosts (their names)."""
    if key == "machine":
        return {k: v for k, v in value.items() if k != "hostname"}
    if key == "python":
        return {k: v for k, v in value.items() if k != "executable"}
    return value


# --- on the Dask worker ---

_local = threading.local()


def run_chunk(sent: bytes, memory_limit_mib: float | None) -> bytes:
    """Run on a Dask worker: solve the pickled tasks in this thread's warm pool; their
    outcomes, in order and naming this host, pickled.

    Both cross the cluster in the form they take on the worker pool's pipes (see
    :mod:`harness.worker.wire`): plain tuples, digits as bytes, here pickled into one
    ``bytes`` each way. Dask would serialize a list item by item (a ~10,000-row chunk of
    fast solves took 50 ms of the worker's event loop), and Task and Outcome objects cost
    ~10 times as much to pickle as their plain tuples.
    """
    if multiprocessing.current_process().daemon:
        raise ClusterError(f"this Dask worker is daemonic; start it with {DAEMON_SETTING}")
    pool = getattr(_local, "pool", None)
    if pool is None or pool.memory_limit_mib != memory_limit_mib:
        if pool is not None:
            pool.close()
        pool = _local.pool = WorkerPool(1, memory_limit_mib)
    wire: list[WireTask] = pickle.loads(sent)
    tasks = [
        Task(spec, Puzzle.unchecked(box, tuple(cells)), limit, timeout, i)  # checked by the harness
        for i, (spec, box, cells, limit, timeout) in enumerate(wire)
    ]
    host = socket.gethostname()
    outcomes: list[tuple[Any, ...]] = [Outcome(Status.ERROR, "not run").wire()] * len(tasks)
    for task, outcome in pool.run(tasks, wire=True):  # sent on as the solver process sent it
        sent_on = outcome.wire() if type(outcome.status) is Status else outcome  # a kill's
        outcomes[task.tag] = (*sent_on[:-1], host)  # the host, last of the fields
    return pickle.dumps(outcomes, pickle.HIGHEST_PROTOCOL)


# --- in the harness process ---


class Chunker:
    """Cuts the tasks, drawn lazily, into chunks of one backend each (guided self-scheduling).

    A chunk is :data:`CHUNK_TARGET_S` of solving at the backend's mean time per task seen so
    far (:data:`FIRST_CHUNK` tasks while none is known). Tasks are drawn ahead of the chunks
    (:data:`LOOKAHEAD_CHUNKS` full chunks per worker thread), so the end of the work is seen
    while the workers are still busy: from then on each chunk is the left-over solving split
    ``2 x threads`` ways, down to :data:`MIN_CHUNK_S`, and the last chunks finish close
    together instead of one worker solving a whole chunk while the others idle.
    """

    def __init__(self, tasks: Iterable[Task], threads: int) -> None:
        self._source: Iterator[Task] | None = iter(tasks)  # None once drawn to the end
        self._threads = threads
        self._buffers: dict[str, deque[tuple[int, Task]]] = defaultdict(deque)  # per backend
        self._drawn = 0  # tasks drawn so far, the order of the next one
        self._buffered = 0  # tasks drawn and not handed out
        #: Whether tasks have been drawn ahead (see :meth:`draw_ahead`) yet.
        self.ahead = False
        self._seconds: dict[str, float] = defaultdict(float)  # solving seen, per backend
        self._count: dict[str, int] = defaultdict(int)

    def learn(self, spec: str, outcomes: Iterable[Outcome]) -> None:
        """Count the solving times of a chunk of ``spec`` that came back."""
        for outcome in outcomes:
            if outcome.wall_s is not None:  # None: not solved there (a lost chunk)
                self._seconds[spec] += outcome.wall_s
                self._count[spec] += 1

    def mean(self, spec: str) -> float | None:
        """Seconds a task of ``spec`` takes, or None before one came back."""
        return max(self._seconds[spec] / self._count[spec], 1e-6) if self._count[spec] else None

    def size(self, spec: str) -> int:
        """Tasks in the next chunk of ``spec``."""
        mean = self.mean(spec)
        if mean is None:
            return FIRST_CHUNK
        seconds = CHUNK_TARGET_S
        if self._source is None:  # the end is in sight: split what is left
            left = sum(len(b) * (self.mean(s) or mean) for s, b in self._buffers.items())
            seconds = min(seconds, max(MIN_CHUNK_S, left / (2 * self._threads)))
        return max(1, min(MAX_CHUNK, math.ceil(seconds / mean)))

    def _oldest(self) -> str | None:
        """The backend of the earliest task not sent yet (tasks go in about their order)."""
        heads = [(b[0][0], spec) for spec, b in self._buffers.items() if b]
        return min(heads)[1] if heads else None

    def _draw(self) -> bool:
        """One more task into its backend's buffer; False at the end of the tasks."""
        task = next(self._source, None) if self._source is not None else None
        if task is None:
            self._source = None
            return False
        self._buffers[task.backend].append((self._drawn, task))
        self._drawn += 1
        self._buffered += 1
        return True

    def next(self) -> list[Task] | None:
        """The next chunk, or None when every task has been handed out."""
        spec = self._oldest()
        while spec is None or len(self._buffers[spec]) < self.size(spec):
            if not self._draw():
                break
            spec = spec or self._oldest()
        if spec is None:
            return None
        buffer, size = self._buffers[spec], self.size(spec)
        chunk = [buffer.popleft()[1] for _ in range(min(size, len(buffer)))]
        self._buffered -= len(chunk)
        return chunk

    def draw_ahead(self, stop: Callable[[], bool]) -> None:
        """Draw tasks ahead of the chunks, to see the end of the work in time; in steps,
        until ``stop()`` says a worker waits for this process."""
        known = [mean for mean in map(self.mean, self._buffers) if mean is not None]
        ahead = MAX_LOOKAHEAD
        if known:
            size = math.ceil(CHUNK_TARGET_S / min(known))
            ahead = min(LOOKAHEAD_CHUNKS * self._threads * size, ahead)
        while self._buffered < ahead and self._source is not None and not stop():
            for _ in range(DRAW_STEP):
                if not self._draw():
                    break
        self.ahead = bool(known) and (self._buffered >= ahead or self._source is None)


class ClusterPool:
    """Runs tasks on a Dask cluster; :meth:`run` yields ``(task, outcome)`` as chunks finish,
    as :class:`~harness.worker.WorkerPool` does for local processes. Each outcome also
    names the ``host`` that solved it."""

    def __init__(self, client: Any, memory_limit_mib: float | None) -> None:
        self.client = client
        self.memory_limit_mib = memory_limit_mib
        #: Dask worker threads: each runs one solver process at a time.
        self.threads = sum(client.nthreads().values()) or 1
        self.window = WINDOW_PER_THREAD * self.threads

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Outcome]]:
        """Run ``tasks`` (drawn lazily) on the cluster; yield each with its outcome."""
        distributed = _dask()
        chunker = Chunker(tasks, self.threads)
        in_flight = distributed.as_completed()
        submitted: dict[Any, list[Task]] = {}
        probes: set[Any] = set()  # chunks of a backend not timed yet, in flight

        def submit() -> bool:
            chunk = chunker.next()
            if chunk is None:
                return False
            sent = pickle.dumps([task.wire() for task in chunk], pickle.HIGHEST_PROTOCOL)
            future = self.client.submit(run_chunk, sent, self.memory_limit_mib, pure=False)
            submitted[future] = chunk
            if chunker.mean(chunk[0].backend) is None:
                probes.add(future)
            in_flight.add(future)
            return True

        def fill() -> None:
            # A chunk queued at a worker stays there: until the tasks have been drawn
            # ahead (the end is in sight), one timed chunk per thread, none queued early.
            while (
                len(submitted) < self.window
                if chunker.ahead
                else len(submitted) - len(probes) < self.threads
            ) and submit():
                pass

        try:
            for _ in range(self.threads):  # a small chunk each: its times size the next
                submit()
            chunker.draw_ahead(in_flight.has_ready)
            for future in in_flight:
                chunk = submitted.pop(future)
                probes.discard(future)
                outcomes = self._outcomes(future, chunk)
                chunker.learn(chunk[0].backend, outcomes)
                fill()  # before the rows: the workers solve on while they are written
                yield from zip(chunk, outcomes, strict=True)
                chunker.draw_ahead(in_flight.has_ready)
                fill()
        finally:
            for future in submitted:
                future.cancel()

    def _outcomes(self, future: Any, chunk: list[Task]) -> list[Outcome]:
        """The chunk's outcomes; a chunk the cluster could not run gives ERROR outcomes."""
        distributed = _dask()
        try:
            return [Outcome.received(wire) for wire in pickle.loads(future.result())]
        except distributed.KilledWorker as exc:
            message = f"the Dask workers running this chunk died ({exc})"
            return [Outcome(Status.ERROR, message, host="") for _ in chunk]
        except ClusterError:
            raise
        except Exception as exc:  # the cluster's own failure (lost scheduler, ...): stop here
            message = f"the Dask cluster failed a chunk: {type(exc).__name__}: {exc}"
            raise ClusterError(message) from None
