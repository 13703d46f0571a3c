"""Difficulty as data: rate puzzles with the ``logic`` backend's ladder, and explain them.

:func:`rate` solves a puzzle the way a person would (:func:`backends.logic.solve_puzzle`:
strategies cheapest first, a guess only when the whole ladder is stuck) and reports:

``hardest_strategy``
    The strategy of the heaviest step used; ``guess`` when the solver had to guess.
``level``
    The hardest level used, Zambon's 0-3 (see :mod:`backends.engines.strategies`), 4 for a guess.
``score``
    The weight of the heaviest step: Sudoku Explainer's rule that a puzzle is as hard as its
    hardest step (the *maximum*, not a sum), on SE's scale (hidden single 1.5 ... forcing
    chain 7.5; a guess 10.0). Weights are in :data:`backends.engines.strategies.ladder.WEIGHTS`.
``guesses``
    Branch points of the search (0 when the ladder alone solved it).
``counts``
    Deductions per strategy.

Tiers
-----
From the level and the guesses: ``easy`` (singles only, level 0), ``medium`` (level 1:
pairs and locked candidates), ``hard`` (level 2: triples, quads, x-wing, xy/xyz-wing),
``expert`` (level 3: fish, single-digit chains, wings, xy/x-chains, aic, forcing chains) and
``needs-guess`` (the ladder got stuck at least once). Three more tiers are not
difficulties: ``multi-solution`` (the puzzle has two or more solutions, so it has no one
difficulty: the steps rated are those to the first solution found), ``unsolvable`` (the
solver proved there is no solution) and ``unrated`` (its time limit ran out first).

Uniqueness is asked of :data:`COUNT_BACKEND` (``limit=2``) only when the ladder guessed: its
deductions are sound for any solution (none assumes the puzzle unique), so a puzzle they
solve without a guess has that one solution.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from backends.base import Status
from backends.engines.strategies.ladder import GUESS_LEVEL
from backends.errors import SudokuError
from backends.logic import LogicOutcome, solve_puzzle
from backends.puzzle import Puzzle
from harness.puzzles.readers import PuzzleRecord, ReadResult, read_puzzles, read_text

#: Difficulty tiers, easiest first; index = level (4: needs a guess).
TIERS: tuple[str, ...] = ("easy", "medium", "hard", "expert", "needs-guess")
#: The tier of a puzzle with two or more solutions.
MULTI = "multi-solution"
#: Every tier a rating can have, in table order.
ALL_TIERS: tuple[str, ...] = (*TIERS, MULTI, "unsolvable", "unrated")
#: The backend that counts a puzzle's solutions (``limit=2``).
COUNT_BACKEND = "dlx"
#: The seconds one puzzle may take before it is ``unrated``, unless told otherwise.
DEFAULT_TIME_LIMIT = 60.0

CSV_COLUMNS: tuple[str, ...] = (
    "dataset",
    "line",
    "puzzle",
    "size",
    "givens",
    "status",
    "hardest_strategy",
    "level",
    "score",
    "guesses",
    "steps",
    "tier",
)


def tier_for(level: int, guesses: int) -> str:
    """The tier of a solved puzzle: by its hardest level, ``needs-guess`` after a guess."""
    if guesses > 0 or level >= GUESS_LEVEL:
        return "needs-guess"
    return TIERS[level]


@dataclass(frozen=True)
class Rating:
    """How hard one puzzle is for a person (see the module docstring)."""

    hardest_strategy: str
    level: int
    score: float
    guesses: int
    solved_without_guess: bool
    counts: dict[str, int] = field(default_factory=dict)
    status: str = Status.SOLVED.value
    steps: int = 0
    #: False when the puzzle has two or more solutions (None: not known, its count timed out).
    unique: bool | None = True

    @property
    def tier(self) -> str:
        if self.status == Status.UNSAT.value:
            return "unsolvable"
        if self.status != Status.SOLVED.value:
            return "unrated"
        if self.unique is False:
            return MULTI
        return tier_for(self.level, self.guesses)


def count_solutions(puzzle: Puzzle, time_limit: float | None = None) -> int | None:
    """The solutions :data:`COUNT_BACKEND` finds for ``puzzle`` with ``limit=2`` (0, 1 or
    2); None when ``time_limit`` seconds ran out first."""
    from backends import make_backend

    backend = make_backend(COUNT_BACKEND)
    result = backend.solve(backend.encode(puzzle), limit=2, time_limit=time_limit)
    if result.status not in (Status.SOLVED, Status.UNSAT):
        return None
    return result.solutions_found


def rating_of(
    outcome: LogicOutcome, puzzle: Puzzle | None = None, time_limit: float | None = None
) -> Rating:
    """The rating a finished (limit 1) logic solve gives; with ``puzzle``, a solve that
    guessed also has its solutions counted (:func:`count_solutions`), so that a puzzle with
    two or more is ``multi-solution``."""
    status = outcome.status
    return Rating(
        hardest_strategy=outcome.hardest,
        level=outcome.level,
        score=outcome.score,
        guesses=outcome.guesses,
        solved_without_guess=status is Status.SOLVED and outcome.guesses == 0,
        counts=dict(sorted(outcome.counts.items())),
        status=status.value,
        steps=outcome.steps,
        unique=_unique(outcome, puzzle, time_limit),
    )


def _unique(outcome: LogicOutcome, puzzle: Puzzle | None, time_limit: float | None) -> bool | None:
    """Whether a solved puzzle has one solution: True without a guess (see the module
    docstring), else as :func:`count_solutions` finds; True when ``puzzle`` is not given."""
    if puzzle is None or outcome.status is not Status.SOLVED or not outcome.guesses:
        return True
    found = count_solutions(puzzle, time_limit)
    return None if found is None else found == 1


def rate(puzzle: Puzzle, time_limit: float | None = DEFAULT_TIME_LIMIT) -> Rating:
    """Rate ``puzzle`` by solving it with the full ladder (first solution); one with two or
    more solutions is ``multi-solution``."""
    return rating_of(solve_puzzle(puzzle, limit=1, time_limit=time_limit), puzzle, time_limit)


# --------------------------------------------------------------------------- files


def rate_records(
    records: Iterable[PuzzleRecord],
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """One CSV row (:data:`CSV_COLUMNS`) per record."""
    rows = []
    for record in records:
        rating = rate(record.puzzle, time_limit)
        rows.append(
            {
                "dataset": record.dataset,
                "line": record.line,
                "puzzle": record.puzzle.to_string(),
                "size": record.puzzle.n,
                "givens": record.puzzle.givens,
                "status": rating.status,
                "hardest_strategy": rating.hardest_strategy,
                "level": rating.level,
                "score": rating.score,
                "guesses": rating.guesses,
                "steps": rating.steps,
                "tier": rating.tier,
            }
        )
        if progress:
            progress(1)
    return rows


def write_csv(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Write rating rows as CSV (making the folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def tier_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How many rows fall in each tier, in :data:`ALL_TIERS` order (empty tiers kept)."""
    counts = dict.fromkeys(ALL_TIERS, 0)
    for row in rows:
        counts[row["tier"]] += 1
    return counts


def tier_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """A plain-text table: one line per tier with puzzles, share and median score."""
    counts = tier_counts(rows)
    total = len(rows)
    wide = max(map(len, ALL_TIERS))
    lines = [f"{'tier':<{wide}} {'puzzles':>7} {'share':>7} {'median score':>12}"]
    for tier, count in counts.items():
        if not count and tier not in TIERS:
            continue
        scores = sorted(float(r["score"]) for r in rows if r["tier"] == tier)
        median = f"{_median(scores):.1f}" if scores else ""
        share = f"{100 * count / total:.1f}%" if total else ""
        lines.append(f"{tier:<{wide}} {count:>7} {share:>7} {median:>12}")
    lines.append(f"{'total':<{wide}} {total:>7}")
    return "\n".join(lines)


def _median(values: Sequence[float]) -> float:
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def tiers_of(
    puzzles: Iterable[str], time_limit: float | None = DEFAULT_TIME_LIMIT
) -> dict[str, str]:
    """The tier of each distinct puzzle text (for grouping run tables)."""
    tiers: dict[str, str] = {}
    for text in puzzles:
        if text not in tiers:
            tiers[text] = rate(Puzzle.parse(text), time_limit).tier
    return tiers


# --------------------------------------------------------------------------- explain


def load_puzzle(arg: str, stdin: TextIO | None = None) -> Puzzle:
    """A puzzle from a command-line argument: its text (one line, or a grid's lines), ``-``
    for the one puzzle on standard input, or ``FILE:LINE`` (``-:LINE``) for the puzzle that
    starts on that line of the file: 1-based, comment lines counted, as in the ``line``
    column of a results CSV. Raises :class:`SudokuError` naming the problem (for a line
    where no puzzle starts, the lines where the file's puzzles do).
    """
    path, sep, line = arg.rpartition(":")
    if sep and line.isdigit() and (path == "-" or _is_file(path)):
        result = read_puzzles(path, stdin)
        for record in result.records:
            if record.line == int(line):
                return record.puzzle
        for bad in result.bad:
            if bad.line == int(line):
                raise SudokuError(str(bad))
        raise SudokuError(_no_puzzle_at(path, int(line), [r.line for r in result.records]))
    if arg == "-":
        return _only_puzzle(read_puzzles(arg, stdin), "standard input", "-:LINE")
    if _is_file(arg):
        raise SudokuError(f"{arg} is a file; name one puzzle as {arg}:LINE")
    if "\n" in arg:
        return _only_puzzle(read_text(arg, "puzzle"), "the puzzle text", "one puzzle")
    return Puzzle.parse(arg)


def _no_puzzle_at(path: str, line: int, starts: Sequence[int]) -> str:
    """Why ``path:line`` names no puzzle, and the lines where the file's puzzles start."""
    where = f"line {line} of standard input" if path == "-" else f"{path}:{line}"
    if not starts:
        return f"{where}: no puzzle starts here; it holds no puzzle"
    if len(starts) == 1:
        return f"{where}: no puzzle starts here; its one puzzle starts on line {starts[0]}"
    return (
        f"{where}: no puzzle starts here; its {len(starts)} puzzles start on lines "
        f"{starts[0]}-{starts[-1]}"
    )


def _is_file(path: str) -> bool:
    """Whether ``path`` names a file; False for what cannot be a path (too long, a NUL)."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def _only_puzzle(result: ReadResult, source: str, instead: str) -> Puzzle:
    """The one puzzle read from ``source``; its first bad line, or a count, if not one."""
    if len(result.records) == 1 and not result.bad:
        return result.records[0].puzzle
    if result.bad:
        raise SudokuError(str(result.bad[0]))
    if not result.records:
        raise SudokuError(f"no puzzle found in {source}")
    raise SudokuError(f"{source} holds {len(result.records)} puzzles; give {instead}")


def explain_lines(puzzle: Puzzle, time_limit: float | None = DEFAULT_TIME_LIMIT) -> list[str]:
    """The solution step by step, one numbered line per deduction, guess or backtrack
    (indented by guess depth), then the solution grid and the rating."""
    outcome = solve_puzzle(puzzle, limit=1, time_limit=time_limit, explain=True)
    log = outcome.log or []
    lines = [f"puzzle {puzzle.to_string()}", puzzle.pretty(), ""]
    width = len(str(len(log)))
    for number, step in enumerate(log, 1):
        lines.append(f"{number:>{width}}. {'  ' * step.depth}{step.text}")
    rating = rating_of(outcome, puzzle, time_limit)
    status = outcome.status
    if status is Status.SOLVED:
        solution = Puzzle(puzzle.box, outcome.solutions[0])
        several = rating.unique is False
        lines += ["", "the first solution" if several else "solution", solution.pretty()]
        if several:
            lines.append(
                f"not unique: {COUNT_BACKEND} finds two or more solutions (limit=2); the steps "
                "and the rating are of the first"
            )
    elif status is Status.UNSAT:
        lines += ["", f"no solution: {outcome.reason}"]
    else:
        lines += ["", "time limit reached before a solution was found"]
    guesses = f"{rating.guesses} guess{'es' if rating.guesses != 1 else ''}"
    lines.append(
        f"rating: tier {rating.tier}; hardest strategy {rating.hardest_strategy or 'none'} "
        f"(level {rating.level}), score {rating.score:.1f}, {guesses}, "
        f"{rating.steps} deductions"
    )
    return lines
