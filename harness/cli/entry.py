"""The ``harness`` console script: Ctrl-C while Python is still importing the harness exits
130 with one line, never a traceback. The command group itself is :mod:`harness.cli`."""

from __future__ import annotations

import contextlib
import os
import signal


def _quit_quietly(signum: int, frame: object) -> None:
    with contextlib.suppress(OSError):  # a closed standard error
        os.write(2, b"\nharness: interrupted\n")
    raise SystemExit(128 + signum)


def main() -> None:
    """Import the command line under a quiet Ctrl-C handler, then run it."""
    signal.signal(signal.SIGINT, _quit_quietly)
    from harness.cli import main as cli

    signal.signal(signal.SIGINT, signal.default_int_handler)  # commands handle it from here
    cli()
