"""The gate against a baseline: ``harness check BASELINE.csv NEW.csv`` and ``harness run
--baseline``.

Rules, applied per backend x dataset, in this order:

1. **Wrong answers or errors.** Any WRONG, ERROR or MEMOUT row in the new run fails (exit 2).
2. **Fewer solved.** Fewer SOLVED-or-UNSAT (answered) puzzles than the baseline fails, and so
   does a backend x dataset the baseline has and the new run lacks (exit 1), unless
   ``only_common`` (then only the backends, datasets and puzzles of both runs are judged) or
   the new run was not asked to run that backend (``harness run --baseline``).
3. **Counters.** For deterministic backends, every row's ``nodes``, ``guesses``,
   ``backtracks`` and native counts (native columns that are not times) must equal the
   baseline's row of the same puzzle and repeat (a repeat the baseline lacks is compared
   with its first), or differ by at most ``tolerance`` (relative) (exit 1): one changed
   repeat out of five is a change. Rows answered in both runs are compared.
4. **Time.** Times are first divided by each run's calibration (a fixed workload timed at
   the run's start and end, in its ``.meta.json``), so a baseline made on a slower or busier
   day compares fairly. When the two runs' machines differ (CPU model, core count, Python
   version) time is not judged at all, unless asked (``--compare-time-anyway``). The median
   solve time over the puzzles both runs answered fails only when it is both large (new
   median / baseline median > ``time_ratio``, default 1.25) and significant: a one-sided
   Wilcoxon signed-rank test on the per-puzzle pairs (the same puzzles in both runs, so the
   paired test is the right one; a Mann-Whitney U test would ignore the pairing) gives
   p < ``alpha`` (default 0.01). Small wobbles pass (exit 1 otherwise). When the conditions
   the two runs were measured in differ (:mod:`harness.gate.conditions`: load one run had
   and the other did not), time is INCONCLUSIVE, never REGRESSION (the gate holds).

5. **Something compared.** When no backend x dataset is in both runs (a misspelt backend,
   ``only_common`` on runs with nothing in common), nothing was judged, and the gate fails
   with "nothing compared" (exit 1) instead of holding.

With ``--repeat`` the repeats of a puzzle are reduced to their median for rules 2 and 4.
Datasets match by file name when that is unambiguous (see :func:`same_dataset_names`).
Exit codes are :class:`harness.exit_codes.CheckExit`.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from backends import REGISTRY, backend_class
from backends.base import COUNTERS, Status
from harness.exit_codes import CheckExit
from harness.results import BASE_COLUMNS, provenance
from harness.results.calibration import calibration_of
from harness.results.schema import INTEGER_COLUMNS, NUMBER_COLUMNS
from harness.tables import load
from harness.tables.summary import ANSWERED

BAD = (Status.WRONG.value, Status.ERROR.value, Status.MEMOUT.value)
PAIR_KEYS = ["dataset", "line", "puzzle", "backend"]
LOUD = ("REGRESSION", "WRONG", "INCONCLUSIVE")  # verdicts the table shows in bold


@dataclass
class Finding:
    backend: str
    dataset: str
    check: str
    baseline: str
    new: str
    verdict: str  # "ok", "REGRESSION", "WRONG", "INCONCLUSIVE", "improved", "info"


@dataclass
class GateResult:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how time was judged, what was left out
    #: (backend, dataset) pairs both runs have. With none, nothing was judged, and a gate
    #: that judged nothing must not hold (a misspelt backend would pass a CI job).
    compared: int = 0

    @property
    def exit_code(self) -> CheckExit:
        verdicts = {f.verdict for f in self.findings}
        if "WRONG" in verdicts:
            return CheckExit.WRONG
        if "REGRESSION" in verdicts or not self.compared:
            return CheckExit.REGRESSION
        return CheckExit.OK

    @property
    def headline(self) -> str:
        """The verdict in words, as ``harness check`` and the report give it."""
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
    return _deterministic_in(provenance.read_meta(csv_path))


def _deterministic_in(meta: dict | None) -> dict[str, bool]:
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


def counter_columns(frame: pd.DataFrame) -> list[str]:
    """Counters compared exactly: the contract's, then native counts (not times)."""
    native = [
        c
        for c in frame.columns
        if c not in BASE_COLUMNS
        and pd.api.types.is_numeric_dtype(frame[c])
        and not (c.endswith("_s") or "time" in c)
    ]
    return [c for c in COUNTERS if c in frame.columns] + sorted(native)


def p_value(p: float) -> str:
    """``p=0.012``, or ``p<0.001`` below that (never an exponent: 6.2e-09 reads as noise)."""
    return "p<0.001" if p < 0.001 else f"p={p:.2g}"


def _fmt(value: float) -> str:
    """A figure for the table: whole numbers (counters) exactly, others to 4 digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"  # a counter change of 1 must show
    return f"{value:.4g}"


def same_dataset_names(
    baseline: pd.DataFrame, new: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both runs with datasets named by file name alone, when that names them uniquely.

    A dataset is recorded as the path given on the command line, so the same file run as
    ``datasets/easy.txt`` and as ``/ci/checkout/datasets/easy.txt`` would not match, and a
    CI job started elsewhere would see every backend "missing". Puzzles still pair by their
    text and line. When two different paths of one run share a file name, paths are kept.
    """

    def names(frame: pd.DataFrame) -> dict[str, str] | None:
        paths = frame["dataset"].dropna().astype(str).unique()
        short = {p: Path(p).name or p for p in paths}
        return short if len(set(short.values())) == len(short) else None

    old_names, new_names = names(baseline), names(new)
    if old_names is None or new_names is None:
        return baseline, new
    return (
        baseline.assign(dataset=baseline["dataset"].map(old_names)),
        new.assign(dataset=new["dataset"].map(new_names)),
    )


def _groups(frame: pd.DataFrame) -> set[tuple[str, str]]:
    return set(map(tuple, frame[["backend", "dataset"]].drop_duplicates().values))


def _shared_categories(
    baseline: pd.DataFrame, new: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both runs with their text keys and status as categories of the same values, and each
    puzzle's text as one number the same in both: rows of a million puzzles then match by
    small integers, not by hashing each puzzle's text at every merge."""
    for column in ("dataset", "backend", "status", "puzzle"):
        if column in baseline and column in new:
            joined = pd.concat([baseline[column], new[column]], ignore_index=True)
            codes, values = pd.factorize(joined.astype(object))
            if column != "puzzle":  # shown in the findings: kept as text, in categories
                codes = pd.Categorical.from_codes(codes, categories=values)
            baseline = baseline.assign(**{column: codes[: len(baseline)]})
            new = new.assign(**{column: codes[len(baseline) :]})
    return baseline, new


def _parts(frame: pd.DataFrame):
    """A function giving ``frame``'s rows of one backend and dataset (grouped once)."""
    grouped = frame.groupby(["backend", "dataset"], sort=False, dropna=False, observed=True)
    indices = grouped.indices
    empty = frame.iloc[:0]

    def part(backend: str, dataset: str) -> pd.DataFrame:
        found = indices.get((backend, dataset))
        return empty if found is None else frame.take(found)

    return part


def _common_only(
    baseline: pd.DataFrame, new: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Both runs cut to the (backend, puzzle) rows present in both; how many rows were cut."""
    keys = baseline[PAIR_KEYS].drop_duplicates().merge(new[PAIR_KEYS].drop_duplicates())
    old, cur = baseline.merge(keys, on=PAIR_KEYS), new.merge(keys, on=PAIR_KEYS)
    return old, cur, len(baseline) - len(old) + len(new) - len(cur)


def compare(
    baseline: pd.DataFrame,
    new: pd.DataFrame,
    deterministic: dict[str, bool] | None = None,
    tolerance: float = 0.0,
    time_ratio: float = 1.25,
    alpha: float = 0.01,
    compare_time: bool = True,
    time_scale: float = 1.0,
    only_common: bool = False,
    scope: Collection[str] | None = None,
) -> GateResult:
    """Apply the rules to two runs' rows; see the module docstring.

    ``compare_time=False`` skips rule 4, for runs made on different machines.
    ``time_scale`` is the new run's calibration over the baseline's: new times are divided
    by it. ``scope``, when given, names the backends the new run was asked to run: a
    baseline backend outside it is reported as not run, not as missing.
    """
    known = deterministic or {}
    result = GateResult()
    baseline, new = _shared_categories(*same_dataset_names(baseline, new))
    if only_common:
        baseline, new, cut = _common_only(baseline, new)
        if cut:
            result.notes.append(f"--only-common: {cut} row(s) not in both runs left out")
    old_p, new_p = load.per_puzzle(baseline), load.per_puzzle(new)
    old_part, new_part = _parts(old_p), _parts(new_p)
    old_rows, new_rows = _parts(baseline), _parts(new)
    for backend, dataset in sorted(_groups(baseline) | _groups(new)):
        old, cur = old_part(backend, dataset), new_part(backend, dataset)
        findings, in_both = _answers(old, cur, scope is not None and backend not in scope)
        result.compared += in_both
        if in_both and _is_deterministic(backend, known):
            rows = old_rows(backend, dataset), new_rows(backend, dataset)
            findings += _counter_findings(*rows, tolerance)
        if in_both and compare_time:
            pairs = old.merge(cur, on=PAIR_KEYS, suffixes=("_old", "_new"))
            finding = _time_finding(pairs, time_scale, time_ratio, alpha)
            findings += [finding] if finding is not None else []
        result.findings += [Finding(backend, dataset, *f) for f in findings]
    return result


Row = tuple[str, str, str, str]  # check, baseline, new, verdict


def _answers(old: pd.DataFrame, cur: pd.DataFrame, not_run: bool) -> tuple[list[Row], bool]:
    """Rules 1 and 2 for one backend x dataset, and whether both runs have it at all."""
    findings: list[Row] = []
    bad = cur[cur.status.isin(BAD)]
    if len(bad):
        first = bad.iloc[0]
        findings.append(
            (
                "wrong/errors",
                str(int(old.status.isin(BAD).sum())),
                f"{len(bad)} (line {first.line}: {first.status} {first.message})",
                "WRONG",
            )
        )
    if cur.empty:
        return [*findings, ("present", f"{len(old)} puzzles", *_missing(not_run))], False
    if old.empty:
        return [*findings, ("present", "missing", f"{len(cur)} puzzles", "info")], False
    answered_old = int(old.status.isin(ANSWERED).sum())
    answered_new = int(cur.status.isin(ANSWERED).sum())
    verdict = (
        "REGRESSION"
        if answered_new < answered_old
        else "improved"
        if answered_new > answered_old
        else "ok"
    )
    counts = (f"{answered_old}/{len(old)}", f"{answered_new}/{len(cur)}")
    return [*findings, ("answered", *counts, verdict)], True


def _missing(not_run: bool) -> tuple[str, str]:
    return ("not run", "info") if not_run else ("missing", "REGRESSION")


def _counter_findings(old: pd.DataFrame, new: pd.DataFrame, tolerance: float) -> list[Row]:
    """Rule 3 for one backend x dataset: each counter compared row by row, per repeat."""
    columns = counter_columns(new)
    keys = [*PAIR_KEYS, "repeat"]
    first = old.groupby(PAIR_KEYS, observed=True)["repeat"].min().rename("_first").reset_index()
    new = new.merge(first, on=PAIR_KEYS, how="left")
    seen = old[keys].drop_duplicates().assign(_in_old=True)
    in_old = new[keys].merge(seen, on=keys, how="left")["_in_old"].notna().to_numpy()
    new = new.assign(_repeat=new["repeat"].where(in_old, new["_first"]))
    pairs = old.assign(_repeat=old["repeat"]).merge(
        new, on=[*PAIR_KEYS, "_repeat"], suffixes=("_old", "_new")
    )
    pairs = pairs[(pairs.status_old == pairs.status_new) & pairs.status_new.isin(ANSWERED)]
    findings: list[Row] = []
    for column in columns:
        if f"{column}_old" not in pairs or f"{column}_new" not in pairs:
            continue
        a, b = pairs[f"{column}_old"], pairs[f"{column}_new"]
        both = a.notna() & b.notna()
        changed = pairs[both & ((a - b).abs() > tolerance * a.abs())]
        lost = pairs[a.notna() != b.notna()]
        if len(changed) or len(lost):
            row = changed.iloc[0] if len(changed) else lost.iloc[0]
            findings.append(
                (
                    column,
                    f"total {_fmt(a.sum())}",
                    f"total {_fmt(b.sum())}; {len(changed) + len(lost)} row(s) differ, "
                    f"first line {row.line} repeat {row.repeat_new}: "
                    f"{_fmt(row[column + '_old'])} -> {_fmt(row[column + '_new'])}",
                    "REGRESSION",
                )
            )
        elif both.any():
            findings.append((column, f"total {_fmt(a.sum())}", f"total {_fmt(b.sum())}", "ok"))
    return findings


def _time_finding(pairs: pd.DataFrame, scale: float, time_ratio: float, alpha: float) -> Row | None:
    """Rule 4 for one backend x dataset's per-puzzle pairs; None when none was answered twice."""
    from scipy.stats import wilcoxon

    answered = pairs[pairs.status_old.isin(ANSWERED) & pairs.status_new.isin(ANSWERED)]
    if not len(answered):
        return None
    t_old, t_new = answered.solve_s_old, answered.solve_s_new / scale
    m_old, m_new = t_old.median(), t_new.median()
    ratio = m_new / m_old if m_old > 0 else math.inf
    diffs = (t_new - t_old).to_numpy()
    if len(answered) >= 5 and (diffs != 0).any():
        p = float(wilcoxon(t_new, t_old, alternative="greater").pvalue)
    else:
        p = 1.0  # too few pairs to call anything significant
    slow = ratio > time_ratio and p < alpha
    check = "median solve ms" if scale == 1.0 else "median solve ms (calibrated)"
    return (
        check,
        _fmt(m_old * 1000),
        f"{_fmt(m_new * 1000)} (x{ratio:.3g}, {p_value(p)}, {len(answered)} pairs)",
        "REGRESSION" if slow else "ok",
    )


def time_judgement(
    old_meta: dict | None, new_meta: dict | None, anyway: bool
) -> tuple[bool, float, list[str]]:
    """Whether to judge time, the factor to divide new times by, and notes saying why."""
    old_meta, new_meta = old_meta or {}, new_meta or {}
    differ = provenance.machine_differences(old_meta, new_meta)
    if differ and not anyway:
        return (
            False,
            1.0,
            [
                f"the machines differ ({'; '.join(differ)}): time not judged, only answers "
                "and counters (--compare-time-anyway judges it)"
            ],
        )
    notes = [f"the machines differ ({'; '.join(differ)}); time judged as asked"] if differ else []
    old_cal, new_cal = calibration_of(old_meta), calibration_of(new_meta)
    if old_cal is None or new_cal is None:
        notes.append("no calibration in both runs' metadata: times compared as measured")
        return True, 1.0, notes
    scale = new_cal / old_cal
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
    scope: Collection[str] | None = None,
) -> GateResult:
    """Check and load two results CSVs and their metadata, and compare them.

    Raises :class:`harness.results.ResultsError`, naming the file and line, for a CSV that
    is not a well-formed results CSV.
    """
    old_rows, new_rows = read_frame(baseline), read_frame(new)
    old_meta, new_meta = provenance.read_meta(baseline), provenance.read_meta(new)
    notes = ["time not judged (--ignore-time)"]
    scale = 1.0
    if compare_time:
        compare_time, scale, notes = time_judgement(old_meta, new_meta, compare_time_anyway)
    known = {**_deterministic_in(old_meta), **_deterministic_in(new_meta)}
    result = compare(
        old_rows,
        new_rows,
        known,
        tolerance,
        time_ratio,
        alpha,
        compare_time,
        scale,
        only_common,
        scope,
    )
    result.notes[:0] = notes
    if compare_time:  # load the runs did not share: time INCONCLUSIVE (harness.gate.conditions)
        from harness.gate import conditions

        conditions.judge(result, old_meta, new_meta, scale)
    return result


#: The columns the gate judges, beside the native counts (the number columns are read too,
#: to check them, then left out).
JUDGED = (*PAIR_KEYS, "repeat", "status", "message", "solve_s", *COUNTERS)


def read_frame(path: Path) -> pd.DataFrame:
    """The rows of a results CSV the gate judges (keys, status, message, ``solve_s``, the
    counters and native counts), every row checked as :func:`harness.results.read_results`
    checks it: raises :class:`ResultsError` naming the file and the line of the first bad
    row. A torn last line is dropped."""
    dtypes: dict[str, str | None] = {c: "float64" for c in NUMBER_COLUMNS}
    dtypes |= {c: "int64" for c in INTEGER_COLUMNS}
    dtypes |= {"dataset": None, "backend": None, "status": None, "puzzle": "str", "message": "str"}
    frame = load.read(path, {c: dtypes.get(c) for c in JUDGED}, natives=True)
    if frame.empty:  # no rows: nothing to judge
        return pd.DataFrame(columns=list(JUDGED))
    native = [c for c in frame.columns if c not in BASE_COLUMNS]
    for column in native:  # a count past 64 bits is read as text: a number all the same
        if frame[column].dtype == object:
            numbers = pd.to_numeric(frame[column], errors="coerce")
            if numbers.notna().sum() == frame[column].notna().sum():
                frame[column] = numbers.astype("float64")
    frame = frame[[c for c in [*JUDGED, *native] if c in frame.columns]]
    # as text: two runs' categories differ, and categories of different values cannot compare
    return frame.astype({c: object for c in load.CATEGORIES if c in frame.columns})
