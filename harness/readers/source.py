"""Opening and streaming: a path or standard input, opened once, as bounded lines of text.

Every input is opened exactly once (a FIFO or a ``<(...)`` pipe cannot be opened twice without
losing what the first opening read), and gzip is recognised from the first bytes already read,
which are then put back in front of the rest. Lines are read with a length limit, so that
``/dev/zero`` or a gzip bomb costs bounded memory: a line longer than :data:`MAX_LINE`
characters comes out as ``None`` (reported as ``line too long``) and its rest is skipped.
"""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from collections.abc import Iterator
from typing import BinaryIO, TextIO

from harness.readers.records import DatasetError

#: The longest line read, in characters without its line break: far above a 25x25 puzzle
#: (625 cells), its solution and metadata, or a numeric grid row.
MAX_LINE = 65_536

_GZIP_MAGIC = b"\x1f\x8b"
_BUFFER = 1 << 16


class _Rejoined(io.RawIOBase):
    """A binary stream whose first bytes, already read to sniff it, are put back in front."""

    def __init__(self, head: bytes, rest: BinaryIO, owned: bool) -> None:
        super().__init__()
        self._head = head
        self._rest = rest
        self._owned = owned  # close ``rest`` too (not standard input)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            size = min(len(buffer), len(self._head))
            buffer[:size] = self._head[:size]
            self._head = self._head[size:]
            return size
        return self._rest.readinto(buffer)  # type: ignore[attr-defined]

    def close(self) -> None:
        if self._owned and not self.closed:
            self._rest.close()
        super().close()


def open_text(path: str, stdin: TextIO | None = None) -> tuple[TextIO, bool]:
    """Open ``path`` (``-``: ``stdin``, default ``sys.stdin``) once, as UTF-8 text with
    universal newlines, ungzipping it when its first bytes are gzip's magic number.

    Returns the text stream and whether the caller is to close it (not a text-only stdin).
    Raises :class:`DatasetError` when it cannot be opened, or is named ``.gz`` and is not gzip.
    """
    if path == "-":
        stream = sys.stdin if stdin is None else stdin
        binary = getattr(stream, "buffer", None)
        if binary is None:  # text only (an io.StringIO): no gzip to sniff
            return stream, False
        return _text(binary, path, owned=False), True
    try:
        raw = open(path, "rb", buffering=0)  # noqa: SIM115  # closed by the text stream
    except FileNotFoundError:
        raise DatasetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DatasetError(f"{path}: is a directory, not a puzzle file") from None
    except PermissionError:
        raise DatasetError(f"{path}: permission denied") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot open: {exc.strerror or exc}") from None
    return _text(raw, path, owned=True), True


def _text(binary: BinaryIO, path: str, owned: bool) -> TextIO:
    """``binary`` as text, gzip sniffed from its first two bytes (read, then put back)."""
    try:
        head = _read_head(binary, len(_GZIP_MAGIC))
    except OSError as exc:
        if owned:
            binary.close()
        raise DatasetError(f"{path}: cannot read: {exc.strerror or exc}") from None
    gzipped = head == _GZIP_MAGIC
    if not gzipped and path.lower().endswith(".gz"):
        if owned:
            binary.close()
        raise DatasetError(f"{path}: not a gzip file (no gzip magic number)")
    stream: BinaryIO = io.BufferedReader(_Rejoined(head, binary, owned), _BUFFER)
    if gzipped:
        stream = _ClosingGzip(stream)
    return io.TextIOWrapper(stream, encoding="utf-8-sig", errors="strict", newline=None)


class _ClosingGzip(gzip.GzipFile):
    """A GzipFile over an open stream that closes that stream too when it is closed."""

    def __init__(self, stream: BinaryIO) -> None:
        super().__init__(fileobj=stream, mode="rb")
        self._stream = stream

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._stream.close()


def _read_head(binary: BinaryIO, size: int) -> bytes:
    """The first ``size`` bytes (fewer at the end): a pipe may hand them over one by one."""
    head = b""
    while len(head) < size:
        more = binary.read(size - len(head))
        if not more:
            break
        head += more
    return head


def bounded_lines(handle: TextIO, dataset: str, text_only: bool = False) -> Iterator[str | None]:
    """The lines of ``handle``, each read with a limit: ``None`` stands for a line longer than
    :data:`MAX_LINE`, whose rest is skipped. Unless ``text_only`` (text already in memory,
    where a NUL is a bad character like any other), a NUL byte, undecodable bytes or corrupt
    gzip data raise :class:`DatasetError` naming ``dataset``."""
    read = handle.readline
    limit = MAX_LINE + 1  # room for the line break
    check = _no_check if text_only else _refuse_binary
    first = True
    try:
        while line := read(limit):
            if first:
                first = False
                line = line.removeprefix("\ufeff")
            check(line, dataset)
            if len(line) < limit or line[-1] == "\n":
                yield line
                continue
            while (rest := read(limit)) and rest[-1] != "\n":
                check(rest, dataset)
            check(rest, dataset)
            yield None
    except UnicodeDecodeError as exc:
        bad = exc.object[exc.start : exc.start + 1]
        raise DatasetError(f"{dataset}: not UTF-8 text (cannot decode byte {bad!r})") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise DatasetError(f"{dataset}: corrupt gzip data ({exc})") from None
    except OSError as exc:
        raise DatasetError(f"{dataset}: cannot read: {exc.strerror or exc}") from None


def _refuse_binary(text: str, dataset: str) -> None:
    if "\x00" in text:
        raise DatasetError(f"{dataset}: binary data (a NUL byte), not a text puzzle file")


def _no_check(text: str, dataset: str) -> None:
    pass
