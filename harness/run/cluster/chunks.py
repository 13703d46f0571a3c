"""How a cluster run cuts its tasks into chunks (:class:`Chunker`) and sends them through
the connection (:class:`ClusterPool`)."""

from __future__ import annotations

import contextlib
import itertools
import math
import pickle
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from backends.base import Status
from harness.outcome import Outcome
from harness.run.cluster.client import ClusterConnection
from harness.run.cluster.target import ClusterError
from harness.run.worker import Task
from harness.run.worker.handle import kill_grace

#: Seconds of solving one chunk aims at, and the least the last chunks shrink to (see
#: :class:`Chunker`): the least is about one round trip of a chunk through Dask on one
#: machine, so that the chunk queued behind a running one covers most of that trip.
CHUNK_TARGET_S, MIN_CHUNK_S = 1.0, 0.025
#: Tasks in a chunk of a backend not timed yet (a probe), and the most in any chunk.
FIRST_CHUNK, MAX_CHUNK = 128, 4096
#: Seconds after which a probe, once at its Dask worker, starts no new task (see
#: :func:`~harness.run.cluster.dask_worker.run_chunk`), and how many times its planned seconds
#: a timed chunk may take so.
PROBE_S, BUDGET_FACTOR = 0.05, 2.0
#: Probes in flight per Dask worker thread: the second covers the first's round trip.
PROBES_PER_THREAD = 2
#: Full chunks per worker thread drawn ahead of those sent, and the most tasks drawn ahead.
LOOKAHEAD_CHUNKS, MAX_LOOKAHEAD = 4, 65536
#: Tasks drawn ahead between two looks at whether a chunk came back.
DRAW_STEP = 256
#: Chunks in flight per Dask worker thread: one running, one queued behind it.
WINDOW_PER_THREAD = 2
#: Times a task is sent again after the Dask worker holding it fell silent; the last time,
#: its row is ERROR: no worker answered for it (a worker's stall says nothing of the solve).
MAX_STALLS = 3


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
    as :class:`~harness.run.worker.WorkerPool` does for local processes. Each outcome also
    names the ``host`` that solved it."""

    def __init__(self, connection: ClusterConnection, memory_limit_mib: float | None) -> None:
        self.connection = connection.join()
        self.memory_limit_mib = memory_limit_mib
        #: Dask worker threads: each runs one solver process at a time.
        self.threads = connection.threads

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Outcome]]:
        """Run ``tasks`` (drawn lazily) on the cluster; yield each with its outcome."""
        for batch in self.batches(tasks):
            yield from batch

    def batches(self, tasks: Iterable[Task]) -> Iterator[list[tuple[Task, Outcome]]]:
        """Run ``tasks`` (drawn lazily) on the cluster; yield them with their outcomes, a
        chunk's at a time."""
        flight = _Flight(self.connection, Chunker(tasks, self.threads), self.memory_limit_mib)
        try:
            flight.fill()  # probes at first: their times size the chunks after them
            flight.chunker.draw_ahead(self.connection.ready)
            while flight.submitted:
                answered = flight.receive()
                flight.fill()  # before the rows: the workers solve on while they are written
                if answered:
                    yield answered
                flight.chunker.draw_ahead(self.connection.ready)
                flight.fill()
        finally:
            flight.cancel()


class _Flight:
    """One run's chunks in flight: sent through ``connection`` and not come back yet."""

    def __init__(
        self, connection: ClusterConnection, chunker: Chunker, memory_limit_mib: float | None
    ) -> None:
        self.connection, self.chunker = connection, chunker
        self.memory_limit_mib = memory_limit_mib
        self.threads = connection.threads
        self.window = WINDOW_PER_THREAD * self.threads
        self.keys = itertools.count()
        self.submitted: dict[int, list[Task]] = {}  # by key
        self.probes: set[int] = set()  # the keys of chunks of a backend not timed yet
        #: Times each task (by id) was held by a worker that fell silent, while it is not
        #: answered.
        self.stalls: dict[int, int] = {}

    def submit(self) -> bool:
        """Send the next chunk; False when every task has been sent."""
        chunk = self.chunker.next()
        if chunk is None:
            return False
        key = next(self.keys)
        sent = pickle.dumps([task.wire() for task in chunk], pickle.HIGHEST_PROTOCOL)
        budget = self.chunker.budget(chunk)
        limit = max(_kill_limit(task.timeout) for task in chunk)
        self.connection.send(("submit", key, sent, self.memory_limit_mib, budget, limit))
        self.submitted[key] = chunk
        if self.chunker.mean(chunk[0].backend) is None:
            self.probes.add(key)
        return True

    def fill(self) -> None:
        """Send chunks while there is room. A chunk queued at a worker stays there: until
        the tasks have been drawn ahead (the end is in sight), one timed chunk per thread,
        none queued early. Probes (short: see PROBE_S) are not counted, but a few at most
        are in flight."""
        while (
            (
                len(self.submitted) < self.window
                if self.chunker.ahead
                else len(self.submitted) - len(self.probes) < self.threads
            )
            and len(self.probes) < PROBES_PER_THREAD * self.threads
            and self.submit()
        ):
            pass

    def receive(self) -> list[tuple[Task, Outcome]]:
        """Wait for the next chunk to come back: its tasks with their outcomes. Those not
        started within its budget go back to the chunker, to be cut anew, and so do those
        of a chunk whose worker fell silent (see :meth:`stalled`)."""
        kind, key, value = self.connection.receive()
        if key is None:  # the process holding the client failed, not a chunk
            raise ClusterError(value)
        chunk = self.submitted.pop(key)
        self.probes.discard(key)
        if kind == "silent":
            return self.stalled(chunk, value)
        answered: list[tuple[Task, Outcome]] = []
        left: list[Task] = []
        for task, outcome in zip(chunk, _outcomes(kind, value, chunk), strict=True):
            if outcome is None:
                left.append(task)
            else:
                answered.append((task, outcome))
        if left:
            self.chunker.give_back(left)
        if self.stalls:
            for task, _ in answered:
                self.stalls.pop(id(task), None)
        self.chunker.learn(chunk[0].backend, (outcome for _, outcome in answered))
        return answered

    def stalled(self, chunk: list[Task], message: str) -> list[tuple[Task, Outcome]]:
        """A chunk whose Dask worker fell silent (see :mod:`harness.run.cluster.relay`): its
        tasks go back to be sent again, to the other workers; a task held so
        :data:`MAX_STALLS` times is ERROR (its solves were never seen to overrun: those
        that do come back TIMEOUT from the worker that ran them)."""
        again: list[Task] = []
        given_up: list[tuple[Task, Outcome]] = []
        for task in chunk:
            count = self.stalls[id(task)] = self.stalls.get(id(task), 0) + 1
            if count < MAX_STALLS:
                again.append(task)
            else:
                del self.stalls[id(task)]
                said = f"{message}; no Dask worker answered for it in {count} tries"
                given_up.append((task, Outcome(Status.ERROR, said, host="")))
        if again:
            self.chunker.give_back(again)
        return given_up

    def cancel(self) -> None:
        """Withdraw every chunk still in flight."""
        with contextlib.suppress(OSError):  # a pipe already broken: nothing to cancel
            for key in self.submitted:
                self.connection.send(("cancel", key))


def _kill_limit(timeout: float | None) -> float:
    """Seconds a task with ``timeout`` may run before its solver process is killed."""
    return math.inf if timeout is None else timeout + kill_grace(timeout)


def _outcomes(kind: str, value: Any, chunk: list[Task]) -> list[Outcome | None]:
    """A finished chunk's outcomes (see :meth:`harness.run.cluster.relay.Relay.finished`),
    None for a task not started within the chunk's budget; a chunk whose workers died gives
    ERROR outcomes; a cluster that failed otherwise raises ClusterError."""
    if kind == "done":
        return [None if w is None else Outcome.received(w) for w in pickle.loads(value)]
    if kind == "killed":
        return [Outcome(Status.ERROR, value, host="") for _ in chunk]
    raise ClusterError(value)
