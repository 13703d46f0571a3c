"""Solves of backends as they were in another tree (``harness run --against REV``).

A run against a git revision names the old code's backends ``SPEC@REV`` and routes them
here (:func:`route`, in the harness process before any worker is forked). A worker hands
such a task to a process of its own for that tree (:class:`TreeProcess`): a fresh
interpreter whose ``backends`` package is imported from the tree (a finder ahead of every
other on its meta path) while its measuring code, :mod:`harness.run.worker.measure`, stays
the current one. That process encodes, solves and times the task exactly as a worker does
and sends the outcome back; the worker answers the parent with it as with its own. So an old
and a new solve are timed by the same code, under the same limits: the parent's clock, its
kills and its memory checks cover the worker and every process it started.

The tree's process is started during the task's untimed warm-up, and started again after it
died; it is in the worker's process group (killed with it) and dies with the worker.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

#: The project root whose harness a tree's process runs (this file's).
ROOT = str(Path(__file__).resolve().parents[3])
#: spec as the run names it (``mrv@HEAD~1``) -> (the spec in its tree, the tree's root).
ROUTES: dict[str, tuple[str, str]] = {}

#: A tree's process: ``backends`` from the tree (argv[1]), the harness from ROOT (argv[2]);
#: only the worker's measuring modules are imported (not the package's pool), so an older
#: tree needs nothing of the current ``backends`` but the contract they use.
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
from harness.run.worker.trees import serve
serve(fd_in, fd_out)
"""


def route(spec: str, spec_in_tree: str, tree: Path | str) -> None:
    """Have workers run ``spec``'s tasks as ``spec_in_tree`` with the ``backends`` of
    ``tree``."""
    ROUTES[spec] = (spec_in_tree, str(tree))


class TreeProcess:
    """A process that imports ``backends`` from ``tree`` and answers requests in order:
    ``("warm", wire)``, ``("measure", wire)`` and ``("check", specs)`` (see :func:`serve`)."""

    def __init__(self, tree: str, quiet: bool = False) -> None:
        """``quiet``: keep the process's error output (see :meth:`last_error`) instead of
        letting it reach this process's stderr."""
        self.tree = tree
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        # -B: no bytecode written into the tree, which holds nothing but what git tracks
        command = [sys.executable, "-B", "-c", BOOT, tree, ROOT, str(down_r), str(up_w)]
        try:
            self.proc = subprocess.Popen(
                command,
                pass_fds=(down_r, up_w),
                stdin=subprocess.DEVNULL,
                stderr=subprocess.PIPE if quiet else None,
            )
        finally:
            os.close(down_r)
            os.close(up_w)
        self._requests = Connection(down_w, readable=False)
        self._answers = Connection(up_r, writable=False)

    def ask(self, kind: str, argument: Any) -> Any:
        """Send one request, wait for its answer; raises EOFError (or OSError) when the
        process died."""
        self._requests.send((kind, argument))
        return self._answers.recv()

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
        """The last line the process wrote to its stderr, once it has ended (``quiet``)."""
        if self.proc.stderr is None:
            return ""
        lines = self.proc.stderr.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else ""

    def close(self) -> None:
        if self.proc.stderr is not None:
            self.proc.stderr.close()
        for end in (self._requests, self._answers):
            end.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5.0)
        if self.proc.returncode is None:
            self.proc.kill()
            self.proc.wait()


class _Remote:
    """Stands in a worker's backend cache for a routed spec: whether its process is gone
    (the worker then warms it up again, starting a new one)."""

    def __init__(self, stale: bool) -> None:
        self.stale = stale


def entry_points(measure: Callable, warm_up: Callable) -> tuple[Callable, Callable]:
    """A worker's ``measure`` and ``warm_up``: the given ones when nothing is routed, else
    ones that send routed specs' tasks to their tree's process (started on first use)."""
    if not ROUTES:
        return measure, warm_up
    processes: dict[str, TreeProcess] = {}

    def ask(spec: str, kind: str, wire: tuple) -> tuple[Any, str | None]:
        spec_in_tree, tree = ROUTES[spec]
        process = processes.get(tree)
        if process is None:
            process = processes[tree] = TreeProcess(tree)
        try:
            return process.ask(kind, (spec_in_tree, *wire[1:])), None
        except (EOFError, OSError):
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
            from harness.run.worker.wire import Outcome

            state.cache[wire[0]] = _Remote(True)
            return Outcome(Status.ERROR, died).wire()
        outcome, stale = answer
        state.cache[wire[0]] = _Remote(stale)
        return outcome

    return routed_measure, routed_warm_up


def serve(fd_in: int, fd_out: int) -> None:
    """A tree's process: answer requests until the worker closes its end."""
    import signal

    from harness.run.worker.measure import WorkerState, measure, warm_up

    with contextlib.suppress(OSError, AttributeError):  # Linux: die with the worker
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the harness's to handle
    requests, answers = Connection(fd_in, writable=False), Connection(fd_out, readable=False)
    state = WorkerState()
    while True:
        try:
            kind, argument = requests.recv()
        except (EOFError, OSError):
            return
        if kind == "measure":
            outcome = measure(argument, state)
            answers.send((outcome, bool(getattr(state.cache.get(argument[0]), "stale", 0))))
        elif kind == "warm":
            answers.send(warm_up(argument, state))
        else:
            answers.send(check(argument))


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
