"""The summary tables in plain Python: one row per backend x dataset, from result rows.

Timing columns summarise the solve phase (``solve_s``) of answered rows (SOLVED or UNSAT
and checked), and beside its median the median of the solver's own clock (``own_ms``, from
``own_solve_s``; the column is there when some backend reports it). A TIMEOUT is counted in
its own column and never averaged in as if it were an answer, and a WRONG row is never timed
as a success. With ``--repeat K`` the K rows of one (puzzle, backend) are first reduced to
their median, so every puzzle weighs the same.
Counters a backend does not report stay empty (NaN), never 0.

Rows are sorted by speed within each dataset (most checked answers first, then the lowest
median), with ``x_fastest``: the row's median over the dataset's fastest median.

The rows are read and reduced to one per puzzle by :mod:`harness.tables.rows`. Statistics
skip unknown values as pandas does (a median or mean of nothing is NaN), and a mean adds
up in numpy's pairwise order, so the figures are pandas' to the bit. No pandas nor numpy
here: ``harness run`` prints its tables without loading them.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from functools import reduce as folded
from itertools import accumulate, compress
from operator import add, itemgetter, mul
from typing import Any

from backends.base import COUNTERS, Status
from harness.results import BASE_COLUMNS, MEASURE_COLUMNS
from harness.tables.rows import (
    FIRST,
    NAN,
    PUZZLE_KEYS,
    Cells,
    Columns,
    Row,
    column,
    columns_of,
    floats,
    indexes,
    known,
    median,
    middle,
    missing,
    names_of,
    number,
    parsed,
    pick,
    reduce_numbers,
    sort_key,
    typed,
    typed_column,
)

#: A summary table: one dict per printed row, every dict with the same keys in order.
Table = list[dict[str, Any]]
ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)
_ANSWERED = frozenset(ANSWERED)
NUMERIC = (*MEASURE_COLUMNS, *COUNTERS)
#: The numeric columns :func:`summary` reads (the others need not be parsed).
SUMMARY_NUMERIC = ("encode_s", "solve_s", "own_solve_s", "nodes", "guesses")
#: Those it tallies, and takes as numbers or as read (:func:`for_tables` leaves them so).
COUNTS = ("nodes", "guesses")


#: Eight running sums side by side: folded over eights of values, lane j adds their j-th.
_LANES = partial(map, add)


def _pairwise(values: Sequence[float], eights: Sequence[tuple], start: int, n: int) -> float:
    """numpy's pairwise summation of ``values[start:start + n]``, step for step: ``folded``
    adds up left to right as numpy's loops do (``sum`` may compensate). ``eights`` are the
    values in consecutive eights (``start`` is a multiple of 8)."""
    if n < 8:
        return folded(add, values[start : start + n], 0.0)
    if n <= 128:
        # eight running sums, of every 8th value
        acc = list(folded(_LANES, eights[start // 8 : (start + n) // 8]))
        total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        return folded(add, values[start + n - n % 8 : start + n], total)
    half = n // 2
    half -= half % 8
    return _pairwise(values, eights, start, half) + _pairwise(
        values, eights, start + half, n - half
    )


def _mean(values: list[float]) -> float:
    """pandas' mean: NaN counts as 0 in numpy's sum, and not at all in the count."""
    count = len(known(values))
    if not count:
        return NAN
    if count < len(values):
        values = [v if v == v else 0.0 for v in values]
    eights = list(zip(*[iter(values)] * 8, strict=False))  # a last partial eight left out
    return _pairwise(values, eights, 0, len(values)) / count


def _tally(values: list[Any]) -> Counter[float] | None:
    """How often each known value occurs, from ``values`` as numbers or as read (text), if
    any is known and they are a few distinct whole numbers, small enough to add up exactly
    in any order (counters mostly are), else None."""
    counts = Counter(values)
    if len(counts) > 64 + len(values) // 4:
        return None  # mostly distinct: sorting them is as quick
    tally: Counter[float] = Counter()
    for value, k in zip(floats(list(counts)), counts.values(), strict=True):
        if value == value:
            if value == 0 and math.copysign(1.0, value) < 0:
                return None  # -0.0: numpy's sum of -0.0 only is -0.0
            tally[value] += k
    if not tally or not all(map(float.is_integer, tally)):
        return None
    if max(max(tally), -min(tally)) * tally.total() >= 2**53:
        return None
    return tally


def _tally_median(tally: Counter[float]) -> float:
    """:func:`median` of the values of ``tally``."""
    n = tally.total()
    ordered = sorted(tally)
    below = list(accumulate(map(tally.__getitem__, ordered)))  # how many are up to each
    high = ordered[bisect_right(below, n // 2)]  # the value at position n // 2
    return high if n % 2 else (ordered[bisect_right(below, n // 2 - 1)] + high) / 2


def _tally_mean(tally: Counter[float]) -> float:
    """:func:`_mean` of the values of ``tally`` (their exact sum is numpy's)."""
    return sum(map(mul, tally, tally.values())) / tally.total()


def _spread(values: list[Any]) -> tuple[float, float, float]:
    """The median, mean and max of the known ``values`` (numbers, or text as read: see
    :func:`harness.tables.rows.floats`), NaN where none is, as pandas'."""
    tally = _tally(values)
    if tally is None:
        values = floats(values)
        return median(values), _mean(values), _max(values)
    return _tally_median(tally), _tally_mean(tally), max(tally)


def _max(values: list[float]) -> float:
    values = known(values)
    return max(values) if values else NAN


def _ratio(value: float, base: float) -> float:
    """``value / base`` as numpy divides: NaN for 0/0 or unknowns, inf for x/0."""
    if value != value or base != base:
        return NAN
    if base == 0:
        return NAN if value == 0 else math.copysign(math.inf, value)
    return value / base


def for_tables(rows: Sequence[Row]) -> Columns:
    """The puzzles of ``rows`` (:func:`harness.tables.rows.reduce`) with just what the tables
    read: the summary's numbers, the native statistics (the columns outside
    :data:`harness.results.BASE_COLUMNS` that hold numbers), the status and size. The
    :data:`COUNTS`, status and size stay as read (text) where every puzzle has one row (the
    counters tallied, not parsed; an unknown status or size is whatever text says so); the
    puzzles' text is read from ``rows`` where it is needed (:class:`Cells`)."""
    names = names_of(rows)
    others = [c for c in names if c not in BASE_COLUMNS]
    first = [c for c in ("status", "size") if c in names]
    wanted = (*PUZZLE_KEYS, "repeat", *SUMMARY_NUMERIC, *first, *others)
    raw = columns_of(rows, [c for c in wanted if c != "puzzle"])
    raw["puzzle"] = Cells(rows, "puzzle")  # type: ignore[assignment] - read if needed
    numbers = {c: raw[c] if c in COUNTS else floats(raw[c]) for c in SUMMARY_NUMERIC}
    numbers.update({c: v for c in others if (v := parsed(raw[c])) is not None})
    return reduce_numbers(raw, numbers, first, (*COUNTS, *first))


def grouping(puzzles: Columns) -> tuple[str, ...]:
    """backend x dataset, and grid size too when a dataset mixes sizes: a median over 4x4
    and 25x25 puzzles together would describe neither."""
    datasets, sizes = column(puzzles, "dataset"), column(puzzles, "size")
    size_of = typed(sizes)
    if len(size_of) < 2:
        return ("backend", "dataset")
    dataset_of = typed(datasets)
    seen: dict[object, set[object]] = {}
    for dataset, size in set(zip(datasets, sizes, strict=True)):
        dataset, size = dataset_of[dataset], size_of[size]
        if not missing(dataset) and not missing(size):
            seen.setdefault(dataset, set()).add(size)
    mixed = any(len(s) > 1 for s in seen.values())
    return ("backend", "dataset", "size") if mixed else ("backend", "dataset")


def _uniform(values: list[Any]) -> bool:
    """Whether every one of ``values`` is its first (they are :func:`typed_column`'s)."""
    return not values or values.count(values[0]) == len(values)


def _groups(key_columns: list[list[Any]], rows: Sequence[int]) -> dict[tuple, Sequence[int]]:
    """The indexes of ``rows`` by their keys (a value of each of ``key_columns``), groups
    in sorted key order."""
    varying = [i for i, c in enumerate(key_columns) if not _uniform(c)]
    if not varying:  # one group
        return {tuple(c[0] for c in key_columns): rows} if rows else {}
    if len(varying) > 1:
        groups = indexes(list(zip(*key_columns, strict=True)), rows)
    else:  # by the values of the one key that varies (the backend, mostly): no tuples
        at, fixed = varying[0], [c[0] for c in key_columns]
        by_value = indexes(key_columns[at], rows)
        groups = {(*fixed[:at], v, *fixed[at + 1 :]): g for v, g in by_value.items()}
    ordered = sorted(groups, key=lambda key: tuple(sort_key(v) for v in key))
    return {key: groups[key] for key in ordered}


def _planned(
    puzzles: Columns, keys: list[list[Any]], by: Sequence[str]
) -> Callable[[tuple, int], int]:
    """How many puzzles each group was planned to cover: every puzzle any backend has a row
    for in the group's dataset (and size or tier), so a backend whose rows are missing is
    counted against the puzzles it never ran. ``keys`` are the typed columns of ``by``."""
    others = [keys[i] for i, k in enumerate(by) if k != "backend"]
    if "backend" not in by or not others or _uniform(keys[by.index("backend")]):
        return lambda key, present: present  # one backend: its groups are what it planned
    lines, texts = column(puzzles, "line"), column(puzzles, "puzzle")
    distinct = set(zip(*others, lines, texts, strict=True))
    counts = Counter(map(itemgetter(slice(0, -2)), distinct))
    positions = [i for i, k in enumerate(by) if k != "backend"]

    def planned(key: tuple, present: int) -> int:
        other = tuple(key[i] for i in positions)
        return present if any(map(missing, other)) else max(present, counts.get(other, 0))

    return planned


def _counts(values: list[Any]) -> Counter[Any]:
    """How often each value occurs (a few distinct, counted at C speed)."""
    return Counter({v: values.count(v) for v in set(values)})


def _answered(indices: Sequence[int], statuses: Sequence[str]) -> Sequence[int]:
    """The ``indices`` whose ``statuses`` (one each) are SOLVED or UNSAT; ``indices``
    itself when all are."""
    if _ANSWERED.issuperset(statuses):
        return indices
    return list(compress(indices, map(_ANSWERED.__contains__, statuses)))


def _statistics(puzzles: Columns, group: Sequence[int]) -> tuple[int, int, dict[str, Any]]:
    """How many of one group's puzzles are solved and answered, and their status counts
    and statistics."""
    status = puzzles["status"]
    group_status = pick(status, group)
    statuses = _counts(group_status)
    solved, unsat = statuses[Status.SOLVED.value], statuses[Status.UNSAT.value]
    answered = _answered(group, group_status)
    solve = pick(column(puzzles, "solve_s", NAN), answered)
    ordered = sorted(known(solve))  # scaled to ms, the same order: one sort for both
    ms = [v * 1000 for v in solve]
    row: dict[str, Any] = {
        "unsat": unsat,
        "timeouts": statuses[Status.TIMEOUT.value],
        "unknown": statuses[Status.UNKNOWN.value],
        "errors": statuses[Status.ERROR.value] + statuses[Status.MEMOUT.value],
        "wrong": statuses[Status.WRONG.value],
        "unavailable": statuses[Status.UNAVAILABLE.value],
        "median_ms": middle(ordered, 1000.0),
        # the solver's own clock (see summary: kept where a backend reports it)
        "own_ms": median(pick(column(puzzles, "own_solve_s", NAN), answered), 1000.0),
        "mean_ms": _mean(ms),
        "max_ms": ordered[-1] * 1000 if ordered and ordered[-1] else _max(ms),  # 0.0 or -0.0
        "encode_ms": median(pick(column(puzzles, "encode_s", NAN), answered), 1000.0),
    }
    for counter in ("nodes",):
        spread = _spread(pick(column(puzzles, counter, NAN), answered))
        for name, value in zip(("median", "mean", "max"), spread, strict=True):
            row[f"{counter}_{name}"] = value
    if unsat:
        answered = [i for i in answered if status[i] == Status.SOLVED.value]
    guesses = pick(column(puzzles, "guesses", NAN), answered)
    tally = _tally(guesses)
    if tally is not None:
        row["no_guess_pct"] = 100.0 * (tally[0.0] / tally.total())
        row["guesses_per_puzzle"] = _tally_mean(tally)
        return solved, solved + unsat, row
    guesses = known(floats(guesses))
    row["no_guess_pct"] = 100.0 * (guesses.count(0) / len(guesses)) if guesses else NAN
    row["guesses_per_puzzle"] = _mean(guesses) if guesses else NAN
    return solved, solved + unsat, row


def summary(puzzles: Columns, by: Sequence[str] | None = None) -> Table:
    """The comparison table of :func:`reduce`'s puzzles: one row per group (default
    :func:`grouping`), sorted by speed within the other keys (see :func:`by_speed`)."""
    by = grouping(puzzles) if by is None else tuple(by)
    puzzles = {**puzzles, "status": column(puzzles, "status")}
    n = len(puzzles["status"])
    key_columns = [typed_column(column(puzzles, k)) for k in by]
    planned = _planned(puzzles, key_columns, by)
    table = []
    for key, group in _groups(key_columns, range(n)).items():
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        solved, answered, statistics = _statistics(puzzles, group)
        out = planned(key, len(group))
        row["solved"] = f"{solved}/{out}"
        # UNSAT is a right answer where the file says 0 solutions (else it is WRONG)
        row["correct"] = f"{answered}/{out}"
        row.update(statistics)
        row["_answered"] = answered
        table.append(row)
    if all(missing(row["own_ms"]) for row in table):  # no solver reports its own clock
        for row in table:
            del row["own_ms"]
    return by_speed(table, [c for c in by if c != "backend"])


def by_speed(table: Table, within: Sequence[str]) -> Table:
    """``table`` sorted by speed within each ``within`` group, with its ``x_fastest`` column
    before ``median_ms``; the rows' ``_answered`` (checked answers) goes.

    Most checked answers first, then the lowest median; ``x_fastest`` is the row's median
    over the group's lowest (empty for a row without answers).
    """

    def group(row: Row) -> tuple:
        return tuple(NAN if missing(row[k]) else row[k] for k in within)

    fastest: dict[tuple, float] = {}
    for row in table:
        median = number(row["median_ms"])
        if median == median and not (fastest.get(group(row), math.inf) <= median):
            fastest[group(row)] = median
    ranked = []
    for row in table:
        ratio = _ratio(number(row["median_ms"]), fastest.get(group(row), NAN))
        out = {}
        for name, value in row.items():
            if name == "median_ms":
                out["x_fastest"] = ratio
            out[name] = value
        ranked.append(out)
    ranked.sort(
        key=lambda r: (*(sort_key(r[k]) for k in within), -r["_answered"], sort_key(r["median_ms"]))
    )
    for row in ranked:
        del row["_answered"]
    return ranked


def native_summary(puzzles: Columns, by: Sequence[str] | None = None) -> Table:
    """Medians of each backend's native statistics over its answered puzzles, per group
    (default :func:`grouping`); statistics no row of a group reports are left out, and
    a group that reports none."""
    native = [c for c in puzzles if c not in BASE_COLUMNS and c not in FIRST]
    if not native:
        return []
    by = grouping(puzzles) if by is None else tuple(by)
    status = column(puzzles, "status")
    key_columns = [typed_column(column(puzzles, k)) for k in by]
    answered = _answered(range(len(status)), status)
    table = []
    for key, group in _groups(key_columns, answered).items():
        if any(map(missing, key)):
            continue  # pandas' groupby leaves out a group whose key is unknown
        medians = {c: median(pick(puzzles[c], group)) for c in native}
        if any(v == v for v in medians.values()):
            table.append({**dict(zip(by, key, strict=True)), **medians})
    kept = [c for c in native if any(row[c] == row[c] for row in table)]
    return [{**{k: row[k] for k in by}, **{c: row[c] for c in kept}} for row in table]


def tag_tiers(puzzles: Columns, tiers: Mapping[str, str]) -> Columns:
    """``puzzles`` with their difficulty tier (``unrated`` for a puzzle ``tiers`` lacks)."""
    return {**puzzles, "tier": [tiers.get(p, "unrated") for p in column(puzzles, "puzzle")]}


def summary_by_tier(puzzles: Columns, tiers: Mapping[str, str], order: Sequence[str] = ()) -> Table:
    """:func:`summary` per backend x dataset x difficulty tier.

    ``tiers`` maps a puzzle's canonical text to its tier (see :mod:`harness.puzzles.rating`);
    puzzles it lacks are ``unrated``. Rows follow ``order`` within each backend x dataset.
    """
    table = summary(tag_tiers(puzzles, tiers), by=("backend", "dataset", "tier"))
    rank = {tier: i for i, tier in enumerate(order)}
    return sorted(
        table,
        key=lambda r: (
            sort_key(r["backend"]),
            sort_key(r["dataset"]),
            rank.get(r["tier"], len(rank)),
        ),
    )
