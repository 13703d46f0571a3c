"""The ``example`` backend: backtracking on row, column and box bitmasks.

Each row, column and box keeps a bitmask of the digits it already holds; a cell's candidates
are the digits none of its three units holds. The search branches on the empty cell with the
fewest candidates and tries them in ascending order. No forward checking: a dead cell shows
when it is chosen (it has no candidate), one level down.

Counters, as sudoku-harness's contract defines them: ``nodes`` is 1 for the root plus one per
digit placed, ``guesses`` the branch points with more than one candidate, ``backtracks`` the
placed digits taken back. ``native`` has ``dead_ends``: chosen cells with no candidate.
"""

from __future__ import annotations

import time
from typing import ClassVar

from backends.base import Backend, SolveResult, Status
from backends.puzzle import Puzzle


class ExampleBackend(Backend):
    """Backtracking on unit bitmasks, fewest candidates first (an example plugin)."""

    name: ClassVar[str] = "example"
    summary: ClassVar[str] = "example plugin: backtracking on row/column/box bitmasks"
    deterministic: ClassVar[bool] = True
    native_counters: ClassVar[tuple[str, ...]] = ("dead_ends",)
    max_box: ClassVar[int] = 3

    def solve(
        self, encoded: Puzzle, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Search for up to ``limit`` solutions; TIMEOUT once ``time_limit`` has passed."""
        geo = encoded.geometry
        grid = list(encoded.cells)
        used = [0] * (3 * encoded.n)  # rows, then columns, then boxes
        units = [
            (geo.row_of[c], encoded.n + geo.col_of[c], 2 * encoded.n + geo.box_of[c])
            for c in range(geo.ncells)
        ]
        for cell, digit in enumerate(grid):
            if digit:
                bit = 1 << (digit - 1)
                if any(used[u] & bit for u in units[cell]):
                    return SolveResult(Status.UNSAT, message="the givens repeat a digit")
                for u in units[cell]:
                    used[u] |= bit
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        full = (1 << encoded.n) - 1
        solutions: list[tuple[int, ...]] = []
        count = {"nodes": 1, "guesses": 0, "backtracks": 0, "dead_ends": 0}

        def free(cell: int) -> int:
            a, b, c = units[cell]
            return full & ~(used[a] | used[b] | used[c])

        def visit() -> bool:  # True: stop (limit reached or out of time)
            empty = [c for c, d in enumerate(grid) if not d]
            if not empty:
                solutions.append(tuple(grid))
                return len(solutions) >= limit
            cell = min(empty, key=lambda c: free(c).bit_count())
            bits = free(cell)
            if not bits:
                count["dead_ends"] += 1
                return False
            count["guesses"] += bits.bit_count() > 1
            for digit in range(1, encoded.n + 1):
                bit = 1 << (digit - 1)
                if not bits & bit:
                    continue
                if deadline is not None and time.perf_counter() > deadline:
                    return True
                count["nodes"] += 1
                grid[cell] = digit
                for u in units[cell]:
                    used[u] |= bit
                if visit():
                    return True
                for u in units[cell]:
                    used[u] &= ~bit
                grid[cell] = 0
                count["backtracks"] += 1
            return False

        stopped = visit()
        if stopped and len(solutions) < limit:
            status = Status.TIMEOUT
        else:
            status = Status.SOLVED if solutions else Status.UNSAT
        return SolveResult(
            status,
            solution=solutions[0] if solutions else None,
            solutions_found=len(solutions),
            nodes=count["nodes"],
            guesses=count["guesses"],
            backtracks=count["backtracks"],
            native={"dead_ends": count["dead_ends"]},
        )
