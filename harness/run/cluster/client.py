"""The Dask client's side of a cluster run: the process the harness forks to hold the
client (and a ``local:N`` cluster), and the harness's connection to it."""

from __future__ import annotations

import atexit
import contextlib
import gc
import logging
import multiprocessing
import queue
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

from harness.run.cluster.dask_worker import HOST_FACTS, host_environment, run_chunk, worker_facts
from harness.run.cluster.target import (
    DAEMON_SETTING,
    ClusterError,
    ClusterTarget,
    import_distributed,
)

#: Seconds to wait for a scheduler to answer, and for its first worker to join.
CONNECT_TIMEOUT_S = 5.0
#: Seconds the process holding the Dask client may take to connect (start a local cluster,
#: check the workers), and to stop.
START_TIMEOUT_S, CLOSE_TIMEOUT_S = 60.0, 30.0
#: Dask settings of the clusters the harness starts (``local:N``). Workers must be able to
#: start the solver processes (see :mod:`harness.run.cluster`), and are forked rather than spawned:
#: they
#: start in 0.3 s instead of 2-4 s of imports, which a 10,000-puzzle run of a fast backend
#: would feel. Dask's periodic work takes CPU from the solves on a machine whose every
#: core solves: its sampling profiler (every 10 ms), its system monitor (every 0.5 s, in
#: the scheduler, each nanny and each worker, with the host's disk I/O, and the GIL's
#: contention where gilknocker is installed; its figures only feed Dask's dashboard), the
#: event loops' health tick (every 20 ms) and the check of each worker's own memory (every
#: 0.1 s; a Dask worker holds a chunk at a time, its solver processes have their own limit).
LOCAL_CONFIG = {
    "distributed.worker.daemon": False,
    "distributed.worker.multiprocessing-method": "fork",
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.admin.system-monitor.disk": False,
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.admin.tick.interval": "200ms",
    "distributed.worker.memory.monitor-interval": "1s",
}
#: Seconds between a local cluster's nanny's looks at whether its worker process has
#: started. Dask's 0.05 s (``WorkerProcess._init_msg_interval``, private to it) kept each
#: start waiting ~20 ms more than it took; it is set in the process holding the cluster.
NANNY_POLL_S = 0.005


# --- in the process that holds the Dask client (see ClusterConnection) ---


@contextlib.contextmanager
def _client(target: ClusterTarget) -> Iterator[Any]:
    """A Dask ``Client`` for ``target`` with at least one worker; closed (and a local
    cluster stopped) on exit."""
    distributed = import_distributed()
    import dask

    local = target.local_workers
    quiet_dask_logs()
    with contextlib.ExitStack() as stack:
        try:
            if local is not None:
                stack.enter_context(dask.config.set(LOCAL_CONFIG))
                # Dask's version check: each worker looks up its packages' versions (~7 ms)
                # as it joins, unless they are known already, as they are once looked up
                # here, in the process the workers are forked from.
                versions = getattr(distributed, "versions", None)
                if callable(getattr(versions, "get_versions", None)):  # else Dask changed
                    versions.get_versions()
                worker_process = distributed.nanny.WorkerProcess
                if hasattr(worker_process, "_init_msg_interval"):  # else Dask changed: its own
                    worker_process._init_msg_interval = NANNY_POLL_S
                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=local,
                        threads_per_worker=1,
                        processes=True,
                        # no dashboard (nor bokeh's import, when installed); Dask's HTTP
                        # server on any free port, not 8787, which another cluster may hold
                        dashboard_address=":0",
                        scheduler_kwargs={"dashboard": False},
                        silence_logs=logging.ERROR,
                    )
                )
                client = stack.enter_context(distributed.Client(cluster))
            elif (refused := _refusal(target.address)) is not None:
                raise ClusterError(f"cannot use the Dask cluster at {target}: {refused}")
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
            reason = _first_line(exc) or type(exc).__name__
            raise ClusterError(f"cannot use the Dask cluster at {target}: {reason}") from None
        yield client


def _refusal(address: str | None) -> str | None:
    """Why a ``tcp://host:port`` scheduler cannot answer at all (nothing listens, no such
    host), found at once; None when it may answer (Dask then waits up to
    :data:`CONNECT_TIMEOUT_S`, and says why it gave up)."""
    if address is None or not address.startswith("tcp://"):
        return None
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not port.isdigit():
        return None
    try:
        with socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT_S):
            return None
    except ConnectionRefusedError:
        return "connection refused: nothing listens there"
    except socket.gaierror:
        return f"no such host: {host}"
    except OSError:  # slow or unreachable: Dask's own wait says so
        return None


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


def _checked_hosts(
    client: Any, warm: tuple[Any, ...] | None = None, local: bool = False
) -> dict[str, dict[str, Any] | None]:
    """Every worker's facts by host; refuses daemonic workers with what to set instead.
    ``warm``: what the workers warm up for meanwhile (see :func:`worker_facts`). A
    ``local`` cluster's workers are not asked for their environment (None): forked from
    this process, itself forked from the harness, they have the harness's."""
    facts = client.run(worker_facts, warm, not local)
    daemonic = sorted(address for address, fact in facts.items() if fact["daemon"])
    if daemonic:
        raise ClusterError(
            f"Dask worker(s) {', '.join(daemonic)} run as daemonic processes, which cannot "
            f"start the harness's solver processes; start each as `{DAEMON_SETTING} dask "
            "worker ...` (or set distributed.worker.daemon: False in its Dask config)"
        )
    return {fact["host"]: fact.get("environment") for fact in facts.values()}


def _serve(
    target: ClusterTarget, pipe: Connection, harness_end: Connection, adopted: bool = True
) -> None:
    """The process :class:`ClusterConnection` forks: connect to ``target`` (starting a
    local cluster), check its workers, answer ``("ready", threads, hosts)`` or
    ``("error", message)``, then relay chunks (see :func:`_relay`) until the harness
    closes its end of ``pipe`` or ends. Should the cluster fail after the answer, it says
    ``("failed", None, message)``: never a traceback on the harness's terminal. Unless
    ``adopted``, it imports Dask, then waits for the harness to take it over
    (:meth:`ClusterConnection.adopt`) before it starts or joins anything: see
    :func:`start_early`."""
    harness_end.close()  # else this process, and the workers it forks, would hold it open
    # Ctrl-C reaches the whole process group: the harness alone answers it (it says what
    # it did and closes the pipe, which stops this process). Here and in the Dask workers
    # this process forks (which keep this setting), it would only print Dask's tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ready = False
    try:
        import_distributed()  # the long part, before anything is started
        # What the import made lives as long as this process: out of the collector's
        # sight, here and in the Dask workers and solver processes forked from here
        # (which would otherwise scan it, and copy the pages it touches, on each pass).
        gc.freeze()
        if not adopted and pipe.recv()[0] != "adopt":  # EOF: the harness did not take it
            return
        warm = _warm_hint(pipe)
        with _client(target) as client:
            local = target.local_workers is not None
            hosts = _checked_hosts(client, warm or _warm_hint(pipe), local)
            pipe.send(("ready", sum(client.nthreads().values()) or 1, hosts))
            ready = True
            _relay(client, pipe)
    except ClusterError as exc:
        _tell_failure(pipe, ready, str(exc))
    except (EOFError, OSError):  # the harness closed its end first (its run stopped early,
        pass  # or never began: see start_early): nothing to say, no cluster to start
    except Exception as exc:  # Dask's own (a worker without the harness installed, ...)
        _tell_failure(pipe, ready, f"the Dask cluster {target} failed: {_described(exc)}")


def _warm_hint(pipe: Connection) -> tuple[Any, ...] | None:
    """What the harness asked the workers to warm up for (:meth:`ClusterConnection.warm`),
    if it has by now: the only message it sends before this process answers. Raises
    EOFError when the harness has closed its end."""
    return pipe.recv()[1:] if pipe.poll(0) else None


def _first_line(exc: BaseException) -> str:
    """The first line of what ``exc`` says ("" for nothing)."""
    return str(exc).partition("\n")[0]


def _described(exc: BaseException) -> str:
    """``exc`` in one line: its type, and the first line of what it says."""
    return ": ".join(filter(None, (type(exc).__name__, _first_line(exc))))


def _tell_failure(pipe: Connection, ready: bool, message: str) -> None:
    """Tell the harness why this process stops: ``("error", message)`` before it said it
    was ready, ``("failed", None, message)`` after (a failure of no chunk in particular)."""
    with contextlib.suppress(OSError):
        pipe.send(("failed", None, message) if ready else ("error", message))


def _relay(client: Any, pipe: Connection) -> None:
    """Submit each chunk the harness sends (``("submit", key, pickled tasks, memory
    limit, budget)``; ``("cancel", key)`` withdraws one); send back ``(kind, key,
    value)`` as each finishes (see :func:`_finished`); return when the harness closes its
    end."""
    distributed = sys.modules["distributed"]  # imported by _client, with its care
    finished: queue.SimpleQueue[tuple[int, Any] | None] = queue.SimpleQueue()
    futures: dict[int, Any] = {}

    def read() -> None:
        # Ends at the harness's end of the pipe, or when the client cannot go on: the
        # harness then sees this process end.
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
        return ("failed", key, f"the Dask cluster failed a chunk: {_described(exc)}")


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

    def __init__(self, target: ClusterTarget, adopted: bool = True) -> None:
        self.target = target
        context = multiprocessing.get_context("fork")
        self._pipe, theirs = context.Pipe()
        self._process = context.Process(
            target=_serve,
            args=(target, theirs, self._pipe, adopted),
            name="harness-dask-client",
        )
        self._process.start()
        theirs.close()
        #: Dask worker threads: each runs one solver process at a time.
        self.threads = 0
        #: Each worker host's environment (see :func:`worker_facts`); None for the host of
        #: a local cluster, whose environment is the harness's.
        self.hosts: dict[str, dict[str, Any] | None] = {}
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

    def adopt(self) -> None:
        """Let a process started unadopted (see :func:`start_early`) go on: start or join
        its cluster."""
        with contextlib.suppress(OSError):  # the process has ended: join() says why
            self._pipe.send(("adopt",))

    def warm(self, spec: str, box: int, memory_limit_mib: float | None) -> None:
        """Before :meth:`join`: have each Dask worker start its solver process and warm it up
        for ``spec`` at box side ``box`` while the cluster gets ready (see
        :mod:`harness.run.cluster.prewarm`). Too late (the cluster was up), it is
        ignored; it changes no row either way."""
        if not self._joined:
            with contextlib.suppress(OSError):  # the process has ended: join() says why
                self._pipe.send(("warm", spec, box, memory_limit_mib))

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
#: The connection :func:`start_early` started, not yet taken by :func:`start_in_background`.
_early: list[ClusterConnection] = []


def start_early(target: ClusterTarget) -> None:
    """Start connecting to ``target`` at the very start of the ``harness`` command, for
    :func:`start_in_background` to take over once the command line is parsed and checked.

    Dask's import, the longest part of a cluster run's start (~0.15 s), then overlaps the
    harness's own imports too (~30 ms more). The process imports Dask and then waits to be
    taken over (:meth:`ClusterConnection.adopt`) before it starts or joins any cluster. A
    run the parser or the checks refuse never takes it over: the harness ends (closing its
    end of the pipe, at exit at the latest, even on an unexpected exception), and the
    process ends without a word. A connection to another target than the one parsed, or
    to a cluster the parser did not see (an option's value), is never taken over either."""
    connection = ClusterConnection(target, adopted=False)
    atexit.register(connection.stop)  # before multiprocessing's exit waits for the process
    _early.append(connection)


@contextlib.contextmanager
def start_in_background(target: ClusterTarget) -> Iterator[ClusterConnection]:
    """Start connecting to ``target`` now (see :class:`ClusterConnection`), or take over the
    connection :func:`start_early` started to it, for :func:`connect` to take over; closed
    on exit, once its process has ended (when :func:`connect` took it over, that process
    stopped its cluster meanwhile)."""
    early = _early.pop() if _early else None
    if early is not None and early.target != target:
        early.stop()  # its process ends once Dask is imported, having started nothing
        early = None
    if early is not None:
        early.adopt()
    started = _started[target] = early or ClusterConnection(target)
    try:
        yield started
    finally:
        if _started.get(target) is started:
            del _started[target]
        started.close()


@contextlib.contextmanager
def connect(
    target: ClusterTarget, warm: tuple[str, int, float | None] | None = None
) -> Iterator[ClusterConnection]:
    """The cluster ``target``, its workers checked (the connection
    :func:`start_in_background` started, if any); closed (a local cluster stopped) on
    exit. Raises ClusterError when the cluster cannot be used. ``warm``: (spec, box,
    memory limit) to warm the workers up for, as :meth:`ClusterConnection.warm`.

    A connection :func:`start_in_background` started is only stopped here: its cluster
    shuts down (~40 ms for ``local:N``) while the harness writes its tables, and
    :func:`start_in_background` waits for it on its own exit."""
    started = _started.pop(target, None)
    connection = started or ClusterConnection(target)
    if warm is not None:
        connection.warm(*warm)
    try:
        yield connection.join()
    finally:
        if started is not None:
            connection.stop()
        else:
            connection.close()


def check_workers(connection: ClusterConnection, own: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every worker's environment by host, as checked before ``connection`` answered
    (daemonic workers are refused then, with what to set instead); ``own`` (the harness's
    :func:`~harness.results.provenance.environment`) for a local cluster's host."""
    hosts = connection.join().hosts
    return {host: host_environment(own) if env is None else env for host, env in hosts.items()}


def hosts_meta(hosts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The ``.meta.json`` entry: each host's environment, and which parts differ."""
    differ = sorted(
        key
        for key in HOST_FACTS
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
