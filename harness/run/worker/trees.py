"""Solves of backends in the ``backends`` of a given tree (``harness run --against REV``,
``harness history run``).

A run against a git revision routes both sides of each pair here (:func:`route`, in the
harness process before any worker is forked): the old code's ``SPEC@REV`` to the tree at
REV, ``SPEC`` to the tree this harness imports ``backends`` from. A worker hands such a task
to a process of its own for that tree (:class:`TreeProcess`): a fresh interpreter whose
``backends`` package is imported from the tree (a finder ahead of every other on its meta
path) while its measuring code, :mod:`harness.run.worker.measure`, stays the current one.
That process warms up, encodes, solves and times the task exactly as a worker does and sends
the outcome back; the worker answers the parent with it as with its own. So an old and a new
solve are started, warmed up and timed alike, in processes of one kind, under the same
limits: the parent's clock, its kills and its memory checks cover the worker and every
process it started.

The tree's process is started during the task's untimed warm-up, and started again after it
died or once it has measured its share of the run (see :func:`entry_points`); it is in the
worker's process group (killed with it), and it and every process it starts die when the
worker ends. Its answers are frames the worker parses without running anything
(:mod:`harness.run.worker.wire`). The harness checks a tree before a run in such a process
too, isolated (:class:`TreeProcess`): its own session, a time limit, and its output read as
it comes, never the harness's.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from harness.outcome import Outcome
from harness.run.worker.reaper import MEMORY_POLL_S, rss_mib
from harness.run.worker.wire import Malformed, Reader, send

#: The last bytes of an isolated tree process's output kept, for its last line.
OUTPUT_KEPT = 4096

#: The project root whose harness a tree's process runs (this file's).
ROOT = str(Path(__file__).resolve().parents[3])
#: spec as the run names it (``mrv@HEAD~1``) -> (the spec in its tree, the tree's root).
ROUTES: dict[str, tuple[str, str]] = {}
#: The most tasks a tree's process measures before a fresh one takes over: a number drawn
#: from this range for each process ...
TASKS = (10, 30)
#: ... or this many seconds of tasks, if they come first ...
LIFETIME_S = 0.1
#: ... but at least the seconds its tree's earlier processes measured, over this (see
#: :func:`entry_points`).
SPREAD = 16
#: Where an answer holds the task's whole time in the process that measured it.
_WALL = Outcome._fields.index("wall_s")

#: A tree's process: ``backends`` from the tree (argv[1]), the harness from ROOT (argv[2]);
#: only the worker's measuring modules are imported (not the package's pool), so an older
#: tree needs nothing of the current ``backends`` but the contract they use. It is a
#: subreaper from its first line, its processes killed when it ends or its asker does.
BOOT = """
import importlib.machinery, sys, types
tree, root, fd_in, fd_out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path[:] = [root, *(p for p in sys.path if p not in ("", root, tree))]
class TreeFinder:  # backends and its modules from the tree only, never another finder's
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "backends" and not name.startswith("backends."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, [tree] if path is None else path)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r} in {tree}", name=name)
        return spec
sys.meta_path.insert(0, TreeFinder)
worker = types.ModuleType("harness.run.worker")
worker.__path__ = [root + "/harness/run/worker"]
sys.modules["harness.run.worker"] = worker
from harness.run.worker import reaper
reaper.install(fd_in)  # before the tree's code runs: what it starts is this process's
try:
    from harness.run.worker.trees import serve
    serve(fd_in, fd_out)
finally:  # however it ends: nothing it started stays
    import os
    reaper.kill_descendants(os.getpid())
"""


def route(spec: str, spec_in_tree: str, tree: Path | str) -> None:
    """Have workers run ``spec``'s tasks as ``spec_in_tree`` with the ``backends`` of
    ``tree``."""
    ROUTES[spec] = (spec_in_tree, str(tree))


class TreeProcess:
    """A process that imports ``backends`` from ``tree`` and answers requests in order:
    ``("warm", wire)``, ``("measure", wire)`` and ``("check", specs)`` (see :func:`serve`).

    Requests go to it pickled; its answers come back in frames the asker parses without
    running anything (:mod:`harness.run.worker.wire`): the tree's code runs in it and could
    write to that pipe. It is a subreaper whose processes die with it, and it dies, with
    them, when the asker ends or closes its pipe (:mod:`harness.run.worker.reaper`)."""

    def __init__(self, tree: str, isolated: bool = False) -> None:
        """``isolated`` (the harness's own check of a tree, outside any worker): a session of
        its own, killed whole at :meth:`close`, with its output read as it comes, its last
        :data:`OUTPUT_KEPT` bytes kept (see :meth:`last_error`), never this process's."""
        self.tree = tree
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        out_r, out_w = os.pipe() if isolated else (None, None)
        # -B: no bytecode written into the tree, which holds nothing but what git tracks
        command = [sys.executable, "-B", "-c", BOOT, tree, ROOT, str(down_r), str(up_w)]
        try:
            self.proc = subprocess.Popen(
                command,
                pass_fds=(down_r, up_w),
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=out_w,
                start_new_session=isolated,
            )
        finally:
            for fd in (down_r, up_w, out_w):
                if fd is not None:
                    os.close(fd)
        self._requests = Connection(down_w, readable=False)
        self._answers = Reader(up_r, checked=_as_is)
        self._output = out_r  # isolated: the read end of its output
        if out_r is not None:
            os.set_blocking(out_r, False)
        self._said = b""  # the end of its output (isolated)

    def ask(
        self,
        kind: str,
        argument: Any,
        timeout: float | None = None,
        memory_mib: float | None = None,
    ) -> Any:
        """Send one request, wait for its answer; raises EOFError (or OSError) when the
        process died, :class:`~harness.run.worker.wire.Malformed` when it answered what is no
        frame, TimeoutError when it gave no answer within ``timeout`` seconds, MemoryError
        when it and the processes it started held more than ``memory_mib`` resident (looked
        at as often as a worker's)."""
        self._requests.send((kind, argument))
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            items = self._answers.read()
            if items:
                return items[0]
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError
            if memory_mib is not None:
                if rss_mib(self.proc.pid) > memory_mib:
                    raise MemoryError
                left = MEMORY_POLL_S if left is None else min(left, MEMORY_POLL_S)
            waited = [self._answers] if self._output is None else [self._answers, self._output]
            if self._output in select.select(waited, [], [], left)[0]:
                self._take_output()

    def _take_output(self) -> None:
        """Read what the process wrote (isolated), keeping its end."""
        with contextlib.suppress(OSError):
            while data := os.read(self._output, 1 << 16):  # type: ignore[arg-type]
                self._said = (self._said + data)[-OUTPUT_KEPT:]
                if len(data) < 1 << 16:
                    return
            os.close(self._output)  # type: ignore[arg-type]
            self._output = None

    def death(self) -> str:
        """Why the process ended, in words, once it has."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(1.0)
        code = self.proc.returncode
        if code is None:
            return "the process of the old tree stopped answering"
        if code < 0:
            return f"the process of the old tree was killed by signal {-code}"
        return f"the process of the old tree exited with code {code} (its output is in the log)"

    def last_error(self) -> str:
        """The last line the process wrote (isolated), once it has ended."""
        if self._output is not None:
            self._take_output()
        lines = self._said.decode(errors="replace").strip().splitlines()
        return lines[-1][:200] if lines else ""

    def close(self) -> None:
        """Close its pipes: it ends, and its watcher kills every process it started (see
        :func:`serve`); killed after 5 s if it has not. Isolated, its session is killed too."""
        self._requests.close()
        self._answers.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5.0)
        if self.proc.returncode is None:
            self.proc.kill()
            self.proc.wait()
        if self._output is not None:
            os.close(self._output)
            self._output = None
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)


def _as_is(item: Any) -> Any:
    """An item of a tree process's answer, taken as it is (each request checks its own)."""
    return item


class _Remote:
    """Stands in a worker's backend cache for a routed spec: whether its process is gone
    (the worker then warms it up again, starting a new one)."""

    def __init__(self, stale: bool) -> None:
        self.stale = stale


def entry_points(measure: Callable, warm_up: Callable) -> tuple[Callable, Callable]:
    """A worker's ``measure`` and ``warm_up``: the given ones when nothing is routed, else
    ones that send routed specs' tasks to their tree's process (started on first use).

    Each interpreter runs at a speed of its own, steady through its life (where its code
    and data lie in memory: about 1 % from one to the next), so one side of a pair measured
    in one process would carry its offset into every ratio. A tree's process is therefore
    replaced once it has measured a number of tasks drawn from :data:`TASKS` for it, or
    :data:`LIFETIME_S` seconds of them, whichever comes first, but never before it has
    measured the time its tree's earlier processes measured over :data:`SPREAD`: every spec
    of the tree is warmed up again, untimed, and the first warm-up starts a fresh process.
    The offsets of many processes average out; a short run starts dozens a side, a long one
    a few dozen more per tenfold length. The count is drawn, not fixed: with one count for
    both sides, both are replaced on the same turn of the plan's alternation each time, the
    same side first, and the pair leans (about 0.5 % for 0.3 ms solves)."""
    if not ROUTES:
        return measure, warm_up
    processes: dict[str, TreeProcess] = {}
    served: dict[str, float] = {}  # tree -> seconds of tasks its process has measured
    before: dict[str, float] = {}  # tree -> seconds of tasks its earlier processes measured
    left: dict[str, int] = {}  # tree -> tasks its process measures at most from now
    draw = random.Random()

    def spent(tree: str) -> bool:
        if served[tree] < before[tree] / SPREAD:
            return False
        return left[tree] <= 0 or served[tree] >= LIFETIME_S

    def ask(spec: str, kind: str, wire: tuple) -> tuple[Any, str | None]:
        spec_in_tree, tree = ROUTES[spec]
        process = processes.get(tree)
        if process is not None and kind == "warm" and spent(tree):
            del processes[tree]
            process.close()
            process = None
        if process is None:
            process = processes[tree] = TreeProcess(tree)
            before[tree] = before.get(tree, 0.0) + served.get(tree, 0.0)
            served[tree], left[tree] = 0.0, draw.randint(*TASKS)
        try:
            return process.ask(kind, (spec_in_tree, *wire[1:])), None
        except (EOFError, OSError, Malformed):
            del processes[tree]
            reason = process.death()
            process.close()
            return None, reason

    def routed_warm_up(wire: tuple, state: Any) -> str | None:
        if wire[0] not in ROUTES:
            return warm_up(wire, state)
        key = (wire[0], wire[1])
        state.warmed.add(key)
        failure, died = ask(wire[0], "warm", wire)
        state.cache[wire[0]] = _Remote(died is not None)
        if died is not None:
            failure = f"warm-up failed: {died}"
        if failure is not None:
            state.broken[key] = failure
        return failure

    def routed_measure(wire: tuple, state: Any) -> tuple:
        if wire[0] not in ROUTES:
            return measure(wire, state)
        answer, died = ask(wire[0], "measure", wire)
        if died is not None:
            from backends.base import Status

            state.cache[wire[0]] = _Remote(True)
            return Outcome(Status.ERROR, died).wire()
        outcome, stale = answer  # as JSON made it: a list, the solution hex (sent on as it is)
        state.cache[wire[0]] = _Remote(stale)
        tree = ROUTES[wire[0]][1]
        served[tree] += outcome[_WALL] if type(outcome[_WALL]) is float else 0.0
        left[tree] -= 1
        if spent(tree):  # each of its specs warmed up again, in a new process
            retired = [key for key in state.warmed if ROUTES.get(key[0], ("", ""))[1] == tree]
            state.warmed.difference_update(retired)
        return tuple(outcome)

    return routed_measure, routed_warm_up


def serve(fd_in: int, fd_out: int) -> None:
    """A tree's process (see :data:`BOOT`): answer requests until the asker closes its
    end."""
    from harness.run.worker.measure import WorkerState, measure, warm_up

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's to handle
    requests = Connection(fd_in, writable=False)
    state = WorkerState()
    while True:
        try:
            kind, argument = requests.recv()
        except (EOFError, OSError):
            return
        if kind == "measure":
            outcome = measure(argument, state)
            answer: Any = [outcome, bool(getattr(state.cache.get(argument[0]), "stale", 0))]
        elif kind == "warm":
            answer = warm_up(argument, state)
        else:
            answer = check(argument)
        send(fd_out, [answer])


def check(specs: list[str]) -> dict[str, Any]:
    """Whether this process's ``backends`` can build each of ``specs`` and run them: spec
    -> None, or why not; and where ``backends`` came from."""
    import backends

    problems: dict[str, str | None] = {}
    for spec in specs:
        try:
            backend = backends.make_backend(spec)
            reason = type(backend).available()
        except Exception as exc:
            reason = str(exc) or type(exc).__name__
        problems[spec] = reason
    return {"backends": backends.__file__, "problems": problems}
