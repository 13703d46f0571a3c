"""The summary tables: one row per backend x dataset, from one row per puzzle (numpy).

Timing columns summarise the solve phase (``solve_s``) of answered rows (SOLVED or UNSAT
and checked), and beside its median the median of the solver's own clock (``own_ms``, from
``own_solve_s``, kept when some backend reports it) and of the solve's CPU time (``cpu_ms``,
from ``solve_cpu_s``): a TIMEOUT is counted in its own column and never averaged in as if it
were an answer, and a WRONG row is never timed as a success. With ``--repeat K`` the K rows of
one (puzzle, backend) are first reduced to their median (:func:`harness.tables.rows.reduce`),
so every puzzle weighs the same, and two columns say how much the repeats varied: the median
over the puzzles of their answered repeats' interquartile range over their median
(``spread_pct``) and of their fastest repeat (``min_ms``). Counters a backend does not report
stay empty (NaN), never 0.

Rows are sorted by speed within each dataset (most checked answers first, then the lowest
median), with ``x_fastest``: the row's median over the dataset's fastest median.

Statistics skip unknown values as pandas does (a median or mean of nothing is NaN). Each
is read a chunk of rows at a time (:mod:`harness.tables.chunked`), whether the column is in
memory or in a run's file: a group's values are never gathered whole, and both give the
same figures. ``harness run`` builds the puzzles from its compact columns
(:func:`run_puzzles`) and prints the tables without loading pandas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from backends.base import COUNTERS, Status
from backends.puzzle import Puzzle
from harness.results import BASE_COLUMNS, MEASURE_COLUMNS
from harness.results.compact import Spilled
from harness.tables.chunked import Pieces, describe
from harness.tables.rows import (
    CHUNK,
    FIRST,
    PUZZLE_KEYS,
    Coded,
    Columns,
    coded,
    column,
    floats,
    group_ids,
    reduce,
)
from harness.tables.table import (
    ANSWERED,
    NAN,
    STATISTICS,
    Table,
    counted,
    finish,
    missing,
    sort_key,
)

if TYPE_CHECKING:
    from harness.puzzles.readers import PuzzleRecord
    from harness.results.compact import CompactRows

NUMERIC = (*MEASURE_COLUMNS, *COUNTERS)
#: The numeric columns :func:`summary` reads (the others need not be parsed).
SUMMARY_NUMERIC = ("encode_s", "solve_s", "solve_cpu_s", "own_solve_s", "nodes", "guesses")
#: The per-puzzle spread of the repeats (:func:`harness.tables.rows.spread`).
SPREAD = ("solve_spread", "solve_fastest")


def run_puzzles(rows: CompactRows) -> Columns:
    """The puzzles of a run's compact rows: one per (dataset, line, backend), repeats
    reduced (see :func:`harness.tables.rows.reduce`). The number columns of a run without
    repeats stay in their files (:class:`harness.results.compact.Spilled`), read one at a
    time as the statistics need them."""
    from harness.results.compact import STATUSES

    seen = np.zeros(1 << 8, dtype=bool)
    for sizes in rows.spilled["size"].pieces():
        seen[sizes] = True
    known = [s for s in np.flatnonzero(seen).tolist() if s]  # 0: unknown
    size_codes = np.full(1 << 8, -1, dtype=np.int8)
    size_codes[known] = np.arange(len(known))
    datasets, backends = rows.datasets.values, rows.backends.values
    raw: Columns = {  # codes in the smallest type that holds them (every row has a value)
        "dataset": Coded(rows.codes("dataset", np.min_scalar_type(len(datasets))), datasets),
        "backend": Coded(rows.codes("backend", np.min_scalar_type(len(backends))), backends),
        "status": Coded(rows.statuses(), list(STATUSES)),
        "size": Coded(size_codes[rows.codes("size")], known),
    }
    numeric = [*SUMMARY_NUMERIC, *rows.natives()]
    raw.update({c: rows.column(c) for c in numeric})
    if len(rows.backends.values) > 1 or rows.repeated:
        raw["line"] = _puzzle_codes(rows)  # which rows are of one puzzle
    if not rows.repeated:
        return raw  # one row per puzzle and backend (a run writes each key once)
    raw["repeat"] = rows.codes("repeat").astype(np.float64)
    keys = ("dataset", "line", "backend")
    return reduce(raw, numeric, ("status", "size"), keys, ANSWERED)


def _puzzle_codes(rows: CompactRows) -> Coded:
    """The puzzle of each row (a dataset and a line) as codes, in sorted order; the labels
    are the puzzles' ids (:meth:`harness.results.compact.CompactRows.puzzle_ids`)."""
    dataset, line = rows.codes("dataset"), rows.codes("line")
    width = int(line.max(initial=0)) + 1
    slots = len(rows.datasets.values) * width
    if slots > min(2 * len(line) + (1 << 16), 1 << 31):  # lines far apart: sorted, in more memory
        del dataset, line
        distinct, codes = np.unique(rows.puzzle_ids(), return_inverse=True)
        return Coded(codes.reshape(-1).astype(np.int32), distinct)
    slot = line.astype(np.int32)  # fits: slots < 2**31
    slot += dataset.astype(np.int32) * width
    del dataset, line
    seen = np.zeros(slots, dtype=bool)
    seen[slot] = True
    present = np.flatnonzero(seen)
    del seen
    dense = np.zeros(slots, dtype=np.int32)
    dense[present] = np.arange(len(present), dtype=np.int32)
    ids = (present // width) << 40 | present % width
    return Coded(dense[slot], ids)


def grouping(puzzles: Columns) -> tuple[str, ...]:
    """backend x dataset, and grid size too when a dataset mixes sizes: a median over 4x4
    and 25x25 puzzles together would describe neither."""
    dataset, size = coded(column(puzzles, "dataset")), coded(column(puzzles, "size"))
    if len(size.labels) < 2:
        return ("backend", "dataset")
    known = (dataset.codes >= 0) & (size.codes >= 0)
    pairs = np.unique(np.stack([dataset.codes[known], size.codes[known]]), axis=1)
    mixed = len(np.unique(pairs[0])) < pairs.shape[1]
    return ("backend", "dataset", "size") if mixed else ("backend", "dataset")


def _grouped(puzzles: Columns, by: Sequence[str]) -> tuple[list[tuple], np.ndarray]:
    """The groups of the puzzles by the values of ``by``: their key values in sorted order,
    and each puzzle's group (its position in that order)."""
    keys = [coded(column(puzzles, k)) for k in by]
    if not len(keys[0]):
        return [], np.zeros(0, dtype=np.uint8)
    ids, first = group_ids(keys)
    return [_labels(keys, row) for row in first.tolist()], ids


def _labels(keys: Sequence[Coded], row: int) -> tuple:
    """The values of ``keys`` in ``row`` (NaN where unknown)."""
    return tuple(k.labels[k.codes[row]] if k.codes[row] >= 0 else NAN for k in keys)


#: The columns kept as codes (the others are numbers).
CODED = (*PUZZLE_KEYS, *FIRST)


def _normalized(puzzles: Columns) -> Columns:
    """``puzzles`` with every key and :data:`FIRST` column :class:`Coded` and every other
    column a float array (each converted once) or left in its file."""
    return {
        c: coded(v) if c in CODED else v if isinstance(v, Spilled) else floats(v)
        for c, v in puzzles.items()
    }


class _Statuses:
    """The puzzles' statuses: how many of each a group has, which rows have some."""

    def __init__(self, puzzles: Columns) -> None:
        self.status = coded(column(puzzles, "status"))
        self.text = [str(label) for label in self.status.labels]

    def table(self, names: Iterable[str]) -> np.ndarray:
        """Whether a status code (-1, unknown: the last) is one of ``names``."""
        wanted = {str(name) for name in names}
        return np.array([t in wanted for t in self.text] + [False])

    def counts(self, ids: np.ndarray, groups: int) -> tuple[list[dict[str, int]], list[int]]:
        """How many puzzles of each group (``ids``: a puzzle's) have each status, and how
        many it has."""
        width = len(self.text) + 1  # unknown last
        tally = np.zeros(groups * width, dtype=np.int64)
        for start in range(0, len(ids), CHUNK):
            codes = self.status.codes[start : start + CHUNK].astype(np.intp)
            codes[codes < 0] = width - 1
            codes += ids[start : start + CHUNK].astype(np.intp) * width
            tally += np.bincount(codes, minlength=len(tally))
        rows = tally.reshape(groups, width).tolist()
        return [dict(zip(self.text, row, strict=False)) for row in rows], [sum(r) for r in rows]


class _Rows:
    """The rows of one group whose status is one of some, a chunk at a time."""

    def __init__(self, ids: np.ndarray, group: int, statuses: _Statuses, names: Iterable[str]):
        self.ids, self.group, self.codes = ids, group, statuses.status.codes
        self.wanted = statuses.table(names)

    def __call__(self, start: int, stop: int) -> np.ndarray:
        """A mask of the rows from ``start`` to ``stop``."""
        return (self.ids[start:stop] == self.group) & self.wanted[self.codes[start:stop]]


def _chunks(values: np.ndarray | Spilled) -> Iterator[np.ndarray]:
    """A number column :data:`CHUNK` rows at a time (a run's read back from its file)."""
    if isinstance(values, Spilled):
        yield from values.pieces(CHUNK)
    else:
        for start in range(0, len(values), CHUNK):
            yield values[start : start + CHUNK]


def _values(values: np.ndarray | Spilled, rows: _Rows, scale: float = 1) -> Pieces:
    """The known ``values`` of ``rows``, times ``scale`` (seconds in ms before any
    statistic, as pandas computes them from the CSV), a chunk at a time."""

    def pieces() -> Iterator[np.ndarray]:
        start = 0
        for chunk in _chunks(values):
            found = chunk[rows(start, start + len(chunk)) & ~np.isnan(chunk)]
            start += len(chunk)
            yield found * scale if scale != 1 else found

    return pieces


def _median(values: np.ndarray | Spilled, rows: _Rows, scale: float = 1) -> float:
    """The median of the known ``values`` of ``rows`` times ``scale`` (NaN if none)."""
    return describe(_values(values, rows, scale)).median


def _statistics(puzzles: Columns, answered: _Rows, solved: _Rows) -> dict[str, Any]:
    """The statistics of a group's puzzles with an answer and of those SOLVED, one column
    at a time."""
    row: dict[str, Any] = {}
    ms = describe(_values(puzzles["solve_s"], answered, 1000))
    row.update(median_ms=ms.median, mean_ms=ms.mean, max_ms=ms.maximum)
    row["cpu_ms"] = _median(puzzles["solve_cpu_s"], answered, 1000)
    if SPREAD[0] in puzzles:  # repeats: over each puzzle's, the spread and the fastest
        row["spread_pct"] = _median(puzzles[SPREAD[0]], answered, 100)
        row["min_ms"] = _median(puzzles[SPREAD[1]], answered, 1000)
    row["own_ms"] = _median(puzzles["own_solve_s"], answered, 1000)  # the solver's own clock
    row["encode_ms"] = _median(puzzles["encode_s"], answered, 1000)
    nodes = describe(_values(puzzles["nodes"], answered))
    row.update(nodes_median=nodes.median, nodes_mean=nodes.mean, nodes_max=nodes.maximum)
    guesses = describe(_values(puzzles["guesses"], solved), median=False)
    row["no_guess_pct"] = 100.0 * guesses.zeros / guesses.count if guesses.count else NAN
    row["guesses_per_puzzle"] = guesses.mean
    return {name: row[name] for name in STATISTICS if name in row}


def _planned(puzzles: Columns, by: Sequence[str]) -> Callable[[tuple, int], int]:
    """How many puzzles each group was planned to cover: every puzzle any backend has a row
    for in the group's dataset (and size or tier), so a backend whose rows are missing is
    counted against the puzzles it never ran."""
    others = [k for k in by if k != "backend"]
    if "backend" not in by or not others:
        return lambda key, present: present
    identity = [k for k in ("line", "puzzle") if k in puzzles]
    keys = [coded(column(puzzles, k)) for k in (*others, *identity)]
    _, distinct = group_ids(keys)  # a row of each distinct puzzle of each group
    groups = [k.take(distinct) for k in keys[: len(others)]]
    ids, first = group_ids(groups)
    sizes = np.bincount(ids, minlength=len(first)).tolist()
    counts = {_labels(groups, row): size for row, size in zip(first.tolist(), sizes, strict=True)}
    positions = [i for i, k in enumerate(by) if k != "backend"]

    def planned(key: tuple, present: int) -> int:
        other = tuple(key[i] for i in positions)
        return present if any(map(missing, other)) else max(present, counts.get(other, 0))

    return planned


def summary(puzzles: Columns, by: Sequence[str] | None = None) -> Table:
    """The comparison table of the puzzles (:func:`harness.tables.rows.reduce`'s): one row
    per group (default :func:`grouping`), sorted by speed within the other keys (see
    :func:`by_speed`)."""
    puzzles = _normalized(puzzles)
    n = len(next(iter(puzzles.values()), []))
    missing_numbers = [c for c in SUMMARY_NUMERIC if c not in puzzles]
    if missing_numbers:
        nan = np.full(n, NAN)
        puzzles = {**{c: nan for c in missing_numbers}, **puzzles}
    by = grouping(puzzles) if by is None else tuple(by)
    statuses = _Statuses(puzzles)
    planned = _planned(puzzles, by)
    keys, ids = _grouped(puzzles, by)
    tallies, sizes = statuses.counts(ids, len(keys))
    table = []
    for group, (key, counts, size) in enumerate(zip(keys, tallies, sizes, strict=True)):
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        right = counted(row, counts, planned(key, size))
        answered = _Rows(ids, group, statuses, ANSWERED)
        row.update(_statistics(puzzles, answered, _Rows(ids, group, statuses, (Status.SOLVED,))))
        row["_answered"] = right
        table.append(row)
    return finish(table, [c for c in by if c != "backend"])


def native_summary(puzzles: Columns, by: Sequence[str] | None = None) -> Table:
    """Medians of each backend's native statistics over its answered puzzles, per group
    (default :func:`grouping`); statistics no row of a group reports are left out, and
    a group that reports none."""
    native = [c for c in puzzles if c not in (*BASE_COLUMNS, *FIRST, *SPREAD)]
    if not native:
        return []
    puzzles = _normalized(puzzles)
    by = grouping(puzzles) if by is None else tuple(by)
    statuses = _Statuses(puzzles)
    keys, ids = _grouped(puzzles, by)
    table = []
    tallies, _ = statuses.counts(ids, len(keys))
    for group, (key, counts) in enumerate(zip(keys, tallies, strict=True)):
        if any(map(missing, key)) or not any(counts.get(s, 0) for s in ANSWERED):
            continue  # pandas' groupby leaves out a group whose key is unknown
        answered = _Rows(ids, group, statuses, ANSWERED)
        medians = {c: _median(puzzles[c], answered) for c in native}
        if any(v == v for v in medians.values()):
            table.append({**dict(zip(by, key, strict=True)), **medians})
    kept = [c for c in native if any(row[c] == row[c] for row in table)]
    return [{**{k: row[k] for k in by}, **{c: row[c] for c in kept}} for row in table]


def tag_tiers(puzzles: Columns, tiers: Mapping[str, str] | Coded) -> Columns:
    """``puzzles`` with their difficulty tier: ``tiers`` maps a puzzle's text to its tier
    (``unrated`` for a puzzle it lacks), or is the tier column itself."""
    if isinstance(tiers, Coded):
        return {**puzzles, "tier": tiers}
    texts = column(puzzles, "puzzle")
    texts = texts.decoded() if isinstance(texts, Coded) else texts
    return {**puzzles, "tier": coded([tiers.get(p, "unrated") for p in texts])}


def summary_by_tier(
    puzzles: Columns, tiers: Mapping[str, str] | Coded, order: Sequence[str] = ()
) -> Table:
    """:func:`summary` per backend x dataset x difficulty tier (see :func:`tag_tiers`);
    rows follow ``order`` within each backend x dataset."""
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


def tiers_by_puzzle(
    puzzles: Columns,
    rows: CompactRows,
    records: Iterable[PuzzleRecord],
    tier_of: Callable[[Puzzle], str],
) -> Coded:
    """The tier of each of :func:`run_puzzles`' puzzles, rating ``records`` (every puzzle of
    the run, streamed) one at a time."""
    datasets = {name: code for code, name in enumerate(rows.datasets.values)}
    line = puzzles["line"] if "line" in puzzles else _puzzle_codes(rows)
    ids = np.asarray(line.labels)
    tiers: dict[str, int] = {}
    tier_codes = np.full(len(ids), -1, dtype=np.int64)
    for record in records:
        code = datasets.get(record.dataset)
        if code is None:
            continue
        at = int(np.searchsorted(ids, (code << 40) | record.line))
        if at < len(ids) and ids[at] == (code << 40) | record.line:
            tier = tier_of(record.puzzle)
            tier_codes[at] = tiers.setdefault(tier, len(tiers))
    labels = [*tiers, "unrated"]
    per_line = np.where(tier_codes < 0, len(labels) - 1, tier_codes)
    return Coded(per_line[line.codes], labels)
