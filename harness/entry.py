"""The ``harness`` console script: Ctrl-C while Python is still importing the harness exits
130 with one line, never a traceback. The command group itself is :mod:`harness.cli`.

Once a command has finished (its files closed, its output flushed), the process ends at
once with the command's exit code, skipping the interpreter's teardown: freeing every
object of a run of 10,000 rows one by one costs ~50 ms, a few percent of a short run.
Commands own every resource they open (worker pools, clusters, files are closed in
``with`` blocks before they return), so nothing is left for exit handlers to do.
"""

from __future__ import annotations

import os
import signal
import sys


def _quit_quietly(signum: int, frame: object) -> None:
    os.write(2, b"\nharness: interrupted\n")
    os._exit(128 + signum)


def main() -> None:
    """Import the command line under a quiet Ctrl-C handler, then run it."""
    signal.signal(signal.SIGINT, _quit_quietly)
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
