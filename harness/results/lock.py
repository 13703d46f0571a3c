"""One run writes a results CSV at a time: an ``flock`` on the file itself.

The lock is the file's (its inode's), not a name's: a second run is refused whatever name it
reaches the file by, a hard link included. A run's writer replaces the file atomically (a
wider header, the cross-check's verdicts); each new version is locked before it is renamed
into place (:meth:`Lock.take`), so the name never shows an unlocked file while the run
lasts. Only a regular file is locked: ``--out`` must be one, or not exist yet
(:func:`regular_or_absent`).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.results.schema import ResultsError

#: What a file that is not a regular one is, by its type.
KINDS = {
    stat.S_IFLNK: "a symlink",
    stat.S_IFDIR: "a folder",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
}


def regular_or_absent(path: Path, role: str = "--out") -> os.stat_result | None:
    """``path``'s status (not following a symlink), None when nothing is there; raises
    :class:`ResultsError` when it is not a regular file, which a run never writes (``role``:
    what the file is to the run, for the message)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ResultsError(f"{path}: cannot use it: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise ResultsError(f"{path} is {kind}; {role} must be a regular file or a new name")
    return info


class Lock:
    """The lock a run holds on its CSV: on each version of the file it made (see
    :meth:`take`), until the run ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fds: list[int] = []
        self.created = False  #: whether the file was absent, and made empty here

    def take(self, fd: int) -> None:
        """Lock the file open at ``fd`` too: a new version of the CSV about to be renamed
        over it, made by this run (so nobody else holds it)."""
        mine = os.dup(fd)
        self._fds.append(mine)
        fcntl.flock(mine, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def acquire(self) -> None:
        """Lock the file at :attr:`path`, made empty when absent; raises
        :class:`ResultsError` when another run holds it or it is not a regular file."""
        while True:
            info = regular_or_absent(self.path)
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            try:
                if info is None:
                    fd = os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o666)
                else:
                    fd = os.open(self.path, flags)
            except (FileExistsError, FileNotFoundError):
                continue  # made or removed since: look again
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    continue  # a symlink since: regular_or_absent says so
                raise ResultsError(f"{self.path}: cannot open it: {exc.strerror}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise ResultsError(
                    f"{self.path} is being written by another run; wait for it to finish, "
                    "or choose another --out"
                ) from None
            if _names(self.path, fd):
                self._fds.append(fd)
                self.created = info is None
                return
            os.close(fd)  # the name moved on to another file while we locked this one

    def release(self) -> None:
        """Let go of every version; the file this run made and never wrote is removed."""
        try:
            if self.created and os.lstat(self.path).st_size == 0 and _names(self.path, *self._fds):
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            for fd in self._fds:
                os.close(fd)
            self._fds = []


def _names(path: Path, *fds: int) -> bool:
    """Whether ``path`` is, now, the file open at one of ``fds``."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return any(
        (info.st_dev, info.st_ino) == (os.fstat(fd).st_dev, os.fstat(fd).st_ino) for fd in fds
    )


@contextmanager
def exclusive(path: Path) -> Iterator[Lock]:
    """Hold the lock on the CSV ``path`` while a run writes it (see :class:`Lock`), made
    empty when absent. Raises :class:`ResultsError` at once when another run holds it, or
    when ``path`` is not a regular file."""
    lock = Lock(path)
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()
