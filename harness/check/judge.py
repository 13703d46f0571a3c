"""The independent check of one outcome: a backend's answer becomes a row's status and message.

:func:`judge` checks an answer with :mod:`harness.check.checker` against the puzzle and the file's
expected count and solution, and turns late or over-memory answers into TIMEOUT and MEMOUT;
:func:`settle_count` settles a disputed solution count with the harness's own search
(:mod:`harness.check.dispute`). Nothing here runs a backend.

A claim of two (or more) solutions under ``--limit-solutions 2`` that the file's count
cannot check is checked by the same search, looking for a solution other than the answer:
exhausting the search refutes the claim (WRONG), finding one confirms it. The search stops
after :data:`CLAIM_NODES` nodes (well under a second; a 9x9 puzzle needs a few hundred); the
row then keeps its status, its message saying the claim went unconfirmed. A claim of one
solution is not searched: a second backend's cross-check settles it
(:func:`harness.check.crosscheck.cross_check`).

An UNSAT claim that the file's count cannot check is searched the same way: a solution found
refutes it (WRONG); a search that runs out of its nodes leaves it unproven, and an unproven
UNSAT is UNKNOWN, never a right answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from time import perf_counter
from typing import Any

from backends.base import Status
from backends.puzzle import Puzzle, grid_text
from harness.check import dispute
from harness.check.checker import all_valid, check_solution, first_difference
from harness.outcome import Outcome
from harness.puzzles.readers import PuzzleRecord
from harness.tables.humanize import seconds

#: The search nodes the harness spends on one claim of two solutions (see the module).
CLAIM_NODES = 50_000
SOLVED, UNSAT = Status.SOLVED, Status.UNSAT


def _refusal(record: PuzzleRecord, answer: Any, valid: bool = False) -> str | None:
    """Why a SOLVED answer is refused (the checker's reason, or not the file's solution);
    ``valid``: the checker has found it a valid completion already."""
    reason = None if valid else check_solution(record.puzzle.cells, answer)
    if reason is None and record.expected_solution is not None:
        expected = record.expected_solution.cells
        if tuple(answer) != expected:
            reason = f"valid, but not the file's solution ({first_difference(answer, expected)})"
    return reason


def judge_all(
    answered: Sequence[tuple[PuzzleRecord, Outcome]],
    limit: int,
    timeout: float | None = None,
    memory_limit_mib: float | None = None,
) -> list[dict[str, Any]]:
    """:func:`judge` of each (record, outcome), their SOLVED answers checked together first
    (:func:`~harness.check.checker.all_valid`): when all are valid, each row's ``check_s``
    is its share of that check; when one is not, each is checked alone, as always."""
    solved = [(record, outcome) for record, outcome in answered if outcome.status is SOLVED]
    valid, share = False, None
    if len(solved) > 1:
        start = perf_counter()
        givens = [record.puzzle.digits for record, _ in solved]
        answers = [outcome.solution for _, outcome in solved]
        valid = all_valid(givens, answers, solved[0][0].puzzle.n)  # type: ignore[arg-type]
        share = (perf_counter() - start) / len(solved)
    return [
        judge(record, outcome, limit, timeout, memory_limit_mib, share if valid else None)
        for record, outcome in answered
    ]


def judge(
    record: PuzzleRecord,
    outcome: Outcome,
    limit: int,
    timeout: float | None = None,
    memory_limit_mib: float | None = None,
    checked_s: float | None = None,
) -> dict[str, Any]:
    """Check an outcome independently; return the row fields.

    A refused answer becomes WRONG, whenever it came. A right answer that came after
    ``timeout`` (encode + solve; the worker is killed only a grace period later) becomes
    TIMEOUT, and one whose solve peaked above ``memory_limit_mib`` becomes MEMOUT (the
    parent samples memory every 50 ms, so a short solve can pass the limit unseen; its
    measured peak cannot): neither would have counted in a run with those limits.
    ``checked_s``: the answer is known to be a valid completion, found so in that many
    seconds (its share of a check of many, :func:`judge_all`).
    """
    fields = outcome.fields()
    status = outcome.status
    answer = outcome.solution
    fields["solution"] = None if answer is None else grid_text(record.puzzle.n, answer)
    reason = None
    found = 0
    if status is SOLVED:
        start = perf_counter()
        reason = _refusal(record, answer, checked_s is not None)
        fields["check_s"] = perf_counter() - start + (checked_s or 0.0)
        found = outcome.solutions or 0
    answered = status is SOLVED or status is UNSAT
    count = record.expected_count
    if reason is None and answered and count is not None and min(count, limit) != found:
        reason = f"found {found} solution(s) under limit {limit}, the file says {count}"
    note = None
    if reason is None and count is None and 2 <= found <= limit:
        reason, note = claim_of_two(record.puzzle, answer)
    if reason is None and count is None and status is UNSAT:
        reason, note = claim_of_none(record.puzzle)
        if note is not None:  # unproven: never counted as a right answer
            status = Status.UNKNOWN
    spent = (outcome.encode_s or 0.0) + (outcome.solve_s or 0.0)
    peak = outcome.peak_rss_mib or 0.0
    unwritable = _unwritable(fields)
    if unwritable is not None:  # the row must still be written, and read back
        fields.update(_emptied(fields), status=Status.ERROR, message=unwritable)
    elif found > limit:  # the contract counts only up to the limit: this is not an answer
        fields["status"] = Status.ERROR
        fields["message"] = f"reported {found} solutions under a limit of {limit}"
    elif reason is not None:
        fields["status"] = Status.WRONG
        fields["message"] = reason
    elif answered and timeout is not None and spent > timeout:
        fields["status"] = Status.TIMEOUT
        fields["message"] = (
            f"answered {status} after {seconds(spent)}, over the {seconds(timeout)} timeout"
        )
    elif answered and memory_limit_mib is not None and peak > memory_limit_mib:
        fields["status"] = Status.MEMOUT
        fields["message"] = (
            f"{status}, but the solve peaked at {peak:.0f} MiB, "
            f"over the {memory_limit_mib:.0f} MiB limit"
        )
    else:
        fields["status"] = status
        if note is not None:
            fields["message"] = note
    return fields


#: The largest whole number a results column of whole numbers holds (``solutions``).
WHOLE_LIMIT = 10**18


def _unwritable(fields: dict[str, Any]) -> str | None:
    """Why a measured value cannot go in its results column (a number that is not finite,
    below zero, or a solution count of 10^18 or more: the results engine refuses such a
    row), or None."""
    for name, value in fields.items():
        if name in ("status", "message", "solution", "host") or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue  # text: a native statistic that is not a number
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        whole = name == "solutions" and not 0 <= value < WHOLE_LIMIT
        if whole or not math.isfinite(number) or number < 0:
            shown = str(value) if len(str(value)) <= 40 else str(value)[:40] + "..."
            return f"the solver reported {name}={shown}, past what a results column holds"
    return None


def _emptied(fields: dict[str, Any]) -> dict[str, Any]:
    """The measured numbers a column cannot hold, emptied."""
    return {
        name: None
        for name, value in fields.items()
        if isinstance(value, int | float)
        and not isinstance(value, bool)
        and _unwritable({name: value}) is not None
    }


def claim_of_two(puzzle: Puzzle, answer: Sequence[int]) -> tuple[str | None, str | None]:
    """(why the claim of two solutions is wrong, or None; a note when the search could not
    tell): the harness's own search for a solution of ``puzzle`` other than ``answer``."""
    try:
        other = dispute.other_solution(puzzle.cells, answer, max_nodes=CLAIM_NODES)
    except dispute.Unsettled as stop:
        return None, f"a second solution claimed, unconfirmed: the harness's search found {stop}"
    if other is None:
        return "claimed 2 solutions; the harness's own search finds only this one", None
    return None, None


def claim_of_none(puzzle: Puzzle) -> tuple[str | None, str | None]:
    """(why the claim that ``puzzle`` has no solution is wrong, or None; a note when the
    harness's own search could not tell within :data:`CLAIM_NODES` nodes). A file that
    states no count cannot confirm UNSAT: the search must, or the claim is unproven."""
    if puzzle.conflicts():  # givens that repeat a digit in a unit: no grid keeps them
        return None, None
    try:
        found = dispute.other_solution(puzzle.cells, (), max_nodes=CLAIM_NODES)
    except dispute.Unsettled as stop:
        return None, f"claimed UNSAT, unproven: the harness's own search found {stop}"
    if found is None:
        return None, None
    return f"claimed UNSAT, but the harness's own search found {grid_text(puzzle.n, found)}", None


def settle_count(puzzle_text: str, solution_text: str, seconds: float) -> str | None:
    """A checked second solution of the puzzle (as text), or None when ``solution_text``
    is its only one: the harness's own search (:mod:`harness.check.dispute`), for a disputed
    count. Raises :class:`harness.check.dispute.Unsettled` when it cannot tell in ``seconds``."""
    puzzle, known = Puzzle.parse(puzzle_text), Puzzle.parse(solution_text)
    other = dispute.other_solution(puzzle.cells, known.cells, seconds)
    if other is None:
        return None
    reason = check_solution(puzzle.cells, other)
    if reason is not None:
        raise dispute.Unsettled(f"the harness's own search gave a refused grid: {reason}")
    return grid_text(puzzle.n, other)
