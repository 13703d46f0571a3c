"""What a summary table is, in plain Python: its columns, the statuses it counts, its order.

A summary table is a list of dicts, one per printed row (a backend x dataset group), every
dict with the same keys in order. :mod:`harness.tables.summary` builds them from numpy
columns (``harness table``, the report, a long run), :mod:`harness.tables.few` from a short
run's rows in plain Python; both end here, in :func:`finish`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from backends.base import Status

NAN = math.nan
#: A summary table: one dict per printed row, every dict with the same keys in order.
Table = list[dict[str, Any]]
#: The statuses of a checked answer (UNSAT is one where the file says 0 solutions).
ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)
#: The status columns of the summary, and the statuses each counts.
COUNTED = {
    "unsat": (Status.UNSAT,),
    "timeouts": (Status.TIMEOUT,),
    "unknown": (Status.UNKNOWN,),
    "errors": (Status.ERROR, Status.MEMOUT),
    "wrong": (Status.WRONG,),
    "unavailable": (Status.UNAVAILABLE,),
}
#: The summary's statistics, in order (``spread_pct`` and ``min_ms`` with repeats only).
STATISTICS = ("median_ms", "cpu_ms", "spread_pct", "min_ms", "own_ms", "mean_ms", "max_ms")
STATISTICS += ("encode_ms", "nodes_median", "nodes_mean", "nodes_max", "no_guess_pct")
STATISTICS += ("guesses_per_puzzle",)
#: Columns left out of a table where no row has a value (no backend reports it).
OPTIONAL = ("cpu_ms", "own_ms")


def missing(value: object) -> bool:
    """None, NaN, or another value unequal to itself (pandas' NA, NaT): unknown."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:  # pandas.NA: its comparisons give NA, which has no truth value
        return True


def sort_key(value: object) -> tuple:
    """A sort key that puts unknown values last, as pandas does."""
    return (True,) if missing(value) else (False, value)


def counted(row: dict[str, Any], counts: dict[str, int], planned: int) -> int:
    """Put a group's status columns in ``row`` (``counts`` by status, of ``planned``
    puzzles); return its checked answers (for :func:`by_speed`, as the row's ``_answered``)."""
    solved = counts.get(Status.SOLVED.value, 0)
    right = solved + counts.get(Status.UNSAT.value, 0)
    row["solved"] = f"{solved}/{planned}"
    # UNSAT is a right answer where the file says 0 solutions (else it is WRONG)
    row["correct"] = f"{right}/{planned}"
    row.update({c: sum(counts.get(s, 0) for s in k) for c, k in COUNTED.items()})
    return right


def finish(table: Table, within: Sequence[str]) -> Table:
    """``table`` without the :data:`OPTIONAL` columns no row has, sorted by speed within
    each ``within`` group (see :func:`by_speed`)."""
    for name in OPTIONAL:  # a CPU time or a solver's own clock no row has
        if all(missing(row[name]) for row in table):
            for row in table:
                del row[name]
    return by_speed(table, within)


def by_speed(table: Table, within: Sequence[str]) -> Table:
    """``table`` sorted by speed within each ``within`` group, with its ``x_fastest`` column
    before ``median_ms``; the rows' ``_answered`` (checked answers) goes.

    Most checked answers first, then the lowest median; ``x_fastest`` is the row's median
    over the group's lowest (empty for a row without answers).
    """

    def group(row: dict[str, Any]) -> tuple:
        return tuple(NAN if missing(row[k]) else row[k] for k in within)

    fastest: dict[tuple, float] = {}
    for row in table:
        median = row["median_ms"]
        if median == median and not (fastest.get(group(row), math.inf) <= median):
            fastest[group(row)] = median
    ranked = []
    for row in table:
        out = {}
        for name, value in row.items():
            if name == "median_ms":
                out["x_fastest"] = _ratio(row["median_ms"], fastest.get(group(row), NAN))
            out[name] = value
        ranked.append(out)
    ranked.sort(
        key=lambda r: (*(sort_key(r[k]) for k in within), -r["_answered"], sort_key(r["median_ms"]))
    )
    for row in ranked:
        del row["_answered"]
    return ranked


def _ratio(value: float, base: float) -> float:
    """``value / base`` as numpy divides: NaN for 0/0 or unknowns, inf for x/0."""
    if value != value or base != base:
        return NAN
    if base == 0:
        return NAN if value == 0 else math.copysign(math.inf, value)
    return value / base
