"""The gate against a baseline: ``harness check BASELINE.csv NEW.csv``, ``harness run
--baseline`` and ``harness report --baseline``, one verdict for the three (:func:`check_files`).

Rules, applied per backend x dataset, in this order:

0. **Complete runs.** A run that stopped early is INCOMPLETE (:mod:`harness.results
   .completeness`: its metadata says it did not end, rows are missing against its plan, or
   its last row was torn by a kill). Then only the puzzles both runs reached are judged, as
   with ``only_common``, and the verdict says how many rows are missing and the command
   that completes the run. A new run that is incomplete exits 2 whatever the rest finds,
   never 1: the solver did not fail a puzzle, the run did not finish. An incomplete
   baseline is said, and the verdict on what both reached stands with its own exit.
1. **Wrong answers or errors.** Any WRONG, ERROR or MEMOUT row in the new run fails (exit 2).
2. **Fewer solved.** Fewer SOLVED-or-UNSAT (answered) puzzles than the baseline fails, and so
   does a backend x dataset the baseline has and the new run lacks (exit 1), unless
   ``only_common`` (then only the backends, datasets and puzzles of both runs are judged) or
   the new run was not asked to run that backend (its metadata lists the backends it ran).
3. **Counters.** For deterministic backends, every row's ``nodes``, ``guesses``,
   ``backtracks`` and native counts (native columns that are not times) must equal the
   baseline's row of the same puzzle and repeat (a repeat the baseline lacks is compared
   with its first), or differ by at most ``tolerance`` (relative) (exit 1): one changed
   repeat out of five is a change. Rows answered in both runs are compared.
4. **Time**, on the clock that measures each backend's work (:mod:`harness.gate.timing`):
   CPU time for a solver in the worker's process, the solver's own clock for a ``cmd:``
   program that reports one, wall time otherwise and for a solver on several threads. The
   new run's times are first divided by the two runs' calibration ratio (a fixed workload
   timed at each run's start and end, in its ``.meta.json``), so a baseline made on a
   slower day compares fairly; two calibrations within their own noise
   (:data:`~harness.results.calibration.CALIBRATION_NOISE`) are the same speed, and the
   times are compared as measured. When the two runs' machines differ (CPU model, core count,
   Python version) time is not judged at all, unless asked (``--compare-time-anyway``).
   The time of the puzzles both runs answered fails only when it is both large (the median
   of the per-puzzle ratios new / baseline > ``time_ratio``, default 1.25, as the paired
   gate measures it: which puzzle falls at the middle of a run's times does not move it)
   and significant: a one-sided Wilcoxon signed-rank test on the per-puzzle pairs (the
   same puzzles in both runs, so the paired test is the right one) gives p < ``alpha``
   (default 0.01). Small wobbles pass (exit 1 otherwise). When a backend's wall/CPU ratio
   moved between the runs beyond its noise (load), one line says so; a finding on wall
   time is then INCONCLUSIVE, never REGRESSION (the gate holds), one on CPU time stands.
   A slowdown left after the calibration and no larger than the calibration's own move is
   INCONCLUSIVE too: the machine's change could make it (:mod:`harness.gate.timing`).
5. **Something compared.** When no backend x dataset is in both runs (a misspelt backend,
   ``only_common`` on runs with nothing in common), nothing was judged, and the gate fails
   with "nothing compared" (exit 1) instead of holding.

With ``--repeat`` the repeats of a puzzle are reduced to their median for rules 2 and 4
(:func:`harness.tables.stats.per_puzzle`). Datasets match by file name when that is
unambiguous (see :func:`same_dataset_names`). The runs' rows are read by
:mod:`harness.results.engine` and judged in DuckDB (the Wilcoxon test on the pairs' times
in scipy). Exit codes are :class:`harness.exit_codes.CheckExit`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from backends import REGISTRY, backend_class
from backends.base import COUNTERS, Status
from harness.exit_codes import CheckExit
from harness.gate import timing
from harness.gate.clocks import CPU, OWN, WALL
from harness.results import completeness, engine, provenance
from harness.results.calibration import CALIBRATION_NOISE, calibration_of
from harness.results.schema import BASE_COLUMNS, INTEGER_COLUMNS, NUMBER_COLUMNS
from harness.tables.stats import ANSWERED, columns_of, literal, per_puzzle, q

if TYPE_CHECKING:
    import duckdb

BAD = (Status.WRONG.value, Status.ERROR.value, Status.MEMOUT.value)
PAIR_KEYS = ["dataset", "line", "puzzle", "backend"]
LOUD = ("REGRESSION", "WRONG", "INCONCLUSIVE")  # verdicts the table shows in bold
#: The columns the gate judges, beside the native counts (the number columns are read too,
#: to check them, then left out).
JUDGED = (*PAIR_KEYS, "repeat", "status", "message", WALL, CPU, OWN, *COUNTERS)
#: The views :func:`prepare` makes: each run's rows as the gate judges them, and one row
#: per puzzle of each (:func:`harness.tables.stats.per_puzzle`).
OLD, NEW = "gate_old", "gate_new"
OLD_PUZZLES, NEW_PUZZLES = "gate_old_puzzles", "gate_new_puzzles"
#: DuckDB's types of numbers, as DESCRIBE names them (up to a parenthesis).
NUMBER_TYPES = ("DOUBLE", "FLOAT", "DECIMAL", "HUGEINT", "BIGINT", "INTEGER", "SMALLINT")
NUMBER_TYPES += ("TINYINT", "UBIGINT", "UINTEGER", "USMALLINT", "UTINYINT")


@dataclass
class Finding:
    backend: str
    dataset: str
    check: str
    baseline: str
    new: str
    verdict: str  # "ok", "REGRESSION", "WRONG", "INCONCLUSIVE", "improved", "info"


#: The columns of :attr:`GateResult.times`.
TIMES = ("backend", "dataset", "line", "clock", "old", "new")


@dataclass
class GateResult:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how time was judged, what was left out
    #: (backend, dataset) pairs both runs have. With none, nothing was judged, and a gate
    #: that judged nothing must not hold (a misspelt backend would pass a CI job).
    compared: int = 0
    #: whether the new run stopped early (rule 0): the verdict is INCOMPLETE, exit 2
    incomplete: bool = False
    #: the factor the new run's times were divided by (the calibration), None when not
    scale: float | None = None
    #: per puzzle judged on time: backend, dataset, line, the clock (a column name) and its
    #: old and new seconds (the new ones divided by :attr:`scale`), for the report
    times: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=TIMES))

    @property
    def exit_code(self) -> CheckExit:
        verdicts = {f.verdict for f in self.findings}
        if "WRONG" in verdicts or self.incomplete:
            return CheckExit.WRONG
        if "REGRESSION" in verdicts or not self.compared:
            return CheckExit.REGRESSION
        return CheckExit.OK

    @property
    def headline(self) -> str:
        """The verdict in words, as ``harness check`` and the report give it."""
        if self.incomplete:
            wrong = "WRONG ANSWERS; " if any(f.verdict == "WRONG" for f in self.findings) else ""
            return f"{wrong}INCOMPLETE: the new run stopped early"
        if self.exit_code == CheckExit.REGRESSION and not self.compared:
            return "NOTHING COMPARED: no backend on a dataset is in both runs"
        if self.exit_code == CheckExit.OK and any(
            f.verdict == "INCONCLUSIVE" for f in self.findings
        ):
            return "holds; time INCONCLUSIVE"
        return {
            CheckExit.OK: "holds",
            CheckExit.REGRESSION: "REGRESSION",
            CheckExit.WRONG: "WRONG ANSWERS",
        }[self.exit_code]

    def timed(
        self, backend: str, dataset: str, check: str, pairs: timing.Pairs, judged: timing.Judged
    ) -> None:
        """Add a time finding (:func:`harness.gate.timing.judge`'s ``judged``, on
        ``pairs``), its lines about the load and the calibration, and its puzzles' times."""
        self.findings.append(
            Finding(backend, dataset, check, judged.baseline, judged.shown, judged.verdict)
        )
        self.notes += [f"{backend}, {dataset}: {line}" for line in judged.said]
        frame = pd.DataFrame({"line": pairs.lines, "old": judged.old, "new": judged.new}).assign(
            backend=backend, dataset=dataset, clock=judged.clock
        )
        parts = [f for f in (self.times, frame[list(TIMES)]) if not f.empty]
        self.times = pd.concat(parts, ignore_index=True) if parts else self.times

    def markdown(self) -> str:
        header = "| backend | dataset | check | baseline | new | verdict |\n" + "|---" * 6 + "|"
        lines = [
            f"| {f.backend} | {f.dataset} | {f.check} | {f.baseline} | {f.new} | "
            f"{'**' + f.verdict + '**' if f.verdict in LOUD else f.verdict} |"
            for f in self.findings
        ]
        notes = [f"- {note}" for note in self.notes]
        head = [f"**harness check: {self.headline}**", ""]
        return "\n".join([*head, *notes, *([""] if notes else []), header, *lines])


def deterministic_specs(csv_path: Path) -> dict[str, bool]:
    """Which backend specs are deterministic: from the run's metadata, else the registry."""
    return deterministic_in(provenance.read_meta(csv_path))


def deterministic_in(meta: dict | None) -> dict[str, bool]:
    known: dict[str, bool] = {}
    try:
        for entry in (meta or {}).get("backends", []):
            known[entry["spec"]] = bool(entry.get("deterministic", False))
    except (AttributeError, KeyError, TypeError):
        return {}
    return known


def _is_deterministic(spec: str, known: dict[str, bool]) -> bool:
    if spec in known:
        return known[spec]
    name = spec.split(":", 1)[0]
    return name in REGISTRY and bool(backend_class(name).deterministic)


def counter_columns(con: duckdb.DuckDBPyConnection, source: str) -> list[str]:
    """Counters of ``source``'s rows compared exactly: the contract's, then native counts
    (native columns of numbers that are not times)."""
    kinds = {row[0]: row[1] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    native = [
        c
        for c, kind in kinds.items()
        if c not in BASE_COLUMNS
        and c != "run"
        and kind.split("(")[0] in NUMBER_TYPES
        and not (c.endswith("_s") or "time" in c)
    ]
    return [c for c in COUNTERS if c in kinds] + sorted(native)


def p_value(p: float) -> str:
    """``p=0.012``, or ``p<0.001`` below that (never an exponent: 6.2e-09 reads as noise)."""
    return "p<0.001" if p < 0.001 else f"p={p:.2g}"


def _fmt(value: float | None) -> str:
    """A figure for the table: whole numbers (counters) exactly, others to 4 digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"  # a counter change of 1 must show
    return f"{value:.4g}"


def same_dataset_names(
    baseline: Sequence[str], new: Sequence[str]
) -> tuple[dict[str, str], dict[str, str]]:
    """The name each run's datasets (their paths) are judged by: the file name alone when
    that names every dataset of both runs uniquely, else the path.

    A dataset is recorded as the path given on the command line, so the same file run as
    ``datasets/easy.txt`` and as ``/ci/checkout/datasets/easy.txt`` would not match, and a
    CI job started elsewhere would see every backend "missing". Puzzles still pair by their
    text and line. When two different paths of one run share a file name, paths are kept.
    """

    def names(paths: Sequence[str]) -> dict[str, str] | None:
        short = {p: Path(p).name or p for p in paths}
        return short if len(set(short.values())) == len(short) else None

    old_names, new_names = names(baseline), names(new)
    if old_names is None or new_names is None:
        return {p: p for p in baseline}, {p: p for p in new}
    return old_names, new_names


def datasets(con: duckdb.DuckDBPyConnection, source: str) -> list[str]:
    """The datasets of ``source``'s rows."""
    found = con.execute(f"SELECT DISTINCT CAST(dataset AS VARCHAR) FROM {source}").fetchall()
    return [d for (d,) in found if d is not None]


def renamed(names: dict[str, str]) -> str:
    """SQL for a row's dataset as ``names`` (path -> name) names it."""
    path = "CAST(dataset AS VARCHAR)"
    cases = [f"WHEN {literal(p)} THEN {literal(n)}" for p, n in names.items() if p != n]
    return f"CASE {path} {' '.join(cases)} ELSE {path} END" if cases else path


def _typed(con: duckdb.DuckDBPyConnection, source: str, names: dict[str, str]) -> str:
    """SQL for ``source``'s rows as the gate judges them: the columns of :data:`JUDGED`
    typed as a results CSV's (empty where ``source`` lacks one), the datasets renamed by
    ``names``, then the native statistics."""
    present = columns_of(con, source)
    columns = []
    for name in JUDGED:
        kind = "DOUBLE" if name in NUMBER_COLUMNS else "VARCHAR"
        kind = "BIGINT" if name in INTEGER_COLUMNS else kind
        value = renamed(names) if name == "dataset" else q(name) if name in present else "NULL"
        columns.append(f"CAST({value} AS {kind}) AS {q(name)}")
    native = [q(c) for c in present if c not in BASE_COLUMNS and c != "run"]
    return f"SELECT {', '.join([*columns, *native])} FROM {source}"


def _on(left: str, right: str, keys: Sequence[str] = PAIR_KEYS) -> str:
    return " AND ".join(f"{left}.{q(k)} = {right}.{q(k)}" for k in keys)


def prepare(
    con: duckdb.DuckDBPyConnection, baseline: str, new: str, only_common: bool = False
) -> int:
    """Make the views the gate judges two runs by, from ``baseline``'s and ``new``'s rows
    (tables, views or registered frames of ``con``): :data:`OLD` and :data:`NEW`, the rows
    (datasets named by :func:`same_dataset_names`; with ``only_common``, only the rows of a
    backend and puzzle both runs have), and :data:`OLD_PUZZLES` and :data:`NEW_PUZZLES`, one
    row per puzzle. Returns how many rows ``only_common`` left out."""
    names = same_dataset_names(datasets(con, baseline), datasets(con, new))
    for view, source, named in ((OLD, baseline, names[0]), (NEW, new, names[1])):
        con.execute(f"CREATE OR REPLACE TEMP VIEW {view}_rows AS {_typed(con, source, named)}")
    for view, other in ((OLD, NEW), (NEW, OLD)):
        rows = f"SELECT * FROM {view}_rows"
        if only_common:
            rows += f" r WHERE EXISTS (SELECT 1 FROM {other}_rows o WHERE {_on('r', 'o')})"
        con.execute(f"CREATE OR REPLACE TEMP VIEW {view} AS {rows}")
    cut = 0
    if only_common:
        counts = [f"(SELECT count(*) FROM {v})" for v in (f"{OLD}_rows", f"{NEW}_rows", OLD, NEW)]
        cut = con.execute(f"SELECT {counts[0]} + {counts[1]} - {counts[2]} - {counts[3]}")
        cut = int(cut.fetchone()[0])
    for view, puzzles in ((OLD, OLD_PUZZLES), (NEW, NEW_PUZZLES)):
        per_puzzle(con, view, name=puzzles)
    return cut


def compare(
    baseline: pd.DataFrame,
    new: pd.DataFrame,
    deterministic: dict[str, bool] | None = None,
    tolerance: float = 0.0,
    time_ratio: float = 1.25,
    alpha: float = 0.01,
    compare_time: bool = True,
    time_scale: float | None = None,
    only_common: bool = False,
    scope: Collection[str] | None = None,
) -> GateResult:
    """:func:`judge` of two runs' rows given as DataFrames (a results CSV's columns)."""
    con = engine.connect()
    try:
        con.register("baseline_rows", baseline)
        con.register("new_rows", new)
        return judge(
            con,
            "baseline_rows",
            "new_rows",
            deterministic,
            tolerance,
            time_ratio,
            alpha,
            compare_time,
            time_scale,
            only_common,
            scope,
        )
    finally:
        con.close()


def judge(
    con: duckdb.DuckDBPyConnection,
    baseline: str,
    new: str,
    deterministic: dict[str, bool] | None = None,
    tolerance: float = 0.0,
    time_ratio: float = 1.25,
    alpha: float = 0.01,
    compare_time: bool = True,
    time_scale: float | None = None,
    only_common: bool = False,
    scope: Collection[str] | None = None,
    common_note: bool = True,
) -> GateResult:
    """Apply rules 1 to 5 to two runs' rows (tables, views or registered frames of
    ``con``); see the module docstring. The views of :func:`prepare` stay in ``con``.

    ``compare_time=False`` skips rule 4, for runs made on different machines.
    ``time_scale`` is the new run's calibration over the baseline's: new times are divided
    by it (None: not calibrated). ``scope``, when given, names the backends the new run was
    asked to run: a baseline backend outside it is reported as not run, not as missing.
    ``common_note``: say how many rows ``only_common`` left out.
    """
    known = deterministic or {}
    result = GateResult(scale=time_scale)
    cut = prepare(con, baseline, new, only_common)
    if cut and common_note:
        result.notes.append(f"--only-common: {cut} row(s) not in both runs left out")
    old_groups, new_groups = _counts(con, OLD_PUZZLES), _counts(con, NEW_PUZZLES)
    both = old_groups.keys() & new_groups.keys()
    counted = sorted({b for b, _ in both if _is_deterministic(b, known)})
    counters = _counters(con, tolerance, counted)
    timed = timed_pairs(con) if compare_time and both else {}
    rule = _time_rule(time_ratio, alpha)
    for group in sorted(old_groups.keys() | new_groups.keys()):
        backend, dataset = group
        not_run = scope is not None and backend not in scope
        findings, in_both = _answers(old_groups.get(group), new_groups.get(group), not_run)
        result.compared += in_both
        if in_both and _is_deterministic(backend, known):
            findings += counters.get(group, [])
        result.findings += [Finding(backend, dataset, *f) for f in findings]
        if in_both and group in timed:
            judged = timing.judge(backend, timed[group], rule, alpha, time_scale or 1.0)
            check = f"median solve {timing.SHORT[judged.clock]} ms"
            check += "" if time_scale is None else " (calibrated)"
            result.timed(backend, dataset, check, timed[group], judged)
    return result


Row = tuple[str, str, str, str]  # check, baseline, new, verdict


def _statuses(statuses: Sequence[str], column: str = "status") -> str:
    """SQL that is true where ``column`` is one of ``statuses``."""
    return f"{column} IN ({', '.join(map(literal, statuses))})"


def _counts(con: duckdb.DuckDBPyConnection, puzzles: str) -> dict[tuple[str, str], dict]:
    """Per (backend, dataset) of the ``puzzles``: how many, how many answered, how many
    WRONG, ERROR or MEMOUT, and the first of those (line, status, message)."""
    bad = _statuses(BAD)
    query = f"""
        SELECT backend, dataset, count(*) AS puzzles,
               count(*) FILTER (WHERE {_statuses(ANSWERED)}) AS answered,
               count(*) FILTER (WHERE {bad}) AS bad,
               arg_min({{'line': line, 'status': status, 'message': message}}, _n)
                   FILTER (WHERE {bad}) AS first
        FROM (SELECT *, row_number() OVER () AS _n FROM {puzzles})
        GROUP BY backend, dataset
    """
    return {(r["backend"], r["dataset"]): r for r in engine.records(con.execute(query))}


def _answers(old: dict | None, cur: dict | None, not_run: bool) -> tuple[list[Row], bool]:
    """Rules 1 and 2 for one backend x dataset, from each run's :func:`_counts` (None for a
    run without it), and whether both runs have it at all."""
    findings: list[Row] = []
    if cur is not None and cur["bad"]:
        first = cur["first"]
        said = " ".join(str(v) for v in (first["status"], first["message"]) if v is not None)
        findings.append(
            (
                "wrong/errors",
                str(old["bad"] if old is not None else 0),
                f"{cur['bad']} (line {first['line']}: {said})",
                "WRONG",
            )
        )
    if cur is None:
        return [*findings, ("present", f"{old['puzzles']} puzzles", *_missing(not_run))], False
    if old is None:
        return [*findings, ("present", "missing", f"{cur['puzzles']} puzzles", "info")], False
    answered_old, answered_new = old["answered"], cur["answered"]
    verdict = (
        "REGRESSION"
        if answered_new < answered_old
        else "improved"
        if answered_new > answered_old
        else "ok"
    )
    counts = (f"{answered_old}/{old['puzzles']}", f"{answered_new}/{cur['puzzles']}")
    return [*findings, ("answered", *counts, verdict)], True


def _missing(not_run: bool) -> tuple[str, str]:
    return ("not run", "info") if not_run else ("missing", "REGRESSION")


def _counters(
    con: duckdb.DuckDBPyConnection, tolerance: float, backends: Sequence[str]
) -> dict[tuple[str, str], list[Row]]:
    """Rule 3 for the ``backends`` on each dataset: each counter compared row by row, per
    repeat (a repeat the baseline lacks with the baseline's first), over the rows answered
    alike in both runs."""
    in_old = counter_columns(con, OLD)
    columns = [c for c in counter_columns(con, NEW) if c in in_old]
    if not backends or not columns:
        return {}
    chosen = f"backend IN ({', '.join(map(literal, backends))})"
    found = _counted(con, columns, tolerance, chosen, exact=True)
    again = {
        r["backend"]
        for r in found
        if r["unmatched"] or any(r[f"differ_{i}"] for i in range(len(columns)))
    }
    if again:  # to name the first row that differs, and to pair repeats the baseline lacks
        chosen = f"backend IN ({', '.join(map(literal, sorted(again)))})"
        detailed = _counted(con, columns, tolerance, chosen, exact=False)
        found = [r for r in found if r["backend"] not in again] + detailed
    out: dict[tuple[str, str], list[Row]] = {}
    for row in found:
        findings: list[Row] = []
        for index, column in enumerate(columns):
            old, new = row[f"old_{index}"] or 0, row[f"new_{index}"] or 0
            if row[f"differ_{index}"]:
                first = row[f"first_{index}"]
                findings.append(
                    (
                        column,
                        f"total {_fmt(old)}",
                        f"total {_fmt(new)}; {row[f'differ_{index}']} row(s) differ, "
                        f"first line {first['line']} repeat {first['repeat']}: "
                        f"{_fmt(first['old'])} -> {_fmt(first['new'])}",
                        "REGRESSION",
                    )
                )
            elif row[f"both_{index}"]:
                findings.append((column, f"total {_fmt(old)}", f"total {_fmt(new)}", "ok"))
        out[(row["backend"], row["dataset"])] = findings
    return out


def _counted(
    con: duckdb.DuckDBPyConnection,
    columns: Sequence[str],
    tolerance: float,
    chosen: str,
    exact: bool,
) -> list[dict]:
    """Per backend (of those ``chosen``) and dataset, over the pairs of rows answered alike
    in both runs: each counter's totals, how many pairs hold it in both, how many differ,
    and (unless ``exact``) the first pair that differs in the baseline's order, then the
    new run's. With ``exact``, a repeat pairs only with the same repeat, and ``unmatched``
    counts the new rows whose repeat the baseline lacks (see :func:`_counters`)."""
    keys = ", ".join(PAIR_KEYS)
    picked = [f"o.{q(c)} AS {q('o:' + c)}, n.{q(c)} AS {q('n:' + c)}" for c in columns]
    alike = f"o.status = n.status AND {_statuses(ANSWERED, 'n.status')}"
    measures = ["count(*) FILTER (WHERE NOT _matched) AS unmatched"] if exact else []
    for index, column in enumerate(columns):
        a, b = q("o:" + column), q("n:" + column)
        both = f"{a} IS NOT NULL AND {b} IS NOT NULL"
        differ = f"({both} AND abs({a} - {b}) > {float(tolerance)!r} * abs({a}))"
        differ += f" OR (({a} IS NULL) <> ({b} IS NULL))"
        measures += [
            f"sum({a}) FILTER (WHERE _alike) AS old_{index}",
            f"sum({b}) FILTER (WHERE _alike) AS new_{index}",
            f"count(*) FILTER (WHERE _alike AND ({differ})) AS differ_{index}",
            f"count(*) FILTER (WHERE _alike AND {both}) AS both_{index}",
        ]
        if not exact:  # the first that changed, else the first that lost a value
            shown = f"{{'line': line, 'repeat': repeat, 'old': {a}, 'new': {b}}}"
            order = f"(({a} IS NULL) <> ({b} IS NULL), _old, _new)"
            measures.append(
                f"arg_min({shown}, {order}) FILTER (WHERE _alike AND ({differ})) AS first_{index}"
            )
    narrow = ", ".join([*PAIR_KEYS, "repeat", "status", *map(q, columns)])
    if exact:
        pairs = f"""
            SELECT n.backend, n.dataset, o.line IS NOT NULL AS _matched,
                   coalesce({alike}, false) AS _alike, {", ".join(picked)}
            FROM (SELECT {narrow} FROM {NEW} WHERE {chosen}) n
            LEFT JOIN (SELECT {narrow} FROM {OLD} WHERE {chosen}) o
                ON {_on("o", "n", [*PAIR_KEYS, "repeat"])}
        """
    else:
        pairs = f"""
            WITH o AS (SELECT {narrow}, row_number() OVER () AS _old FROM {OLD} WHERE {chosen}),
            n AS (SELECT {narrow}, row_number() OVER () AS _new FROM {NEW} WHERE {chosen}),
            firsts AS (SELECT {keys}, min(repeat) AS _first FROM o GROUP BY {keys}),
            seen AS (SELECT DISTINCT {keys}, repeat FROM o),
            matched AS (
                SELECT n.*, CASE WHEN s.repeat IS NULL THEN f._first ELSE n.repeat END AS _repeat
                FROM n
                LEFT JOIN seen s ON {_on("s", "n", [*PAIR_KEYS, "repeat"])}
                LEFT JOIN firsts f ON {_on("f", "n")}
            )
            SELECT o.backend, o.dataset, o.line, n.repeat, o._old, n._new, {alike} AS _alike,
                   {", ".join(picked)}
            FROM o JOIN matched n ON {_on("o", "n")} AND o.repeat = n._repeat
        """
    query = f"SELECT backend, dataset, {', '.join(measures)} FROM ({pairs}) GROUP BY ALL"
    return engine.records(con.execute(query))


def answered_pairs() -> str:
    """SQL for the puzzles of a backend both runs of :func:`prepare` answered, with a wall
    time in both: backend, dataset, line, and each run's clocks (``old_solve_s``,
    ``new_solve_cpu_s``, ...), in the baseline's order."""
    where = f"{_statuses(ANSWERED, 'o.status')} AND {_statuses(ANSWERED, 'n.status')}"
    where += f" AND o.{WALL} IS NOT NULL AND n.{WALL} IS NOT NULL"
    clocks = ", ".join(
        f"{r}.{c} AS {side}_{c}"
        for c in (WALL, CPU, OWN)
        for r, side in (("o", "old"), ("n", "new"))
    )
    return f"""
        SELECT o.backend, o.dataset, o.line, {clocks}
        FROM (SELECT *, row_number() OVER () AS _at FROM {OLD_PUZZLES}) o
        JOIN {NEW_PUZZLES} n ON {_on("o", "n")}
        WHERE {where} ORDER BY o._at
    """


def floats(values: np.ndarray) -> np.ndarray:
    """A column DuckDB gave as numbers (a masked array where some are unknown) as floats,
    NaN where unknown."""
    return np.ma.filled(np.ma.asarray(values, dtype=float), np.nan)


def timed_pairs(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], timing.Pairs]:
    """Per (backend, dataset), the puzzles both runs of :func:`prepare` answered, with
    their times on each clock (:func:`answered_pairs`)."""
    found = con.execute(answered_pairs()).fetchnumpy()
    groups = pd.Series(list(zip(found["backend"], found["dataset"], strict=True)), dtype=object)
    pairs = {}
    for group, at in groups.groupby(groups, sort=False).indices.items():
        old = {c: floats(found[f"old_{c}"])[at] for c in (WALL, CPU, OWN)}
        new = {c: floats(found[f"new_{c}"])[at] for c in (WALL, CPU, OWN)}
        pairs[(str(group[0]), str(group[1]))] = timing.Pairs(found["line"][at], old, new)
    return pairs


def _time_rule(time_ratio: float, alpha: float) -> timing.Rule:
    """Rule 4 on one backend x dataset's times (old, new) of the puzzles both runs answered:
    the baseline's median (ms), the new one with its ratio and p-value, and the verdict."""

    def rule(old: np.ndarray, new: np.ndarray) -> tuple[str, str, str]:
        ratio = timing.median_of_ratios(old, new)
        if len(old) >= 5 and (new != old).any():
            from scipy.stats import wilcoxon  # a second's import: only when there is a test

            p = float(wilcoxon(new, old, alternative="greater").pvalue)
        else:
            p = 1.0  # too few pairs to call anything significant
        slow = ratio > time_ratio and p < alpha
        return (
            _fmt(float(np.median(old)) * 1000),
            f"{_fmt(float(np.median(new)) * 1000)} (x{ratio:.3g}, {p_value(p)}, {len(old)} pairs)",
            "REGRESSION" if slow else "ok",
        )

    return rule


def time_judgement(
    old_meta: dict | None, new_meta: dict | None, anyway: bool
) -> tuple[bool, float | None, list[str]]:
    """Whether to judge time, the factor to divide new times by (None: not calibrated),
    and notes saying why."""
    old_meta, new_meta = old_meta or {}, new_meta or {}
    differ = provenance.machine_differences(old_meta, new_meta)
    if differ and not anyway:
        return (
            False,
            None,
            [
                f"the machines differ ({'; '.join(differ)}): time not judged, only answers "
                "and counters (--compare-time-anyway judges it)"
            ],
        )
    notes = [f"the machines differ ({'; '.join(differ)}); time judged as asked"] if differ else []
    old_cal, new_cal = calibration_of(old_meta), calibration_of(new_meta)
    if old_cal is None or new_cal is None:
        notes.append("no calibration in both runs' metadata: times compared as measured")
        return True, None, notes
    scale = new_cal / old_cal
    if max(scale, 1 / scale) <= CALIBRATION_NOISE:
        notes.append(
            f"the runs' calibrations agree ({_fmt(old_cal * 1e3)} ms -> "
            f"{_fmt(new_cal * 1e3)} ms, within x{CALIBRATION_NOISE:g}): the same speed, "
            "times compared as measured"
        )
        return True, None, notes
    notes.append(
        f"times divided by each run's calibration ({_fmt(old_cal * 1e3)} ms -> "
        f"{_fmt(new_cal * 1e3)} ms, x{scale:.3g})"
    )
    return True, scale, notes


def check_files(
    baseline: Path,
    new: Path,
    tolerance: float = 0.0,
    time_ratio: float = 1.25,
    alpha: float = 0.01,
    compare_time: bool = True,
    compare_time_anyway: bool = False,
    only_common: bool = False,
) -> GateResult:
    """The verdict on two results CSVs and their metadata (rules 0 to 5): the one function
    behind ``harness check``, ``harness run --baseline`` and ``harness report --baseline``,
    so the same files and options give the same table, figures and exit. The backends the
    new run was asked to run come from its metadata (rule 2).

    Raises :class:`harness.results.ResultsError`, naming the file and line, for a CSV that
    is not a well-formed results CSV.
    """
    with read([baseline, new]) as results:
        old_meta, new_meta = results.metas
        runs = [completeness.of(results, index) for index in (0, 1)]
        notes = ["time not judged (--ignore-time)"]
        scale = None
        if compare_time:
            compare_time, scale, notes = time_judgement(old_meta, new_meta, compare_time_anyway)
        stopped = any(run.incomplete for run in runs)
        result = judge(
            results.con,
            "file_0",
            "file_1",
            {**deterministic_in(old_meta), **deterministic_in(new_meta)},
            tolerance,
            time_ratio,
            alpha,
            compare_time,
            scale,
            only_common or stopped,
            _asked(new_meta),
            common_note=only_common,
        )
    result.incomplete = runs[1].incomplete
    said = [
        incomplete_notes(run, meta, name)
        for run, meta, name in zip(
            runs, results.metas, ("the baseline", "the new run"), strict=True
        )
    ]
    result.notes[:0] = [*[line for lines in said for line in lines], *results.notes, *notes]
    return result


def _asked(meta: dict | None) -> list[str] | None:
    """The backends a run's metadata says it was asked to run (None: it does not say)."""
    listed = (meta or {}).get("backends")
    if not isinstance(listed, list):
        return None
    return [str(b["spec"]) for b in listed if isinstance(b, dict) and "spec" in b]


def incomplete_notes(run: completeness.Completeness, meta: dict | None, name: str) -> list[str]:
    """The notes on a run that stopped early (rule 0): what it lacks, and how to complete it."""
    if not run.incomplete:
        return []
    command = completeness.resume_command(run.path, meta)
    return [
        f"INCOMPLETE: {name}, {run.path}, stopped early ({run.said()}): judged on the "
        "puzzles both runs reached",
        f"complete it with:\n  {command}"
        if command
        else "it cannot be resumed (a run with --against, or without its .meta.json): "
        "run it again with a new --out",
    ]


def read(paths: Sequence[Path]) -> engine.Results:
    """Results CSVs as the gate reads them (:func:`harness.results.engine.read`): the
    columns of :data:`JUDGED` and the native statistics, every row checked; raises
    :class:`~harness.results.schema.ResultsError` naming the file and line of a bad row."""
    return engine.read(paths, JUDGED, natives=True)
