"""The puzzle files of a run, streamed twice in bounded memory: a scan, then the records.

A run must know before its first solve whether any line is bad (bad lines stop it unless it
skips them) and how many puzzles each file holds (the metadata and the progress total), yet
must never hold every record: :meth:`PuzzleFiles.scan` reads every file once, counting its
puzzles and keeping its first bad lines (:class:`~.records.BadLines`), and
:meth:`PuzzleFiles.records` reads them again, a batch at a time, as the run draws puzzles.
Reading costs a few microseconds a puzzle, a small share of a solve. Standard input, which
cannot be read twice, is copied to a temporary file as it is scanned (its bytes, not its
records) and read back from there, still named ``-``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TextIO

from harness.puzzles.readers import dispatch
from harness.puzzles.readers.dispatch import parse
from harness.puzzles.readers.records import BadLine, BadLines, PuzzleRecord
from harness.puzzles.readers.source import bounded_batches, open_text


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
        self._spool: str | None = None  # the copy of standard input
        self._cleanup = ExitStack()

    def __enter__(self) -> PuzzleFiles:
        return self

    def __exit__(self, *exc: object) -> None:
        self._cleanup.close()

    def scan(self, keep_bad: int) -> Scan:
        """Read every file once: its puzzles counted, the first ``keep_bad`` bad lines kept."""
        found = Scan(bad=BadLines(keep_bad))
        for path in self.paths:
            count = 0
            for batch in self._batches(path):
                for item in batch:
                    if item.__class__ is PuzzleRecord:
                        count += 1
                        found.largest = max(found.largest, item.puzzle.n)  # type: ignore[union-attr]
                    else:
                        found.bad.add((item,))  # type: ignore[arg-type]
            found.counts[path] = count
        return found

    def records(self) -> Iterator[PuzzleRecord]:
        """Every file's records in order, read a batch at a time (bad lines left out)."""
        for path in self.paths:
            for batch in self._batches(path):
                yield from (item for item in batch if item.__class__ is PuzzleRecord)  # type: ignore[misc]

    def _batches(self, path: str) -> Iterator[list[PuzzleRecord | BadLine]]:
        if path != "-":
            handle, _ = open_text(path)
        elif self._spool is not None:
            handle, _ = open_text(self._spool)
        else:
            handle = self._spooled_stdin()
        return _parsed(handle, path)

    def _spooled_stdin(self) -> TextIO:
        """Standard input, copied to a temporary file first (read back from there)."""
        folder = self._cleanup.enter_context(tempfile.TemporaryDirectory(prefix="harness-"))
        self._spool = os.path.join(folder, "stdin")
        stream = sys.stdin if self._stdin is None else self._stdin
        binary = getattr(stream, "buffer", None)
        if binary is not None:
            with open(self._spool, "wb") as copy:
                shutil.copyfileobj(binary, copy)
        else:  # text only (an io.StringIO)
            with open(self._spool, "w", encoding="utf-8", newline="") as copy:
                shutil.copyfileobj(stream, copy)
        handle, _ = open_text(self._spool)
        return handle


def _parsed(handle: TextIO, dataset: str) -> Iterator[list[PuzzleRecord | BadLine]]:
    with handle:
        yield from parse(bounded_batches(handle, dataset, dispatch.BATCH), dataset)
