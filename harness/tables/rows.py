"""Result rows as columns, read as pandas reads a results CSV, reduced to one row per puzzle.

A row is a mapping of column names to values: the CSV's text (``harness run`` passes the
rows it wrote, without reading the file back) or typed values (numbers, None or NaN where
unknown; :mod:`harness.tables.frames` passes a DataFrame's). Text is read as pandas' ``read_csv``
reads it: an empty cell (or ``NA``, ``nan``...) is unknown, a key column of numbers is
numbers. With ``--repeat K`` the K rows of one (puzzle, backend) reduce to the median of
each number and the first status (:func:`reduce`), as pandas' groupby gives them. Plain
Python (no pandas, no numpy), for :mod:`harness.tables.summary`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from itertools import count
from operator import itemgetter, methodcaller
from typing import Any

Row = Mapping[str, Any]
#: Columns by name, each a list (or :class:`Cells`) of one value per row (per puzzle, after
#: :func:`reduce`).
Columns = dict[str, list[Any]]
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


def names_of(rows: Sequence[Row]) -> list[str]:
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


class Cells(Sequence[Any]):
    """The cells of ``rows`` in column ``name`` (None where a row lacks it), read when used:
    a column the tables may not read (the puzzles' text: only the tiers and a comparison of
    backends do) costs no pass over the rows until then. ``rows`` must not change."""

    __slots__ = ("_name", "_rows")

    def __init__(self, rows: Sequence[Row], name: str) -> None:
        self._rows, self._name = rows, name

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Any]:
        return map(methodcaller("get", self._name), self._rows)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return list(map(methodcaller("get", self._name), self._rows[index]))
        return self._rows[index].get(self._name)


def parsed(values: list[Any]) -> list[float] | None:
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


def floats(values: list[Any]) -> list[float]:
    """A numeric column's cells as floats, NaN where unknown (or not a number)."""
    floats = parsed(values)
    return [number(v) for v in values] if floats is None else floats


def _knowns(values: list[Any]) -> list[Any]:
    """A column's cells, None where unknown (``values`` itself when none is)."""
    unknown = {v for v in set(values) if v in NA_TEXT or v != v}
    if not unknown:
        return values
    return [None if v in unknown else v for v in values]


def known(values: list[float]) -> list[float]:
    """``values`` without NaN (``values`` itself when it has none)."""
    total = sum(values)  # NaN if a value is (or if inf meets -inf: filtered, still right)
    return values if total == total else [v for v in values if v == v]


def median(values: list[float], scale: float = 1.0) -> float:
    """The median of the known values (NaN if none), as pandas' median; with ``scale``, the
    median of the values times ``scale``, to the bit (scaling keeps their order)."""
    return middle(sorted(known(values)), scale)


def middle(ordered: list[float], scale: float = 1.0) -> float:
    """:func:`median` of values already known and sorted."""
    n = len(ordered)
    if not n:
        return NAN
    half = n // 2
    if n % 2:
        return ordered[half] * scale
    return (ordered[half - 1] * scale + ordered[half] * scale) / 2


def sort_key(value: object) -> tuple:
    """A sort key that puts unknown values last, as pandas does."""
    return (True,) if missing(value) else (False, value)


def typed(values: Iterable[object]) -> dict[object, object]:
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


def typed_column(values: list[Any]) -> list[Any]:
    """A key column's values typed as :func:`typed` types them."""
    types = typed(values)
    if len(types) == 1:
        return [*types.values()] * len(values)
    return list(map(types.__getitem__, values))


def column(table: Columns, name: str, default: object = None) -> list[Any]:
    """``table``'s column ``name``, or ``default`` in every row where it has none."""
    found = table.get(name)
    if found is not None:
        return found
    return [default] * len(next(iter(table.values()), []))


def pick(values: list[Any], rows: Sequence[int]) -> list[Any]:
    """The ``values`` of ``rows`` (``values`` itself when ``rows`` is all of them, in order)."""
    if rows.__class__ is range and rows == range(len(values)):
        return values
    return list(map(values.__getitem__, rows))


def indexes(keys: list[Any], rows: Sequence[int]) -> dict[Any, Sequence[int]]:
    """The indexes of ``rows`` by their ``keys``, in order of first appearance (one group
    is ``rows`` itself)."""
    ids, positions, sizes = _grouped(pick(keys, rows))
    if len(ids) == 1:
        return dict.fromkeys(ids, rows)
    ordered = pick(rows, positions)
    groups, start = {}, 0
    for key, size in zip(ids, sizes, strict=True):
        groups[key] = ordered[start : start + size]
        start += size
    return groups


def _grouped(keys: list[Any]) -> tuple[dict[Any, int], Sequence[int], list[int]]:
    """``keys``' positions by group: the distinct keys in order of first appearance (with
    their first position), every position in group order (in order within a group), and the
    groups' sizes in order."""
    ids: dict[Any, int] = {}
    group_of = list(map(ids.setdefault, keys, count()))  # a group's id: its first position
    if len(ids) == 1:
        return ids, range(len(keys)), [len(keys)]
    sizes = Counter(group_of)
    positions = sorted(range(len(keys)), key=group_of.__getitem__)  # stable
    return ids, positions, list(map(sizes.__getitem__, ids.values()))


def reduce(raw: Columns, numeric: Sequence[str], first: Sequence[str] = FIRST) -> Columns:
    """One row per (dataset, line, puzzle, backend) of the rows in ``raw`` (see
    :func:`columns_of`), in order of first appearance by repeat: the median of each
    ``numeric`` column over the repeats, and of each ``first`` column the first known
    value by repeat (the status of repeat 0)."""
    return reduce_numbers(raw, {c: floats(column(raw, c)) for c in numeric}, first)


def reduce_numbers(
    raw: Columns,
    numbers: Mapping[str, list[Any]],
    first: Sequence[str],
    as_read: Collection[str] = (),
) -> Columns:
    """:func:`reduce` with the numeric columns already read as floats (``numbers``), but
    the columns named in ``as_read``: where there is nothing to reduce, they stay as read
    (their reader parses numbers with :func:`floats` and takes the text of ``NA`` and the
    like for unknown), else are parsed (numbers) or read as :func:`reduce` reads them."""
    key_columns = [column(raw, k) for k in PUZZLE_KEYS]
    repeats = column(raw, "repeat")
    by_repeat = len(set(repeats)) > 1
    if not by_repeat and _unique(key_columns):  # one row per puzzle: nothing to reduce
        puzzles = dict(zip(PUZZLE_KEYS, key_columns, strict=True))
        puzzles.update(numbers)
        puzzles.update(
            {c: column(raw, c) if c in as_read else _knowns(column(raw, c)) for c in first}
        )
        return puzzles
    numbers = {c: floats(v) if c in as_read else v for c, v in numbers.items()}
    keys = list(zip(*key_columns, strict=True))
    order: Sequence[int] = range(len(keys))
    if by_repeat:
        ranks = floats(repeats)
        known = not any(map(math.isnan, ranks))
        order = sorted(order, key=ranks.__getitem__ if known else lambda i: sort_key(ranks[i]))
    ids, positions, sizes = _grouped(pick(keys, order))  # the puzzles, by first appearance
    by_group = pick(order, positions)  # a puzzle's rows by repeat
    transposed = list(zip(*ids, strict=True)) or [()] * len(PUZZLE_KEYS)
    puzzles = {k: list(v) for k, v in zip(PUZZLE_KEYS, transposed, strict=True)}
    buckets = _buckets(by_group, sizes)
    for c, values in numbers.items():
        puzzles[c] = _per_group(values, buckets, len(ids), _medians)
    for c in first:
        puzzles[c] = _per_group(_knowns(column(raw, c)), buckets, len(ids), _firsts)
    return puzzles


def _unique(key_columns: list[list[Any]]) -> bool:
    """Whether no two rows have the same keys (distinct lines, or lines and backends, are
    enough)."""
    lines = key_columns[PUZZLE_KEYS.index("line")]
    backends = key_columns[PUZZLE_KEYS.index("backend")]
    return (
        len(set(lines)) == len(lines)
        or len(set(zip(lines, backends, strict=True))) == len(lines)
        or len(set(zip(*key_columns, strict=True))) == len(lines)
    )


#: Groups of one size: their positions, and their row indexes as columns (see _buckets).
Bucket = tuple[Sequence[int], list[Sequence[int]]]


def _buckets(by_group: Sequence[int], sizes: list[int]) -> list[Bucket]:
    """The groups by size (a puzzle's repeat count), from the rows in group order
    (``by_group``) and each group's size: the groups' positions, and their row indexes as
    columns (the first row of each group, the second...)."""
    if len(set(sizes)) == 1:  # every puzzle has as many repeats
        return [(range(len(sizes)), [by_group[j :: sizes[0]] for j in range(sizes[0])])]
    positions: dict[int, list[int]] = {}
    groups: dict[int, list[Sequence[int]]] = {}
    start = 0
    for position, size in enumerate(sizes):
        positions.setdefault(size, []).append(position)
        groups.setdefault(size, []).append(by_group[start : start + size])
        start += size
    return [(where, list(zip(*groups[size], strict=True))) for size, where in positions.items()]


def _per_group(
    values: list[Any],
    buckets: list[Bucket],
    count: int,
    reduce_cells: Callable[[list[Any], list[Sequence[int]]], list[Any]],
) -> list[Any]:
    """One value per group: ``reduce_cells`` of ``values`` and each bucket's row indexes as
    columns (the groups' first rows, their second rows...)."""
    out: list[Any] = [None] * count
    for where, indexes in buckets:
        reduced = reduce_cells(values, indexes)
        if len(where) == count:
            return reduced
        for position, value in zip(where, reduced, strict=True):
            out[position] = value
    return out


def _medians(values: list[float], indexes: list[Sequence[int]]) -> list[float]:
    """The median of each group's ``values`` (NaN skipped), from its rows as columns."""
    cells = [pick(values, rows) for rows in indexes]
    size, half = len(cells), len(cells) // 2
    if size == 1:
        return cells[0]
    ordered = map(sorted, zip(*cells, strict=True))  # wrong where NaN is: replaced below
    if size % 2:
        medians = list(map(itemgetter(half), ordered))
    else:
        medians = [(group[half - 1] + group[half]) / 2 for group in ordered]
    if any(total != total for total in map(sum, cells)):  # a NaN somewhere
        unknown = map(sum, zip(*(map(math.isnan, column) for column in cells), strict=True))
        for i, k in enumerate(unknown):
            if k:
                medians[i] = NAN if k == size else median([c[i] for c in cells])
    return medians


def _firsts(values: list[Any], indexes: list[Sequence[int]]) -> list[Any]:
    """The first known of each group's ``values`` (None if none), from its rows as columns."""
    firsts = pick(values, indexes[0])
    if None not in firsts:
        return firsts
    cells = [firsts, *(pick(values, rows) for rows in indexes[1:])]
    return [next((v for v in group if v is not None), None) for group in zip(*cells, strict=True)]
