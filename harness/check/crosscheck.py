"""The cross-check: a claim of how many solutions a puzzle has that another backend's
*checked* answer refutes is WRONG.

Under ``--limit-solutions 2``, run by ``harness run`` once the run ends, over every row of
its CSV as the results engine loaded it (:mod:`harness.results.engine`): a query finds the
puzzles (dataset and line) where a claim of one solution stands beside a different checked
solution, or beside a claim of two, and only those are looked at one by one. The CSV is
rewritten only when a claim falls. (An UNSAT claim needs no other backend: the judge settles
it with the harness's own search, :func:`harness.check.judge.claim_of_none`.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from backends.base import Status

if TYPE_CHECKING:
    import duckdb

#: Settles a disputed count: (puzzle text, the solution both sides found) -> a checked
#: second solution's text, or None when that one is the only solution; raises
#: :class:`harness.check.dispute.Unsettled` when it cannot tell in time.
Settle = Callable[[str, str], str | None]
#: The puzzle and solution text of the rows at the given indexes (read back from the CSV).
Texts = Callable[[list[int]], dict[int, tuple[str, str]]]
#: The cross-check's verdicts: row index -> column -> new text.
Verdicts = dict[int, dict[str, str]]

SOLVED = Status.SOLVED.value

#: Under limit 2: a claim of one solution beside a different checked solution, or beside a
#: claim of two.
COUNTS = f"""(bool_or(status = '{SOLVED}' AND solutions = 1)
    AND (count(DISTINCT solution) FILTER (WHERE status = '{SOLVED}') > 1
         OR bool_or(status = '{SOLVED}' AND solutions = 2)))"""
#: The rows of every puzzle where a claim may fall, in file order within a puzzle (the
#: table's rowid is the row's index in the file).
DISPUTED = f"""
    WITH claims AS (
        SELECT dataset, line FROM {{table}} GROUP BY dataset, line
        HAVING bool_or(status = '{SOLVED}') AND {COUNTS}
    )
    SELECT t.rowid, t.dataset, t.line, t.status, t.backend, t.solutions, t.solution
    FROM {{table}} t JOIN claims c ON t.dataset = c.dataset AND t.line = c.line
    ORDER BY t.dataset, t.line, t.rowid
"""


@dataclass
class _Row:
    index: int
    status: str
    backend: str
    solutions: int | None
    solution: str | None  # the checked solution's text (a SOLVED row)

    def claims(self, count: int) -> bool:
        return self.status == SOLVED and self.solutions == count


def cross_check(
    con: duckdb.DuckDBPyConnection,
    table: str,
    limit: int,
    settle: Settle | None = None,
    texts: Texts | None = None,
) -> Verdicts:
    """Mark as WRONG every claim another backend's *checked* answer refutes.

    Within one puzzle (dataset and line) of ``table`` (one run's rows, with ``status``,
    ``solutions`` and ``solution``), under limit 2: two SOLVED rows with different checked
    solutions prove at least two solutions, so a row that claims exactly one is refuted.
    When one row claims one solution and another two with the same grid, ``settle`` decides
    (given the texts ``texts`` reads back): a second solution refutes the claims of one, its
    absence the claims of two. Under limit 1 there is no count to refute. ``table`` is
    updated; returns the cells to change in the CSV.
    """
    if limit != 2:
        return {}
    groups: dict[tuple, list[_Row]] = {}
    cursor = con.execute(DISPUTED.format(table=table))
    while batch := cursor.fetchmany(1 << 14):
        for index, dataset, line, status, backend, solutions, solution in batch:
            row = _Row(index, status, backend, solutions, solution)
            groups.setdefault((dataset, line), []).append(row)
    verdicts: Verdicts = {}
    disputes = []
    for group in groups.values():
        _refute(group, verdicts)
        if settle is not None and texts is not None and _in_dispute(group):
            disputes.append(group)
    if disputes and settle is not None and texts is not None:
        found = texts([_ones(group)[0].index for group in disputes])
        for group in disputes:
            _settle(group, found[_ones(group)[0].index], settle, verdicts)
    fallen = [
        (Status.WRONG.value, cells["message"], index)
        for index, cells in verdicts.items()
        if cells.get("status") == Status.WRONG
    ]
    if fallen:
        con.executemany(f"UPDATE {table} SET status = ?, message = ? WHERE rowid = ?", fallen)
    return verdicts


def _wrong(row: _Row, reason: str, verdicts: Verdicts) -> None:
    row.status = Status.WRONG.value
    verdicts[row.index] = {"status": Status.WRONG.value, "message": reason}


def _refute(group: list[_Row], verdicts: Verdicts) -> None:
    """Mark the claims of one puzzle's rows that their checked solutions refute."""
    solved = [r for r in group if r.status == Status.SOLVED]
    if not solved:
        return
    distinct = {r.solution for r in solved}
    for row in group:
        if row.claims(1) and len(distinct) > 1:
            other = next(r for r in solved if r.solution != row.solution)
            reason = f"claimed a unique solution, but {other.backend} found a different checked one"
            _wrong(row, reason, verdicts)


def _ones(group: list[_Row]) -> list[_Row]:
    return [r for r in group if r.claims(1)]


def _in_dispute(group: list[_Row]) -> bool:
    """Claims of one and of two solutions, all with one same grid."""
    claims = [r for r in group if r.claims(1) or r.claims(2)]
    return (
        bool(_ones(group))
        and len(claims) > len(_ones(group))
        and len({r.solution for r in claims}) == 1
    )


def _settle(group: list[_Row], texts: tuple[str, str], settle: Settle, verdicts: Verdicts) -> None:
    """Settle one puzzle's dispute (claims of one and of two, one same grid)."""
    from harness.check.dispute import Unsettled

    ones = _ones(group)
    twos = [r for r in group if r.claims(2)]
    try:
        second = settle(*texts)
    except Unsettled as exc:
        for row in ones + twos:
            verdicts[row.index] = {
                "message": f"disputed count (1 or 2 solutions) not settled: {exc}"
            }
        return
    if second is not None:
        fallen = ones
        reason = f"claimed a unique solution, but the harness found a second one: {second}"
    else:
        fallen = twos
        reason = "claimed 2 solutions, but the harness's exhaustive search finds only one"
    for row in fallen:
        _wrong(row, reason, verdicts)
