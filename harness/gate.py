"""The regression gate behind ``harness check BASELINE.csv NEW.csv``.

Rules, applied per backend x dataset, in this order:

1. **Wrong answers or errors.** Any WRONG, ERROR or MEMOUT row in the new run fails (exit 2).
2. **Fewer solved.** Fewer SOLVED-or-UNSAT (answered) puzzles than the baseline fails, and so
   does a backend x dataset the baseline has and the new run lacks (exit 1).
3. **Counters.** For deterministic backends, every puzzle's ``nodes``, ``guesses``,
   ``backtracks`` and native counts (native columns that are not times) must equal the
   baseline's, or differ by at most ``tolerance`` (relative) (exit 1).
4. **Time.** The median solve time over the puzzles both runs answered fails only when it is
   both large (new median / baseline median > ``time_ratio``, default 1.25) and significant:
   a one-sided Wilcoxon signed-rank test on the per-puzzle pairs (the same puzzles in both
   runs, so the paired test is the right one; a Mann-Whitney U test would ignore the pairing)
   gives p < ``alpha`` (default 0.01). Small wobbles pass (exit 1 otherwise).

With ``--repeat`` the repeats of a puzzle are first reduced to their median. Datasets match
by file name when that is unambiguous (see :func:`same_dataset_names`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from backends import REGISTRY
from backends.base import COUNTERS, Status
from harness import tables
from harness.provenance import meta_path_for
from harness.results import BASE_COLUMNS

EXIT_OK, EXIT_REGRESSION, EXIT_WRONG = 0, 1, 2
BAD = (Status.WRONG.value, Status.ERROR.value, Status.MEMOUT.value)
PAIR_KEYS = ["dataset", "line", "puzzle", "backend"]


@dataclass
class Finding:
    backend: str
    dataset: str
    check: str
    baseline: str
    new: str
    verdict: str  # "ok", "REGRESSION", "WRONG", "improved", "info"


@dataclass
class GateResult:
    findings: list[Finding] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        verdicts = {f.verdict for f in self.findings}
        if "WRONG" in verdicts:
            return EXIT_WRONG
        if "REGRESSION" in verdicts:
            return EXIT_REGRESSION
        return EXIT_OK

    def markdown(self) -> str:
        header = "| backend | dataset | check | baseline | new | verdict |\n" + "|---" * 6 + "|"
        lines = [
            f"| {f.backend} | {f.dataset} | {f.check} | {f.baseline} | {f.new} | "
            f"{'**' + f.verdict + '**' if f.verdict in ('REGRESSION', 'WRONG') else f.verdict} |"
            for f in self.findings
        ]
        verdict = {EXIT_OK: "holds", EXIT_REGRESSION: "REGRESSION", EXIT_WRONG: "WRONG ANSWERS"}
        return "\n".join([f"**harness check: {verdict[self.exit_code]}**", "", header, *lines])


def deterministic_specs(csv_path: Path) -> dict[str, bool]:
    """Which backend specs are deterministic: from the run's metadata, else the registry."""
    known: dict[str, bool] = {}
    meta = meta_path_for(csv_path)
    if meta.exists():
        try:
            for entry in json.loads(meta.read_text()).get("backends", []):
                known[entry["spec"]] = bool(entry.get("deterministic", False))
        except (OSError, ValueError, KeyError, TypeError):
            known = {}
    return known


def _is_deterministic(spec: str, known: dict[str, bool]) -> bool:
    if spec in known:
        return known[spec]
    cls = REGISTRY.get(spec.split(":", 1)[0])
    return bool(cls and cls.deterministic)


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


def compare(
    baseline: pd.DataFrame,
    new: pd.DataFrame,
    deterministic: dict[str, bool] | None = None,
    tolerance: float = 0.0,
    time_ratio: float = 1.25,
    alpha: float = 0.01,
    compare_time: bool = True,
) -> GateResult:
    """Apply the rules to two runs' rows; see the module docstring.

    ``compare_time=False`` skips rule 4, for runs made on different machines (CI against a
    committed baseline), where only answers and deterministic counters are comparable.
    """
    from scipy.stats import wilcoxon

    known = deterministic or {}
    result = GateResult()
    baseline, new = same_dataset_names(baseline, new)
    old_p, new_p = tables.per_puzzle(baseline), tables.per_puzzle(new)
    groups = sorted(
        set(map(tuple, old_p[["backend", "dataset"]].drop_duplicates().values))
        | set(map(tuple, new_p[["backend", "dataset"]].drop_duplicates().values))
    )
    for backend, dataset in groups:
        old = old_p[(old_p.backend == backend) & (old_p.dataset == dataset)]
        cur = new_p[(new_p.backend == backend) & (new_p.dataset == dataset)]

        def add(check: str, base: str, now: str, verdict: str, b=backend, d=dataset) -> None:
            result.findings.append(Finding(b, d, check, base, now, verdict))

        bad = cur[cur.status.isin(BAD)]
        if len(bad):
            first = bad.iloc[0]
            add(
                "wrong/errors",
                str(int(old.status.isin(BAD).sum())),
                f"{len(bad)} (line {first.line}: {first.status} {first.message})",
                "WRONG",
            )
        if cur.empty:
            add("present", f"{len(old)} puzzles", "missing", "REGRESSION")
            continue
        if old.empty:
            add("present", "missing", f"{len(cur)} puzzles", "info")
            continue
        answered_old = int(old.status.isin(tables.ANSWERED).sum())
        answered_new = int(cur.status.isin(tables.ANSWERED).sum())
        verdict = (
            "REGRESSION"
            if answered_new < answered_old
            else "improved"
            if answered_new > answered_old
            else "ok"
        )
        add("answered", f"{answered_old}/{len(old)}", f"{answered_new}/{len(cur)}", verdict)

        pairs = old.merge(cur, on=PAIR_KEYS, suffixes=("_old", "_new"))
        if _is_deterministic(backend, known):
            for column in counter_columns(new):
                if f"{column}_old" not in pairs or f"{column}_new" not in pairs:
                    continue
                a, b = pairs[f"{column}_old"], pairs[f"{column}_new"]
                both = a.notna() & b.notna()
                limit = tolerance * a[both].abs()
                changed = pairs[both][(a[both] - b[both]).abs() > limit]
                lost = pairs[a.notna() != b.notna()]
                if len(changed) or len(lost):
                    row = changed.iloc[0] if len(changed) else lost.iloc[0]
                    add(
                        column,
                        f"total {_fmt(a.sum())}",
                        f"total {_fmt(b.sum())}; {len(changed) + len(lost)} puzzle(s) differ, "
                        f"first line {row.line}: {_fmt(row[column + '_old'])} -> "
                        f"{_fmt(row[column + '_new'])}",
                        "REGRESSION",
                    )
                elif both.any():
                    add(column, f"total {_fmt(a.sum())}", f"total {_fmt(b.sum())}", "ok")
        answered = pairs[
            pairs.status_old.isin(tables.ANSWERED) & pairs.status_new.isin(tables.ANSWERED)
        ]
        if len(answered) and compare_time:
            t_old, t_new = answered.solve_s_old, answered.solve_s_new
            m_old, m_new = t_old.median(), t_new.median()
            ratio = m_new / m_old if m_old > 0 else math.inf
            diffs = (t_new - t_old).to_numpy()
            if len(answered) >= 5 and (diffs != 0).any():
                p = float(wilcoxon(t_new, t_old, alternative="greater").pvalue)
            else:
                p = 1.0  # too few pairs to call anything significant
            slow = ratio > time_ratio and p < alpha
            add(
                "median solve ms",
                _fmt(m_old * 1000),
                f"{_fmt(m_new * 1000)} (x{ratio:.3g}, p={p:.2g}, {len(answered)} pairs)",
                "REGRESSION" if slow else "ok",
            )
    return result


def check_files(
    baseline: Path,
    new: Path,
    tolerance: float = 0.0,
    time_ratio: float = 1.25,
    alpha: float = 0.01,
    compare_time: bool = True,
) -> GateResult:
    """Load two results CSVs and compare them."""
    known = {**deterministic_specs(baseline), **deterministic_specs(new)}
    return compare(
        tables.load(baseline),
        tables.load(new),
        known,
        tolerance,
        time_ratio,
        alpha,
        compare_time,
    )
