"""One run writes a results CSV at a time: an ``fcntl`` lock on ``<csv>.lock``, beside the
file itself: a symlink to a CSV (or a path through a symlinked folder) takes its target's lock."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.results.schema import ResultsError


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (through ``<path>.lock``) while a run writes it.

    Raises :class:`ResultsError` at once when another run holds it. The lock is the file's,
    not the path's: ``path`` resolved through any symlink. The lock file is removed on
    release; a run that locked a lock file just removed tries again.
    """
    real = path.resolve()
    lock = real.with_name(real.name + ".lock")
    same = "" if real == path.absolute() else f" (it is {real})"
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise ResultsError(
                f"{path}{same} is being written by another run (pid {holder}); "
                "wait for it to finish, or choose another --out"
            ) from None
        try:
            still_there = os.stat(lock, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            still_there = False
        if still_there:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)
