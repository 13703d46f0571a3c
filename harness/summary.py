"""The summary tables in plain Python: one row per backend x dataset, from result rows.

Timing columns summarise the solve phase (``solve_s``) of answered rows (SOLVED or UNSAT
and checked): a TIMEOUT is counted in its own column and never averaged in as if it were
an answer, and a WRONG row is never timed as a success. With ``--repeat K`` the K rows of
one (puzzle, backend) are first reduced to their median, so every puzzle weighs the same.
Counters a backend does not report stay empty (NaN), never 0.

Rows are sorted by speed within each dataset (most checked answers first, then the lowest
median), with ``x_fastest``: the row's median over the dataset's fastest median.

The rows are read and reduced to one per puzzle by :mod:`harness.puzzle_rows`. Statistics
skip unknown values as pandas does (a median or mean of nothing is NaN), and a mean adds
up in numpy's pairwise order, so the figures are pandas' to the bit. No pandas nor numpy
here: ``harness run`` prints its tables without loading them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from backends.base import COUNTERS, Status
from harness.puzzle_rows import (
    FIRST,
    NAN,
    PUZZLE_KEYS,
    Columns,
    Row,
    column,
    columns_of,
    indexes,
    median,
    missing,
    names_of,
    number,
    parsed,
    reduce,
    sort_key,
    typed,
    typed_column,
)
from harness.results import BASE_COLUMNS, MEASURE_COLUMNS

#: A summary table: one dict per printed row, every dict with the same keys in order.
Table = list[dict[str, Any]]
ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)
NUMERIC = (*MEASURE_COLUMNS, *COUNTERS)
#: The numeric columns :func:`summary` reads (the others need not be parsed).
SUMMARY_NUMERIC = ("encode_s", "solve_s", "nodes", "guesses")


def _pairwise(values: Sequence[float], start: int, n: int) -> float:
    """numpy's pairwise summation of ``values[start:start + n]``, step for step."""
    total = 0.0
    if n < 8:
        for value in values[start : start + n]:
            total += value
        return total
    if n <= 128:
        end = start + n - n % 8
        acc = []
        for j in range(start, start + 8):  # eight running sums, of every 8th value
            run = values[j]
            for value in values[j + 8 : end : 8]:
                run += value
            acc.append(run)
        total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        for value in values[end : start + n]:
            total += value
        return total
    half = n // 2
    half -= half % 8
    return _pairwise(values, start, half) + _pairwise(values, start + half, n - half)


def _mean(values: list[float]) -> float:
    """pandas' mean: NaN counts as 0 in numpy's sum, and not at all in the count."""
    count = sum(1 for v in values if v == v)
    if not count:
        return NAN
    if count < len(values):
        values = [v if v == v else 0.0 for v in values]
    return _pairwise(values, 0, len(values)) / count


def _max(values: list[float]) -> float:
    values = [v for v in values if v == v]
    return max(values) if values else NAN


def _ratio(value: float, base: float) -> float:
    """``value / base`` as numpy divides: NaN for 0/0 or unknowns, inf for x/0."""
    if value != value or base != base:
        return NAN
    if base == 0:
        return NAN if value == 0 else math.copysign(math.inf, value)
    return value / base


def for_tables(rows: Sequence[Row]) -> Columns:
    """The puzzles of ``rows`` (:func:`harness.puzzle_rows.reduce`) with just what the tables
    read: the summary's numbers, the native statistics (the columns outside
    :data:`harness.results.BASE_COLUMNS` that hold numbers), the status and size."""
    names = names_of(rows)
    others = [c for c in names if c not in BASE_COLUMNS]
    first = [c for c in ("status", "size") if c in names]
    raw = columns_of(rows, (*PUZZLE_KEYS, "repeat", *SUMMARY_NUMERIC, *first, *others))
    numbers = {c: parsed(raw[c]) for c in others}
    native = {c: v for c, v in numbers.items() if v is not None}
    return reduce({**raw, **native}, (*SUMMARY_NUMERIC, *native), first)


def grouping(puzzles: Columns) -> tuple[str, ...]:
    """backend x dataset, and grid size too when a dataset mixes sizes: a median over 4x4
    and 25x25 puzzles together would describe neither."""
    datasets, sizes = column(puzzles, "dataset"), column(puzzles, "size")
    dataset_of, size_of = typed(datasets), typed(sizes)
    seen: dict[object, set[object]] = {}
    for dataset, size in set(zip(datasets, sizes, strict=True)):
        dataset, size = dataset_of[dataset], size_of[size]
        if not missing(dataset) and not missing(size):
            seen.setdefault(dataset, set()).add(size)
    mixed = any(len(s) > 1 for s in seen.values())
    return ("backend", "dataset", "size") if mixed else ("backend", "dataset")


def _groups(keys: list[tuple], rows: Iterable[int]) -> dict[tuple, list[int]]:
    """The indexes of ``rows`` by their ``keys``, groups in sorted key order."""
    groups = indexes(keys, rows)
    ordered = sorted(groups, key=lambda key: tuple(sort_key(v) for v in key))
    return {key: groups[key] for key in ordered}


def _planned(
    puzzles: Columns, keys: list[list[Any]], by: Sequence[str]
) -> Callable[[tuple, int], int]:
    """How many puzzles each group was planned to cover: every puzzle any backend has a row
    for in the group's dataset (and size or tier), so a backend whose rows are missing is
    counted against the puzzles it never ran. ``keys`` are the typed columns of ``by``."""
    others = [keys[i] for i, k in enumerate(by) if k != "backend"]
    if "backend" not in by or not others:
        return lambda key, present: present
    lines, texts = column(puzzles, "line"), column(puzzles, "puzzle")
    distinct = set(zip(*others, lines, texts, strict=True))
    counts = Counter(map(itemgetter(slice(0, -2)), distinct))
    positions = [i for i, k in enumerate(by) if k != "backend"]

    def planned(key: tuple, present: int) -> int:
        other = tuple(key[i] for i in positions)
        return present if any(map(missing, other)) else max(present, counts.get(other, 0))

    return planned


def _statistics(puzzles: Columns, group: list[int]) -> dict[str, Any]:
    """The status counts and statistics of one group's puzzles."""
    status = puzzles["status"]
    statuses = Counter(status[i] for i in group)
    answered = [i for i in group if status[i] in ANSWERED]
    solve, encode = column(puzzles, "solve_s", NAN), column(puzzles, "encode_s", NAN)
    ms = [solve[i] * 1000 for i in answered]
    row: dict[str, Any] = {
        "unsat": statuses[Status.UNSAT.value],
        "timeouts": statuses[Status.TIMEOUT.value],
        "unknown": statuses[Status.UNKNOWN.value],
        "errors": statuses[Status.ERROR.value] + statuses[Status.MEMOUT.value],
        "wrong": statuses[Status.WRONG.value],
        "unavailable": statuses[Status.UNAVAILABLE.value],
        "median_ms": median(ms),
        "mean_ms": _mean(ms),
        "max_ms": _max(ms),
        "encode_ms": median([encode[i] * 1000 for i in answered]),
    }
    for counter in ("nodes",):
        counts = column(puzzles, counter, NAN)
        values = [counts[i] for i in answered]
        row[f"{counter}_median"] = median(values)
        row[f"{counter}_mean"] = _mean(values)
        row[f"{counter}_max"] = _max(values)
    solved, counts = Status.SOLVED.value, column(puzzles, "guesses", NAN)
    guesses = [g for i in answered if status[i] == solved and (g := counts[i]) == g]
    row["no_guess_pct"] = 100.0 * (guesses.count(0) / len(guesses)) if guesses else NAN
    row["guesses_per_puzzle"] = _mean(guesses) if guesses else NAN
    return row


def summary(puzzles: Columns, by: Sequence[str] | None = None) -> Table:
    """The comparison table of :func:`reduce`'s puzzles: one row per group (default
    :func:`grouping`), sorted by speed within the other keys (see :func:`by_speed`)."""
    by = grouping(puzzles) if by is None else tuple(by)
    puzzles = {**puzzles, "status": column(puzzles, "status")}
    n = len(puzzles["status"])
    key_columns = [typed_column(column(puzzles, k)) for k in by]
    keys = list(zip(*key_columns, strict=True)) or [()] * n
    planned = _planned(puzzles, key_columns, by)
    table = []
    for key, group in _groups(keys, range(n)).items():
        statuses = [puzzles["status"][i] for i in group]
        answered = sum(1 for s in statuses if s in ANSWERED)
        out = planned(key, len(group))
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        row["solved"] = f"{statuses.count(Status.SOLVED.value)}/{out}"
        # UNSAT is a right answer where the file says 0 solutions (else it is WRONG)
        row["correct"] = f"{answered}/{out}"
        row.update(_statistics(puzzles, group))
        row["_answered"] = answered
        table.append(row)
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
    by = grouping(puzzles) if by is None else tuple(by)
    native = [c for c in puzzles if c not in BASE_COLUMNS and c not in FIRST]
    status = column(puzzles, "status")
    keys = list(zip(*(typed_column(column(puzzles, k)) for k in by), strict=True))
    answered = [i for i, s in enumerate(status) if s in ANSWERED]
    table = []
    for key, group in _groups(keys or [()] * len(status), answered).items():
        if any(map(missing, key)):
            continue  # pandas' groupby leaves out a group whose key is unknown
        medians = {c: median([puzzles[c][i] for i in group]) for c in native}
        if any(v == v for v in medians.values()):
            table.append({**dict(zip(by, key, strict=True)), **medians})
    kept = [c for c in native if any(row[c] == row[c] for row in table)]
    return [{**{k: row[k] for k in by}, **{c: row[c] for c in kept}} for row in table]


def tag_tiers(puzzles: Columns, tiers: Mapping[str, str]) -> Columns:
    """``puzzles`` with their difficulty tier (``unrated`` for a puzzle ``tiers`` lacks)."""
    return {**puzzles, "tier": [tiers.get(p, "unrated") for p in column(puzzles, "puzzle")]}


def summary_by_tier(puzzles: Columns, tiers: Mapping[str, str], order: Sequence[str] = ()) -> Table:
    """:func:`summary` per backend x dataset x difficulty tier.

    ``tiers`` maps a puzzle's canonical text to its tier (see :mod:`harness.rating`);
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
