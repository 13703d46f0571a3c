"""Solving on a Dask cluster (``harness run --cluster``): the same rows, limits and checks.

What stays in the harness process: planning, the independent check of every answer
(:func:`harness.judge.judge`), the cross-check, the resume keys and the CSV writer. Only
the harness process writes the CSV. What goes to the cluster: *chunks*, each a list of
tasks of one backend, sized to about :data:`CHUNK_TARGET_S` of solving from the times seen
so far, through a bounded window of futures. Rows are written as chunks come back.

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
import multiprocessing
import socket
import threading
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backends.base import Status
from backends.errors import SudokuError
from harness import provenance
from harness.worker import Outcome, Task, WorkerPool

INSTALL_HINT = "pip install 'sudoku-harness[dask]'"
#: Seconds to wait for a scheduler to answer, and for its first worker to join.
CONNECT_TIMEOUT_S = 5.0
#: Seconds of solving one chunk aims at (see :func:`chunk_size`).
CHUNK_TARGET_S = 1.0
#: Tasks in a chunk of a backend not timed yet, and the most in any chunk.
FIRST_CHUNK, MAX_CHUNK = 4, 4096
#: Chunks in flight per Dask worker thread: one running, one queued behind it.
WINDOW_PER_THREAD = 2
#: What a Dask worker started by hand needs, for the message that refuses it.
DAEMON_SETTING = "DASK_DISTRIBUTED__WORKER__DAEMON=False"


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
                # Workers must be able to start the solver processes (see the module doc),
                # and are forked rather than spawned: they start in 0.3 s instead of 2-4 s of
                # imports, which a 10,000-puzzle run of a fast backend would feel.
                local_config = {
                    "distributed.worker.daemon": False,
                    "distributed.worker.multiprocessing-method": "fork",
                }
                stack.enter_context(dask.config.set(local_config))
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


def run_chunk(tasks: list[Task], memory_limit_mib: float | None) -> tuple[str, list[Outcome]]:
    """Run on a Dask worker: solve ``tasks`` in this thread's warm pool; outcomes in order.

    Each task's ``tag`` is its index in the chunk (the harness keeps the real tags).
    """
    if multiprocessing.current_process().daemon:
        raise ClusterError(f"this Dask worker is daemonic; start it with {DAEMON_SETTING}")
    pool = getattr(_local, "pool", None)
    if pool is None or pool.memory_limit_mib != memory_limit_mib:
        if pool is not None:
            pool.close()
        pool = _local.pool = WorkerPool(1, memory_limit_mib)
    outcomes: list[Outcome] = [Outcome(Status.ERROR, "not run")] * len(tasks)
    for task, outcome in pool.run(tasks):
        outcomes[task.tag] = outcome
    return socket.gethostname(), outcomes


# --- in the harness process ---


def chunk_size(mean_s: float | None) -> int:
    """Tasks per chunk: about CHUNK_TARGET_S of solving at ``mean_s`` a task."""
    if mean_s is None:
        return FIRST_CHUNK
    return max(1, min(MAX_CHUNK, int(CHUNK_TARGET_S / max(mean_s, 1e-6))))


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
        self._seconds: dict[str, float] = defaultdict(float)  # per backend spec
        self._count: dict[str, int] = defaultdict(int)

    def _mean(self, spec: str) -> float | None:
        return self._seconds[spec] / self._count[spec] if self._count[spec] else None

    def _learn(self, spec: str, outcomes: Iterable[Outcome]) -> None:
        for outcome in outcomes:
            self._seconds[spec] += outcome.wall_s or 0.0
            self._count[spec] += 1

    def _chunks(self, tasks: Iterator[Task]) -> Iterator[list[Task]]:
        """Tasks grouped by backend, each group cut when it reaches its chunk size."""
        buffers: dict[str, list[Task]] = defaultdict(list)
        for task in tasks:
            buffer = buffers[task.backend]
            buffer.append(task)
            if len(buffer) >= chunk_size(self._mean(task.backend)):
                yield buffers.pop(task.backend)
        yield from (buffer for buffer in buffers.values() if buffer)

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[Task, Outcome]]:
        """Run ``tasks`` (drawn lazily) on the cluster; yield each with its outcome."""
        distributed = _dask()
        chunks = self._chunks(iter(tasks))
        in_flight = distributed.as_completed()
        submitted: dict[Any, list[Task]] = {}

        def submit() -> bool:
            chunk = next(chunks, None)
            if chunk is None:
                return False
            wire = [Task(t.backend, t.puzzle, t.limit, t.timeout, i) for i, t in enumerate(chunk)]
            future = self.client.submit(run_chunk, wire, self.memory_limit_mib, pure=False)
            submitted[future] = chunk
            in_flight.add(future)
            return True

        try:
            while len(submitted) < self.window and submit():
                pass
            for future in in_flight:
                chunk = submitted.pop(future)
                yield from self._collect(future, chunk)
                while len(submitted) < self.window and submit():
                    pass
        finally:
            for future in submitted:
                future.cancel()

    def _collect(self, future: Any, chunk: list[Task]) -> Iterator[tuple[Task, Outcome]]:
        """The chunk's outcomes; a chunk the cluster could not run gives ERROR outcomes."""
        distributed = _dask()
        try:
            host, outcomes = future.result()
        except distributed.KilledWorker as exc:
            message = f"the Dask workers running this chunk died ({exc})"
            host, outcomes = "", [Outcome(Status.ERROR, message) for _ in chunk]
        except ClusterError:
            raise
        except Exception as exc:  # the cluster's own failure (lost scheduler, ...): stop here
            message = f"the Dask cluster failed a chunk: {type(exc).__name__}: {exc}"
            raise ClusterError(message) from None
        self._learn(chunk[0].backend, outcomes)
        for task, outcome in zip(chunk, outcomes, strict=True):
            yield task, outcome._replace(host=host)
