"""The run's log: what the workers and their solvers write to standard output and error.

Each worker's descriptors 1 and 2 are the write end of a pipe of its own (:meth:`Log.pipe`);
the parent reads the read ends as it waits for answers (:meth:`Log.pump`) and appends what
comes to the log, up to :data:`LOG_CAP` bytes in all. Past the cap, it reads on and drops
what comes (so a solver that prints without end is neither stopped nor blocked by a full
pipe), and says so once, in the log. So neither the log nor the harness's memory grows with
what a solver prints; the parent reads a pipe a chunk at a time.

The log is created when the pool starts, unless it exists (never through a symlink); one that
this run made and that stayed empty is removed at the end (:meth:`Log.close`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

#: The most bytes of the workers' output written to one run's log.
LOG_CAP = 32 << 20
#: Bytes read from a pipe at a time.
CHUNK = 1 << 16


def _created(path: str) -> bool:
    """Create the log ``path`` unless it exists (never through a symlink): whether it did."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
    except OSError:
        return False
    return True


class Log:
    """Where the workers' output goes: ``path`` (appended), or nowhere when it is None."""

    def __init__(self, path: str | None, cap: int = LOG_CAP) -> None:
        self.path = path
        self.cap = cap
        self.written = 0  # bytes this run wrote to the log
        self._created = path is not None and _created(path)  # only ours goes when empty
        self._file: int | None = None
        self._cut = False
        #: The read ends of the workers' pipes, still open.
        self.readers: set[int] = set()

    def pipe(self) -> tuple[int, int] | None:
        """A new pipe for a worker's output: its read end, read here (see :meth:`pump`,
        :meth:`release`), and its write end, for the worker's 1 and 2; None when the output
        goes nowhere."""
        if self.path is None:
            return None
        read, write = os.pipe()
        os.set_blocking(read, False)
        self.readers.add(read)
        return read, write

    def pump(self, ready: Iterable[int]) -> None:
        """Read what waits in each of ``ready`` (read ends of :meth:`pipe`), into the log."""
        for fd in ready:
            if fd in self.readers:
                self._drain(fd)

    def release(self, fd: int) -> None:
        """Take what waits in the read end ``fd`` (its worker has ended), then close it."""
        if fd in self.readers:
            self._drain(fd)
            self.readers.discard(fd)
            with contextlib.suppress(OSError):
                os.close(fd)

    def _drain(self, fd: int) -> None:
        """Read ``fd`` until it is empty; close it at its end of file."""
        while True:
            try:
                data = os.read(fd, CHUNK)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self.readers.discard(fd)
                with contextlib.suppress(OSError):
                    os.close(fd)
                return
            self._write(data)

    def _write(self, data: bytes) -> None:
        """Append ``data`` to the log, as much as the cap leaves room for."""
        if self._cut:
            return
        room = self.cap - self.written
        kept = data[:room]
        if kept and self._append(kept):
            self.written += len(kept)
        if len(data) > room:
            self._cut = True
            cap = f"{self.cap / 2**20:g} MiB"
            self._append(
                f"\nharness: the log was cut at {cap}: later output was dropped\n".encode()
            )

    def _append(self, data: bytes) -> bool:
        """Write ``data`` to the log file (opened on first use); False when it cannot."""
        if self._file is None:
            try:
                flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
                self._file = os.open(self.path, flags, 0o644)  # type: ignore[arg-type]
            except OSError:
                self._cut = True  # nowhere to write: drop it all
                return False
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._file, view) :]
        except OSError:
            return False
        return True

    def close(self) -> None:
        """Take what is left in every pipe, close them and the log; remove a log this run
        made that nobody wrote to."""
        for fd in list(self.readers):
            self.release(fd)
        if self._file is not None:
            os.close(self._file)
            self._file = None
        with contextlib.suppress(OSError):  # a log this run made and nobody wrote to: no news
            if self._created and os.stat(self.path, follow_symlinks=False).st_size == 0:  # type: ignore[arg-type]
                os.unlink(self.path)  # type: ignore[arg-type]
