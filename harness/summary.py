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
from operator import itemgetter, methodcaller
from typing import Any

from backends.base import COUNTERS, Status
from harness.results import BASE_COLUMNS, MEASURE_COLUMNS

Row = Mapping[str, Any]
#: Columns by name, each a list of one value per row (per puzzle, after :func:`reduce`).
Columns = dict[str, list[Any]]
#: A summary table: one dict per printed row, every dict with the same keys in order.
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
    for width in sorted(set(map(len, rows))):
        seen.update(dict.fromkeys(next(row for row in rows if len(row) == width)))
    return list(seen)


def columns_of(rows: Sequence[Row], names: Sequence[str]) -> Columns:
    """The cells of ``rows`` in each of ``names`` (None where a row lacks the column)."""
    if not rows or not names:
        return {c: [] for c in names}
    narrowest = min(set(map(len, rows)))
    common = [c for c in names if c in next(r for r in rows if len(r) == narrowest)]
    table: Columns = {}
    try:  # the columns every row has (those the run met first), transposed in one go
        if len(common) == 1:
            table[common[0]] = list(map(itemgetter(common[0]), rows))
        elif common:
            cells = zip(*map(itemgetter(*common), rows), strict=True)
            table.update(zip(common, map(list, cells), strict=True))
    except KeyError:  # rows of other shapes
        common = []
    for c in names:
        if c not in common:
            table[c] = list(map(methodcaller("get", c), rows))
    return {c: table[c] for c in names}


def _parsed(values: list[Any]) -> list[float] | None:
    """A column's cells as floats (NaN where unknown), or None unless pandas would read
    the column as numbers."""
    try:
        return list(map(float, values))
    except (TypeError, ValueError):  # an empty cell, None, "NA", or text
        pass
    floats: dict[object, float] = {}
    for value in set(values):
        if isinstance(value, str):
            if value in NA_TEXT:
                floats[value] = NAN
                continue
            try:
                floats[value] = float(value)
            except ValueError:
                return None
        elif value is None or value != value:
            floats[value] = NAN
        elif isinstance(value, bool) or not isinstance(value, int | float):
            return None
        else:
            floats[value] = float(value)
    return list(map(floats.__getitem__, values))


def _numbers(values: list[Any]) -> list[float]:
    """A numeric column's cells as floats, NaN where unknown (or not a number)."""
    parsed = _parsed(values)
    return [number(v) for v in values] if parsed is None else parsed


def _knowns(values: list[Any]) -> list[Any]:
    """A column's cells, None where unknown."""
    return [None if v in NA_TEXT or v != v else v for v in values]


def _median(values: list[float]) -> float:
    ordered = sorted(v for v in values if v == v)
    n = len(ordered)
    if not n:
        return NAN
    half = n // 2
    return ordered[half] if n % 2 else (ordered[half - 1] + ordered[half]) / 2


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


def _order(value: object) -> tuple:
    """A sort key that puts unknown values last, as pandas does."""
    return (True,) if missing(value) else (False, value)


def _typed(values: Iterable[object]) -> dict[object, object]:
    """Each distinct value of a key column, typed as ``read_csv`` types it: a column of
    text that is all numbers is numbers (ints if it can be), unknown cells are NaN."""
    distinct = set(values)
    typed = {v: NAN if missing(v) or (isinstance(v, str) and v in NA_TEXT) else v for v in distinct}
    texts = [v for v, t in typed.items() if isinstance(t, str)]
    if texts and len(texts) == sum(1 for t in typed.values() if not missing(t)):
        for kind in (int, float):
            try:
                typed.update({t: kind(t) for t in texts})
                break
            except ValueError:
                continue
    return typed


def _typed_column(values: list[Any]) -> list[Any]:
    return list(map(_typed(values).__getitem__, values))


def _column(table: Columns, name: str, default: object = None) -> list[Any]:
    """``table``'s column ``name``, or ``default`` in every row where it has none."""
    found = table.get(name)
    if found is not None:
        return found
    return [default] * len(next(iter(table.values()), []))


def reduce(raw: Columns, numeric: Sequence[str], first: Sequence[str] = FIRST) -> Columns:
    """One row per (dataset, line, puzzle, backend) of the rows in ``raw`` (see
    :func:`columns_of`), in order of first appearance by repeat: the median of each
    ``numeric`` column over the repeats, and of each ``first`` column the first known
    value by repeat (the status of repeat 0)."""
    keys = list(zip(*(_column(raw, k) for k in PUZZLE_KEYS), strict=True))
    repeats = _column(raw, "repeat")
    by_repeat = len(set(repeats)) > 1
    if not by_repeat and len(set(keys)) == len(keys):  # one row per puzzle: nothing to reduce
        puzzles = {k: _column(raw, k) for k in PUZZLE_KEYS}
        puzzles.update({c: _numbers(_column(raw, c)) for c in numeric})
        puzzles.update({c: _knowns(_column(raw, c)) for c in first})
        return puzzles
    order: Iterable[int] = range(len(keys))
    if by_repeat:
        ranks = _numbers(repeats)
        known = not any(map(math.isnan, ranks))
        order = sorted(order, key=ranks.__getitem__ if known else lambda i: _order(ranks[i]))
    groups: dict[tuple, list[int]] = {}
    for i in order:
        group = groups.get(keys[i])
        if group is None:
            groups[keys[i]] = [i]
        else:
            group.append(i)
    transposed = list(zip(*groups, strict=True)) or [()] * len(PUZZLE_KEYS)
    puzzles = {k: list(v) for k, v in zip(PUZZLE_KEYS, transposed, strict=True)}
    buckets = _buckets(list(groups.values()))
    for c in numeric:
        puzzles[c] = _per_group(_numbers(_column(raw, c)), buckets, len(groups), _medians)
    for c in first:
        puzzles[c] = _per_group(_knowns(_column(raw, c)), buckets, len(groups), _firsts)
    return puzzles


Bucket = tuple[list[int], list[tuple[int, ...]]]


def _buckets(groups: list[list[int]]) -> dict[int, Bucket]:
    """The groups by size (a puzzle's repeat count): the groups' positions, and their row
    indexes as columns (the first row of each group, the second...)."""
    positions: dict[int, list[int]] = {}
    for position, group in enumerate(groups):
        positions.setdefault(len(group), []).append(position)
    return {
        size: (where, list(zip(*(groups[p] for p in where), strict=True)))
        for size, where in positions.items()
    }


def _per_group(
    values: list[Any],
    buckets: Mapping[int, Bucket],
    count: int,
    reduce_cells: Callable[[list[list[Any]]], list[Any]],
) -> list[Any]:
    """One value per group: ``reduce_cells`` of the group's cells, bucket by bucket (the
    cells as columns: the groups' first values, their second values...)."""
    out: list[Any] = [None] * count
    for where, indexes in buckets.values():
        cells = [list(map(values.__getitem__, column)) for column in indexes]
        reduced = reduce_cells(cells)
        if len(where) == count:
            return reduced
        for position, value in zip(where, reduced, strict=True):
            out[position] = value
    return out


def _medians(cells: list[list[float]]) -> list[float]:
    """The median of each group (NaN skipped), from its values as columns."""
    size, half = len(cells), len(cells) // 2
    if size == 1:
        return cells[0]
    unknown = list(map(sum, zip(*(map(math.isnan, column) for column in cells), strict=True)))
    ordered = map(sorted, zip(*cells, strict=True))  # wrong where NaN is: replaced below
    if size % 2:
        medians = list(map(itemgetter(half), ordered))
    else:
        medians = [(group[half - 1] + group[half]) / 2 for group in ordered]
    if any(unknown):  # a statistic is mostly reported on every repeat of a puzzle, or on none
        for i, k in enumerate(unknown):
            if k:
                medians[i] = NAN if k == size else _median([c[i] for c in cells])
    return medians


def _firsts(cells: list[list[Any]]) -> list[Any]:
    """The first known value of each group (None if none), from its values as columns."""
    if None not in cells[0]:
        return cells[0]
    return [next((v for v in group if v is not None), None) for group in zip(*cells, strict=True)]


def per_puzzle(
    rows: Sequence[Row], numeric: Sequence[str] = SUMMARY_NUMERIC, first: Sequence[str] = FIRST
) -> Columns:
    """:func:`reduce` of ``rows`` (the ``first`` columns they have)."""
    present = set(columns(rows))
    first = [c for c in first if c in present]
    return reduce(columns_of(rows, (*PUZZLE_KEYS, "repeat", *numeric, *first)), numeric, first)


def for_tables(rows: Sequence[Row]) -> Columns:
    """:func:`reduce` of ``rows`` with just what the tables read: the summary's numbers, the
    native statistics (the columns outside :data:`harness.results.BASE_COLUMNS` that hold
    numbers), the status and size."""
    names = columns(rows)
    others = [c for c in names if c not in BASE_COLUMNS]
    first = [c for c in ("status", "size") if c in names]
    raw = columns_of(rows, (*PUZZLE_KEYS, "repeat", *SUMMARY_NUMERIC, *first, *others))
    parsed = {c: _parsed(raw[c]) for c in others}
    native = {c: v for c, v in parsed.items() if v is not None}
    return reduce({**raw, **native}, (*SUMMARY_NUMERIC, *native), first)


def grouping(puzzles: Columns) -> tuple[str, ...]:
    """backend x dataset, and grid size too when a dataset mixes sizes: a median over 4x4
    and 25x25 puzzles together would describe neither."""
    datasets, sizes = _column(puzzles, "dataset"), _column(puzzles, "size")
    dataset_of, size_of = _typed(datasets), _typed(sizes)
    seen: dict[object, set[object]] = {}
    for dataset, size in set(zip(datasets, sizes, strict=True)):
        dataset, size = dataset_of[dataset], size_of[size]
        if not missing(dataset) and not missing(size):
            seen.setdefault(dataset, set()).add(size)
    mixed = any(len(s) > 1 for s in seen.values())
    return ("backend", "dataset", "size") if mixed else ("backend", "dataset")


def _groups(keys: list[tuple], rows: Iterable[int]) -> dict[tuple, list[int]]:
    """The indexes of ``rows`` by their ``keys``, groups in sorted key order."""
    groups: dict[tuple, list[int]] = {}
    for i in rows:
        group = groups.get(keys[i])
        if group is None:
            groups[keys[i]] = [i]
        else:
            group.append(i)
    ordered = sorted(groups, key=lambda key: tuple(_order(v) for v in key))
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
    lines, texts = _column(puzzles, "line"), _column(puzzles, "puzzle")
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
    solve, encode = _column(puzzles, "solve_s", NAN), _column(puzzles, "encode_s", NAN)
    ms = [solve[i] * 1000 for i in answered]
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
        "encode_ms": _median([encode[i] * 1000 for i in answered]),
    }
    for counter in ("nodes",):
        counts = _column(puzzles, counter, NAN)
        values = [counts[i] for i in answered]
        row[f"{counter}_median"] = _median(values)
        row[f"{counter}_mean"] = _mean(values)
        row[f"{counter}_max"] = _max(values)
    solved, counts = Status.SOLVED.value, _column(puzzles, "guesses", NAN)
    guesses = [g for i in answered if status[i] == solved and (g := counts[i]) == g]
    row["no_guess_pct"] = 100.0 * (guesses.count(0) / len(guesses)) if guesses else NAN
    row["guesses_per_puzzle"] = _mean(guesses) if guesses else NAN
    return row


def summary(puzzles: Columns, by: Sequence[str] | None = None) -> Table:
    """The comparison table of :func:`reduce`'s puzzles: one row per group (default
    :func:`grouping`), sorted by speed within the other keys (see :func:`by_speed`)."""
    by = grouping(puzzles) if by is None else tuple(by)
    puzzles = {**puzzles, "status": _column(puzzles, "status")}
    n = len(puzzles["status"])
    key_columns = [_typed_column(_column(puzzles, k)) for k in by]
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
        for column, value in row.items():
            if column == "median_ms":
                out["x_fastest"] = ratio
            out[column] = value
        ranked.append(out)
    ranked.sort(
        key=lambda r: (*(_order(r[k]) for k in within), -r["_answered"], _order(r["median_ms"]))
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
    status = _column(puzzles, "status")
    keys = list(zip(*(_typed_column(_column(puzzles, k)) for k in by), strict=True))
    answered = [i for i, s in enumerate(status) if s in ANSWERED]
    table = []
    for key, group in _groups(keys or [()] * len(status), answered).items():
        if any(map(missing, key)):
            continue  # pandas' groupby leaves out a group whose key is unknown
        medians = {c: _median([puzzles[c][i] for i in group]) for c in native}
        if any(v == v for v in medians.values()):
            table.append({**dict(zip(by, key, strict=True)), **medians})
    kept = [c for c in native if any(row[c] == row[c] for row in table)]
    return [{**{k: row[k] for k in by}, **{c: row[c] for c in kept}} for row in table]


def tag_tiers(puzzles: Columns, tiers: Mapping[str, str]) -> Columns:
    """``puzzles`` with their difficulty tier (``unrated`` for a puzzle ``tiers`` lacks)."""
    return {**puzzles, "tier": [tiers.get(p, "unrated") for p in _column(puzzles, "puzzle")]}


def summary_by_tier(puzzles: Columns, tiers: Mapping[str, str], order: Sequence[str] = ()) -> Table:
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
