"""Validation: puzzles found by the layouts wait as candidates, and are checked in batches.

A batch's candidates of one size and alphabet are checked together, in pure Python
(:mod:`.batch`: symbols, repeated digits in a unit, the expected solution: complete, valid,
agreeing with the givens); only a refused candidate is looked at again, the slow way, to say
why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backends.errors import PuzzleError
from backends.puzzle import CELL_COUNTS, SIZES, Puzzle, canonical_alphabet, detect_alphabet
from harness.check.checker import check_solution
from harness.puzzles.readers.batch import check
from harness.puzzles.readers.messages import bad_char_reason, cell_starts, conflict_reason
from harness.puzzles.readers.records import BadLine, PuzzleRecord, new_record
from harness.puzzles.readers.symbols import digit_table, first_bad


@dataclass(slots=True)
class PendingPuzzle:
    """A puzzle found in the text, waiting for its symbols to be checked in a batch."""

    line: int
    text: str  # the puzzle's symbols, one per cell, no separators
    raw: str  # the physical line (one-line layouts), to locate columns in messages
    meta: str = ""
    solution: str | None = None
    count: int | None = None
    alphabet: str | None = None  # forced alphabet (numeric grids), else detected
    rows: tuple[tuple[int, str], ...] | None = None  # (line, raw) of each row of a grid
    numeric: bool = False  # a grid whose cells are whitespace-separated numbers

    def where(self, index: int) -> str:
        """Where cell ``index`` of the puzzle is: 'column 12' or 'line 5, column 3'."""
        if self.rows is None:
            return f"column {max(self.raw.find(self.text), 0) + index + 1}"
        n = len(self.rows)
        line, raw = self.rows[index // n]
        starts = cell_starts(raw, self.numeric)
        column = starts[index % n] + 1 if index % n < len(starts) else 0
        return f"line {line}, column {column}"

    def where_solution(self, index: int) -> str:
        """Where cell ``index`` of the expected solution is on the line."""
        solution = self.solution or ""
        after = self.raw.find(self.text)
        start = self.raw.find(solution, after + len(self.text)) if after >= 0 else -1
        if start < 0:
            start = max(self.raw.find(solution), 0)
        return f"column {start + index + 1}"


Item = PuzzleRecord | BadLine


class Sink:
    """Records and bad lines in line order; a candidate's slot in ``out`` stays None until
    the batch it waits in (``waiting``) is checked.

    A counting sink (for a scan) makes no records: it counts the puzzles that pass the
    check (``puzzles``) and keeps the largest side among them (``largest``), and hands out
    the bad lines alone, the same as a sink that makes records.
    """

    def __init__(self, dataset: str, counting: bool = False) -> None:
        self.dataset = dataset
        self.counting = counting
        self.puzzles = 0  # puzzles counted, not made (counting)
        self.largest = 0  # the largest side among them (0: none yet)
        self.out: list[Item | None] = []
        self.waiting: list[tuple[int, PendingPuzzle]] = []

    def bad(self, line: int, reason: str) -> None:
        self.out.append(BadLine(self.dataset, line, reason))

    def candidate(self, cand: PendingPuzzle) -> None:
        self.waiting.append((len(self.out), cand))
        self.out.append(None)

    def extend(self, items: Sequence[Item]) -> None:
        """Items already checked (:mod:`.plain`), after everything so far."""
        self.out.extend(items)

    def count(self, n: int, puzzles: int) -> None:
        """``puzzles`` good puzzles of side ``n``, counted rather than made (counting)."""
        if puzzles:
            self.puzzles += puzzles
            self.largest = max(self.largest, n)

    def put(self, line: int, found: PendingPuzzle | str) -> None:
        """A layout's verdict on a line: a candidate, or the reason it is bad."""
        if isinstance(found, str):
            self.bad(line, found)
        else:
            self.candidate(found)

    def take(self) -> list[Item]:
        """Check the waiting candidates, then hand over everything found so far."""
        if self.waiting:
            self._resolve()
        done, self.out = self.out, []
        if self.counting:  # the slots of the good candidates, counted, are still None
            return [item for item in done if item is not None]
        return done  # type: ignore[return-value]  # no None left after _resolve()

    def _resolve(self) -> None:
        waiting, self.waiting = self.waiting, []
        groups: dict[tuple[int, str], list[tuple[int, PendingPuzzle]]] = {}
        for slot, cand in waiting:
            n = CELL_COUNTS[len(cand.text)]
            alphabet = cand.alphabet
            if alphabet is None:
                alphabet = canonical_alphabet(n) if n <= 9 else self._detect(slot, cand, n)
                if alphabet is None:
                    continue
            groups.setdefault((n, alphabet), []).append((slot, cand))
        for (n, alphabet), items in groups.items():
            self._resolve_group(n, alphabet, items)

    def _detect(self, slot: int, cand: PendingPuzzle, n: int) -> str | None:
        """The alphabet of a 16x16/25x25 candidate and its solution; None after a BadLine."""
        try:
            return detect_alphabet(cand.text + (cand.solution or ""), n)
        except PuzzleError:
            pass
        try:
            alphabet = detect_alphabet(cand.text, n)
        except PuzzleError:
            reason = bad_char_reason(cand.text, n, None, cand.where)
        else:
            solution = cand.solution or ""
            if first_bad(solution, n, alphabet) is None:  # not reached: it would have fitted
                reason = "expected solution: its alphabet differs from the puzzle's"
            else:
                reason = "expected solution: " + bad_char_reason(
                    solution, n, alphabet, cand.where_solution
                )
        self.out[slot] = BadLine(self.dataset, cand.line, reason)
        return None

    def _resolve_group(self, n: int, alphabet: str, items: list[tuple[int, PendingPuzzle]]) -> None:
        """Check candidates of one size and alphabet together (:func:`.batch.check`)."""
        box = SIZES[n]
        refused, grids, solutions = check(
            [cand.text for _, cand in items], [cand.solution for _, cand in items], n, alphabet
        )
        dataset = self.dataset
        out = self.out
        if self.counting:
            for index in refused:
                slot, cand = items[index]
                out[slot] = BadLine(dataset, cand.line, explain(cand, n, alphabet))
            self.count(n, len(items) - len(refused))
            return
        unchecked = Puzzle.unchecked
        for index, ((slot, cand), cells, solution) in enumerate(
            zip(items, grids, solutions, strict=True)
        ):
            if index in refused:
                out[slot] = BadLine(dataset, cand.line, explain(cand, n, alphabet))
                continue
            # Puzzle.unchecked: these cells come out of a digit table, ints in 0..n by
            # construction, and the Puzzle's own check would triple the time of a large file.
            expected = None if solution is None else unchecked(box, solution)
            puzzle = unchecked(box, cells)
            out[slot] = new_record(dataset, cand.line, puzzle, cand.count, expected, cand.meta)


def explain(cand: PendingPuzzle, n: int, alphabet: str) -> str:
    """Why the batch check refused a candidate (the slow way: only bad ones come here)."""
    box = SIZES[n]
    if first_bad(cand.text, n, alphabet) is not None:
        return bad_char_reason(cand.text, n, alphabet, cand.where)
    table = digit_table(n, alphabet)
    puzzle = Puzzle(box, tuple(map(ord, cand.text.translate(table))))
    if puzzle.conflicts():
        return conflict_reason(puzzle, None if cand.numeric else alphabet)
    solution = cand.solution or ""
    if first_bad(solution, n, alphabet) is not None:
        return "expected solution: " + bad_char_reason(solution, n, alphabet, cand.where_solution)
    expected = tuple(map(ord, solution.translate(table)))
    reason = check_solution(puzzle.cells, expected)  # the one answer checker
    return "expected solution refused: " + (reason or "by the batch check")
