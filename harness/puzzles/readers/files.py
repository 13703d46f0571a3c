"""The puzzle files of a run, streamed twice in bounded memory: a scan, then the records.

A run must know before its first solve whether any line is bad (bad lines stop it unless it
skips them) and how many puzzles each file holds (the metadata and the progress total), yet
must never hold every record: :meth:`PuzzleFiles.scan` reads every file once, counting its
puzzles (without making their records: :func:`.dispatch.count`) and keeping its first bad
lines (:class:`~.records.BadLines`), and :meth:`PuzzleFiles.records` reads them again, a
batch at a time, as the run draws puzzles.
Reading costs a few microseconds a puzzle, a small share of a solve. Standard input, a FIFO
or a ``<(...)`` pipe, which cannot be read twice, is copied to a temporary file as it is
scanned (its bytes, not its records) and read back from there, still named as given.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from harness.puzzles.readers import dispatch
from harness.puzzles.readers.dispatch import parse
from harness.puzzles.readers.records import BadLine, BadLines, PuzzleRecord
from harness.puzzles.readers.source import (
    bounded_batches,
    open_raw,
    open_text,
    standard_input,
    text_of,
)


@dataclass
class Scan:
    """What a scan of the files found: puzzles per file, the largest grid side, bad lines."""

    counts: dict[str, int] = field(default_factory=dict)
    largest: int = 0
    bad: BadLines = field(default_factory=lambda: BadLines(0))

    @property
    def total(self) -> int:
        return sum(self.counts.values())


class PuzzleFiles:
    """Puzzle files (``-``: standard input) to scan once and stream as often as needed.

    A context manager: leaving it removes the copy of standard input, if one was made.
    A file that cannot be read raises :class:`~.records.DatasetError` (from the scan, or
    from a later reading if the file changed in between).
    """

    def __init__(self, paths: Sequence[str], stdin: TextIO | None = None) -> None:
        self.paths = list(paths)
        self._stdin = stdin
        self._spools: dict[str, str] = {}  # copies of what cannot be read twice
        self._cleanup = ExitStack()
        self.counts: dict[str, int] = {}  # puzzles per file, once scanned
        self.largest = 0  # the largest grid side, once scanned

    def __enter__(self) -> PuzzleFiles:
        return self

    def __exit__(self, *exc: object) -> None:
        self._cleanup.close()

    def scan(self, keep_bad: int) -> Scan:
        """Read every file once: its puzzles counted, the first ``keep_bad`` bad lines kept."""
        found = Scan(bad=BadLines(keep_bad))
        for path in self.paths:
            with self._open(path) as handle:
                lines = bounded_batches(handle, path, dispatch.BATCH)
                count, largest = dispatch.count(lines, path, found.bad)
            found.counts[path] = count
            found.largest = max(found.largest, largest)
        self.counts, self.largest = found.counts, found.largest
        return found

    def records(self) -> Iterator[PuzzleRecord]:
        """Every file's records in order, read a batch at a time (bad lines left out)."""
        for path in self.paths:
            for batch in _parsed(self._open(path), path):
                yield from (item for item in batch if item.__class__ is PuzzleRecord)  # type: ignore[misc]

    def _open(self, path: str) -> TextIO:
        """``path`` as text: from its copy, if one was made, else copied as it is read if it
        cannot be read twice."""
        if path in self._spools:
            return open_text(self._spools[path])[0]
        if path == "-" or not _regular(path):
            return self._spooling(path)
        return open_text(path)[0]

    def _spooling(self, path: str) -> TextIO:
        """``path`` (``-``: standard input) as text, its bytes copied to a temporary file
        as they are read (by the same name: a ``.gz`` one must be gzip), to be read again
        from there."""
        stream = standard_input(self._stdin) if path == "-" else None
        if not self._spools:
            self._folder = self._cleanup.enter_context(
                tempfile.TemporaryDirectory(prefix="harness-")
            )
        name = "stdin" if path == "-" else os.path.basename(path) or "input"
        copy_path = os.path.join(self._folder, str(len(self._spools)), name)
        os.mkdir(os.path.dirname(copy_path))
        self._spools[path] = copy_path
        if stream is None:
            return text_of(_Tee(open_raw(path), open(copy_path, "wb")), path, owned=True)
        binary = getattr(stream, "buffer", None)
        if binary is not None:
            return text_of(_Tee(binary, open(copy_path, "wb"), owned=False), path, owned=True)
        with open(copy_path, "w", encoding="utf-8", newline="") as copy:  # text only
            shutil.copyfileobj(stream, copy)  # (an io.StringIO, in memory already)
        return open_text(copy_path)[0]


class _Tee(io.RawIOBase):
    """A binary stream whose bytes are also written to ``copy`` as they are read."""

    def __init__(self, source: BinaryIO, copy: BinaryIO, owned: bool = True) -> None:
        super().__init__()
        self._source, self._copy, self._owned = source, copy, owned

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._source.read(len(buffer))
        if not data:
            return 0
        buffer[: len(data)] = data
        self._copy.write(data)
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._copy.close()
            if self._owned:
                self._source.close()
        super().close()


def _regular(path: str) -> bool:
    """Whether ``path`` is a regular file, which can be read twice (else: missing, a FIFO,
    a pipe, a device...)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # opening it says why it cannot be read


def _parsed(handle: TextIO, dataset: str) -> Iterator[list[PuzzleRecord | BadLine]]:
    with handle:
        yield from parse(bounded_batches(handle, dataset, dispatch.BATCH), dataset)
