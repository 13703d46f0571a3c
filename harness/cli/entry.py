"""The ``harness`` console script: Ctrl-C while Python is still importing the harness exits
130 with one line, never a traceback. The command group itself is :mod:`harness.cli`.

A standard stream closed when the harness starts (``<&-``, ``>&-``, ``2>&-``) has a defined
behaviour (:func:`open_closed_streams`): what would be written to a closed stdout or stderr
is dropped, and the command does its work and exits with its own code (a closed stdout is
said in one line on stderr); reading ``-`` from a closed stdin is one line and exit 2. A
stderr whose reader goes away while a command runs (``2>&1 | head``) is dropped from then on
(:class:`DroppingStderr`): a run goes on to its end. (A stdout closed early ends a command
with 141, as any Unix filter: see :class:`harness.cli.common.HarnessGroup`.)
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys

#: The line on stderr when stdout was closed from the start.
STDOUT_CLOSED = (
    "harness: note: standard output is closed; what the command printed there is dropped"
)


def _quit_quietly(signum: int, frame: object) -> None:
    with contextlib.suppress(OSError):  # a closed standard error
        os.write(2, b"\nharness: interrupted\n")
    raise SystemExit(128 + signum)


class DroppingStderr(io.RawIOBase):
    """File descriptor 2 as a raw stream that never fails for want of a reader: once a
    write finds the pipe closed (EPIPE), fd 2 is pointed at /dev/null and what follows is
    dropped, as for a stderr closed from the start."""

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return 2

    def isatty(self) -> bool:
        return os.isatty(2)

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        try:
            return os.write(2, data)
        except BrokenPipeError:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            os.close(null)
            return len(data)


def open_closed_streams() -> set[int]:
    """The standard file descriptors (0, 1, 2) that were closed, each now open on /dev/null.

    So no file the harness opens later takes the number of a closed one (a CSV on fd 2
    would get whatever a library or a worker writes to stderr). A closed stdout becomes a
    stream to /dev/null: what is written there is dropped; stderr, closed or not, becomes
    a :class:`DroppingStderr`. A closed stdin stays ``sys.stdin = None``, as Python leaves
    it: reading ``-`` then says it is closed.
    """
    closed = set()
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.add(fd)
    for fd in sorted(closed):
        null = os.open(os.devnull, os.O_RDWR)  # the lowest free number: fd itself
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
    if 1 in closed:
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 (for good)
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(DroppingStderr()),
        encoding=getattr(sys.stderr, "encoding", None) or "utf-8",
        errors="backslashreplace",
        line_buffering=True,
    )
    return closed


def main() -> None:
    """Import the command line under a quiet Ctrl-C handler, then run it."""
    closed = open_closed_streams()
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
    except (BrokenPipeError, ValueError):  # its reader went away: the command chose its code
        null = os.open(os.devnull, os.O_WRONLY)  # so the flush at exit finds a sink
        os.dup2(null, 1)
        os.close(null)
    if 1 in closed and 2 not in closed:
        sys.stderr.write(f"{STDOUT_CLOSED}\n")
    sys.stderr.flush()
    raise SystemExit(code or 0)
