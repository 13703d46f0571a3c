"""Solving on a Dask cluster (``harness run --cluster``): the same rows, limits and checks.

What stays in the harness process: planning, the independent check of every answer
(:func:`harness.judge.judge`), the cross-check, the resume keys and the CSV writer. Only
the harness process writes the CSV. What goes to the cluster: *chunks*, each a list of
tasks of one backend, sized to about :data:`CHUNK_TARGET_S` of solving from the times seen
so far and smaller and smaller once the end of the work is in sight (:class:`Chunker`),
through a bounded window of futures. Rows are written as chunks come back. The Dask client
(and a ``local:N`` cluster) lives in a process the harness forks before it reads its files
(:class:`ClusterConnection`): Dask's import and start run there, on another core, while the
harness reads, and chunks and their outcomes cross a pipe, pickled once each way.

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
import itertools
import logging
import math
import multiprocessing
import pickle
import queue
import socket
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
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
#: Seconds the process holding the Dask client may take to connect (start a local cluster,
#: check the workers), and to stop.
START_TIMEOUT_S, CLOSE_TIMEOUT_S = 60.0, 30.0
#: Seconds of solving one chunk aims at, and the least the last chunks shrink to (see
#: :class:`Chunker`): about one round trip of a chunk through Dask on one machine (a chunk
#: reached its worker 3-13 ms after it was sent, and its answer the harness 5-12 ms after
#: it ended), so that the chunk queued behind a running one covers most of that trip.
CHUNK_TARGET_S, MIN_CHUNK_S = 1.0, 0.025
#: Tasks in a chunk of a backend not timed yet (a probe), and the most in any chunk.
FIRST_CHUNK, MAX_CHUNK = 128, 4096
#: Seconds after which a probe, once at its Dask worker, starts no new task (see
#: :func:`run_chunk`), and how many times its planned seconds a timed chunk may take so.
PROBE_S, BUDGET_FACTOR = 0.05, 2.0
#: Probes in flight per Dask worker thread: the second covers the first's round trip.
PROBES_PER_THREAD = 2
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
#: would feel. Dask's periodic work takes CPU from the solves on a machine whose every
#: core solves: its sampling profiler (every 10 ms), its system monitor (every 0.5 s, in
#: the scheduler, each nanny and each worker; its figures only feed Dask's dashboard), the
#: event loops' health tick (every 20 ms) and the check of each worker's own memory (every
#: 0.1 s; a Dask worker holds a chunk at a time, its solver processes have their own limit).
LOCAL_CONFIG = {
    "distributed.worker.daemon": False,
    "distributed.worker.multiprocessing-method": "fork",
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.admin.tick.interval": "200ms",
    "distributed.worker.memory.monitor-interval": "1s",
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


# --- in the process that holds the Dask client (see Connection) ---


@contextlib.contextmanager
def _client(target: ClusterTarget) -> Iterator[Any]:
    """A Dask ``Client`` for ``target`` with at least one worker; closed (and a local
    cluster stopped) on exit."""
    distributed = _dask()
    import dask

    local = target.local_workers
    quiet_dask_logs()
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


def quiet_dask_logs() -> None:
    """Let only Dask's errors through: its notes (a lost worker's chunk rescheduled, a
    result it could not gather, ...) would break into the harness's output, and the rows
    say what happened. Dask gives some of its loggers levels of their own
    (``distributed.client``: warning), which the parent's level does not override."""
    names = [n for n in logging.Logger.manager.loggerDict if n.startswith("distributed.")]
    for name in ("distributed", *names):
        logger = logging.getLogger(name)
        if name == "distributed" or logger.level != logging.NOTSET:
            logger.setLevel(max(logger.level, logging.ERROR))


def _checked_hosts(client: Any) -> dict[str, dict[str, Any]]:
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


def _serve(target: ClusterTarget, pipe: Connection, harness_end: Connection) -> None:
    """The process :class:`ClusterConnection` forks: connect to ``target`` (starting a
    local cluster), check its workers, answer ``("ready", threads, hosts)`` or
    ``("error", message)``, then relay chunks (see :func:`_relay`) until the harness
    closes its end of ``pipe`` or ends."""
    harness_end.close()  # else this process, and the workers it forks, would hold it open
    try:
        with _client(target) as client:
            hosts = _checked_hosts(client)
            pipe.send(("ready", sum(client.nthreads().values()) or 1, hosts))
            _relay(client, pipe)
    except ClusterError as exc:
        with contextlib.suppress(OSError):
            pipe.send(("error", str(exc)))
    except OSError:  # the harness closed its end first (its run stopped early): nothing to say
        pass
    except KeyboardInterrupt:  # Ctrl-C reaches every process; the harness says what it did
        pass


def _relay(client: Any, pipe: Connection) -> None:
    """Submit each chunk the harness sends (``("submit", key, pickled tasks, memory
    limit, budget)``; ``("cancel", key)`` withdraws one); send back ``(kind, key,
    value)`` as each finishes (see :func:`_finished`); return when the harness closes its
    end."""
    distributed = _dask()
    finished: queue.SimpleQueue[tuple[int, Any] | None] = queue.SimpleQueue()
    futures: dict[int, Any] = {}

    def read() -> None:
        # Ends at the harness's end of the pipe, or when the client cannot go on (closed by
        # Ctrl-C, which reaches this process too): the harness then sees this process end.
        with contextlib.suppress(Exception):
            while True:
                message = pipe.recv()
                if message[0] == "submit":
                    _, key, sent, memory_limit_mib, budget_s = message
                    future = client.submit(run_chunk, sent, memory_limit_mib, budget_s, pure=False)
                    futures[key] = future
                    future.add_done_callback(lambda done, key=key: finished.put((key, done)))
                elif (future := futures.pop(message[1], None)) is not None:
                    future.cancel()
        finished.put(None)

    threading.Thread(target=read, name="chunks from the harness", daemon=True).start()
    while (item := finished.get()) is not None:
        key, future = item
        if futures.pop(key, None) is not None:  # not cancelled
            pipe.send(_finished(distributed, key, future))


def _finished(distributed: Any, key: int, future: Any) -> tuple[str, int, Any]:
    """A finished chunk for the harness: ``("done", key, pickled outcomes)``;
    ``("killed", key, message)`` when the workers running it died (its rows are ERROR);
    ``("failed", key, message)`` when the cluster failed otherwise (the run stops)."""
    try:
        return ("done", key, future.result())
    except distributed.KilledWorker as exc:
        return ("killed", key, f"the Dask workers running this chunk died ({exc})")
    except ClusterError as exc:
        return ("failed", key, str(exc))
    except Exception as exc:  # the cluster's own failure (lost scheduler, ...)
        return ("failed", key, f"the Dask cluster failed a chunk: {type(exc).__name__}: {exc}")


# --- in the harness process ---


class ClusterConnection:
    """The harness's side of a Dask cluster: a process forked now holds the Dask client
    (and, for ``local:N``, the LocalCluster), and relays chunks through a pipe.

    Importing Dask (~0.2 s) and starting a local cluster (~0.1 s) hold the interpreter, so
    in a thread of the harness they would only take turns with the reading of the files;
    in their own process they run on another core meanwhile, and the harness never
    imports Dask. The fork happens before the harness starts any thread: forking Dask
    workers while another thread runs (holding a lock, or a pipe to a starting
    subprocess) can hang them. :meth:`join` waits for the process's answer: it raises
    the ClusterError that stopped it (Dask not installed, a scheduler that does not
    answer, daemonic workers); :attr:`threads` and :attr:`hosts` are known from then on.
    """

    def __init__(self, target: ClusterTarget) -> None:
        self.target = target
        context = multiprocessing.get_context("fork")
        self._pipe, theirs = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(target, theirs, self._pipe), name="harness-dask-client"
        )
        self._process.start()
        theirs.close()
        #: Dask worker threads: each runs one solver process at a time.
        self.threads = 0
        #: Each worker host's environment (see :func:`worker_facts`).
        self.hosts: dict[str, dict[str, Any]] = {}
        self._joined = False

    def join(self) -> ClusterConnection:
        """This connection, once the cluster answered; raises its ClusterError."""
        if not self._joined:
            answer = self.receive(START_TIMEOUT_S)
            if answer[0] == "error":
                raise ClusterError(answer[1])
            _, self.threads, self.hosts = answer
            self._joined = True
        return self

    def send(self, message: tuple[Any, ...]) -> None:
        self._pipe.send(message)

    def ready(self) -> bool:
        """Whether an answer waits."""
        return self._pipe.poll(0)

    def receive(self, timeout: float | None = None) -> tuple[Any, ...]:
        """The next answer; a ClusterError if the process ended without one, or gave
        none within ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._pipe.poll(1.0):
            if not self._process.is_alive():  # its workers may hold the pipe open
                break
            if deadline is not None and time.monotonic() > deadline:
                message = f"no answer from the Dask cluster {self.target} in {timeout:g} s"
                raise ClusterError(message)
        try:
            return self._pipe.recv()
        except (EOFError, OSError):
            self._process.join(1.0)
            code = self._process.exitcode
            message = f"the process holding the Dask client for {self.target} ended ({code})"
            raise ClusterError(message) from None

    def stop(self) -> None:
        """Close the pipe: the process stops its client (and local cluster) and ends,
        without this process waiting for it (see :meth:`close`)."""
        self._pipe.close()

    def close(self) -> None:
        """Stop the process (see :meth:`stop`) and wait for it to end; kill it after
        :data:`CLOSE_TIMEOUT_S`."""
        self.stop()
        self._process.join(CLOSE_TIMEOUT_S)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


#: The connections :func:`start_in_background` started, not yet taken by :func:`connect`.
_started: dict[ClusterTarget, ClusterConnection] = {}


@contextlib.contextmanager
def start_in_background(target: ClusterTarget) -> Iterator[ClusterConnection]:
    """Start connecting to ``target`` now (see :class:`ClusterConnection`), for
    :func:`connect` to take over; closed on exit, once its process has ended (when
    :func:`connect` took it over, that process stopped its cluster meanwhile)."""
    started = _started[target] = ClusterConnection(target)
    try:
        yield started
    finally:
        if _started.get(target) is started:
            del _started[target]
        started.close()


@contextlib.contextmanager
def connect(target: ClusterTarget) -> Iterator[ClusterConnection]:
    """The cluster ``target``, its workers checked (the connection
    :func:`start_in_background` started, if any); closed (a local cluster stopped) on
    exit. Raises ClusterError when the cluster cannot be used.

    A connection :func:`start_in_background` started is only stopped here: its cluster
    shuts down (~40 ms for ``local:N``) while the harness writes its tables, and
    :func:`start_in_background` waits for it on its own exit."""
    started = _started.pop(target, None)
    connection = started or ClusterConnection(target)
    try:
        yield connection.join()
    finally:
        if started is not None:
            connection.stop()
        else:
            connection.close()


def check_workers(connection: ClusterConnection) -> dict[str, dict[str, Any]]:
    """Every worker's facts by host, as checked before ``connection`` answered (daemonic
    workers are refused then, with what to set instead)."""
    return connection.join().hosts


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


def run_chunk(sent: bytes, memory_limit_mib: float | None, budget_s: float | None = None) -> bytes:
    """Run on a Dask worker: solve the pickled tasks in this thread's warm pool; their
    outcomes, in order and naming this host, pickled.

    With ``budget_s``, no task but the first is handed to the solver process once
    ``budget_s`` seconds have passed since the chunk came: the outcomes of the tasks not
    handed are None, for the harness to send again. The pool keeps about
    :data:`~harness.worker.pool.SOLO_AHEAD_S` of tasks queued at its solver process, so a
    chunk may run that much past its budget.

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
    if wire and getattr(_local, "backend", None) != wire[0][0]:  # a chunk is of one backend
        pool.forget_task_times()  # else another backend's times would size its queue
        _local.backend = wire[0][0]
    deadline = math.inf if budget_s is None else time.perf_counter() + budget_s

    def tasks() -> Iterator[Task]:  # drawn by the pool as its solver process needs them
        for i, (spec, box, cells, limit, timeout) in enumerate(wire):
            if i and time.perf_counter() >= deadline:
                return
            yield Task(spec, Puzzle.unchecked(box, tuple(cells)), limit, timeout, i)  # checked

    host = socket.gethostname()
    outcomes: list[tuple[Any, ...] | None] = [None] * len(wire)  # None: not started
    for task, outcome in pool.run(tasks(), wire=True):  # sent on as the solver process sent it
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

    Each chunk also has a budget (:meth:`budget`): a chunk whose tasks prove slower than
    planned (harder puzzles later in a file) stops starting tasks, and the ones it did not
    start come back (:meth:`give_back`) to be cut anew.
    """

    def __init__(self, tasks: Iterable[Task], threads: int) -> None:
        self._source: Iterator[Task] | None = iter(tasks)  # None once drawn to the end
        self._threads = threads
        self._buffers: dict[str, deque[tuple[int, Task]]] = defaultdict(deque)  # per backend
        self._drawn = 0  # tasks drawn so far, the order of the next one
        self._returned = 0  # the order given to the latest tasks given back (below 0)
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

    def budget(self, chunk: list[Task]) -> float:
        """Seconds after which ``chunk``, once at its Dask worker, starts no new task:
        :data:`PROBE_S` for a backend not timed yet, else :data:`BUDGET_FACTOR` times its
        planned seconds (at least :data:`MIN_CHUNK_S`)."""
        mean = self.mean(chunk[0].backend)
        if mean is None:
            return PROBE_S
        return max(MIN_CHUNK_S, BUDGET_FACTOR * len(chunk) * mean)

    def give_back(self, tasks: list[Task]) -> None:
        """Put ``tasks`` (of one backend, from one chunk, not started) back, in their order,
        before every task still to send."""
        first = self._returned = self._returned - len(tasks)
        self._buffers[tasks[0].backend].extendleft(reversed(list(enumerate(tasks, first))))
        self._buffered += len(tasks)

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

    def __init__(self, connection: ClusterConnection, memory_limit_mib: float | None) -> None:
        self.connection = connection.join()
        self.memory_limit_mib = memory_limit_mib
        #: Dask worker threads: each runs one solver process at a time.
        self.threads = connection.threads
        self.window = WINDOW_PER_THREAD * self.threads

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Outcome]]:
        """Run ``tasks`` (drawn lazily) on the cluster; yield each with its outcome."""
        chunker = Chunker(tasks, self.threads)
        keys = itertools.count()
        submitted: dict[int, list[Task]] = {}  # by key, in flight
        probes: set[int] = set()  # chunks of a backend not timed yet, in flight

        def submit() -> bool:
            chunk = chunker.next()
            if chunk is None:
                return False
            key = next(keys)
            sent = pickle.dumps([task.wire() for task in chunk], pickle.HIGHEST_PROTOCOL)
            budget = chunker.budget(chunk)
            self.connection.send(("submit", key, sent, self.memory_limit_mib, budget))
            submitted[key] = chunk
            if chunker.mean(chunk[0].backend) is None:
                probes.add(key)
            return True

        def fill() -> None:
            # A chunk queued at a worker stays there: until the tasks have been drawn
            # ahead (the end is in sight), one timed chunk per thread, none queued early.
            # Probes (short: see PROBE_S) are not counted, but a few at most are in flight.
            while (
                (
                    len(submitted) < self.window
                    if chunker.ahead
                    else len(submitted) - len(probes) < self.threads
                )
                and len(probes) < PROBES_PER_THREAD * self.threads
                and submit()
            ):
                pass

        try:
            fill()  # probes at first: their times size the chunks after them
            chunker.draw_ahead(self.connection.ready)
            while submitted:
                kind, key, value = self.connection.receive()
                chunk = submitted.pop(key)
                probes.discard(key)
                outcomes = _outcomes(kind, value, chunk)
                answered = [(t, o) for t, o in zip(chunk, outcomes, strict=True) if o is not None]
                if len(answered) < len(chunk):  # not started within its budget: cut anew
                    chunker.give_back(
                        [t for t, o in zip(chunk, outcomes, strict=True) if o is None]
                    )
                chunker.learn(chunk[0].backend, (outcome for _, outcome in answered))
                fill()  # before the rows: the workers solve on while they are written
                yield from answered
                chunker.draw_ahead(self.connection.ready)
                fill()
        finally:
            with contextlib.suppress(OSError):  # a pipe already broken: nothing to cancel
                for key in submitted:
                    self.connection.send(("cancel", key))


def _outcomes(kind: str, value: Any, chunk: list[Task]) -> list[Outcome | None]:
    """A finished chunk's outcomes (see :func:`_finished`), None for a task not started
    within the chunk's budget; a chunk whose workers died gives ERROR outcomes; a cluster
    that failed otherwise raises ClusterError."""
    if kind == "done":
        return [None if w is None else Outcome.received(w) for w in pickle.loads(value)]
    if kind == "killed":
        return [Outcome(Status.ERROR, value, host="") for _ in chunk]
    raise ClusterError(value)
