"""The ``harness`` console script: Ctrl-C while Python is still importing the harness exits
130 with one line, never a traceback. The command group itself is :mod:`harness.cli`.

Once a command has finished (its files closed, its output flushed), the process ends at
once with the command's exit code, skipping the interpreter's teardown, which would free
every object of a large run one by one. Commands own every resource they open (worker
pools, clusters, files are closed in ``with`` blocks before they return), so nothing is
left for exit handlers to do.
"""

from __future__ import annotations

import os
import signal
import sys

from harness.gc_pause import gc_paused


def _quit_quietly(signum: int, frame: object) -> None:
    os.write(2, b"\nharness: interrupted\n")
    os._exit(128 + signum)


def main() -> None:
    """Import the command line under a quiet Ctrl-C handler, then run it."""
    signal.signal(signal.SIGINT, _quit_quietly)
    with gc_paused():  # imports free next to nothing: the collector's passes only cost
        from harness.cli import main as cli

    signal.signal(signal.SIGINT, signal.default_int_handler)  # commands handle it from here
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
