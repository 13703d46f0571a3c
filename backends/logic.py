"""The ``logic`` backend: human strategies that explain themselves, guessing only when stuck.

The solver climbs the ladder of :mod:`backends.engines.strategies` (seed 003's levels, HoDoKu's
names): it applies the first strategy that makes progress, cheapest first, and after every
success starts again from the cheapest. When the whole ladder fails on an open board, it
guesses: it picks a cell (``select``: fewest candidates by default), tries its candidates in
ascending order, and runs the ladder again below each guess, backtracking on a
contradiction. Every deduction, guess and backtrack can be logged as a
:class:`~backends.engines.strategies.board.Step` (:func:`solve_puzzle` with
``explain=True``), which is what ``harness explain`` prints.

Counting (see :mod:`backends.base`)
-----------------------------------
``nodes``
    The root plus one per value guessed. A puzzle the ladder alone solves (or refutes)
    scores 1.
``guesses``
    Branch points: boards on which the ladder was stuck and a cell with two or more
    candidates was chosen. The ladder includes naked singles, so every branch point is a
    guess.
``backtracks``
    Guessed values the search undoes: refuted ones, ones whose subtree failed, and, when
    counting to two, one whose subtree held a solution.

Native statistics, over every deduction of the whole search (refuted branches included):

``level``
    The hardest level used: 0-3 for the ladder's levels, 4 when the search guessed.
``score``
    The largest weight of a step used (:data:`~backends.engines.strategies.ladder.WEIGHTS`;
    a guess weighs :data:`~backends.engines.strategies.ladder.GUESS_WEIGHT`), Sudoku
    Explainer's way of rating a puzzle by its hardest step.
``steps``
    Deductions made (guesses and backtracks not included).
``max_depth``
    The most guesses in force at once (0 when nothing was guessed).

Per-strategy counts stay out of the CSV; :func:`solve_puzzle` and :mod:`harness.puzzles.rating`
return them.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import ClassVar

from backends.base import Backend, Option, SearchOutcome, SolveResult, Status
from backends.engines.deadline import after
from backends.engines.strategies.board import Board, Step, TimeUp, digits_of
from backends.engines.strategies.ladder import (
    GUESS_LEVEL,
    GUESS_WEIGHT,
    WEIGHTS,
    Rule,
    ladder,
    next_step,
)
from backends.errors import UnknownStatusError
from backends.puzzle import Grid, Puzzle

# --- cell selection when the ladder is stuck: (board) -> an open cell ----------------------


def fewest(board: Board) -> int:
    """The open cell with the fewest candidates, first in index order on ties."""
    best, best_count = -1, board.lay.n + 1
    for cell, (mask, value) in enumerate(zip(board.cands, board.values, strict=True)):
        if not value:
            count = mask.bit_count()
            if count < best_count:
                best, best_count = cell, count
                if count == 2:
                    break
    return best


def first_open(board: Board) -> int:
    """The first open cell in index order (seed 003's first version)."""
    return board.values.index(0)


def most(board: Board) -> int:
    """The open cell with the most candidates, first on ties (seed 003's optimised choice)."""
    best, best_count = -1, 0
    for cell, (mask, value) in enumerate(zip(board.cands, board.values, strict=True)):
        if not value and mask.bit_count() > best_count:
            best, best_count = cell, mask.bit_count()
    return best


Select = Callable[[Board], int]
SELECTS: dict[str, Select] = {"mrv": fewest, "first": first_open, "max": most}

# --- the search ---------------------------------------------------------------------------

#: The solver's own outcomes, translated into :class:`Status` by :func:`translate_status`.
NATIVE_STATUS: dict[str, Status] = {
    "solved": Status.SOLVED,
    "unsat": Status.UNSAT,
    "timeout": Status.TIMEOUT,
}


def translate_status(native: str) -> Status:
    """The contract's status for one of the solver's outcomes; unknown ones are refused."""
    try:
        return NATIVE_STATUS[native]
    except KeyError:
        raise UnknownStatusError(f"logic solver returned an unknown outcome {native!r}") from None


@dataclass
class LogicOutcome:
    """Everything one run of the logic solver found and counted."""

    native_status: str
    solutions: list[Grid] = field(default_factory=list)
    nodes: int = 1
    guesses: int = 0
    backtracks: int = 0
    max_depth: int = 0
    steps: int = 0
    level: int = 0
    score: float = 0.0
    hardest: str = ""  # the strategy of the heaviest step ("guess" when the search guessed)
    counts: Counter[str] = field(default_factory=Counter)  # deductions per strategy
    log: list[Step] | None = None
    reason: str = ""  # why the root failed, for UNSAT

    @property
    def status(self) -> Status:
        return translate_status(self.native_status)

    def note(self, step: Step) -> None:
        """Count one deduction (or a guess) towards the statistics."""
        weight = WEIGHTS[step.strategy]
        if step.strategy != "guess":
            self.steps += 1
            self.counts[step.strategy] += 1
        self.level = max(self.level, step.level)
        if weight > self.score:
            self.score, self.hardest = weight, step.strategy

    def result(self) -> SolveResult:
        """The outcome as the backend contract's :class:`SolveResult`."""
        status = self.status
        message = ""
        if status is Status.TIMEOUT:
            message = f"time limit reached after {len(self.solutions)} solution(s)"
        native = {
            "level": self.level,
            "score": self.score,
            "steps": self.steps,
            "max_depth": self.max_depth,
        }
        outcome = SearchOutcome(status, self.solutions, self.nodes, self.guesses, self.backtracks)
        return outcome.result(message, native)


class _LimitReached(Exception):
    """The solution limit was reached."""


@dataclass
class _Search:
    """One run of the solver: the ladder, the guessing and the outcome it fills in."""

    rules: Sequence[Rule]
    select: Select
    limit: int
    out: LogicOutcome

    def log(self, step: Step) -> None:
        """Keep ``step`` in the outcome's log, when it keeps one."""
        if self.out.log is not None:
            self.out.log.append(step)

    def deduce(self, board: Board, depth: int) -> str | None:
        """Climb the ladder until stuck or solved; the contradiction met, or None."""
        while not board.is_complete():
            board.check_time()
            step = next_step(board, self.rules)
            if step is None:
                return None
            self.out.note(step)
            self.log(replace(step, depth=depth))
            reason = board.apply(step)
            if reason:
                return reason
        return None

    def explore(self, board: Board, depth: int) -> str | None:
        """Deduce, then branch; why the subtree holds no solution, or None if it held one."""
        out = self.out
        reason = self.deduce(board, depth)
        if reason:
            return reason
        if board.is_complete():
            out.solutions.append(tuple(board.values))
            text = f"solution {len(out.solutions)} found"
            self.log(Step("solution", GUESS_LEVEL, (), (), text, depth))
            if len(out.solutions) >= self.limit:
                raise _LimitReached
            return None
        cell = self.select(board)
        out.guesses += 1
        options = digits_of(board.cands[cell])
        held = [self.guess(board, depth, cell, digit, options) is None for digit in options]
        return None if any(held) else f"no candidate of {board.lay.cell(cell)} works"

    def guess(
        self, board: Board, depth: int, cell: int, digit: int, options: Sequence[int]
    ) -> str | None:
        """Try ``digit`` at ``cell`` below ``board``, then undo it: why it failed, or None."""
        lay, out = board.lay, self.out
        board.check_time()
        out.nodes += 1
        out.max_depth = max(out.max_depth, depth + 1)
        what = f"{lay.cell(cell)} = {lay.digit(digit)}"
        candidates = ", ".join(lay.digit(d) for d in options)
        text = f"guess {what} (depth {depth + 1}; candidates {candidates})"
        guess = Step("guess", GUESS_LEVEL, ((cell, digit),), (), text, depth)
        out.note(guess)
        self.log(guess)
        child = board.copy()
        why = child.place(cell, digit) or child.broken_unit() or self.explore(child, depth + 1)
        out.backtracks += 1
        if why is None:
            text = f"backtrack: undo {what} (depth {depth + 1}), looking for another solution"
        else:
            text = f"backtrack: {what} (depth {depth + 1}) fails: {why}"
        self.log(Step("backtrack", GUESS_LEVEL, (), (), text, depth))
        return why


def run(
    start: Board,
    rules: Sequence[Rule],
    select: Select = fewest,
    limit: int = 1,
    deadline: float | None = None,
    explain: bool = False,
    root_reason: str | None = None,
) -> LogicOutcome:
    """Solve from ``start`` (not changed) for up to ``limit`` solutions.

    ``root_reason``: the givens are already contradictory (UNSAT at the root). With
    ``explain`` every step, guess and backtrack goes into ``outcome.log`` in order.
    """
    if limit < 1:
        raise ValueError(f"limit must be 1 or more, got {limit!r}")
    out = LogicOutcome("unsat", log=[] if explain else None)
    if root_reason:
        out.reason = root_reason
        return out
    board = start.copy()
    board.deadline = deadline
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * start.lay.ncells + 1000))
    try:
        reason = _Search(rules, select, limit, out).explore(board, 0)
        if out.solutions:
            out.native_status = "solved"
        else:
            out.reason = reason or ""
    except _LimitReached:
        out.native_status = "solved"
    except TimeUp:
        out.native_status = "timeout"
    return out


def solve_puzzle(
    puzzle: Puzzle,
    limit: int = 1,
    time_limit: float | None = None,
    *,
    select: str = "mrv",
    max_level: int = 3,
    explain: bool = False,
) -> LogicOutcome:
    """Solve one puzzle with the ladder up to ``max_level``; ``explain`` keeps the log."""
    board, reason = Board.from_puzzle(puzzle)
    deadline = after(time_limit)
    return run(board, ladder(max_level), SELECTS[select], limit, deadline, explain, reason)


@dataclass(frozen=True)
class EncodedBoard:
    """What :meth:`LogicBackend.encode` hands to solve: the givens' board and any clash."""

    board: Board
    reason: str | None


class LogicBackend(Backend):
    """Human strategies, cheapest first; guesses (and backtracks) only when all fail."""

    name: ClassVar[str] = "logic"
    summary: ClassVar[str] = (
        "human strategies (seed 003's ladder, HoDoKu names) cheapest first, restarting after "
        "each success; guesses only when the whole ladder is stuck"
    )
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "select",
            "mrv",
            "cell to guess on when stuck: mrv (fewest candidates), first (index order), "
            "max (most candidates, seed 003); ties go to the first cell",
            choices=tuple(SELECTS),
        ),
        Option(
            "max_level",
            "3",
            "highest level of the ladder to use: 0 singles, 1 pairs and locked candidates, "
            "2 triples, quads, x-wing, wings, 3 fish, chains",
            choices=("0", "1", "2", "3"),
        ),
    )
    native_counters: ClassVar[tuple[str, ...]] = ("level", "score", "steps", "max_depth")

    def encode(self, puzzle: Puzzle) -> EncodedBoard:
        """The board of the givens: candidates filtered by the givens' peers."""
        return EncodedBoard(*Board.from_puzzle(puzzle))

    def solve(
        self, encoded: EncodedBoard, limit: int = 1, time_limit: float | None = None
    ) -> SolveResult:
        """Climb the ladder, guess when stuck; TIMEOUT (with counters) once time runs out."""
        deadline = after(time_limit)
        rules = ladder(int(self.config["max_level"]))
        select = SELECTS[self.config["select"]]
        return run(encoded.board, rules, select, limit, deadline, False, encoded.reason).result()


__all__ = [
    "GUESS_WEIGHT",
    "SELECTS",
    "LogicBackend",
    "LogicOutcome",
    "fewest",
    "first_open",
    "most",
    "run",
    "solve_puzzle",
    "translate_status",
]
