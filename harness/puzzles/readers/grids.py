"""The multi-line layout: one grid row per line, and every line that is not CSV.

A row has 4, 9, 16 or 25 cells, optionally decorated with ``|`` and spaces; a 16x16 or 25x25
row may be whitespace-separated numbers. Separator lines (``- = + | ~``) are skipped inside a
grid; blank lines, ``=`` lines and header lines (``Grid 01``) end one. Outside a grid, a line
whose first token has 16, 81, 256 or 625 symbols is a one-line puzzle (:mod:`.one_line`).

A bare 16-symbol line of ``1-4`` and empty marks is a 4x4 puzzle or a 16x16 row. Such lines are
held as a *tentative* grid: a line that can only be a 16x16 row (another symbol, or decorated)
makes them its first rows; anything else, or 16 of them in a row, makes them 4x4 puzzles (and
every further such line, until another kind of line). Straight after a header, where a grid is
expected, the line starts a 16x16 grid.
"""

from __future__ import annotations

from dataclasses import dataclass

from backends.puzzle import CELL_COUNTS, EMPTY_MARKS, canonical_alphabet
from harness.puzzles.readers.check import PendingPuzzle, Sink
from harness.puzzles.readers.messages import (
    LENGTHS_TEXT,
    bad_cell_reason,
    bad_cell_text,
    wrong_length,
)
from harness.puzzles.readers.one_line import one_line
from harness.puzzles.readers.symbols import (
    FOUR_BY_FOUR,
    HEADER,
    META_START,
    ROW_WIDTHS,
    RULE_START,
    is_number,
    is_rule,
    may_be_row,
    mostly_plausible,
    plausible,
    split_row,
    token_of,
)

Row = tuple[int, str, list[str]]  # (line, raw, cells)


@dataclass(slots=True)
class _Grid:
    """A multi-line grid being collected."""

    start: int
    n: int
    rows: list[Row]
    error: str | None = None
    held: int = 0  # leading rows that are 4x4 puzzles unless a 16x16 row takes them in

    @property
    def tentative(self) -> bool:
        """Every row so far may be a 4x4 puzzle: no line has settled it as a 16x16 grid."""
        return self.held == len(self.rows)


def _is_four(line: str) -> bool:
    """A bare 16-symbol line of 1-4 and empty marks: a 4x4 puzzle or a 16x16 row."""
    return len(line) == 16 and set(line) <= FOUR_BY_FOUR


class GridLayout:
    """Collects grids line by line and hands puzzles and bad lines to a :class:`Sink`."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.grid: _Grid | None = None
        self.after_header = False  # the last content line was a header: a grid comes
        self.fours = False  # 16 lines that may be 4x4 puzzles went by: they all are

    @property
    def idle(self) -> bool:
        """Whether the next line is read on its own (no grid, header or run of 4x4 lines)."""
        return self.grid is None and not self.after_header and not self.fours

    def line(self, number: int, raw: str, line: str) -> None:
        """A stripped content line that is not CSV."""
        grid = self.grid
        if grid is not None:
            if grid.tentative:
                taken = self._tentative_line(grid, number, raw, line)
            else:
                taken = self._grid_line(grid, number, raw, line)
            if taken:
                return
        self._idle_line(number, raw, line)

    def end(self) -> None:
        """The grid being read, if any, ends here (a blank line, the end of the text)."""
        self.fours = False
        grid, self.grid = self.grid, None
        if grid is None:
            return
        sink = self.sink
        for line, raw, cells in grid.rows[: grid.held]:
            sink.candidate(PendingPuzzle(line, "".join(cells), raw))
        if grid.tentative:
            return
        rows = grid.rows[grid.held :]
        start, raw, cells = rows[0]
        n = grid.n
        if grid.error is not None:
            sink.bad(start, grid.error)
        elif len(rows) > 1:
            sink.bad(start, f"grid cut short: {len(rows)} of {n} rows")
        elif not plausible(cells, n):
            sink.bad(start, bad_cell_reason(raw, cells, n))
        elif n == 16:
            sink.bad(start, "grid cut short: 1 of 16 rows")
        else:
            sink.bad(
                start,
                f"wrong length: {n} cells; expected {LENGTHS_TEXT} for a one-line puzzle "
                f"(as the first row of a {n}x{n} grid, it lacks the other {n - 1} rows)",
            )

    # ---- lines outside a grid

    def _idle_line(self, number: int, raw: str, line: str) -> None:
        """A content line outside any grid: a one-line puzzle, a grid's first row, a header."""
        after_header, self.after_header = self.after_header, False
        fours, self.fours = self.fours, False
        if line[0] in RULE_START and is_rule(line):
            self._rule_line(number, raw, line, fours)
            return
        token = token_of(line)
        size = len(token)
        if size in CELL_COUNTS:
            rest = line[size:]
            if size == 16 and not rest and (after_header or plausible(list(token), 16)):
                self._sixteen(number, raw, token, definite=after_header, fours=fours)
            else:
                self.sink.put(number, one_line(number, raw, token, rest.strip()))
            return
        cells = split_row(line)
        width = len(cells)
        if width in ROW_WIDTHS and plausible(cells, width):
            self._start(number, raw, cells, width)
        elif HEADER.match(line):
            self.after_header = True
        elif width in ROW_WIDTHS and mostly_plausible(cells, width):
            self._start(number, raw, cells, width)  # its bad symbols are reported later
        elif width in ROW_WIDTHS:
            self.sink.bad(number, bad_cell_reason(raw, cells, width))
        else:
            rest = line[size:].lstrip()
            self.sink.bad(
                number, wrong_length(size if not rest or rest[0] in META_START else width)
            )

    def _sixteen(self, number: int, raw: str, token: str, definite: bool, fours: bool) -> None:
        """A bare 16-symbol line: a 16x16 grid's first row, or maybe a 4x4 puzzle."""
        if definite or not _is_four(token):
            self._start(number, raw, list(token), 16)
        elif fours:
            self.fours = True
            self.sink.candidate(PendingPuzzle(number, token, raw))
        else:
            self._start(number, raw, list(token), 16, held=1)

    def _rule_line(self, number: int, raw: str, line: str, fours: bool) -> None:
        """A separator line outside a grid: skipped, unless it is a row of '-' cells."""
        if "=" in line:
            return
        if may_be_row(line):
            cells = split_row(line)
            if len(cells) in ROW_WIDTHS:
                self._start(number, raw, cells, len(cells))
                return
        self.fours = fours  # a plain separator does not end a run of 4x4 lines

    # ---- lines of a grid

    def _start(self, number: int, raw: str, cells: list[str], n: int, held: int = 0) -> None:
        self.grid = _Grid(number, n, [], held=held)
        self._add(number, raw, cells)

    def _add(self, number: int, raw: str, cells: list[str]) -> None:
        grid = self.grid
        assert grid is not None
        if len(cells) != grid.n and grid.error is None:
            grid.error = (
                f"rows of unequal length: line {number} has {len(cells)} cells, "
                f"line {grid.start} has {grid.n}"
            )
        grid.rows.append((number, raw, cells))
        if len(grid.rows) < grid.n:
            return
        if grid.tentative:  # 16 lines that may be 4x4 puzzles: they are
            self.end()
            self.fours = True
            return
        self.grid = None
        self._finish(grid)

    def _tentative_line(self, grid: _Grid, number: int, raw: str, line: str) -> bool:
        """A line after held 16-symbol lines; False when it ends them (they are 4x4 puzzles)."""
        if is_rule(line):
            if "=" in line or (may_be_row(line) and len(split_row(line)) in ROW_WIDTHS):
                self.end()
                return False
            return True  # a plain separator
        if len(token_of(line)) in CELL_COUNTS:
            if len(line) != 16 or not plausible(list(line), 16):
                self.end()
                return False
            if _is_four(line):
                grid.held += 1
            self._add(number, raw, list(line))
            return True
        cells = split_row(line)
        if len(cells) == 16 and plausible(cells, 16):
            self._add(number, raw, cells)
            return True
        self.end()
        return False

    def _grid_line(self, grid: _Grid, number: int, raw: str, line: str) -> bool:
        """Feed a line to the grid being read; False when the line is not part of it."""
        rule = is_rule(line)
        if not rule or may_be_row(line):
            cells = split_row(line, grid.n)
            if len(cells) == grid.n:
                self._add(number, raw, cells)
                return True
        if rule:
            if "=" in line:
                self.end()
            return True
        if HEADER.match(line):
            self.end()
            return False
        if len(token_of(line)) in CELL_COUNTS and len(token_of(line)) != grid.n:
            self.end()
            return False
        self._add(number, raw, split_row(line, grid.n))
        return True

    def _finish(self, grid: _Grid) -> None:
        """A grid with all its rows: make it a candidate, reading numbers if it has any."""
        if grid.error is not None:
            self.sink.bad(grid.start, grid.error)
            return
        n = grid.n
        rows = tuple((line, raw) for line, raw, _ in grid.rows)
        if not (n > 9 and any(len(cell) > 1 for _, _, cells in grid.rows for cell in cells)):
            text = "".join("".join(cells) for _, _, cells in grid.rows)
            self.sink.candidate(PendingPuzzle(grid.start, text, "", rows=rows))
            return
        symbols = "." + canonical_alphabet(n)
        text_cells = []
        for r, (_, _, cells) in enumerate(grid.rows):
            for c, cell in enumerate(cells):
                if cell in EMPTY_MARKS:
                    text_cells.append(".")
                elif is_number(cell, n):
                    text_cells.append(symbols[int(cell)])
                else:
                    where = PendingPuzzle(grid.start, "", "", rows=rows, numeric=True).where
                    self.sink.bad(grid.start, bad_cell_text(cell, where(r * n + c), n, True))
                    return
        text = "".join(text_cells)
        alphabet = canonical_alphabet(n)
        self.sink.candidate(
            PendingPuzzle(grid.start, text, "", alphabet=alphabet, rows=rows, numeric=True)
        )
