"""The cross-check: a backend's claim that another backend's *checked* answer refutes is WRONG.

Run by ``harness run`` once the run ends, over the compact columns of every row of its CSV
(:class:`harness.results.compact.CompactRows`): only the puzzles holding a claim that could
be refuted (an UNSAT row, or under ``--limit-solutions 2`` a count of solutions) are looked
at one by one, and the file is rewritten only when a claim falls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from backends.base import Status
from harness.results.compact import STATUSES, CompactRows

#: Settles a disputed count: (puzzle text, the solution both sides found) -> a checked
#: second solution's text, or None when that one is the only solution; raises
#: :class:`harness.check.dispute.Unsettled` when it cannot tell in time.
Settle = Callable[[str, str], str | None]
#: The puzzle and solution text of the rows at the given indexes (read back from the CSV).
Texts = Callable[[list[int]], dict[int, tuple[str, str]]]
#: The cross-check's verdicts: row index -> column -> new text.
Verdicts = dict[int, dict[str, str]]

_SOLVED, _UNSAT = STATUSES.index(Status.SOLVED), STATUSES.index(Status.UNSAT)


@dataclass
class _Row:
    index: int
    status: str
    backend: str
    solutions: int
    solution: int  # the solution's hash (limit 2), else 0

    def claims(self, count: int) -> bool:
        return self.status == Status.SOLVED and self.solutions == count


def cross_check(
    rows: CompactRows, settle: Settle | None = None, texts: Texts | None = None
) -> Verdicts:
    """Mark as WRONG every claim another backend's *checked* answer refutes.

    Within one puzzle (dataset and line): a checked SOLVED row refutes every UNSAT row;
    under limit 2, two SOLVED rows with different checked solutions prove at least two
    solutions, so a row that claims exactly one is refuted. When, under limit 2, one row
    claims one solution and another two with the same grid, ``settle`` decides (given the
    texts ``texts`` reads back): a second solution refutes the claims of one, its absence
    the claims of two. ``rows`` is updated; returns the cells to change in the CSV.
    """
    groups = _disputed(rows)
    verdicts: Verdicts = {}
    disputes = []
    for group in groups:
        _refute(group, verdicts)
        if settle is not None and texts is not None and _in_dispute(group):
            disputes.append(group)
    if disputes and settle is not None and texts is not None:
        found = texts([_ones(group)[0].index for group in disputes])
        for group in disputes:
            _settle(group, found[_ones(group)[0].index], settle, verdicts)
    for index, cells in verdicts.items():
        if cells.get("status") == Status.WRONG:
            rows.mark_wrong(index, cells["message"])
    return verdicts


def _disputed(rows: CompactRows) -> list[list[_Row]]:
    """The rows of every puzzle where a claim may fall, in file order within a puzzle."""
    if rows.limit != 2 and _UNSAT not in rows.status:
        return []  # no claim to refute (most runs): numpy is not even loaded
    import numpy as np

    status = rows.statuses()
    claim = status == _UNSAT
    if rows.limit == 2:
        claim |= status == _SOLVED
    if not claim.any():
        return []
    ids = rows.puzzle_ids()
    members = np.flatnonzero(np.isin(ids, np.unique(ids[claim])))
    members = members[np.argsort(ids[members], kind="stable")]
    starts = np.flatnonzero(np.diff(ids[members], prepend=-1))
    del ids
    solved = status[members] == _SOLVED
    has_solved = np.logical_or.reduceat(solved, starts)
    open_ = has_solved & np.logical_or.reduceat(status[members] == _UNSAT, starts)
    counts = rows.codes("solutions")[members]
    hashes = rows.codes("hash")[members] if rows.limit == 2 else np.zeros(len(members), np.int64)
    if rows.limit == 2:
        low = np.minimum.reduceat(np.where(solved, hashes, np.iinfo(np.int64).max), starts)
        high = np.maximum.reduceat(np.where(solved, hashes, np.iinfo(np.int64).min), starts)
        ones = np.logical_or.reduceat(solved & (counts == 1), starts)
        twos = np.logical_or.reduceat(solved & (counts == 2), starts)
        open_ |= has_solved & ((low != high) & ones | ones & twos)
    backends = rows.codes("backend")[members]
    bounds = [*starts.tolist(), len(members)]
    names = rows.backends.values
    return [
        [
            _Row(int(at), STATUSES[status[at]], names[backend], int(count), int(solution))
            for at, backend, count, solution in zip(
                members[bounds[g] : bounds[g + 1]],
                backends[bounds[g] : bounds[g + 1]],
                counts[bounds[g] : bounds[g + 1]],
                hashes[bounds[g] : bounds[g + 1]],
                strict=True,
            )
        ]
        for g in np.flatnonzero(open_).tolist()
    ]


def _wrong(row: _Row, reason: str, verdicts: Verdicts) -> None:
    row.status = Status.WRONG.value
    verdicts[row.index] = {"status": Status.WRONG.value, "message": reason}


def _refute(group: list[_Row], verdicts: Verdicts) -> None:
    """Mark the claims of one puzzle's rows that their checked solutions refute."""
    solved = [r for r in group if r.status == Status.SOLVED]
    if not solved:
        return
    witness = solved[0]
    distinct = {r.solution for r in solved}
    for row in group:
        if row.status == Status.UNSAT:
            _wrong(row, f"claimed UNSAT, but {witness.backend} found a checked solution", verdicts)
        elif row.claims(1) and len(distinct) > 1:
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
