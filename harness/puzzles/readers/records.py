"""What the readers hand out: puzzle records, bad lines, the whole-file error, and their text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from backends.errors import SudokuError
from backends.puzzle import Puzzle
from harness.puzzles.readers.batch import grid_struct


class DatasetError(SudokuError):
    """A dataset cannot be read at all: missing, a directory, unreadable, not gzip, not text."""


@dataclass(frozen=True)
class PuzzleRecord:
    """One puzzle read from a dataset, with what the file says about it."""

    dataset: str  # the path as the user gave it ("-" for stdin)
    line: int  # 1-based line where the puzzle starts
    puzzle: Puzzle
    expected_count: int | None  # expected number of solutions, if the file says
    expected_solution: Puzzle | None  # expected solution grid, if the file gives one
    meta: str  # anything after the grid on its line, raw (stripped)


def new_record(
    dataset: str,
    line: int,
    puzzle: Puzzle,
    expected_count: int | None,
    expected_solution: Puzzle | None,
    meta: str,
) -> PuzzleRecord:
    """``PuzzleRecord(...)`` in a third of the time, for the readers' one record per puzzle:
    the frozen dataclass's ``__init__`` sets each field with ``object.__setattr__``; this
    fills the new instance's ``__dict__`` directly, in the same order (same record)."""
    record = object.__new__(PuzzleRecord)
    fields = record.__dict__
    fields["dataset"] = dataset
    fields["line"] = line
    fields["puzzle"] = puzzle
    fields["expected_count"] = expected_count
    fields["expected_solution"] = expected_solution
    fields["meta"] = meta
    return record


def new_records(
    dataset: str, numbers: Sequence[int], box: int, digits: bytes
) -> list[PuzzleRecord]:
    """``new_record(dataset, line, Puzzle.unchecked(box, cells), None, None, "")`` for each
    line number of ``numbers`` and grid of ``digits`` (one a cell, grid after grid), both
    calls inlined (the record's fields copied from one made by :func:`new_record`): a fifth
    less time for a run of plain one-line puzzles (:mod:`.plain`), whose digits come out of
    a digit table, 0..n by construction."""
    new = object.__new__
    setattr_ = object.__setattr__
    # new_record's fields, in its order; line and puzzle set per record
    shared = new_record(dataset, 0, None, None, None, "").__dict__  # type: ignore[arg-type]
    size = box**4
    grids = grid_struct(size).iter_unpack(digits)
    records = []
    append = records.append
    for start, line, cells in zip(range(0, len(digits), size), numbers, grids, strict=True):
        puzzle = new(Puzzle)  # Puzzle.unchecked(box, cells), its digits a slice
        setattr_(puzzle, "box", box)
        setattr_(puzzle, "cells", cells)
        setattr_(puzzle, "digits", digits[start : start + size])
        record = new(PuzzleRecord)
        fields = record.__dict__
        fields.update(shared)
        fields["line"] = line
        fields["puzzle"] = puzzle
        append(record)
    return records


@dataclass(frozen=True)
class BadLine:
    """A line (or the first line of a grid) that could not be read, and why."""

    dataset: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.dataset}:{self.line}: {self.reason}"


#: The most bad lines a reader keeps: beyond them it only counts (``ReadResult.more_bad``).
KEPT_BAD = 1000


@dataclass(frozen=True)
class ReadResult:
    """Everything read from one dataset: good puzzles and the first :data:`KEPT_BAD` bad
    lines, each in line order, and how many more bad lines there were."""

    records: tuple[PuzzleRecord, ...]
    bad: tuple[BadLine, ...]
    more_bad: int = 0


def format_bad_lines(bad: Sequence[BadLine], limit: int = 20, more: int = 0) -> str:
    """Up to ``limit`` bad lines as ``FILE:LINE: reason``, then ``... and K more bad lines``
    (K counts the rest of ``bad`` and ``more`` lines not in it)."""
    shown = [str(item) for item in bad[: max(limit, 0)]]
    hidden = len(bad) - len(shown) + more
    if hidden > 0:
        shown.append(f"... and {hidden} more bad line{'' if hidden == 1 else 's'}")
    return "\n".join(shown)


class BadLines:
    """Bad lines as a reader meets them: the first ``keep`` kept, the rest only counted,
    so that a file of millions of bad lines costs no more memory than one of a few."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.kept: list[BadLine] = []
        self.more = 0  # bad lines met beyond the kept ones

    def add(self, lines: Iterable[BadLine]) -> None:
        for line in lines:
            if len(self.kept) < self.keep:
                self.kept.append(line)
            else:
                self.more += 1

    @property
    def count(self) -> int:
        """How many bad lines were met in all."""
        return len(self.kept) + self.more

    def __str__(self) -> str:
        return format_bad_lines(self.kept, self.keep, self.more)
