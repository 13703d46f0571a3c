"""Per-commit figures and steps between neighbouring commits, asked of the results engine.

Every run's rows are read by the results engine and reduced to one row per puzzle (repeats
by their median), once, into the cache beside them (:mod:`harness.history.cache`); one
DuckDB database then asks its questions of every run's puzzles together. Each
backend's time is the clock that judges it (:func:`harness.gate.clocks.judging_clock`),
divided by its run's calibration where a machine class holds runs calibrated differently
(expressed at the class's median calibration, so the figures stay milliseconds). A puzzle
measured at one commit in several runs counts once, by its median.

**One row per commit**, for each machine class, backend and dataset (by file name): the
median time over the answered puzzles (SOLVED, or UNSAT where the file allows it) with its
interquartile range over them, the total node count of the answered puzzles, and how many
puzzles were answered of how many.

**Steps**, between each commit and the one before it that measured the same backend on the
same dataset, on the puzzles both answered:

- *time*: the per-puzzle ratios new / old, judged as the paired gate judges them
  (:func:`harness.gate.timing.ratio_statistics`): a step when the median ratio is beyond
  ``time_ratio`` (slower) or below its inverse (faster), the one-sided Wilcoxon signed-rank
  p-value is below ``alpha``, and the median's confidence interval excludes 1. When a run measured
  both commits, only the rows of such runs are compared (their load was shared); otherwise
  the commits' rows from different runs are, calibrated, and the step says so (``apart``);
- *a counter* (``nodes``, ``guesses``, ``backtracks``, a native count) of a deterministic
  backend: a step when any puzzle's count differs at all; its ratio is the new total over
  the old.
"""

from __future__ import annotations

import math
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.gate import clocks, p_value
from harness.gate.paired import PAIRED_TIME_RATIO
from harness.gate.timing import direction, ratio_statistics
from harness.history import cache, git, runs
from harness.history.git import Commit, HistoryError
from harness.history.runs import History
from harness.results import engine
from harness.results.schema import ResultsError
from harness.tables.stats import literal, q

if TYPE_CHECKING:
    import duckdb

#: The p-value below which a time step is significant.
ALPHA = 0.01


@dataclass
class Step:
    """A change between two neighbouring commits of one backend on one dataset."""

    machine: str
    backend: str
    dataset: str
    commit: Commit  # the commit where it changed
    previous: Commit  # the commit before it
    kind: str  # "time", or the counter's name
    ratio: float | None  # time: median per-puzzle ratio; a counter: new total / old total
    pairs: int  # puzzles compared
    apart: bool  # measured in different runs: load not shared
    low: float | None = None  # time: the confidence interval of the median ratio
    high: float | None = None
    p: float | None = None  # time: the one-sided Wilcoxon p-value in the step's direction
    totals: tuple[float, float] | None = None  # a counter: the old and the new total

    def record(self) -> dict[str, Any]:
        """The step as JSON holds it."""
        return {
            "commit": self.commit.sha,
            "previous": self.previous.sha,
            "date": self.commit.date,
            "subject": self.commit.subject,
            "machine": self.machine,
            "backend": self.backend,
            "dataset": self.dataset,
            "kind": self.kind,
            "ratio": _round(self.ratio),
            "low": _round(self.low),
            "high": _round(self.high),
            "p": None if self.p is None else float(f"{self.p:.3g}"),
            "pairs": self.pairs,
            "totals": None if self.totals is None else [_whole(t) for t in self.totals],
            "same_run": not self.apart,
        }

    def short(self) -> str:
        """The step in a word and a ratio: ``time x1.41``, ``nodes x1.0024``."""
        return f"{self.kind} {ratio_text(self.ratio)}"

    def said(self) -> str:
        """The step with its evidence: ``time x1.41 [1.38, 1.44] p<0.001``, or ``nodes
        5,860 -> 5,874 (x1.0024)``."""
        if self.kind == "time" and self.low is not None and self.p is not None:
            text = f"{self.short()} [{self.low:.3g}, {self.high:.3g}] {p_value(self.p)}"
        elif self.totals is not None:
            old, new = (f"{_whole(t):,}" for t in self.totals)
            text = f"{self.kind} {old} -> {new} ({ratio_text(self.ratio)})"
        else:
            text = self.short()
        return text + (" (runs apart)" if self.apart else "")


def ratio_text(ratio: float | None) -> str:
    """``x1.41``; a ratio near 1 with as many digits as it takes to differ from ``x1``."""
    if ratio is None or not math.isfinite(ratio):
        return "changed"
    for digits in range(3, 8):
        text = f"{ratio:.{digits}g}"
        if text != "1":
            return f"x{text}"
    return f"x{ratio:.8g}"


def _whole(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _round(value: float | None) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return float(f"{value:.4g}")


@dataclass
class Trends:
    """The per-commit rows (oldest first within each machine, backend and dataset), every
    step found, the clock of each backend and notes."""

    rows: list[dict[str, Any]]
    steps: list[Step]
    clocks: dict[tuple[str, str], str]
    notes: list[str] = field(default_factory=list)


@dataclass
class Ids:
    """Small whole numbers for the names the big tables would repeat on every row: machine
    classes, backends (specs), commits and runs."""

    machines: list[str]
    specs: list[str]
    commits: list[str]

    def of(self, names: list[str], name: str) -> int:
        if name not in names:
            names.append(name)
        return names.index(name)


def compute(
    history: History,
    con: duckdb.DuckDBPyConnection,
    sources: Sequence[Path],
    time_ratio: float = PAIRED_TIME_RATIO,
    alpha: float = ALPHA,
    backends: Sequence[str] = (),
) -> Trends:
    """The trends of ``history``'s runs, each run's puzzles in the Parquet file of
    ``sources`` at its index (:func:`harness.history.cache.reduced`); ``backends``: only
    these specs (default: every one)."""
    notes: list[str] = []
    ids = Ids(sorted(history.order), [], [])
    _tables(con, history, ids, sources, backends, notes)
    judged = _clocks(con, ids)
    counters = _counters(con)
    _measure(con, counters)
    rows = _rows(con, history, ids)
    _pairs(con, counters)
    steps = _time_steps(con, history, ids, time_ratio, alpha)
    steps += _counter_steps(con, history, ids, counters)
    order = {(m, k): i for m, keys in history.order.items() for i, k in enumerate(keys)}
    steps.sort(key=lambda s: (s.machine, s.backend, s.dataset, order[(s.machine, s.commit.sha)]))
    marks: dict[tuple[str, str, str, str], list[Step]] = {}
    for step in steps:
        key = (step.machine, step.backend, step.dataset, step.commit.sha)
        marks.setdefault(key, []).append(step)
    for row in rows:
        found = marks.get((row["machine"], row["backend"], row["dataset"], row["sha"]), [])
        row["step"] = "; ".join(s.said() for s in found)
    return Trends(rows, steps, judged, notes)


def _insert(con, table: str, columns: str, values: list[tuple]) -> None:
    con.execute(f"CREATE OR REPLACE TEMP TABLE {table} ({columns})")
    if values:
        marks = ", ".join("?" * len(values[0]))
        con.executemany(f"INSERT INTO {table} VALUES ({marks})", values)


def _tables(con, history: History, ids: Ids, sources, backends, notes: list[str]) -> None:
    """The tables that tie puzzles to commits: ``points`` (run, backend -> spec, commit),
    ``run_info`` (run -> machine class, calibration factor), ``commit_order`` and ``puzzles``
    (every run's puzzles)."""
    index = {run.name: i for i, run in enumerate(history.runs)}
    points = [
        (
            index[run.name],
            backend,
            ids.of(ids.specs, p.spec),
            ids.of(ids.commits, p.key),
            p.deterministic,
        )
        for run in history.runs
        for backend, p in run.points.items()
        if not backends or p.spec in backends
    ]
    _insert(
        con,
        "points",
        "run INTEGER, backend VARCHAR, spec INTEGER, commit INTEGER, deterministic BOOLEAN",
        points,
    )
    info = []
    for machine in history.order:
        members = [r for r in history.runs if r.machine == machine]
        calibrations = [r.calibration for r in members if r.calibration]
        reference = statistics.median(calibrations) if calibrations else None
        differ = len(set(calibrations)) > 1
        for run in members:
            factor = 1.0
            if differ and run.calibration and reference:
                factor = reference / run.calibration
            info.append((index[run.name], ids.machines.index(machine), factor))
        if differ and len(calibrations) < len(members):
            notes.append(f"{machine}: some runs recorded no calibration; their times as measured")
    _insert(con, "run_info", "run INTEGER, machine INTEGER, factor DOUBLE", info)
    ordered = [
        (ids.machines.index(m), ids.of(ids.commits, k), i)
        for m, keys in history.order.items()
        for i, k in enumerate(keys)
    ]
    _insert(con, "commit_order", "machine INTEGER, commit INTEGER, position INTEGER", ordered)
    every = " UNION ALL BY NAME ".join(
        f"SELECT {i} AS run, * FROM read_parquet({literal(str(path))})"
        for i, path in enumerate(sources)
    )
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW puzzles AS
        SELECT i.machine, p.spec, p.commit, r.*, p.deterministic, i.factor,
               r.status IN ('SOLVED', 'UNSAT') AS answered
        FROM ({every}) r JOIN points p USING (run, backend) JOIN run_info i USING (run)
        WHERE r.status <> 'UNAVAILABLE'"""
    )


def _counters(con) -> list[str]:
    """The counters of the puzzles: the contract's, then native counts (the cache keeps
    only counts, not times)."""
    kept = {"run", "machine", "spec", "commit", "backend", "dataset", "line", "puzzle"}
    kept |= {"status", "deterministic", "factor", "answered", *clocks.NAMES}
    names = [d[0] for d in con.execute("SELECT * FROM puzzles LIMIT 0").description]
    return [c for c in names if c not in kept]


def _clocks(con, ids: Ids) -> dict[tuple[str, str], str]:
    """The clock that judges each backend, per machine class (table ``clocks`` too)."""
    found = con.execute(
        """SELECT machine, spec,
                  median(solve_cpu_s / solve_s) FILTER (WHERE answered AND solve_s > 0
                                                          AND solve_cpu_s IS NOT NULL),
                  count(own_solve_s) FILTER (WHERE answered) > 0
           FROM puzzles GROUP BY machine, spec ORDER BY machine, spec"""
    ).fetchall()
    judged = {
        (machine, spec): clocks.judging_clock(ids.specs[spec], ratio, bool(own))
        for machine, spec, ratio, own in found
    }
    values = [(m, s, clock) for (m, s), clock in judged.items()]
    _insert(con, "clocks", "machine INTEGER, spec INTEGER, clock VARCHAR", values)
    return {(ids.machines[m], ids.specs[s]): clock for (m, s), clock in judged.items()}


def _measure(con, counters: Sequence[str]) -> None:
    """``timed``: each run's puzzles with their judging time ``t`` (calibrated);
    ``commit_runs``: the runs that measured each commit; ``commit_puzzles``: each commit's
    puzzles, the runs of a commit measured in several pooled by median."""
    cases = " ".join(f"WHEN {literal(c)} THEN p.{q(c)}" for c in clocks.NAMES)
    listed = ", ".join(f"p.{q(c)}" for c in counters)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE timed AS
        SELECT p.machine, p.spec, p.dataset, p.commit, p.run, p.line, p.puzzle, p.answered,
               p.deterministic, (CASE k.clock {cases} END) * p.factor AS t, {listed}
        FROM puzzles p JOIN clocks k USING (machine, spec)"""
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE commit_runs AS
        SELECT machine, spec, dataset, commit, list(DISTINCT run ORDER BY run) AS runs
        FROM timed GROUP BY machine, spec, dataset, commit"""
    )
    keys = ("machine", "spec", "dataset", "commit")
    on = " AND ".join(f"t.{k} = r.{k}" for k in keys)
    plain = ", ".join(f"t.{q(c)}" for c in ("line", "puzzle", "answered", "deterministic", "t"))
    pooled = ", ".join(f"median({q(c)}) FILTER (WHERE answered) AS {q(c)}" for c in counters)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE commit_puzzles AS
        SELECT {", ".join(f"t.{k}" for k in keys)}, {plain},
               {", ".join(f"t.{q(c)}" for c in counters)}
        FROM timed t JOIN commit_runs r ON {on} WHERE len(r.runs) = 1
        UNION ALL BY NAME
        SELECT {", ".join(f"t.{k}" for k in keys)}, line, puzzle,
               bool_or(answered) AS answered, bool_and(deterministic) AS deterministic,
               median(t) FILTER (WHERE answered) AS t, {pooled}
        FROM timed t JOIN commit_runs r ON {on} WHERE len(r.runs) > 1
        GROUP BY ALL"""
    )


def _rows(con, history: History, ids: Ids) -> list[dict[str, Any]]:
    """One row per machine class, backend, dataset and commit (see the module)."""
    found = con.execute(
        """SELECT c.machine, c.spec, c.dataset, c.commit, k.clock,
                  median(t) FILTER (WHERE answered) * 1000 AS median_ms,
                  quantile_cont(t, 0.25) FILTER (WHERE answered) * 1000 AS q1_ms,
                  quantile_cont(t, 0.75) FILTER (WHERE answered) * 1000 AS q3_ms,
                  sum(nodes) FILTER (WHERE answered) AS nodes,
                  count(*) FILTER (WHERE answered) AS solved, count(*) AS puzzles,
                  any_value(r.runs) AS runs, any_value(o.position) AS position
           FROM commit_puzzles c JOIN commit_order o USING (machine, commit)
           JOIN clocks k USING (machine, spec)
           JOIN commit_runs r USING (machine, spec, dataset, commit)
           GROUP BY c.machine, c.spec, c.dataset, c.commit, k.clock
           ORDER BY c.machine, c.spec, c.dataset, position"""
    ).fetchall()
    rows = []
    names = [run.name for run in history.runs]
    for (
        machine,
        spec,
        dataset,
        commit_id,
        clock,
        median,
        q1,
        q3,
        nodes,
        solved,
        total,
        held,
        _,
    ) in found:
        key = ids.commits[commit_id]
        commit = history.label(key)
        rows.append(
            {
                "machine": ids.machines[machine],
                "backend": ids.specs[spec],
                "dataset": dataset,
                "commit": commit.short if not key.startswith("run:") else key,
                "sha": key,
                "date": (commit.date or "")[:10],
                "subject": commit.subject or "",
                "median_ms": median,
                "q1_ms": q1,
                "q3_ms": q3,
                "nodes": nodes,
                "solved": solved,
                "puzzles": total,
                "clock": clock,
                "runs": ", ".join(names[r] for r in held),
            }
        )
    return rows


#: Each commit and the one before it that measured the same backend on the same dataset.
NEIGHBOURS = """
CREATE OR REPLACE TEMP TABLE neighbours AS
WITH paired AS (
    SELECT r.*, lag(r.commit) OVER w AS previous, lag(r.runs) OVER w AS previous_runs
    FROM commit_runs r JOIN commit_order o USING (machine, commit)
    WINDOW w AS (PARTITION BY r.machine, r.spec, r.dataset ORDER BY o.position)
)
SELECT row_number() OVER () AS id, machine, spec, dataset, commit, previous,
       len(list_intersect(runs, previous_runs)) > 0 AS shared,
       list_intersect(runs, previous_runs) AS shared_runs
FROM paired WHERE previous IS NOT NULL
"""


def _pairs(con, counters: Sequence[str]) -> None:
    """``pair_puzzles``: for each pair of neighbours, each puzzle both measured, old and new:
    from the run they shared (pooled by median over several), else from each commit's
    pooled rows."""
    con.execute(NEIGHBOURS)
    both = "o.machine = n.machine AND o.spec = n.spec AND o.dataset = n.dataset"
    same = "w.machine = n.machine AND w.spec = n.spec AND w.dataset = n.dataset"
    same += " AND w.line = o.line AND w.puzzle = o.puzzle"
    olds = ", ".join(f"o.{q(c)} AS {q('old_' + c)}" for c in counters)
    news = ", ".join(f"w.{q(c)} AS {q('new_' + c)}" for c in counters)
    old_medians = ", ".join(f"median(o.{q(c)}) AS {q('old_' + c)}" for c in counters)
    new_medians = ", ".join(f"median(w.{q(c)}) AS {q('new_' + c)}" for c in counters)
    flags = "o.answered AND w.answered AS answered, "
    flags += "o.deterministic AND w.deterministic AS deterministic"
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE pair_puzzles AS
        SELECT n.id, o.line, o.puzzle, o.t AS old_t, w.t AS new_t, {flags}, {olds}, {news}
        FROM neighbours n
        JOIN timed o ON {both} AND o.commit = n.previous AND o.run = n.shared_runs[1]
        JOIN timed w ON {same} AND w.commit = n.commit AND w.run = o.run
        WHERE len(n.shared_runs) = 1
        UNION ALL BY NAME
        SELECT n.id, o.line, o.puzzle,
               median(o.t) FILTER (WHERE o.answered) AS old_t,
               median(w.t) FILTER (WHERE w.answered) AS new_t,
               bool_and(o.answered AND w.answered) AS answered,
               bool_and(o.deterministic AND w.deterministic) AS deterministic,
               {old_medians}, {new_medians}
        FROM neighbours n
        JOIN timed o ON {both} AND o.commit = n.previous AND list_contains(n.shared_runs, o.run)
        JOIN timed w ON {same} AND w.commit = n.commit AND w.run = o.run
        WHERE len(n.shared_runs) > 1 GROUP BY n.id, o.line, o.puzzle
        UNION ALL BY NAME
        SELECT n.id, o.line, o.puzzle, o.t AS old_t, w.t AS new_t, {flags}, {olds}, {news}
        FROM neighbours n
        JOIN commit_puzzles o ON {both} AND o.commit = n.previous
        JOIN commit_puzzles w ON {same} AND w.commit = n.commit
        WHERE NOT n.shared"""
    )


def _neighbour(history: History, ids: Ids, row: tuple) -> dict[str, Any]:
    machine, spec, dataset, commit, previous, shared = row
    return {
        "machine": ids.machines[machine],
        "backend": ids.specs[spec],
        "dataset": dataset,
        "commit": history.label(ids.commits[commit]),
        "previous": history.label(ids.commits[previous]),
        "apart": not shared,
    }


def _time_steps(con, history: History, ids: Ids, time_ratio: float, alpha: float) -> list[Step]:
    """Time steps (see the module): the median ratio in SQL first, the paired statistics
    only where it is beyond the threshold."""
    found = con.execute(
        f"""SELECT n.id, n.machine, n.spec, n.dataset, n.commit, n.previous, n.shared,
                   list(p.old_t ORDER BY p.line), list(p.new_t ORDER BY p.line)
            FROM neighbours n JOIN pair_puzzles p USING (id)
            WHERE p.answered AND p.old_t > 0 AND p.new_t > 0
            GROUP BY ALL
            HAVING median(p.new_t / p.old_t) > {float(time_ratio)}
                OR median(p.new_t / p.old_t) < {1 / float(time_ratio)}
            ORDER BY n.id"""
    ).fetchall()
    steps = []
    for _, *key, old, new in found:
        statistics = ratio_statistics(old, new)
        median, low, high, slower, faster = statistics
        moved = direction(statistics, time_ratio, alpha)
        if not moved:
            continue
        p = slower if moved > 0 else faster
        neighbour = _neighbour(history, ids, tuple(key))
        steps.append(
            Step(**neighbour, kind="time", ratio=median, pairs=len(old), low=low, high=high, p=p)
        )
    return steps


def _counter_steps(con, history: History, ids: Ids, counters: Sequence[str]) -> list[Step]:
    """Counter steps of deterministic backends: any puzzle's count differs."""
    steps = []
    for counter in counters:
        old, new = q("old_" + counter), q("new_" + counter)
        found = con.execute(
            f"""SELECT n.machine, n.spec, n.dataset, n.commit, n.previous, n.shared,
                       count(*), sum(p.{old}), sum(p.{new})
                FROM neighbours n JOIN pair_puzzles p USING (id)
                WHERE p.answered AND p.deterministic AND p.{old} IS NOT NULL
                  AND p.{new} IS NOT NULL
                GROUP BY ALL HAVING bool_or(p.{old} <> p.{new})
                ORDER BY min(n.id)"""
        ).fetchall()
        for *key, pairs, old_total, new_total in found:
            ratio = new_total / old_total if old_total else None
            totals = (float(old_total), float(new_total))
            neighbour = _neighbour(history, ids, tuple(key))
            steps.append(Step(**neighbour, kind=counter, ratio=ratio, pairs=pairs, totals=totals))
    return steps


def read(
    paths: Sequence[Path],
    time_ratio: float = PAIRED_TIME_RATIO,
    alpha: float = ALPHA,
    backends: Sequence[str] = (),
) -> Trends:
    """The trends of every run under ``paths`` (see :mod:`harness.history.runs`); raises
    :class:`HistoryError` for a results CSV or metadata file that cannot be used."""
    found, notes = runs.read(paths)
    if not found:
        where = ", ".join(map(str, paths))
        raise HistoryError(f"no run in {where}: no results CSV with its .meta.json")
    with tempfile.TemporaryDirectory(prefix="harness-history-") as scratch:
        try:
            sources = [cache.reduced(run.path, Path(scratch)) for run in found]
        except ResultsError as exc:
            raise HistoryError(str(exc)) from None
        con = engine.connect()
        try:
            for run, source in zip(found, sources, strict=True):
                held = con.execute(
                    f"SELECT DISTINCT backend FROM read_parquet({literal(str(source))})"
                ).fetchall()
                notes += runs.tie(run, sorted(b for (b,) in held))
            try:
                repo = git.repository()
            except HistoryError:
                repo = None
            history = runs.order(found, repo)
            trends = compute(history, con, sources, time_ratio, alpha, backends)
        finally:
            con.close()
    trends.notes[:0] = notes
    return trends
