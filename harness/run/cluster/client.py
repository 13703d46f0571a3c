"""The Dask client's side of a cluster run: the process the harness forks to hold the
client (and a ``local:N`` cluster), and the harness's connection to it."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import socket
import time
from collections.abc import Iterable, Iterator
from multiprocessing.connection import Connection
from typing import Any

from harness.run.cluster.dask_worker import HOST_FACTS, host_environment, worker_facts
from harness.run.cluster.relay import Relay, describe
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
#: start the solver processes (see :mod:`harness.run.cluster`), and are forked rather than
#: spawned, which would import everything again in each. Dask's periodic work takes CPU
#: from the solves on a machine whose every core solves: its sampling profiler, its system
#: monitor (its figures only feed Dask's dashboard), the event loops' health tick and the
#: check of each worker's own memory (a Dask worker holds a chunk at a time, its solver
#: processes have their own limit) run less often or not at all.
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
            reason = str(exc).partition("\n")[0] or type(exc).__name__
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
    client: Any, local: bool, packages: tuple[str, ...]
) -> dict[str, dict[str, Any] | None]:
    """Every worker's facts by host, with the versions of ``packages`` there; refuses
    daemonic workers with what to set instead. A ``local`` cluster's workers are not asked
    for their environment (None): forked from this process, itself forked from the harness,
    they have the harness's."""
    facts = client.run(worker_facts, not local, packages)
    daemonic = sorted(address for address, fact in facts.items() if fact["daemon"])
    if daemonic:
        raise ClusterError(
            f"Dask worker(s) {', '.join(daemonic)} run as daemonic processes, which cannot "
            f"start the harness's solver processes; start each as `{DAEMON_SETTING} dask "
            "worker ...` (or set distributed.worker.daemon: False in its Dask config)"
        )
    return {fact["host"]: fact.get("environment") for fact in facts.values()}


def _serve(
    target: ClusterTarget, packages: tuple[str, ...], pipe: Connection, harness_end: Connection
) -> None:
    """The process :class:`ClusterConnection` forks: connect to ``target`` (starting a
    local cluster), check its workers, answer ``("ready", threads, hosts)`` or
    ``("error", message)``, then relay chunks (see :class:`~harness.run.cluster.relay.Relay`)
    until the harness closes its end of ``pipe`` or ends. Should the cluster fail after the
    answer, it says ``("failed", None, message)``: never a traceback on the harness's
    terminal."""
    harness_end.close()  # else this process, and the workers it forks, would hold it open
    # Ctrl-C reaches the whole process group: the harness alone answers it (it says what
    # it did and closes the pipe, which stops this process). Here and in the Dask workers
    # this process forks (which keep this setting), it would only print Dask's tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ready = False
    try:
        with _client(target) as client:
            hosts = _checked_hosts(client, target.local_workers is not None, packages)
            pipe.send(("ready", sum(client.nthreads().values()) or 1, hosts))
            ready = True
            Relay(client, pipe).run()
    except ClusterError as exc:
        _tell_failure(pipe, ready, str(exc))
    except (EOFError, OSError):  # the harness closed its end first (its run stopped early):
        pass  # nothing to say
    except Exception as exc:  # Dask's own (a worker without the harness installed, ...)
        _tell_failure(pipe, ready, f"the Dask cluster {target} failed: {describe(exc)}")


def _tell_failure(pipe: Connection, ready: bool, message: str) -> None:
    """Tell the harness why this process stops: ``("error", message)`` before it said it
    was ready, ``("failed", None, message)`` after (a failure of no chunk in particular)."""
    with contextlib.suppress(OSError):
        pipe.send(("failed", None, message) if ready else ("error", message))


# --- in the harness process ---


class ClusterConnection:
    """The harness's side of a Dask cluster: a process forked now holds the Dask client
    (and, for ``local:N``, the LocalCluster), and relays chunks through a pipe.

    Dask is imported and the cluster started in that process, never in the harness's, so
    the harness never imports Dask, and the client's own threads and event loop stay out
    of the process that forks the solver processes. It is forked before the harness starts
    any thread: forking while another thread runs (holding a lock, or a pipe to a starting
    subprocess) can hang the child. :meth:`join` waits for the process's answer: it raises
    the ClusterError that stopped it (Dask not installed, a scheduler that does not
    answer, daemonic workers); :attr:`threads` and :attr:`hosts` are known from then on.
    """

    def __init__(self, target: ClusterTarget, packages: Iterable[str] = ()) -> None:
        self.target = target
        context = multiprocessing.get_context("fork")
        self._pipe, theirs = context.Pipe()
        self._process = context.Process(
            target=_serve,
            args=(target, tuple(packages), theirs, self._pipe),
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

    def close(self) -> None:
        """Close the pipe: the process stops its client (and local cluster) and ends;
        wait for it, and kill it after :data:`CLOSE_TIMEOUT_S`."""
        self._pipe.close()
        self._process.join(CLOSE_TIMEOUT_S)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


@contextlib.contextmanager
def connect(target: ClusterTarget, packages: Iterable[str] = ()) -> Iterator[ClusterConnection]:
    """A connection to the cluster ``target``, its process forked at once (see
    :class:`ClusterConnection`; :meth:`~ClusterConnection.join` waits for its answer; each
    host's environment records the versions of ``packages``); closed (a local cluster
    stopped) on exit."""
    connection = ClusterConnection(target, packages)
    try:
        yield connection
    finally:
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
