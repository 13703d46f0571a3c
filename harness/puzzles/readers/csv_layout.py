"""The CSV layout (Kaggle's ``quizzes,solutions`` and the like): a header names the columns.

The first content line is a header when, split at ``,``, ``;`` or a tab, one of its names is
a puzzle column (:data:`PUZZLE_COLUMNS`); a solution column (:data:`SOLUTION_COLUMNS`) is
optional, and the other fields of a row are kept in ``meta``. A first line made only of names
without a puzzle column is reported as such, not as a puzzle of the wrong length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from backends.puzzle import CELL_COUNTS
from harness.puzzles.readers.check import PendingPuzzle
from harness.puzzles.readers.messages import LENGTHS_TEXT
from harness.puzzles.readers.symbols import HEADER, csv_split, unquote

PUZZLE_COLUMNS = ("quizzes", "quiz", "puzzles", "puzzle", "sudoku", "grid", "problem", "question")
SOLUTION_COLUMNS = ("solutions", "solution", "answers", "answer", "solved")
NOT_A_HEADER = (
    "looks like a CSV header without a 'quizzes' or 'puzzle' column "
    f"(the puzzle column may be named {', '.join(PUZZLE_COLUMNS)})"
)

_DELIMITERS = (",", ";", "\t")
_NAME = re.compile(r"[A-Za-z_][\w .()/-]{0,39}")


@dataclass(frozen=True, slots=True)
class CsvLayout:
    """Where a CSV file's puzzle and solution are: its delimiter and column positions."""

    delimiter: str
    puzzle: int
    solution: int | None
    names: tuple[str, ...]

    @classmethod
    def from_header(cls, line: str) -> CsvLayout | None:
        """The layout a header line names, or None when the line is not such a header."""
        for delimiter in _DELIMITERS:
            if delimiter not in line:
                continue
            names = tuple(unquote(name).lower() for name in csv_split(line, delimiter))
            puzzle = next((names.index(c) for c in PUZZLE_COLUMNS if c in names), None)
            if puzzle is None:
                continue
            solution = next((names.index(c) for c in SOLUTION_COLUMNS if c in names), None)
            return cls(delimiter, puzzle, solution, names)
        return None

    def row(self, number: int, raw: str, line: str) -> PendingPuzzle | str:
        """One row's puzzle, solution and meta, or why the row is bad."""
        values = csv_split(line, self.delimiter)
        count = len(values)
        if self.puzzle >= count:
            return (
                f"{count} field{'' if count == 1 else 's'}: no {self.names[self.puzzle]!r} "
                f"(field {self.puzzle + 1})"
            )
        token = unquote(values[self.puzzle])
        size = len(token)
        if size not in CELL_COUNTS:
            return (
                f"wrong length: {size} cells in column {self.names[self.puzzle]!r}; "
                f"expected {LENGTHS_TEXT}"
            )
        solution = None
        if self.solution is not None and self.solution < count:
            solution = unquote(values[self.solution]) or None
            if solution is not None and len(solution) != size:
                return (
                    f"expected solution in column {self.names[self.solution]!r} has "
                    f"{len(solution)} cells, the puzzle {size}"
                )
        del values[self.puzzle]
        meta = values[0].strip() if count == 2 else self.delimiter.join(values).strip()
        return PendingPuzzle(number, token, raw, meta, solution)


def looks_like_header(line: str) -> bool:
    """Whether a first line is column names (``foo,bar``): two or more fields, each a name."""
    if HEADER.match(line):
        return False  # 'Grid 01', 'Puzzle 3:' head a grid
    for delimiter in _DELIMITERS:
        if delimiter in line:
            names = [unquote(name) for name in csv_split(line, delimiter)]
            if len(names) > 1 and all(_NAME.fullmatch(name) for name in names):
                return True
    return False
