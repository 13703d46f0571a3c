"""The numbers behind every plot and table of the report, apart from drawing them.

The rows are read by :mod:`harness.results.engine` (only the columns shown, :data:`COLUMNS`)
and reduced in DuckDB to one row per puzzle and backend, the table :data:`PUZZLES`
(:func:`harness.tables.stats.per_puzzle`: repeats reduced to their median); a puzzle is
told apart by its dataset and line. Each dataset's summary table (counts, times, PAR-2, the
virtual best solver, fastest alone) and the repeats' spread are
:mod:`harness.tables.stats`'s; the plots' points come from a dataset's rows as a DataFrame.

All times are the solve phase (``solve_s``, seconds), as in ``harness table`` and the gate
(the cactus plot may show the solvers' own clock instead, ``own_solve_s``). A *correct*
answer is a checked SOLVED or UNSAT row (UNSAT is WRONG when the file gives a count it
contradicts). Unanswered rows (TIMEOUT, UNKNOWN, ERROR, MEMOUT, WRONG, UNAVAILABLE) are
never timed as answers: the scatter plot pins them at the timeout and PAR-2 counts them as
twice the timeout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from backends.base import Status
from harness.results import engine
from harness.results.provenance import read_meta
from harness.results.schema import ResultsError
from harness.tables import stats
from harness.tables.stats import ANSWERED, literal

if TYPE_CHECKING:
    import duckdb

PUZZLE = ["dataset", "line"]
VBS = stats.VBS
#: The columns the report reads.
COLUMNS = ("dataset", "line", "size", "backend", "repeat", "status", "solve_s", "solve_cpu_s")
COLUMNS += ("own_solve_s", "nodes", "guesses")
#: The columns of a dataset's puzzles the plots draw.
PLOTTED = ("dataset", "line", "backend", "status", "solve_s", "own_solve_s", "nodes")
#: The table of one row per puzzle and backend.
PUZZLES = "puzzles"


@dataclass
class Runs:
    """The rows of one or more results CSVs in DuckDB (one row per puzzle and backend in
    the table :data:`PUZZLES`), and what their metadata says."""

    results: engine.Results
    metas: list[tuple[str, dict[str, Any] | None]] = field(default_factory=list)
    timeout: float = math.nan  # seconds
    timeout_note: str = ""

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        return self.results.con

    def close(self) -> None:
        self.results.close()

    def __enter__(self) -> Runs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Group:
    """One dataset (and grid size, where a dataset mixes sizes): its title, and the SQL
    that is true for its rows of :data:`PUZZLES`."""

    title: str
    where: str


def load_runs(paths: Sequence[str | Path], merge: bool = False) -> Runs:
    """Read results CSVs (raises :class:`ResultsError` naming a bad one, or one without
    rows).

    A backend that appears in more than one CSV is labelled ``spec (file stem)`` so two runs
    of it stay apart, unless ``merge`` pools them.
    """
    results = engine.read(paths, COLUMNS, natives=False)
    try:
        for path, count in zip(paths, results.counts, strict=True):
            if not count:
                raise ResultsError(f"{path}: no result rows")
        con = results.con
        tables = [f"file_{i}" for i in range(len(paths))]
        con.execute(f"CREATE TEMP VIEW labelled AS {labelled(con, tables, paths, merge)}")
        pooled = len(paths) > 1  # the runs' rows of one backend and puzzle reduced together
        view = stats.per_puzzle(con, "labelled", merge=pooled, name="puzzle_rows")
        con.execute(f"CREATE TEMP TABLE {PUZZLES} AS SELECT * FROM {view}")
        metas = [(str(p), read_meta(Path(p))) for p in paths]
        timeout, note = timeout_of(metas, con)
    except BaseException:
        results.close()
        raise
    return Runs(results, metas, timeout, note)


def labelled(
    con: duckdb.DuckDBPyConnection,
    tables: Sequence[str],
    paths: Sequence[str | Path],
    merge: bool = False,
) -> str:
    """SQL for the rows of ``tables`` (those of the files ``paths``) one after another,
    without their ``run`` column, a backend that more than one of them ran renamed
    ``spec (file stem)``, unless ``merge`` pools the runs."""
    owners: dict[str, int] = {}
    for table in tables:
        for (spec,) in con.execute(f"SELECT DISTINCT backend FROM {table}").fetchall():
            owners[spec] = owners.get(spec, 0) + 1
    shared = ", ".join(literal(s) for s, n in owners.items() if n > 1 and not merge)
    parts = []
    for table, path in zip(tables, paths, strict=True):
        named = ""
        if shared:
            stem = literal(f" ({Path(path).stem})")
            named = f" REPLACE (CASE WHEN backend IN ({shared}) THEN backend || {stem} "
            named += "ELSE backend END AS backend)"
        parts.append(f"SELECT * EXCLUDE (run){named} FROM {table}")
    return " UNION ALL BY NAME ".join(parts)


def timeout_of(
    metas: Sequence[tuple[str, dict[str, Any] | None]], con: duckdb.DuckDBPyConnection
) -> tuple[float, str]:
    """The timeout in seconds (the largest the runs used) and a note saying where it came
    from; without metadata, the longest time any row ran."""
    limits = [
        float(m["limits"]["timeout_s"])
        for _, m in metas
        if m and isinstance(m.get("limits"), dict) and m["limits"].get("timeout_s")
    ]
    if limits:
        return max(limits), ""
    longest = con.execute("SELECT max(solve_s) FROM rows").fetchone()[0]
    longest = 1.0 if longest is None else float(longest)
    return longest, "no timeout recorded (no .meta.json): the longest solve stands in for it"


def groups(runs: Runs) -> list[Group]:
    """One :class:`Group` per dataset, and per grid size when a dataset mixes sizes."""
    sized = "size" in stats.grouping(runs.con, PUZZLES)
    keys = "dataset, size" if sized else "dataset"
    found = runs.con.execute(f"SELECT DISTINCT {keys} FROM {PUZZLES} ORDER BY {keys}")
    out = []
    for dataset, *size in found.fetchall():
        title, where = Path(str(dataset)).name, f"dataset = {literal(dataset)}"
        if sized:
            where += " AND size IS NULL" if size[0] is None else f" AND size = {int(size[0])}"
            title += "" if size[0] is None else f" ({size[0]:g}x{size[0]:g})"
        out.append(Group(title, where))
    return out


def puzzles(runs: Runs, group: Group) -> pd.DataFrame:
    """The group's rows of :data:`PUZZLES` (one per puzzle and backend), the columns the
    plots draw (:data:`PLOTTED`); text of few values (datasets, backends, statuses) as
    categories."""
    texts = {
        "dataset": _distinct(runs, "dataset"),
        "backend": names(runs),
        "status": [s.value for s in Status],
    }
    columns = [
        f"CAST({c} AS ENUM({', '.join(map(literal, texts[c]))})) AS {c}" if c in texts else c
        for c in PLOTTED
    ]
    return runs.results.frame(f"SELECT {', '.join(columns)} FROM {PUZZLES} WHERE {group.where}")


def _distinct(runs: Runs, column: str) -> list[str]:
    query = f"SELECT DISTINCT {column} FROM {PUZZLES} WHERE {column} IS NOT NULL"
    return [value for (value,) in runs.con.execute(query).fetchall()]


def puzzle_count(runs: Runs, group: Group) -> int:
    """How many puzzles the group holds."""
    query = f"SELECT count(*) FROM (SELECT DISTINCT dataset, line FROM {PUZZLES} WHERE "
    return int(runs.con.execute(query + f"{group.where})").fetchone()[0])


def names(runs: Runs, ran: bool = False) -> list[str]:
    """The backends of the rows in order of first appearance; with ``ran``, those that ran
    (not all UNAVAILABLE)."""
    where = f"status <> {literal(Status.UNAVAILABLE.value)}" if ran else "true"
    query = f"SELECT backend FROM {PUZZLES} WHERE {where} GROUP BY backend ORDER BY min(rowid)"
    return [b for (b,) in runs.con.execute(query).fetchall()]


def correct(frame: pd.DataFrame) -> pd.Series:
    """True where the row is a checked answer (SOLVED or UNSAT)."""
    return frame["status"].isin(ANSWERED)


def backends(frame: pd.DataFrame) -> list[str]:
    """The backends that ran here (not all UNAVAILABLE), in order of first appearance."""
    ran = frame.loc[frame["status"] != Status.UNAVAILABLE.value, "backend"]
    return [str(b) for b in pd.unique(ran)]


#: The report's time axes: ``--time`` -> the column it reads.
TIMES = {"solve": "solve_s", "own": "own_solve_s"}
#: What each of :data:`TIMES` measures, as a plot's axis names it.
CLOCKS = {"solve": "solve time", "own": "the solver's own clock"}


def cactus(
    frame: pd.DataFrame, order: Sequence[str] = (), time: str = "solve_s"
) -> dict[str, np.ndarray]:
    """Per backend (those in ``order`` first, in that order), its correct answers' times
    (column ``time``: ``solve_s``, or the solvers' own clock ``own_solve_s``) in ascending
    order: point k of the curve is (k + 1 puzzles solved, each within this time). A
    backend without a time in that column is left out."""
    if time not in frame:
        return {}
    answered = frame[correct(frame)]
    ran = backends(frame)
    names = [b for b in order if b in ran]
    names += [b for b in ran if b not in names]
    times = answered.groupby("backend", observed=True)[time]
    curves = {b: _sorted(times, b) for b in names}
    return {b: t for b, t in curves.items() if len(t) or time == "solve_s"}


def _sorted(times, backend: str) -> np.ndarray:
    try:
        values = times.get_group(backend).dropna().to_numpy(dtype=float)
    except KeyError:  # no correct answer at all
        return np.array([], dtype=float)
    return np.sort(values)


def scatter(frame: pd.DataFrame, a: str, b: str, timeout: float) -> pd.DataFrame:
    """Per puzzle both backends ran: ``x`` (a's time), ``y`` (b's), pinned at ``timeout``
    where that backend gave no correct answer; ``wrong`` when either answer was WRONG."""
    keep = [*PUZZLE, "status", "solve_s"]
    left = frame.loc[frame["backend"] == a, keep]
    right = frame.loc[frame["backend"] == b, keep]
    pairs = left.merge(right, on=PUZZLE, suffixes=("_a", "_b"))
    ok_a = pairs["status_a"].isin(ANSWERED)
    ok_b = pairs["status_b"].isin(ANSWERED)
    wrong = Status.WRONG.value
    return pd.DataFrame(
        {
            "line": pairs["line"],
            "x": pairs["solve_s_a"].where(ok_a, timeout),
            "y": pairs["solve_s_b"].where(ok_b, timeout),
            "pinned_x": ~ok_a,
            "pinned_y": ~ok_b,
            "wrong": (pairs["status_a"] == wrong) | (pairs["status_b"] == wrong),
        }
    ).reset_index(drop=True)


def wins(pairs: pd.DataFrame) -> tuple[int, int]:
    """From :func:`scatter`'s pairs: on how many puzzles a (x) and b (y) were faster."""
    return int((pairs["x"] < pairs["y"]).sum()), int((pairs["y"] < pairs["x"]).sum())


def summary(runs: Runs, group: Group) -> pd.DataFrame:
    """The group's table (:func:`harness.tables.stats.ranking`): one row per backend, best
    PAR-2 first, then the virtual best solver's row; ``solved`` as "answered/puzzles"."""
    table = pd.DataFrame(stats.ranking(runs.con, PUZZLES, runs.timeout, group.where))
    if table.empty:
        return table
    solved = [f"{a:,}/{n:,}" for a, n in zip(table["answered"], table["puzzles"], strict=True)]
    return table.drop(columns=["answered", "puzzles"]).assign(solved=solved)


def repeat_spread(runs: Runs, group: Group) -> pd.DataFrame:
    """Per backend run with ``--repeat``, over the group's answered puzzles
    (:func:`harness.tables.stats.repeat_spread`): the median of the repeats' interquartile
    range relative to their median (%), and of their fastest repeat (ms). Empty without
    repeats."""
    table = stats.repeat_spread(runs.con, PUZZLES, group.where)
    return pd.DataFrame(table, columns=["backend", "spread_pct", "min_ms"])


def ranking(runs: Runs, group: Group) -> list[str]:
    """The group's backends, best PAR-2 first (ties: lower median)."""
    return ranked(summary(runs, group))


def ranked(table: pd.DataFrame) -> list[str]:
    """The backends of a :func:`summary` table, in its order (best PAR-2 first)."""
    return [b for b in table["backend"] if b != VBS] if not table.empty else []


def default_pair(runs: Runs, group: Group) -> tuple[str, str] | None:
    """The two backends with the best PAR-2 (None with fewer than two)."""
    return pair_of(ranking(runs, group))


def pair_of(names: Sequence[str]) -> tuple[str, str] | None:
    """The first two of ``names`` (None with fewer than two)."""
    return (names[0], names[1]) if len(names) >= 2 else None


def effort(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per backend that counts nodes, its correct answers' ``solve_s`` and ``nodes``."""
    if "nodes" not in frame:
        return {}
    answered = frame[correct(frame) & frame["nodes"].notna() & frame["solve_s"].notna()]
    by_backend = answered.groupby("backend", observed=True, sort=False)
    out = {}
    for backend in backends(frame):
        if backend in by_backend.groups:
            out[backend] = by_backend.get_group(backend)[["solve_s", "nodes"]]
    return {b: rows.reset_index(drop=True) for b, rows in out.items() if len(rows)}


def puzzle_pairs(pairs: pd.DataFrame, limit: int = 40) -> pd.DataFrame:
    """From a gate's per-puzzle times (:attr:`harness.gate.GateResult.times`): per puzzle,
    old and new ms and their ratio, the ``limit`` largest ratios first (the puzzles a
    slowdown shows on)."""
    table = pairs.assign(
        old_ms=pairs["old"] * 1000, new_ms=pairs["new"] * 1000, ratio=pairs["new"] / pairs["old"]
    )
    table = table.sort_values("ratio", ascending=False, kind="stable").head(limit)
    return table[["backend", "dataset", "line", "old_ms", "new_ms", "ratio"]]


def ratio_interval(old: pd.Series, new: pd.Series, confidence: float = 0.95):
    """The median of the per-puzzle ratios new / old, with its confidence interval
    (:func:`harness.gate.timing.median_interval`)."""
    from harness.gate.timing import median_interval

    ratios = (new / old).replace([math.inf, -math.inf], math.nan).dropna().to_numpy()
    if not len(ratios):
        return math.nan, math.nan, math.nan
    return (float(np.median(ratios)), *median_interval(ratios, confidence))


#: The gate's verdicts, worst first: a backend x dataset takes the worst of its checks.
VERDICTS = ("WRONG", "REGRESSION", "INCONCLUSIVE", "improved", "ok", "info")


def verdicts(findings: pd.DataFrame) -> pd.DataFrame:
    """Per backend x dataset, the worst verdict of the gate's findings and the checks that
    gave it (``findings`` has the columns of :class:`harness.gate.Finding`)."""
    rows = []
    if findings.empty:
        return pd.DataFrame(columns=["backend", "dataset", "verdict", "checks"])
    for (backend, dataset), group in findings.groupby(["backend", "dataset"], sort=True):
        rank = group["verdict"].map(lambda v: VERDICTS.index(v) if v in VERDICTS else 99)
        worst = group.loc[rank == rank.min(), ["verdict", "check"]]
        checks = ", ".join(worst["check"]) if worst["verdict"].iloc[0] != "ok" else ""
        rows.append(
            {
                "backend": backend,
                "dataset": dataset,
                "verdict": worst["verdict"].iloc[0],
                "checks": checks,
            }
        )
    return pd.DataFrame(rows)
