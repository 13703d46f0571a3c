"""The tables at the end of a short run, in plain Python: no numpy to import.

A run of fewer than :data:`FEW` rows, without repeats, keeps every compact column in memory
(:class:`harness.results.compact.CompactRows`), and its summary and native statistics are
computed here from them, row by row. Any other run's, and ``harness table``'s, come from
:mod:`harness.tables.summary` (numpy), to the same definitions: the same groups, counts and
planned puzzles, medians and maxima exactly, means as the exactly rounded sum over the count
(numpy's pairwise sum can differ from it in the last bit, far below the figures printed).
``tests/test_few.py`` holds the two to the same tables.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from backends.base import Status
from harness.results.compact import BLOCK, STATUSES, CompactRows, Spilled
from harness.tables.table import ANSWERED, NAN, STATISTICS, Table, counted, finish, sort_key

#: Runs of fewer rows than this (a compact column's block: none is in its file yet) are
#: summarised here.
FEW = BLOCK
_ANSWERED = frozenset(STATUSES.index(s) for s in ANSWERED)
_SOLVED = STATUSES.index(Status.SOLVED.value)


def fits(rows: CompactRows) -> bool:
    """Whether ``rows`` are summarised here: fewer than :data:`FEW`, none a repeat."""
    return len(rows) < FEW and not rows.repeated


def _values(column: Spilled) -> list[Any]:
    """A compact column's values, in row order."""
    values: list[Any] = []
    for chunk in column.chunks():
        values.extend(chunk)
    return values


def _median(values: list[float]) -> float:
    """The median of ``values`` (known values), NaN if none."""
    if not values:
        return NAN
    values = sorted(values)
    half = len(values) // 2
    return values[half] if len(values) % 2 else (values[half - 1] + values[half]) / 2


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else NAN


class _Groups:
    """The rows of a short run by group: backend x dataset, and grid size too when a
    dataset mixes sizes (as :func:`harness.tables.summary.grouping`)."""

    def __init__(self, rows: CompactRows) -> None:
        backends = [rows.backends.values[c] for c in _values(rows.spilled["backend"])]
        datasets = [rows.datasets.values[c] for c in _values(rows.spilled["dataset"])]
        sizes = [size or NAN for size in _values(rows.spilled["size"])]  # 0: unknown
        pairs = {(d, s) for d, s in zip(datasets, sizes, strict=True) if s == s}
        mixed = len({s for _, s in pairs}) > 1 and len({d for d, _ in pairs}) < len(pairs)
        self.by: tuple[str, ...] = ("backend", "dataset", "size")[: 3 if mixed else 2]
        keys = zip(backends, datasets, sizes, strict=True)
        self.keys = [key[: len(self.by)] for key in keys]
        self.members: dict[tuple, list[int]] = {}
        for row, key in enumerate(self.keys):
            self.members.setdefault(key, []).append(row)
        self.order = sorted(self.members, key=lambda key: tuple(map(sort_key, key)))
        self._distinct: Counter[tuple] | None = None
        if len(rows.backends.values) > 1:  # puzzles a backend lacks rows for count against it
            lines = _values(rows.spilled["line"])
            puzzles = {(*key[1:], line) for key, line in zip(self.keys, lines, strict=True)}
            self._distinct = Counter(puzzle[:-1] for puzzle in puzzles)

    def planned(self, key: tuple, present: int) -> int:
        """How many puzzles the group was planned to cover (see
        :func:`harness.tables.summary.summary`): every puzzle of its dataset (and size) that
        some backend has a row for."""
        others = key[1:]
        if self._distinct is None or any(v != v for v in others):
            return present
        return max(present, self._distinct.get(others, 0))


def summary(rows: CompactRows) -> Table:
    """The comparison table of a short run's rows (see :func:`fits`), as
    :func:`harness.tables.summary.summary` gives it for the same rows."""
    groups = _Groups(rows)
    status = rows.status
    columns = {name: _values(rows.column(name)) for name in rows.floats}
    table = []
    for key in groups.order:
        members = groups.members[key]
        row: dict[str, Any] = dict(zip(groups.by, key, strict=True))
        counts = Counter(STATUSES[status[i]] for i in members)
        right = counted(row, counts, groups.planned(key, len(members)))
        answered = [i for i in members if status[i] in _ANSWERED]
        solved = [i for i in answered if status[i] == _SOLVED]
        row.update(_statistics(columns, answered, solved))
        row["_answered"] = right
        table.append(row)
    return finish(table, groups.by[1:])


def _known(values: Sequence[float], rows: list[int], scale: float = 1.0) -> list[float]:
    """The known values of ``rows`` (NaN left out), times ``scale``."""
    return [values[i] * scale for i in rows if values[i] == values[i]]


def _statistics(
    columns: dict[str, list[float]], answered: list[int], solved: list[int]
) -> dict[str, Any]:
    """A group's statistics over its answered rows (and SOLVED ones), as
    :func:`harness.tables.summary.summary` computes them."""
    row: dict[str, Any] = {}
    ms = _known(columns["solve_s"], answered, 1000)
    row["median_ms"] = _median(ms)
    row["mean_ms"], row["max_ms"] = _mean(ms), max(ms, default=NAN)
    row["cpu_ms"] = _median(_known(columns["solve_cpu_s"], answered, 1000))
    row["own_ms"] = _median(_known(columns["own_solve_s"], answered, 1000))
    row["encode_ms"] = _median(_known(columns["encode_s"], answered, 1000))
    nodes = _known(columns["nodes"], answered)
    row["nodes_median"], row["nodes_mean"] = _median(nodes), _mean(nodes)
    row["nodes_max"] = max(nodes, default=NAN)
    guesses = _known(columns["guesses"], solved)
    zero = sum(1 for g in guesses if g == 0)
    row["no_guess_pct"] = 100.0 * zero / len(guesses) if guesses else NAN
    row["guesses_per_puzzle"] = _mean(guesses)
    return {name: row[name] for name in STATISTICS if name in row}


def native_summary(rows: CompactRows) -> Table:
    """Medians of each backend's native statistics over its answered rows, per group, as
    :func:`harness.tables.summary.native_summary` gives them for the same rows."""
    native = rows.natives()
    if not native:
        return []
    groups = _Groups(rows)
    columns = {name: _values(rows.column(name)) for name in native}
    table = []
    for key in groups.order:
        answered = [i for i in groups.members[key] if rows.status[i] in _ANSWERED]
        if any(v != v for v in key) or not answered:
            continue  # pandas' groupby leaves out a group whose key is unknown
        medians = {c: _median(_known(columns[c], answered)) for c in native}
        if any(v == v for v in medians.values()):
            table.append({**dict(zip(groups.by, key, strict=True)), **medians})
    kept = [c for c in native if any(row[c] == row[c] for row in table)]
    return [{**{k: row[k] for k in groups.by}, **{c: row[c] for c in kept}} for row in table]
