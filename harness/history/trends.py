"""Per-commit figures and steps between neighbouring commits, asked of the results engine.

Every run's rows are read by :func:`harness.results.engine.read` into one DuckDB database;
repeats are reduced to each puzzle's median (:func:`harness.tables.stats.per_puzzle`). Each
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
  (:func:`harness.gate.paired.ratio_statistics`): a step when the median ratio is beyond
  ``time_ratio`` (slower) or below its inverse (faster), the one-sided Wilcoxon signed-rank
  p-value is below ``alpha``, and the bootstrap interval excludes 1. When a run measured
  both commits, only the rows of such runs are compared (their load was shared); otherwise
  the commits' rows from different runs are, calibrated, and the step says so (``apart``);
- *a counter* (``nodes``, ``guesses``, ``backtracks``, a native count) of a deterministic
  backend: a step when any puzzle's count differs at all; its ratio is the new total over
  the old.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backends.base import COUNTERS
from harness.gate import clocks
from harness.gate.paired import PAIRED_TIME_RATIO, ratio_statistics
from harness.history import git, runs
from harness.history.git import Commit, HistoryError
from harness.history.runs import History
from harness.results import engine
from harness.results.engine import Results
from harness.results.schema import ResultsError
from harness.tables.stats import literal, per_puzzle, q

#: The columns read of each results CSV (native statistics come too).
COLUMNS = ("dataset", "line", "puzzle", "backend", "repeat", "status")
COLUMNS += ("solve_s", "solve_cpu_s", "own_solve_s", *COUNTERS)
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
    low: float | None = None  # time: the bootstrap interval of the median ratio
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


def p_value(p: float) -> str:
    """``p=0.012``, or ``p<0.001`` below that."""
    return "p<0.001" if p < 0.001 else f"p={p:.2g}"


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


def compute(
    history: History,
    results: Results,
    time_ratio: float = PAIRED_TIME_RATIO,
    alpha: float = ALPHA,
    backends: Sequence[str] = (),
) -> Trends:
    """The trends of ``history``'s runs, whose rows ``results`` holds (read in the order of
    ``history.runs``); ``backends``: only these specs (default: every one)."""
    con = results.con
    notes: list[str] = []
    _tables(con, history, results, backends, notes)
    judged = _clocks(con)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE clocks (machine VARCHAR, spec VARCHAR, clock VARCHAR)"
    )
    if judged:
        con.executemany("INSERT INTO clocks VALUES (?, ?, ?)", [(*k, v) for k, v in judged.items()])
    counters = _counters(results)
    _measure(con, counters)
    rows = _rows(con, history)
    _pairs(con, counters)
    steps = _time_steps(con, history, time_ratio, alpha) + _counter_steps(con, history, counters)
    order = {(m, k): i for m, keys in history.order.items() for i, k in enumerate(keys)}
    steps.sort(key=lambda s: (s.machine, s.backend, s.dataset, order[(s.machine, s.commit.sha)]))
    marks: dict[tuple[str, str, str, str], list[Step]] = {}
    for step in steps:
        marks.setdefault((step.machine, step.backend, step.dataset, step.commit.sha), []).append(
            step
        )
    for row in rows:
        found = marks.get((row["machine"], row["backend"], row["dataset"], row["sha"]), [])
        row["step"] = "; ".join(s.said() for s in found)
    return Trends(rows, steps, judged, notes)


def _tables(con, history: History, results: Results, backends, notes: list[str]) -> None:
    """The tables that tie rows to commits: ``points`` (run, backend -> spec, commit),
    ``run_info`` (run -> machine class, calibration factor) and ``commit_order``."""
    points = [
        (run.name, backend, point.spec, point.key, point.deterministic)
        for run in history.runs
        for backend, point in run.points.items()
        if not backends or point.spec in backends
    ]
    con.execute(
        "CREATE OR REPLACE TEMP TABLE points (run VARCHAR, backend VARCHAR, spec VARCHAR, "
        "commit VARCHAR, deterministic BOOLEAN)"
    )
    if points:
        con.executemany("INSERT INTO points VALUES (?, ?, ?, ?, ?)", points)
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
            info.append((run.name, machine, factor))
        if differ and len(calibrations) < len(members):
            notes.append(f"{machine}: some runs recorded no calibration; their times as measured")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE run_info (run VARCHAR, machine VARCHAR, factor DOUBLE)"
    )
    if info:
        con.executemany("INSERT INTO run_info VALUES (?, ?, ?)", info)
    con.execute(
        "CREATE OR REPLACE TEMP TABLE commit_order (machine VARCHAR, commit VARCHAR, "
        "position INTEGER)"
    )
    ordered = [(m, k, i) for m, keys in history.order.items() for i, k in enumerate(keys)]
    if ordered:
        con.executemany("INSERT INTO commit_order VALUES (?, ?, ?)", ordered)
    per_puzzle(con, "rows", name="history_puzzles")
    counters = ", ".join(f"pp.{q(c)}" for c in _counters(results))
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE measured AS
        SELECT i.machine, p.spec, p.commit, pp.run,
               regexp_replace(pp.dataset, '^.*/', '') AS dataset, pp.line, pp.puzzle,
               pp.status IN ('SOLVED', 'UNSAT') AS answered, p.deterministic, i.factor,
               pp.solve_s, pp.solve_cpu_s, pp.own_solve_s{", " + counters if counters else ""}
        FROM history_puzzles pp JOIN points p USING (run, backend) JOIN run_info i USING (run)
        WHERE pp.status <> 'UNAVAILABLE'"""
    )


def _counters(results: Results) -> list[str]:
    """The counters compared exactly: the contract's, then native counts (not times)."""
    return [*COUNTERS, *(c for c in results.numeric_natives if not clocks.is_time(c))]


def _clocks(con) -> dict[tuple[str, str], str]:
    """The clock that judges each backend, per machine class."""
    found = con.execute(
        """SELECT machine, spec,
                  median(solve_cpu_s / solve_s) FILTER (WHERE answered AND solve_s > 0
                                                          AND solve_cpu_s IS NOT NULL),
                  count(own_solve_s) FILTER (WHERE answered) > 0
           FROM measured GROUP BY machine, spec ORDER BY machine, spec"""
    ).fetchall()
    return {
        (machine, spec): clocks.judging_clock(spec, ratio, bool(own))
        for machine, spec, ratio, own in found
    }


def _measure(con, counters: Sequence[str]) -> None:
    """``timed``: each run's puzzles with their judging time ``t`` (calibrated); and
    ``commit_puzzles``: the same per commit, runs pooled by median."""
    cases = " ".join(f"WHEN {literal(c)} THEN m.{q(c)}" for c in clocks.NAMES)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE timed AS
        SELECT m.*, (CASE k.clock {cases} END) * m.factor AS t
        FROM measured m JOIN clocks k USING (machine, spec)"""
    )
    pooled = ", ".join(f"median({q(c)}) FILTER (WHERE answered) AS {q(c)}" for c in counters)
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE commit_puzzles AS
        SELECT machine, spec, dataset, commit, line, puzzle,
               bool_or(answered) AS answered, bool_and(deterministic) AS deterministic,
               median(t) FILTER (WHERE answered) AS t, {pooled},
               list(DISTINCT run ORDER BY run) AS runs
        FROM timed GROUP BY machine, spec, dataset, commit, line, puzzle"""
    )


def _rows(con, history: History) -> list[dict[str, Any]]:
    """One row per machine class, backend, dataset and commit (see the module)."""
    found = con.execute(
        """SELECT c.machine, c.spec, c.dataset, c.commit, o.position, k.clock,
                  median(t) FILTER (WHERE answered) * 1000 AS median_ms,
                  quantile_cont(t, 0.25) FILTER (WHERE answered) * 1000 AS q1_ms,
                  quantile_cont(t, 0.75) FILTER (WHERE answered) * 1000 AS q3_ms,
                  sum(nodes) FILTER (WHERE answered) AS nodes,
                  count(*) FILTER (WHERE answered) AS solved, count(*) AS puzzles,
                  list_sort(list_distinct(flatten(list(runs)))) AS runs
           FROM commit_puzzles c JOIN commit_order o USING (machine, commit)
           JOIN clocks k USING (machine, spec)
           GROUP BY ALL ORDER BY c.machine, c.spec, c.dataset, o.position"""
    ).fetchall()
    rows = []
    for machine, spec, dataset, key, _, clock, median, q1, q3, nodes, solved, total, held in found:
        commit = history.label(key)
        rows.append(
            {
                "machine": machine,
                "backend": spec,
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
                "runs": ", ".join(held),
            }
        )
    return rows


#: Each commit and the one before it that measured the same backend on the same dataset.
NEIGHBOURS = """
CREATE OR REPLACE TEMP TABLE neighbours AS
WITH per AS (
    SELECT c.machine, c.spec, c.dataset, c.commit, o.position,
           list_sort(list_distinct(flatten(list(c.runs)))) AS runs
    FROM commit_puzzles c JOIN commit_order o USING (machine, commit)
    GROUP BY ALL
), paired AS (
    SELECT *, lag(commit) OVER w AS previous, lag(runs) OVER w AS previous_runs
    FROM per WINDOW w AS (PARTITION BY machine, spec, dataset ORDER BY position)
)
SELECT row_number() OVER () AS id, machine, spec, dataset, commit, previous,
       len(list_intersect(runs, previous_runs)) > 0 AS shared,
       list_intersect(runs, previous_runs) AS shared_runs
FROM paired WHERE previous IS NOT NULL
"""


def _pairs(con, counters: Sequence[str]) -> None:
    """``pair_puzzles``: for each pair of neighbours, each puzzle both measured, old and new
    (from the runs they shared, else from each commit's pooled rows)."""
    con.execute(NEIGHBOURS)
    olds = ", ".join(f"median(o.{q(c)}) AS {q('old_' + c)}" for c in counters)
    news = ", ".join(f"median(w.{q(c)}) AS {q('new_' + c)}" for c in counters)
    both = "o.machine = n.machine AND o.spec = n.spec AND o.dataset = n.dataset"
    same = "w.machine = n.machine AND w.spec = n.spec AND w.dataset = n.dataset"
    same += " AND w.line = o.line AND w.puzzle = o.puzzle"
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE pair_puzzles AS
        SELECT n.id, o.line, o.puzzle,
               median(o.t) FILTER (WHERE o.answered) AS old_t,
               median(w.t) FILTER (WHERE w.answered) AS new_t,
               bool_and(o.answered AND w.answered) AS answered,
               bool_and(o.deterministic AND w.deterministic) AS deterministic, {olds}, {news}
        FROM neighbours n
        JOIN timed o ON {both} AND o.commit = n.previous AND list_contains(n.shared_runs, o.run)
        JOIN timed w ON {same} AND w.commit = n.commit AND w.run = o.run
        WHERE n.shared GROUP BY n.id, o.line, o.puzzle
        UNION ALL
        SELECT n.id, o.line, o.puzzle, o.t, w.t, o.answered AND w.answered,
               o.deterministic AND w.deterministic,
               {", ".join(f"o.{q(c)}" for c in counters)},
               {", ".join(f"w.{q(c)}" for c in counters)}
        FROM neighbours n
        JOIN commit_puzzles o ON {both} AND o.commit = n.previous
        JOIN commit_puzzles w ON {same} AND w.commit = n.commit
        WHERE NOT n.shared"""
    )


def _neighbour(history: History, row: tuple) -> dict[str, Any]:
    machine, spec, dataset, key, previous, shared = row
    return {
        "machine": machine,
        "backend": spec,
        "dataset": dataset,
        "commit": history.label(key),
        "previous": history.label(previous),
        "apart": not shared,
    }


def _time_steps(con, history: History, time_ratio: float, alpha: float) -> list[Step]:
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
        median, low, high, slower, faster = ratio_statistics(old, new)
        if median > time_ratio and slower < alpha and low > 1:
            p = slower
        elif median < 1 / time_ratio and faster < alpha and high < 1:
            p = faster
        else:
            continue
        steps.append(
            Step(
                **_neighbour(history, tuple(key)),
                kind="time",
                ratio=median,
                pairs=len(old),
                low=low,
                high=high,
                p=p,
            )
        )
    return steps


def _counter_steps(con, history: History, counters: Sequence[str]) -> list[Step]:
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
            neighbour = _neighbour(history, tuple(key))
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
    try:
        results = engine.read([r.path for r in found], COLUMNS)
    except ResultsError as exc:
        raise HistoryError(str(exc)) from None
    with results:
        held = results.con.execute("SELECT DISTINCT run, backend FROM rows").fetchall()
        for run in found:
            notes += runs.tie(run, sorted(b for r, b in held if r == run.name))
        try:
            repo = git.repository()
        except HistoryError:
            repo = None
        history = runs.order(found, repo)
        trends = compute(history, results, time_ratio, alpha, backends)
    trends.notes[:0] = notes
    return trends
