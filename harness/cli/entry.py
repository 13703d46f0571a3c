"""The ``harness`` console script: Ctrl-C while Python is still importing the harness exits
130 with one line, never a traceback. The command group itself is :mod:`harness.cli`.

Once a command has finished (its files closed, its output flushed), the process ends at
once with the command's exit code, skipping the interpreter's teardown: freeing every
object of a run of 10,000 rows one by one costs ~50 ms, a few percent of a short run.
Commands own every resource they open (worker pools, clusters, files are closed in
``with`` blocks before they return), so nothing is left for exit handlers to do. A
command's large results would still be freed as its frames unwind (~8 ms for 10,000 rows
and their records): it hands them to :func:`keep_until_exit` instead.
"""

from __future__ import annotations

import os
import signal
import sys

from harness.gc_pause import gc_paused

#: Whether this process ends with ``os._exit`` once the command returns (see :func:`main`).
_ENDS_AT_ONCE = False
#: What commands handed to :func:`keep_until_exit`.
_KEPT: list[object] = []


def keep_until_exit(*objects: object) -> None:
    """Hold ``objects`` until the process ends, when it ends at once (run by :func:`main`):
    it then never frees them one by one. Elsewhere (a test's CliRunner) a no-op."""
    if _ENDS_AT_ONCE:
        _KEPT.extend(objects)


def _quit_quietly(signum: int, frame: object) -> None:
    os.write(2, b"\nharness: interrupted\n")
    os._exit(128 + signum)


def _start_cluster_early(argv: list[str]) -> None:
    """Start the Dask cluster a ``harness run`` asks for now, before the command line is
    parsed: see :func:`harness.run.cluster.client.start_early`."""
    from harness.run.cluster.target import requested_in

    target = requested_in(argv)
    if target is not None:
        from harness.run.cluster.client import start_early

        start_early(target)


def main() -> None:
    """Import the command line under a quiet Ctrl-C handler, then run it."""
    signal.signal(signal.SIGINT, _quit_quietly)
    if any(arg.startswith(("--cluster", "--scheduler-file")) for arg in sys.argv[1:]):
        _start_cluster_early(sys.argv[1:])
    with gc_paused():  # imports free next to nothing: the collector's passes only cost
        from harness.cli import main as cli

    signal.signal(signal.SIGINT, signal.default_int_handler)  # commands handle it from here
    global _ENDS_AT_ONCE
    _ENDS_AT_ONCE = True
    try:
        cli()
    except SystemExit as done:
        code = done.code
    else:
        code = 0
    if code is not None and not isinstance(code, int):  # sys.exit("message")
        print(code, file=sys.stderr)
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # a closed stdout: the command chose its code
        pass
    os._exit(code or 0)
