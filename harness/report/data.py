"""The numbers behind every plot and table of the report, apart from drawing them.

All times are the solve phase (``solve_s``, seconds), as in ``harness table`` and the gate
(the cactus plot may show the solvers' own clock instead, ``own_solve_s``);
one row per (puzzle, backend) after :func:`harness.tables.load.per_puzzle` (repeats reduced to
their median). Only the columns shown are read (:data:`COLUMNS`); a puzzle is told apart by
its dataset and line. A *correct* answer is a checked SOLVED or UNSAT row (UNSAT is WRONG when the
file gives a count it contradicts). Unanswered rows (TIMEOUT, UNKNOWN, ERROR, MEMOUT, WRONG,
UNAVAILABLE) are never timed as answers: the scatter plot pins them at the timeout and
PAR-2 counts them as twice the timeout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from backends.base import Status
from harness.results import ResultsError
from harness.results.provenance import read_meta
from harness.tables import load
from harness.tables.summary import ANSWERED

PUZZLE = ["dataset", "line"]
VBS = "virtual best"
#: The columns the report reads, and their dtypes (None: as pandas infers it).
COLUMNS = {
    "dataset": "category",
    "line": "int64",
    "size": "float32",
    "backend": "category",
    "repeat": "int64",
    "status": "category",
    "solve_s": "float64",
    "solve_cpu_s": "float64",
    "own_solve_s": "float64",
    "nodes": "float64",
    "guesses": "float64",
}


@dataclass
class Runs:
    """The rows of one or more results CSVs, and what their metadata says."""

    raw: pd.DataFrame  # every row as read, backends labelled per run when runs share one
    frame: pd.DataFrame  # one row per (dataset, line, puzzle, backend)
    metas: list[tuple[str, dict[str, Any] | None]] = field(default_factory=list)
    timeout: float = math.nan  # seconds
    timeout_note: str = ""


def load_runs(paths: Sequence[str | Path], merge: bool = False) -> Runs:
    """Read results CSVs (raises :class:`ResultsError` naming a bad one).

    A backend that appears in more than one CSV is labelled ``spec (file stem)`` so two runs
    of it stay apart, unless ``merge`` pools them.
    """
    frames = []
    for path in paths:
        frame = load.read(path, COLUMNS)
        if frame.empty:
            raise ResultsError(f"{path}: no result rows")
        frames.append(frame)
    raw = load.concat(label_runs(frames, paths, merge))
    metas = [(str(p), read_meta(Path(p))) for p in paths]
    timeout, note = timeout_of(metas, raw)
    return Runs(raw, load.per_puzzle(raw), metas, timeout, note)


def label_runs(
    frames: list[pd.DataFrame], paths: Sequence[str | Path], merge: bool = False
) -> list[pd.DataFrame]:
    """Each run's frame with a ``run`` column, and a backend that more than one of them ran
    renamed ``spec (file stem)``, unless ``merge`` pools the runs."""
    owners: dict[str, int] = {}
    for frame in frames:
        for spec in frame["backend"].astype(str).unique():
            owners[spec] = owners.get(spec, 0) + 1
    out = []
    for frame, path in zip(frames, paths, strict=True):
        names = frame["backend"].astype("category")
        shared = {
            c: f"{c} ({Path(path).stem})"
            for c in names.cat.categories
            if owners[c] > 1 and not merge
        }
        if shared:
            names = names.cat.rename_categories(lambda c, s=shared: s.get(c, c))
        run = pd.Categorical([str(path)] * len(frame))
        out.append(frame.assign(backend=names, run=run))
    return out


def timeout_of(metas: Sequence[tuple[str, dict[str, Any] | None]], raw: pd.DataFrame):
    """The timeout in seconds (the largest the runs used) and a note saying where it came
    from; without metadata, the longest time any row ran."""
    limits = [
        float(m["limits"]["timeout_s"])
        for _, m in metas
        if m and isinstance(m.get("limits"), dict) and m["limits"].get("timeout_s")
    ]
    if limits:
        return max(limits), ""
    longest = float(raw["solve_s"].max()) if raw["solve_s"].notna().any() else 1.0
    return longest, "no timeout recorded (no .meta.json): the longest solve stands in for it"


def groups(frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(title, rows) per dataset, and per grid size when a dataset mixes sizes."""
    keys = ["dataset"]
    if "size" in frame:
        sizes = frame.groupby("dataset", observed=True, dropna=False)["size"].nunique()
        keys += ["size"] if (sizes > 1).any() else []
    out = []
    for key, group in frame.groupby(keys, sort=True, dropna=False, observed=True):
        values = key if isinstance(key, tuple) else (key,)
        title = Path(str(values[0])).name
        if len(values) > 1:
            title += f" ({values[1]:g}x{values[1]:g})"
        out.append((title, group))
    return out


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


def puzzle_ids(frame: pd.DataFrame) -> np.ndarray:
    """One whole number per row naming its puzzle (dataset and line), to group a million
    rows by one integer rather than by two columns."""
    datasets = frame["dataset"]
    if isinstance(datasets.dtype, pd.CategoricalDtype):
        codes = datasets.cat.codes.to_numpy()
    else:
        codes = pd.factorize(datasets, use_na_sentinel=False)[0]
    lines = frame["line"].to_numpy(dtype=np.int64)
    span = int(lines.max()) + 1 if len(lines) else 1
    return codes.astype(np.int64) * span + lines


def puzzle_count(frame: pd.DataFrame) -> int:
    """How many puzzles ``frame`` holds."""
    return len(pd.unique(puzzle_ids(frame)))


def vbs(frame: pd.DataFrame) -> pd.Series:
    """Per puzzle (in order of first appearance), the virtual best solver's time: the fastest
    correct answer among the backends; NaN where no backend answered it."""
    ids = puzzle_ids(frame)
    ok = correct(frame).to_numpy()
    best = pd.Series(frame["solve_s"].to_numpy()[ok]).groupby(ids[ok]).min()
    return best.reindex(pd.unique(ids))


def par2(times: pd.Series, answered: pd.Series, timeout: float) -> float:
    """Penalised average runtime: the mean of the times, an unsolved puzzle as 2 x timeout."""
    if not len(times):
        return math.nan
    return float(times.where(answered, 2 * timeout).mean())


def fastest_alone(frame: pd.DataFrame) -> dict[str, int]:
    """Per backend, on how many puzzles its correct answer was strictly the fastest."""
    ok = (correct(frame) & frame["solve_s"].notna()).to_numpy()
    ids, times = puzzle_ids(frame)[ok], frame["solve_s"].to_numpy()[ok]
    best = pd.Series(times).groupby(ids).transform("min").to_numpy()
    win = times == best
    _, where, ties = np.unique(ids[win], return_inverse=True, return_counts=True)
    winners = frame["backend"].to_numpy()[ok][win][ties[where] == 1]
    won = pd.Series(winners, dtype=object).value_counts()
    return {b: int(won.get(b, 0)) for b in backends(frame)}


def summary(frame: pd.DataFrame, timeout: float) -> pd.DataFrame:
    """One row per backend, fastest PAR-2 first, then the virtual best solver's row."""
    wins = fastest_alone(frame)
    rows = []
    by_backend = frame.groupby("backend", observed=True, sort=False)
    for backend in backends(frame):
        group = by_backend.get_group(backend)
        ok = correct(group)
        rows.append(
            _row(backend, group["status"], group["solve_s"], ok, timeout)
            | {
                "cpu_median_ms": 1000 * group.loc[ok, "solve_cpu_s"].median()
                if "solve_cpu_s" in group
                else None,
                "nodes_median": group.loc[ok, "nodes"].median() if "nodes" in group else None,
                "guesses_median": group.loc[ok, "guesses"].median() if "guesses" in group else None,
                "fastest_alone": wins.get(backend, 0),
            }
        )
        if "own_solve_s" in group:  # the solver's own clock, where it reports one
            rows[-1]["own_ms"] = group.loc[ok, "own_solve_s"].median() * 1000
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    if "own_ms" in table and table["own_ms"].isna().all():
        table = table.drop(columns="own_ms")
    table = table.sort_values(["par2_ms", "median_ms"], kind="stable")
    best = vbs(frame).reset_index(drop=True)
    status = pd.Series(np.where(best.notna(), Status.SOLVED.value, ""), dtype=object)
    virtual = _row(VBS, status, best, best.notna(), timeout)
    return pd.concat([table, pd.DataFrame([virtual])], ignore_index=True)


def _row(name: str, status: pd.Series, times: pd.Series, ok, timeout: float) -> dict[str, Any]:
    ms = times[ok] * 1000
    counts = status.value_counts()
    return {
        "backend": name,
        "solved": f"{int(pd.Series(ok).sum()):,}/{len(status):,}",
        "timeouts": int(counts.get(Status.TIMEOUT.value, 0)),
        "errors": int(counts.get(Status.ERROR.value, 0) + counts.get(Status.MEMOUT.value, 0)),
        "wrong": int(counts.get(Status.WRONG.value, 0)),
        "median_ms": ms.median(),
        "mean_ms": ms.mean(),
        "max_ms": ms.max(),
        "par2_ms": 1000
        * par2(times.reset_index(drop=True), pd.Series(ok).reset_index(drop=True), timeout),
    }


def repeat_spread(raw: pd.DataFrame, frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per backend run with ``--repeat``: over its correct answers' puzzles (those of
    ``frame``, given one), the median of the repeats' interquartile range relative to their
    median (%), and the median of their fastest repeat (ms). Empty without repeats."""
    empty = pd.DataFrame(columns=["backend", "spread_pct", "min_ms"])
    if "repeat" not in raw or raw["repeat"].nunique() <= 1:
        return empty
    answered = raw[correct(raw) & raw["solve_s"].notna()]
    if frame is not None:
        answered = answered.merge(frame[PUZZLE].drop_duplicates(), on=PUZZLE)
    keys = ["backend", *PUZZLE]
    times = answered.groupby(keys, sort=False, observed=True)["solve_s"]
    quartiles = times.quantile([0.25, 0.75]).unstack()
    per = pd.DataFrame(
        {
            "spread": (quartiles[0.75] - quartiles[0.25]) / times.median(),
            "fastest": times.min(),
            "n": times.size(),
        }
    ).reset_index()
    per = per[per["n"] > 1]
    if per.empty:
        return empty
    spread = per.groupby("backend", sort=False, observed=True).agg(
        spread_pct=("spread", "median"), min_ms=("fastest", "median")
    )
    spread = spread.assign(spread_pct=spread.spread_pct * 100, min_ms=spread.min_ms * 1000)
    return spread.reset_index().astype({"backend": str})


def ranking(frame: pd.DataFrame, timeout: float) -> list[str]:
    """The backends, best PAR-2 first (ties: lower median)."""
    return ranked(summary(frame, timeout))


def ranked(table: pd.DataFrame) -> list[str]:
    """The backends of a :func:`summary` table, in its order (best PAR-2 first)."""
    return [b for b in table["backend"] if b != VBS] if not table.empty else []


def default_pair(frame: pd.DataFrame, timeout: float) -> tuple[str, str] | None:
    """The two backends with the best PAR-2 (None with fewer than two)."""
    return pair_of(ranking(frame, timeout))


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


def old_new(baseline: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """Per (backend, dataset, puzzle) both runs answered correctly: ``old`` and ``new``
    solve times. Datasets match by file name as the gate matches them."""
    from harness.gate import same_dataset_names

    old_rows, new_rows = same_dataset_names(baseline, new)
    keys = [k for k in ("dataset", "line", "puzzle", "backend") if k in new_rows]
    old_p, new_p = load.per_puzzle(old_rows), load.per_puzzle(new_rows)
    old_p, new_p = old_p[correct(old_p)], new_p[correct(new_p)]
    pairs = old_p[[*keys, "solve_s"]].merge(new_p[[*keys, "solve_s"]], on=keys)
    return pairs.rename(columns={"solve_s_x": "old", "solve_s_y": "new"})


def puzzle_pairs(pairs: pd.DataFrame, limit: int = 40) -> pd.DataFrame:
    """From :func:`old_new`'s pairs: per puzzle, old and new ms and their ratio, the
    ``limit`` largest ratios first (the puzzles a slowdown shows on)."""
    table = pairs.assign(
        old_ms=pairs["old"] * 1000, new_ms=pairs["new"] * 1000, ratio=pairs["new"] / pairs["old"]
    )
    table = table.sort_values("ratio", ascending=False, kind="stable").head(limit)
    return table[["backend", "dataset", "line", "old_ms", "new_ms", "ratio"]]


def ratio_interval(old: pd.Series, new: pd.Series, confidence: float = 0.95):
    """The median of the per-puzzle ratios new / old, with a distribution-free confidence
    interval for it (order statistics of the sorted ratios, binomial ranks)."""
    from scipy.stats import binom

    ratios = (new / old).replace([math.inf, -math.inf], math.nan).dropna().sort_values()
    n = len(ratios)
    if n == 0:
        return math.nan, math.nan, math.nan
    values = ratios.to_numpy()
    k = int(binom.ppf((1 - confidence) / 2, n, 0.5))  # the interval is [x_(k), x_(n-k+1)]
    if k < 1 or n - k < k - 1:
        return float(ratios.median()), math.nan, math.nan  # too few puzzles for an interval
    return float(ratios.median()), float(values[k - 1]), float(values[n - k])


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
