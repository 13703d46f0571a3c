"""Result rows as numpy columns, reduced to one row per puzzle.

A table of rows is a dict of columns (:data:`Columns`): a key or status column is
:class:`Coded` (an integer code a row and the distinct values; -1 where unknown), a number
column a float array (NaN where unknown). Callers may give plain lists instead, with None
or NaN where unknown (:mod:`harness.tables.frames` passes a DataFrame's): :func:`coded` and
:func:`floats` turn them into those. With ``--repeat K`` the K rows of one (puzzle, backend)
reduce to the median of each number and the first known status by repeat (:func:`reduce`),
as pandas' groupby gives them. A number column may also be a :class:`Spilled` one (a run's,
read back from its file when needed).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.results.compact import Spilled
from harness.tables.table import NAN, missing, sort_key

#: What identifies one puzzle's rows of one backend (their repeats).
PUZZLE_KEYS = ("dataset", "line", "puzzle", "backend")
#: Columns a puzzle takes from its first row (by repeat) that has them.
FIRST = ("status", "size", "givens", "solutions", "message", "tier")
#: Columns by name: :class:`Coded`, float arrays, or plain lists (see the module).
Columns = dict[str, Any]
#: A row of a plain table (a dict of column values).
Row = dict[str, Any]


@dataclass
class Coded:
    """A column of a few distinct values: ``codes`` (int64, -1 unknown) into ``labels``."""

    codes: np.ndarray
    labels: Sequence[Any]

    def __len__(self) -> int:
        return len(self.codes)

    def decoded(self) -> list[Any]:
        """The values, NaN where unknown."""
        table = np.array([*self.labels, NAN], dtype=object)
        return table[self.codes].tolist()

    def ranks(self) -> np.ndarray:
        """Each row's position of its value in sorted order, unknown last (in the smallest
        unsigned type that holds them)."""
        return self.rank_of()[self.codes]

    def rank_of(self) -> np.ndarray:
        """The position of each code's value in sorted order, indexed by code; its last
        entry, for code -1 (unknown), is the last position."""
        labels = self.labels
        rank = np.empty(len(labels) + 1, dtype=np.min_scalar_type(len(labels)))
        if isinstance(labels, np.ndarray) and bool(np.all(labels[:-1] <= labels[1:])):
            rank[:] = np.arange(len(labels) + 1)
            return rank
        if isinstance(labels, np.ndarray):
            order: Any = np.argsort(labels, kind="stable")
        else:
            try:  # labels are known values: sorted as they are, unless their types differ
                order = sorted(range(len(labels)), key=labels.__getitem__)
            except TypeError:
                order = sorted(range(len(labels)), key=lambda i: sort_key(labels[i]))
        rank[order] = np.arange(len(order))
        rank[-1] = len(order)
        return rank

    def take(self, rows: np.ndarray) -> Coded:
        return Coded(self.codes[rows], self.labels)

    def code_of(self, value: object) -> int:
        """The code of ``value`` (-2 if no row has it)."""
        for i, label in enumerate(self.labels):
            if label == value:
                return i
        return -2


def coded(values: Any) -> Coded:
    """``values`` as :class:`Coded` (itself if it is one)."""
    if isinstance(values, Coded):
        return values
    values = list(values)
    distinct = dict.fromkeys(values)
    labels = [v for v in distinct if not missing(v)]
    codes = {**{v: -1 for v in distinct}, **{v: i for i, v in enumerate(labels)}}
    return Coded(np.fromiter(map(codes.__getitem__, values), np.int64, len(values)), labels)


def floats(values: Any) -> np.ndarray:
    """A numeric column as a float array (float64, or float32 as given), NaN where unknown
    (or not a number)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "f":
        return values
    if isinstance(values, Spilled):  # a run's column, read back
        return values.array()
    if isinstance(values, Coded):
        values = values.decoded()
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return np.array([_number(v) for v in values], dtype=np.float64)


def _number(value: object) -> float:
    if missing(value) or isinstance(value, bool):
        return NAN
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return NAN


def column(table: Columns, name: str) -> Any:
    """``table``'s column ``name``, or an all-unknown :class:`Coded` one."""
    found = table.get(name)
    if found is not None:
        return found
    n = len(next(iter(table.values()), []))
    return Coded(np.full(n, -1, dtype=np.int64), [])


#: Below this many possible key combinations, groups are found by counting, not sorting.
DENSE = 1 << 20
#: Rows counted at a time.
CHUNK = 1 << 14


def group_ids(keys: Iterable[Coded]) -> tuple[np.ndarray, np.ndarray]:
    """A group id for each row (rows with the same codes in every key share one; the
    smallest integer type that holds them), groups numbered in the sorted order of their
    keys' values (unknown last); and the first row of each group."""
    keys = list(keys)
    widths = [len(key.labels) + 1 for key in keys]
    if math.prod(widths) <= DENSE:  # a few groups: counted, a chunk at a time
        ranks = [key.rank_of() for key in keys]
        seen = np.zeros(math.prod(widths), dtype=bool)
        for start in range(0, len(keys[0]), CHUNK):
            seen[_combined(keys, ranks, start)] = True
        present = np.flatnonzero(seen)
        dense = np.zeros(math.prod(widths), dtype=np.min_scalar_type(len(present)))
        dense[present] = np.arange(len(present))
        ids = np.empty(len(keys[0]), dtype=dense.dtype)
        for start in range(0, len(ids), CHUNK):
            ids[start : start + CHUNK] = dense[_combined(keys, ranks, start)]
        return ids, _first_rows(ids, len(present))
    wide = np.zeros(len(keys[0]), dtype=np.int64)
    for key, width in zip(keys, widths, strict=True):
        if wide.max(initial=0) >= np.iinfo(np.int64).max // width // 2:
            _, wide = np.unique(wide, return_inverse=True)
        wide = wide * width + key.ranks()
    _, first, ids = np.unique(wide, return_index=True, return_inverse=True)
    return ids.reshape(-1), first


def _combined(keys: Sequence[Coded], ranks: Sequence[np.ndarray], start: int) -> np.ndarray:
    """The rows' ranks in every key (:meth:`Coded.rank_of`: ``ranks``) as one number, for
    :data:`CHUNK` rows from ``start``."""
    combined = np.zeros(len(keys[0].codes[start : start + CHUNK]), dtype=np.intp)
    for key, rank in zip(keys, ranks, strict=True):
        combined *= len(rank)
        combined += rank[key.codes[start : start + CHUNK]]
    return combined


def _first_rows(ids: np.ndarray, count: int, step: int = CHUNK) -> np.ndarray:
    """The first row of each of the ``count`` groups ``ids`` numbers (``step`` rows at a
    time: in little memory)."""
    first = np.full(count, len(ids), dtype=np.int64)
    for start in range(0, len(ids), step):
        chunk = ids[start : start + step]
        np.minimum.at(first, chunk, np.arange(start, start + len(chunk)))
    return first


def reduce(
    raw: Columns,
    numeric: Sequence[str],
    first: Sequence[str],
    keys: Sequence[str],
    answered: Sequence[str] = (),
) -> Columns:
    """One row per puzzle (the same values in every ``keys`` column) of the rows in ``raw``,
    in order of first appearance by repeat: the median of each ``numeric`` column over the
    repeats, and of each ``first`` column the first known value by repeat (the status of
    repeat 0); keys and ``first`` columns :class:`Coded`, numbers float arrays (NaN where
    unknown). Given the ``answered`` statuses, and rows with more than one repeat,
    also the spread of each puzzle's answered repeats (:func:`spread`): ``solve_spread``
    (their interquartile range over their median) and ``solve_fastest``."""
    key_columns = [coded(column(raw, k)) for k in keys]
    n = len(key_columns[0]) if key_columns else 0
    repeats = floats(column(raw, "repeat")) if "repeat" in raw else np.zeros(n)
    order = np.argsort(repeats, kind="stable")  # NaN last
    ids, starts = group_ids([k.take(order) for k in key_columns]) if n else (order, order)
    appearance = np.argsort(starts, kind="stable")  # the groups by first appearance
    rank = np.empty(len(starts), dtype=np.int64)
    rank[appearance] = np.arange(len(starts))
    group = rank[ids]  # each row's (in ``order``) puzzle, numbered by first appearance
    heads = order[starts[appearance]]  # each puzzle's first row
    puzzles: Columns = {k: c.take(heads) for k, c in zip(keys, key_columns, strict=True)}
    if len(starts) == n:  # one row per puzzle: nothing to reduce
        puzzles.update({c: floats(column(raw, c))[heads] for c in numeric})
        puzzles.update({c: coded(column(raw, c)).take(heads) for c in first})
        return puzzles
    for c in numeric:
        puzzles[c] = medians(floats(column(raw, c))[order], group, len(starts))
    if answered and "solve_s" in raw and np.nanmax(repeats, initial=0) > 0:
        status = coded(column(raw, "status"))
        timed = np.isin(status.codes[order], [status.code_of(s) for s in answered])
        times = np.where(timed, floats(column(raw, "solve_s"))[order], NAN)
        puzzles["solve_spread"], puzzles["solve_fastest"] = spread(times, group, len(starts))
    for c in first:
        cells = coded(column(raw, c))
        puzzles[c] = Coded(first_known(cells.codes[order], group, len(starts)), cells.labels)
    return puzzles


def _by_group(
    values: np.ndarray, group: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``values`` sorted by group, then value (NaN last); where each group starts; and
    how many known values each has."""
    order = np.lexsort((values, group))
    known = np.bincount(group[~np.isnan(values)], minlength=count)
    starts = np.concatenate(([0], np.cumsum(np.bincount(group, minlength=count))[:-1]))
    return values[order], starts, known


def medians(values: np.ndarray, group: np.ndarray, count: int) -> np.ndarray:
    """The median of each group's known ``values`` (NaN for a group with none)."""
    ordered, starts, known = _by_group(values, group, count)
    low = ordered[starts + np.maximum(known - 1, 0) // 2]
    high = ordered[starts + known // 2 - (known == 0)]
    return np.where(known > 0, (low + high) / 2, NAN)


def spread(values: np.ndarray, group: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Of each group's known ``values``: their interquartile range over their median (the
    quartiles interpolated linearly, as pandas and numpy do), and the least; NaN for a
    group with fewer than two."""
    ordered, starts, known = _by_group(values, group, count)
    last = np.maximum(known - 1, 0)

    def quantile(q: float) -> np.ndarray:
        at = q * last
        low = np.floor(at).astype(np.int64)
        below, above = ordered[starts + low], ordered[starts + np.minimum(low + 1, last)]
        return below + (above - below) * (at - low)

    with np.errstate(divide="ignore", invalid="ignore"):  # a median of 0: inf or NaN
        relative = (quantile(0.75) - quantile(0.25)) / quantile(0.5)
    several = known > 1
    return np.where(several, relative, NAN), np.where(several, ordered[starts], NAN)


def first_known(codes: np.ndarray, group: np.ndarray, count: int) -> np.ndarray:
    """Each group's first known code (-1 if none), rows in the order given."""
    position = np.where(codes >= 0, np.arange(len(codes)), len(codes))
    first = np.full(count, len(codes), dtype=np.int64)
    np.minimum.at(first, group, position)
    return np.where(first < len(codes), np.append(codes, -1)[first], -1)
