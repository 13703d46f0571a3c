"""The summary tables in plain Python: one row per backend x dataset, from result rows.

Timing columns summarise the solve phase (``solve_s``) of answered rows (SOLVED or UNSAT
and checked): a TIMEOUT is counted in its own column and never averaged in as if it were
an answer, and a WRONG row is never timed as a success. With ``--repeat K`` the K rows of
one (puzzle, backend) are first reduced to their median, so every puzzle weighs the same.
Counters a backend does not report stay empty (NaN), never 0.

Rows are sorted by speed within each dataset (most checked answers first, then the lowest
median), with ``x_fastest``: the row's median over the dataset's fastest median.

A row is a mapping of column names to values: the CSV's text (``harness run`` passes the
rows it wrote, without reading the file back) or typed values (numbers, None or NaN where
unknown; :mod:`harness.tables` passes a DataFrame's). Text is read as pandas' ``read_csv``
reads it: an empty cell (or ``NA``, ``nan``...) is unknown, a key column of numbers is
numbers. Statistics skip unknown values as pandas does (a median or mean of nothing is
NaN), and a mean adds up in numpy's pairwise order, so the figures are pandas' to the bit.
No pandas nor numpy here: ``harness run`` prints its tables without loading them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from backends.base import COUNTERS, Status
from harness.results import BASE_COLUMNS, MEASURE_COLUMNS

Row = Mapping[str, Any]
Table = list[dict[str, Any]]

ANSWERED = (Status.SOLVED.value, Status.UNSAT.value)
NUMERIC = (*MEASURE_COLUMNS, *COUNTERS)
#: The numeric columns :func:`summary` reads (the others need not be parsed).
SUMMARY_NUMERIC = ("encode_s", "solve_s", "nodes", "guesses")
#: What identifies one puzzle's rows of one backend (their repeats).
PUZZLE_KEYS = ("dataset", "line", "puzzle", "backend")
#: Columns a puzzle takes from its first row (by repeat) that has them.
FIRST = ("status", "size", "givens", "solutions", "message", "tier")
#: The cells pandas' ``read_csv`` reads as missing (``pandas._libs.parsers.STR_NA_VALUES``).
NA_TEXT = frozenset(
    (
        *("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND"),
        *("1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"),
    )
)
NAN = math.nan  # one object, so that a missing key compares equal to itself in a dict


def missing(value: object) -> bool:
    """None, NaN, or another value unequal to itself (pandas' NA, NaT): unknown."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:  # pandas.NA: its comparisons give NA, which has no truth value
        return True


def known(value: object) -> object:
    """``value``, or None where the cell is unknown (see :func:`missing` and :data:`NA_TEXT`)."""
    if value.__class__ is str:
        return None if value in NA_TEXT else value
    return None if missing(value) else value


def number(value: object) -> float:
    """A cell of a numeric column as a float: NaN where it is empty or unknown."""
    if value.__class__ is float:
        return value  # type: ignore[return-value]
    if value is None or value == "":
        return NAN
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):  # "NA" and the like; pandas' NA
        return NAN


def columns(rows: Sequence[Row]) -> list[str]:
    """Every column of ``rows``, in order of first appearance (a run that met a native
    statistic late wrote its earlier rows without it, never with fewer of the others)."""
    seen: dict[str, None] = {}
    width = -1
    for row in rows:
        if len(row) != width:
            width = len(row)
            seen.update(dict.fromkeys(row))
    return list(seen)


def _numeric(values: Iterable[object]) -> bool:
    """Whether pandas would read a column of ``values`` as numbers (empty ones count)."""
    for value in set(values):
        if isinstance(value, str):
            if value in NA_TEXT:
                continue
            try:
                float(value)
            except ValueError:
                return False
        elif isinstance(value, bool) or not isinstance(value, int | float | None):
            return False
    return True


def native_columns(rows: Sequence[Row], names: Sequence[str] | None = None) -> list[str]:
    """The native statistics among ``names`` (default: every column of ``rows``): the
    columns outside :data:`harness.results.BASE_COLUMNS` that hold numbers."""
    names = columns(rows) if names is None else names
    return [c for c in names if c not in BASE_COLUMNS and _numeric(row.get(c) for row in rows)]


def _median(values: list[float]) -> float:
    ordered = sorted(v for v in values if v == v)
    n = len(ordered)
    if not n:
        return NAN
    half = n // 2
    return ordered[half] if n % 2 else (ordered[half - 1] + ordered[half]) / 2


def _pairwise(values: Sequence[float], start: int, n: int) -> float:
    """numpy's pairwise summation of ``values[start:start + n]``, step for step."""
    if n < 8:
        total = 0.0
        for value in values[start : start + n]:
            total += value
        return total
    if n <= 128:
        blocks = n - n % 8
        acc = list(values[start : start + 8])
        for i in range(start + 8, start + blocks, 8):
            for j in range(8):
                acc[j] += values[i + j]
        total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        for value in values[start + blocks : start + n]:
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


def _order(value: object) -> tuple:
    """A sort key that puts unknown values last, as pandas does."""
    return (True,) if missing(value) else (False, value)


def _typed(values: Iterable[object]) -> dict[object, object]:
    """Each distinct value of a key column, typed as ``read_csv`` types it: a column of
    text that is all numbers is numbers (ints if it can be), unknown cells are NaN."""
    distinct = set(values)
    typed: dict[object, object] = {v: NAN if missing(v) else v for v in distinct}
    texts = [v for v in distinct if isinstance(v, str)]
    for text in texts:
        if text in NA_TEXT:
            typed[text] = NAN
    texts = [t for t in texts if t not in NA_TEXT]
    if texts and len(texts) == sum(1 for v in distinct if not missing(typed[v])):
        for kind in (int, float):
            try:
                typed.update({t: kind(t) for t in texts})
                break
            except ValueError:
                continue
    return typed


def per_puzzle(
    rows: Sequence[Row], numeric: Sequence[str] = SUMMARY_NUMERIC, first: Sequence[str] = FIRST
) -> Table:
    """One row per (dataset, line, puzzle, backend), in order of first appearance by
    repeat: the median of each ``numeric`` column over the repeats, and of each ``first``
    column present the first known value by repeat (the status of repeat 0)."""
    if any(str(row.get("repeat", "0")) != "0" for row in rows):
        rows = sorted(rows, key=lambda row: _order(number(row.get("repeat"))))
    groups: dict[tuple, list[Row]] = {}
    for row in rows:
        key = (row.get("dataset"), row.get("line"), row.get("puzzle"), row.get("backend"))
        group = groups.get(key)
        if group is None:
            groups[key] = [row]
        else:
            group.append(row)
    present = set(columns(rows))
    first = [c for c in first if c in present]
    puzzles = []
    for key, group in groups.items():
        puzzle: dict[str, Any] = dict(zip(PUZZLE_KEYS, key, strict=True))
        if len(group) == 1:
            (row,) = group
            for c in numeric:
                puzzle[c] = number(row.get(c))
            for c in first:
                puzzle[c] = known(row.get(c))
        else:
            for c in numeric:
                puzzle[c] = _median([number(r.get(c)) for r in group])
            for c in first:
                puzzle[c] = next((v for r in group if (v := known(r.get(c))) is not None), None)
        puzzles.append(puzzle)
    return puzzles


def for_tables(rows: Sequence[Row]) -> Table:
    """:func:`per_puzzle` with just what the tables read: the summary's numbers, the native
    statistics, the status and size."""
    return per_puzzle(rows, (*SUMMARY_NUMERIC, *native_columns(rows)), ("status", "size"))


def grouping(puzzles: Sequence[Row]) -> tuple[str, ...]:
    """backend x dataset, and grid size too when a dataset mixes sizes: a median over 4x4
    and 25x25 puzzles together would describe neither."""
    datasets = _typed(p.get("dataset") for p in puzzles)
    sizes = _typed(p.get("size") for p in puzzles)
    seen: dict[object, set[object]] = {}
    for p in puzzles:
        dataset, size = datasets[p.get("dataset")], sizes[p.get("size")]
        if not missing(dataset) and not missing(size):
            seen.setdefault(dataset, set()).add(size)
    mixed = any(len(s) > 1 for s in seen.values())
    return ("backend", "dataset", "size") if mixed else ("backend", "dataset")


def _groups(puzzles: Sequence[Row], by: Sequence[str]) -> dict[tuple, list[Row]]:
    """``puzzles`` grouped by the typed values of ``by``, groups in sorted key order."""
    typed = [_typed(p.get(k) for p in puzzles) for k in by]
    groups: dict[tuple, list[Row]] = {}
    for p in puzzles:
        key = tuple(t.get(p.get(k), NAN) for t, k in zip(typed, by, strict=True))
        groups.setdefault(key, []).append(p)
    ordered = sorted(groups, key=lambda key: tuple(_order(v) for v in key))
    return {key: groups[key] for key in ordered}


def _planned(groups: Mapping[tuple, list[Row]], by: Sequence[str]) -> Callable[[tuple, int], int]:
    """How many puzzles each group was planned to cover: every puzzle any backend has a row
    for in the group's dataset (and size or tier), so a backend whose rows are missing is
    counted against the puzzles it never ran."""
    others = [i for i, k in enumerate(by) if k != "backend"]
    if "backend" not in by or not others:
        return lambda key, present: present
    distinct = {
        (tuple(key[i] for i in others), p.get("line"), p.get("puzzle"))
        for key, group in groups.items()
        for p in group
    }
    counts = Counter(other for other, _, _ in distinct if not any(map(missing, other)))

    def planned(key: tuple, present: int) -> int:
        return max(present, counts.get(tuple(key[i] for i in others), 0))

    return planned


def _row(group: list[Row]) -> dict[str, Any]:
    """The status counts and statistics of one group's puzzles."""
    statuses = Counter(p["status"] for p in group)
    answered = [p for p in group if p["status"] in ANSWERED]
    ms = [p["solve_s"] * 1000 for p in answered]
    row: dict[str, Any] = {
        "unsat": statuses[Status.UNSAT.value],
        "timeouts": statuses[Status.TIMEOUT.value],
        "unknown": statuses[Status.UNKNOWN.value],
        "errors": statuses[Status.ERROR.value] + statuses[Status.MEMOUT.value],
        "wrong": statuses[Status.WRONG.value],
        "unavailable": statuses[Status.UNAVAILABLE.value],
        "median_ms": _median(ms),
        "mean_ms": _mean(ms),
        "max_ms": _max(ms),
        "encode_ms": _median([p["encode_s"] * 1000 for p in answered]),
    }
    for counter in ("nodes",):
        values = [p.get(counter, NAN) for p in answered]
        row[f"{counter}_median"] = _median(values)
        row[f"{counter}_mean"] = _mean(values)
        row[f"{counter}_max"] = _max(values)
    solved = Status.SOLVED.value
    guesses = [g for p in answered if p["status"] == solved and (g := p.get("guesses", NAN)) == g]
    row["no_guess_pct"] = 100.0 * (guesses.count(0) / len(guesses)) if guesses else NAN
    row["guesses_per_puzzle"] = _mean(guesses) if guesses else NAN
    return row


def summary(puzzles: Sequence[Row], by: Sequence[str] | None = None) -> Table:
    """The comparison table of :func:`per_puzzle`'s rows: one row per group (default
    :func:`grouping`), sorted by speed within the other keys (see :func:`by_speed`)."""
    by = grouping(puzzles) if by is None else tuple(by)
    groups = _groups(puzzles, by)
    planned = _planned(groups, by)
    table = []
    for key, group in groups.items():
        statuses = [p.get("status") for p in group]
        answered = sum(1 for s in statuses if s in ANSWERED)
        out = planned(key, len(group))
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        row["solved"] = f"{statuses.count(Status.SOLVED.value)}/{out}"
        # UNSAT is a right answer where the file says 0 solutions (else it is WRONG)
        row["correct"] = f"{answered}/{out}"
        row.update(_row(group))
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
        for column, value in row.items():
            if column == "median_ms":
                out["x_fastest"] = ratio
            out[column] = value
        ranked.append(out)
    ranked.sort(
        key=lambda r: (
            *(_order(r[k]) for k in within),
            -r["_answered"],
            _order(r["median_ms"]),
        )
    )
    for row in ranked:
        del row["_answered"]
    return ranked


def native_summary(puzzles: Sequence[Row], by: Sequence[str] | None = None) -> Table:
    """Medians of each backend's native statistics over its answered puzzles, per group
    (default :func:`grouping`); statistics no row of a group reports are left out, and
    a group that reports none."""
    by = grouping(puzzles) if by is None else tuple(by)
    names = list(puzzles[0]) if puzzles else []
    native = [c for c in names if c not in BASE_COLUMNS and c not in FIRST]
    answered = [p for p in puzzles if p.get("status") in ANSWERED]
    table = []
    for key, group in _groups(answered, by).items():
        if any(map(missing, key)):
            continue  # pandas' groupby leaves out a group whose key is unknown
        medians = {c: _median([p[c] for p in group]) for c in native}
        if any(v == v for v in medians.values()):
            table.append({**dict(zip(by, key, strict=True)), **medians})
    kept = [c for c in native if any(row[c] == row[c] for row in table)]
    return [{**{k: row[k] for k in by}, **{c: row[c] for c in kept}} for row in table]


def tag_tiers(puzzles: Sequence[Row], tiers: Mapping[str, str]) -> Table:
    """``puzzles`` with their difficulty tier (``unrated`` for a puzzle ``tiers`` lacks)."""
    return [{**p, "tier": tiers.get(p.get("puzzle"), "unrated")} for p in puzzles]


def summary_by_tier(
    puzzles: Sequence[Row], tiers: Mapping[str, str], order: Sequence[str] = ()
) -> Table:
    """:func:`summary` per backend x dataset x difficulty tier.

    ``tiers`` maps a puzzle's canonical text to its tier (see :mod:`harness.rating`);
    puzzles it lacks are ``unrated``. Rows follow ``order`` within each backend x dataset.
    """
    table = summary(tag_tiers(puzzles, tiers), by=("backend", "dataset", "tier"))
    rank = {tier: i for i, tier in enumerate(order)}
    return sorted(
        table,
        key=lambda r: (_order(r["backend"]), _order(r["dataset"]), rank.get(r["tier"], len(rank))),
    )
