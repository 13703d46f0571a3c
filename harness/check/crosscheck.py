"""The cross-check: a backend's claim that another backend's *checked* answer refutes is WRONG.

Run by ``harness run`` over every row once the run ends (:meth:`RowWriter.cross_check
<harness.results.writer.RowWriter.cross_check>`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from backends.base import Status

#: Settles a disputed count: (puzzle text, the solution both sides found) -> a checked
#: second solution's text, or None when that one is the only solution; raises
#: :class:`harness.check.dispute.Unsettled` when it cannot tell in time.
Settle = Callable[[str, str], str | None]


def cross_check(rows: list[dict[str, str]], settle: Settle | None = None) -> int:
    """Mark as WRONG every claim another backend's *checked* answer refutes; return how many.

    Within one (dataset, line, puzzle, limit): a checked SOLVED row refutes every UNSAT
    row; two SOLVED rows with different checked solutions prove at least two solutions, so
    a row that claims exactly one solution under limit 2 is refuted. When, under limit 2,
    one row claims one solution and another two with the same grid, ``settle`` decides:
    a second solution refutes the claims of one, its absence the claims of two. Rows are
    changed in place.
    """

    def group_of(row: dict[str, str]) -> tuple[str, ...]:
        return (row["dataset"], str(row["line"]), row["puzzle"], str(row["limit"]))

    unsat, solved = Status.UNSAT.value, Status.SOLVED.value  # plain str: cheaper to compare
    claims = {  # the groups holding a claim that could be refuted: most runs have none
        group_of(row)
        for row in rows
        if (status := row["status"]) == unsat or (status == solved and str(row["limit"]) == "2")
    }
    if not claims:
        return 0
    groups: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for row in rows:
        key = group_of(row)
        if key in claims:
            groups.setdefault(key, []).append(row)
    changed = 0
    for group in groups.values():
        changed += _refute(group)
        if settle is not None:
            changed += _settle(group, settle)
    return changed


def _refute(group: list[dict[str, str]]) -> int:
    """Mark the claims of one group that its checked solutions refute; return how many."""
    solved = [r for r in group if r["status"] == Status.SOLVED]
    if not solved:
        return 0
    witness = solved[0]
    distinct = {r["solution"] for r in solved}
    changed = 0
    for row in group:
        reason = ""
        if row["status"] == Status.UNSAT:
            reason = f"claimed UNSAT, but {witness['backend']} found a checked solution"
        elif _claims(row, "1") and len(distinct) > 1:
            other = next(r for r in solved if r["solution"] != row["solution"])
            reason = (
                f"claimed a unique solution, but {other['backend']} found a different checked one"
            )
        if reason:
            row["status"] = Status.WRONG
            row["message"] = reason
            changed += 1
    return changed


def _claims(row: Mapping[str, str], count: str) -> bool:
    return (
        row["status"] == Status.SOLVED
        and str(row["limit"]) == "2"
        and str(row["solutions"]) == count
    )


def _settle(group: list[dict[str, str]], settle: Settle) -> int:
    """Settle one group's dispute (claims of one and of two, one same grid); how many fell."""
    ones = [r for r in group if _claims(r, "1")]
    twos = [r for r in group if _claims(r, "2")]
    if not ones or not twos or len({r["solution"] for r in ones + twos}) > 1:
        return 0
    from harness.check.dispute import Unsettled

    try:
        second = settle(ones[0]["puzzle"], ones[0]["solution"])
    except Unsettled as exc:
        for row in ones + twos:
            row["message"] = f"disputed count (1 or 2 solutions) not settled: {exc}"
        return 0
    if second is not None:
        fallen = ones
        reason = f"claimed a unique solution, but the harness found a second one: {second}"
    else:
        fallen = twos
        reason = "claimed 2 solutions, but the harness's exhaustive search finds only one"
    for row in fallen:
        row["status"] = Status.WRONG
        row["message"] = reason
    return len(fallen)
