"""Opening and streaming: a path or standard input, opened once, as bounded lines of text.

Every input is opened exactly once (a FIFO or a ``<(...)`` pipe cannot be opened twice without
losing what the first opening read), and gzip is recognised from the first bytes already read,
which are then put back in front of the rest. Lines are read with a length limit, so that
``/dev/zero`` or a gzip bomb costs bounded memory: a line longer than :data:`MAX_LINE`
characters comes out as ``None`` (reported as ``line too long``) and its rest is skipped.
The first line is read with ``readline``, the rest a block of text at a time, split at C
speed (:func:`bounded_batches`): the same lines as one ``readline`` each, in half the time.
"""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from collections.abc import Iterator
from typing import BinaryIO, TextIO

from harness.puzzles.readers.records import DatasetError

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


def standard_input(stdin: TextIO | None = None) -> TextIO:
    """``stdin``, or else ``sys.stdin``; :class:`DatasetError` when standard input is closed
    (``<&-``: Python then leaves ``sys.stdin`` None)."""
    stream = sys.stdin if stdin is None else stdin
    if stream is None:
        raise DatasetError("cannot read standard input: it is closed")
    return stream


def open_text(path: str, stdin: TextIO | None = None) -> tuple[TextIO, bool]:
    """Open ``path`` (``-``: ``stdin``, default ``sys.stdin``) once, as UTF-8 text with
    universal newlines, ungzipping it when its first bytes are gzip's magic number.

    Returns the text stream and whether the caller is to close it (not a text-only stdin).
    Raises :class:`DatasetError` when it cannot be opened, or is named ``.gz`` and is not gzip.
    """
    if path == "-":
        stream = standard_input(stdin)
        binary = getattr(stream, "buffer", None)
        if binary is None:  # text only (an io.StringIO): no gzip to sniff
            return stream, False
        return text_of(binary, path, owned=False), True
    raw = open_raw(path)
    return text_of(raw, path, owned=True), True


def open_raw(path: str) -> BinaryIO:
    """``path`` opened for reading bytes, unbuffered; raises :class:`DatasetError` saying
    why it cannot be."""
    try:
        return open(path, "rb", buffering=0)  # the caller closes it
    except FileNotFoundError:
        raise DatasetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DatasetError(f"{path}: is a directory, not a puzzle file") from None
    except PermissionError:
        raise DatasetError(f"{path}: permission denied") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot open: {exc.strerror or exc}") from None


def text_of(binary: BinaryIO, path: str, owned: bool) -> TextIO:
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


def bounded_batches(
    handle: TextIO, dataset: str, size: int, text_only: bool = False
) -> Iterator[list[str | None]]:
    """The lines of ``handle``, ``size`` at a time (the last batch shorter), each as
    ``readline`` gives it (its line break kept), or ``None`` for a line longer than
    :data:`MAX_LINE`, whose rest is skipped.

    The text is read a block of :data:`BLOCK` characters at a time and split at C speed.
    Unless ``text_only`` (text already in memory, where a NUL is a bad character like any
    other), a NUL byte, undecodable bytes or corrupt gzip data raise :class:`DatasetError`
    naming ``dataset``: a NUL once the lines before its own are handed out, undecodable
    bytes as soon as their block is read.
    """
    lines: list[str | None] = []
    for block in _blocks(handle, dataset, text_only):
        lines += block
        while len(lines) >= size:
            yield lines[:size]
            del lines[:size]
    if lines:
        yield lines


#: Characters read at a time: bounds the memory (with :data:`MAX_LINE`, the longest line).
BLOCK = 1 << 15

# Where str.splitlines breaks a line besides "\n" (universal newlines leave no "\r" but in
# a text-only stream): where one appears, lines are split at "\n" the slow way.
_OTHER_BREAKS = tuple("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _blocks(handle: TextIO, dataset: str, text_only: bool) -> Iterator[list[str | None]]:
    """:func:`bounded_batches`' lines, as many at a time as a block of text holds."""
    read = handle.read
    carry = ""  # the start of a line whose end is not read yet
    skipping = False  # in the rest of a line too long
    try:
        if first := _first_line(handle, dataset, text_only):
            yield first
        while block := read(BLOCK):
            nul = -1 if text_only else block.find("\x00")
            if nul >= 0:  # the lines before the NUL's own, then the error
                block = block[: block.rfind("\n", 0, nul) + 1]
            if skipping:
                end = block.find("\n")
                block = "" if end < 0 else block[end + 1 :]
                if end >= 0:
                    skipping = False
                    yield [None]
            if block:
                lines = _split(carry + block)
                carry = "" if lines[-1][-1] == "\n" else lines.pop()
                if len(carry) > MAX_LINE:
                    skipping = True
                    carry = ""
                if lines:
                    yield _bounded(lines)
            if nul >= 0:
                _refuse_binary("\x00", dataset)
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start : exc.start + 1]
        raise DatasetError(f"{dataset}: not UTF-8 text (cannot decode byte {byte!r})") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise DatasetError(f"{dataset}: corrupt gzip data ({exc})") from None
    except OSError as exc:
        raise DatasetError(f"{dataset}: cannot read: {exc.strerror or exc}") from None
    if skipping:
        yield [None]
    elif carry:
        yield [carry]


def _first_line(handle: TextIO, dataset: str, text_only: bool) -> list[str | None]:
    """The first line ([] if none), read with ``readline`` and a limit, less a leading BOM
    (a BOM read within the limit, then dropped: a first line is never too long with one)."""
    read = handle.readline
    limit = MAX_LINE + 1  # room for the line break
    check = _no_check if text_only else _refuse_binary
    line = read(limit)
    if not line:
        return []
    line = line.removeprefix("\ufeff")
    check(line, dataset)
    if len(line) < limit or line[-1] == "\n":
        return [line]
    while (rest := read(limit)) and rest[-1] != "\n":
        check(rest, dataset)
    check(rest, dataset)
    return [None]


def _split(text: str) -> list[str]:
    """``text``'s lines, each with its line break (the last may have none)."""
    if not any(ch in text for ch in _OTHER_BREAKS):  # one memchr each
        return text.splitlines(keepends=True)
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _bounded(lines: list[str]) -> list[str | None]:
    """The lines, None for each longer than :data:`MAX_LINE` (line break aside)."""
    if max(map(len, lines)) <= MAX_LINE:
        return lines  # type: ignore[return-value]  # list is invariant
    return [line if len(line) <= MAX_LINE + (line[-1] == "\n") else None for line in lines]


def _refuse_binary(text: str, dataset: str) -> None:
    if "\x00" in text:
        raise DatasetError(f"{dataset}: binary data (a NUL byte), not a text puzzle file")


def _no_check(text: str, dataset: str) -> None:
    pass
