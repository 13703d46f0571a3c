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

Statistics skip unknown values as pandas does (a median or mean of nothing is NaN).
``harness run`` builds the puzzles from its compact columns (:func:`run_puzzles`) and
prints the tables without loading pandas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from backends.base import COUNTERS, Status
from backends.puzzle import Puzzle
from harness.results import BASE_COLUMNS, MEASURE_COLUMNS
from harness.results.compact import Spilled
from harness.tables.rows import (
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

    sizes = rows.codes("size")
    known = [s for s in np.flatnonzero(np.bincount(sizes)).tolist() if s]  # 0: unknown
    size_codes = np.full(1 << 8, -1, dtype=np.int8)
    size_codes[known] = np.arange(len(known))
    datasets, backends = rows.datasets.values, rows.backends.values
    raw: Columns = {  # codes in the smallest type that holds them (every row has a value)
        "dataset": Coded(rows.codes("dataset").astype(np.min_scalar_type(len(datasets))), datasets),
        "backend": Coded(rows.codes("backend").astype(np.min_scalar_type(len(backends))), backends),
        "status": Coded(rows.statuses(), list(STATUSES)),
        "size": Coded(size_codes[sizes], known),
    }
    del sizes
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


def _groups(puzzles: Columns, by: Sequence[str]) -> Iterator[tuple[tuple, np.ndarray]]:
    """The groups of the puzzles by the values of ``by``: (key values, a mask of its
    rows), in sorted key order, one at a time."""
    keys = [coded(column(puzzles, k)) for k in by]
    if not len(keys[0]):
        return
    ids, first = group_ids(keys)
    for g, row in enumerate(first.tolist()):
        yield _labels(keys, row), ids == g


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
    """The puzzles' statuses: which have one of some statuses."""

    def __init__(self, puzzles: Columns) -> None:
        self.status = coded(column(puzzles, "status"))
        self.text = [str(label) for label in self.status.labels]

    def isin(self, names: Iterable[str]) -> np.ndarray:
        wanted = {str(name) for name in names}
        table = np.array([t in wanted for t in self.text] + [False])  # code -1: the last
        return table[self.status.codes]

    def counts(self, group: np.ndarray) -> dict[str, int]:
        """How many puzzles of the group (a mask) have each status."""
        codes = self.status.codes[group]
        return {t: int(np.count_nonzero(codes == i)) for i, t in enumerate(self.text)}


def _known(values: np.ndarray | Spilled, rows: np.ndarray) -> np.ndarray:
    """The known ``values`` of the rows in the mask ``rows`` (a copy)."""
    if isinstance(values, Spilled):
        return values.known(rows)
    return values[rows & ~np.isnan(values)]


def _median(values: np.ndarray) -> float:
    """The median of ``values`` (known, a copy: partitioned in place), NaN if none."""
    half = len(values) // 2
    if not len(values):
        return NAN
    if len(values) % 2:
        values.partition(half)
        return float(values[half])
    values.partition((half - 1, half))
    return float((values[half - 1] + values[half]) / 2)


def _ms(puzzles: Columns, name: str, rows: np.ndarray) -> np.ndarray:
    """The known values of column ``name`` in the mask ``rows``, seconds in ms (before any
    statistic, as pandas computes them from the CSV)."""
    values = _known(puzzles[name], rows)
    values *= 1000
    return values


def _statistics(puzzles: Columns, answered: np.ndarray, solved: np.ndarray) -> dict[str, Any]:
    """The statistics of a group's puzzles with an answer and of those SOLVED (masks), one
    column at a time."""
    row: dict[str, Any] = {}
    ms = _ms(puzzles, "solve_s", answered)
    row["mean_ms"] = float(ms.mean()) if len(ms) else NAN
    row["max_ms"] = float(ms.max()) if len(ms) else NAN
    row["median_ms"] = _median(ms)
    del ms
    row["cpu_ms"] = _median(_ms(puzzles, "solve_cpu_s", answered))
    if SPREAD[0] in puzzles:  # repeats: over each puzzle's, the spread and the fastest
        row["spread_pct"] = _median(_known(puzzles[SPREAD[0]], answered) * 100)
        row["min_ms"] = _median(_ms(puzzles, SPREAD[1], answered))
    row["own_ms"] = _median(_ms(puzzles, "own_solve_s", answered))  # the solver's own clock
    row["encode_ms"] = _median(_ms(puzzles, "encode_s", answered))
    nodes = _known(puzzles["nodes"], answered)
    row["nodes_mean"] = float(nodes.mean()) if len(nodes) else NAN
    row["nodes_max"] = float(nodes.max()) if len(nodes) else NAN
    row["nodes_median"] = _median(nodes)
    del nodes
    guesses = _known(puzzles["guesses"], solved)
    row["no_guess_pct"] = (
        100.0 * np.count_nonzero(guesses == 0) / len(guesses) if len(guesses) else NAN
    )
    row["guesses_per_puzzle"] = float(guesses.mean(dtype=np.float64)) if len(guesses) else NAN
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
    answered, solved = statuses.isin(ANSWERED), statuses.isin((Status.SOLVED,))
    planned = _planned(puzzles, by)
    table = []
    for key, group in _groups(puzzles, by):
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        right = counted(row, statuses.counts(group), planned(key, int(np.count_nonzero(group))))
        group &= answered  # in place (a mask of its own): now the group's answered puzzles
        row.update(_statistics(puzzles, group, group & solved))
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
    answered = _Statuses(puzzles).isin(ANSWERED)
    table = []
    for key, group in _groups(puzzles, by):
        if any(map(missing, key)) or not (group & answered).any():
            continue  # pandas' groupby leaves out a group whose key is unknown
        medians = {c: _median(_known(puzzles[c], group & answered)) for c in native}
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
