"""The paired gate: two backends of one run, old against new, puzzle by puzzle.

Used by ``harness run --against REV`` (each ``SPEC@REV`` against ``SPEC``) and by ``harness
check RUN.csv --pair OLD,NEW`` (two ``cmd:`` builds, two plugin versions, two option sets).
Both ran in one run, their solves interleaved puzzle by puzzle, so whatever load the machine
had fell on both alike: their times compare directly, with no calibration and no
conditions to match.

Answers and counters are judged by the rules of :mod:`harness.gate.baseline` (rules 1 to 3,
the old backend's rows standing as the baseline). Time is judged by the per-puzzle ratios
new / old of the median solve time over repeats:

- a one-sided Wilcoxon signed-rank test on their logarithms (is new slower?), ``p``;
- a bootstrap interval for their median (puzzles resampled, seeded, so a verdict repeats);
- REGRESSION when the median ratio exceeds ``time_ratio`` (default
  :data:`PAIRED_TIME_RATIO`), ``p < alpha`` and the whole interval lies above 1;
  "improved" for the mirror image; "ok" otherwise.

Exit codes are those of the baseline gate, :class:`harness.exit_codes.CheckExit`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from harness.gate.baseline import (
    Finding,
    GateResult,
    answered_pairs,
    deterministic_in,
    floats,
    judge,
    p_value,
    read,
)
from harness.results import engine, provenance
from harness.results.schema import ResultsError
from harness.tables.stats import literal

if TYPE_CHECKING:
    import duckdb

#: A paired slowdown must exceed this median ratio to count: pairs measured in one run are
#: free of the day-to-day noise the baseline gate's 1.25 allows for.
PAIRED_TIME_RATIO = 1.10
#: Bootstrap resamples for the interval on the median ratio.
RESAMPLES = 2000
#: About the most values the resamples hold at once.
RESAMPLE_CELLS = 1 << 22
#: Fewer answered pairs than this: time is shown, never judged.
MIN_PAIRS = 5


def pairs_in(meta: dict | None) -> list[tuple[str, str]]:
    """The (old, new) specs a run made with ``--against`` holds, from its metadata."""
    against = (meta or {}).get("against")
    if not isinstance(against, dict) or not isinstance(against.get("pairs"), dict):
        return []
    return [(str(old), str(new)) for old, new in against["pairs"].items()]


def ratio_statistics(
    old: Sequence[float], new: Sequence[float], seed: int = 0, confidence: float = 0.95
) -> tuple[float, float, float, float, float]:
    """For per-puzzle times: the median ratio new / old, its bootstrap interval (low,
    high), and the one-sided Wilcoxon p-values that new is slower, and that it is faster."""
    from scipy.stats import wilcoxon

    ratios = np.asarray(new, dtype=float) / np.asarray(old, dtype=float)
    ratios = ratios[np.isfinite(ratios) & (ratios > 0)]
    if not len(ratios):
        return math.nan, math.nan, math.nan, 1.0, 1.0
    median = float(np.median(ratios))
    medians = _bootstrap_medians(ratios, seed)
    tail = (1 - confidence) / 2 * 100
    low, high = (float(x) for x in np.percentile(medians, [tail, 100 - tail]))
    logs = np.log(ratios)
    if len(ratios) < MIN_PAIRS or not logs.any():
        return median, low, high, 1.0, 1.0
    slower = float(wilcoxon(logs, alternative="greater").pvalue)
    faster = float(wilcoxon(logs, alternative="less").pvalue)
    return median, low, high, slower, faster


def _bootstrap_medians(ratios: np.ndarray, seed: int) -> np.ndarray:
    """The medians of :data:`RESAMPLES` resamples of ``ratios``, drawn a few resamples at a
    time so memory stays near :data:`RESAMPLE_CELLS` values however many puzzles there are
    (an even number of resamples a step: the draws are those of one call for all of them)."""
    rng = np.random.default_rng(seed)
    n = len(ratios)
    step = max(2, RESAMPLE_CELLS // n // 2 * 2)
    medians = []
    for start in range(0, RESAMPLES, step):
        picks = rng.integers(0, n, size=(min(step, RESAMPLES - start), n))
        medians.append(np.median(ratios[picks], axis=1))
    return np.concatenate(medians)


def time_finding(
    old: np.ndarray, new: np.ndarray, time_ratio: float, alpha: float, seed: int = 0
) -> tuple[str, str, str, str]:
    """The time row for one pair on one dataset, from the solve times (old, new) of the
    puzzles both answered."""
    median, low, high, slower, faster = ratio_statistics(old, new, seed)
    verdict = "ok"
    if median > time_ratio and slower < alpha and low > 1:
        verdict = "REGRESSION"
    elif median < 1 / time_ratio and faster < alpha and high < 1:
        verdict = "improved"
    shown = f"x{median:.3g} [{low:.3g}, {high:.3g}], {p_value(slower)}, {len(old)} pairs"
    return (
        "paired solve ms (median)",
        _ms(float(np.median(old))),
        f"{_ms(float(np.median(new)))} ({shown})",
        verdict,
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.4g}"


def compare_pairs(
    frame: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    deterministic: dict[str, bool] | None = None,
    tolerance: float = 0.0,
    time_ratio: float = PAIRED_TIME_RATIO,
    alpha: float = 0.01,
    compare_time: bool = True,
) -> GateResult:
    """:func:`judge_pairs` of one run's rows given as a DataFrame (a results CSV's columns)."""
    con = engine.connect()
    try:
        con.register("run_rows", frame)
        return judge_pairs(
            con, "run_rows", pairs, deterministic, tolerance, time_ratio, alpha, compare_time
        )
    finally:
        con.close()


def judge_pairs(
    con: duckdb.DuckDBPyConnection,
    source: str,
    pairs: Sequence[tuple[str, str]],
    deterministic: dict[str, bool] | None = None,
    tolerance: float = 0.0,
    time_ratio: float = PAIRED_TIME_RATIO,
    alpha: float = 0.01,
    compare_time: bool = True,
) -> GateResult:
    """Judge each (old, new) pair of backends in ``source`` (one run's rows, a table, view
    or registered frame of ``con``); each finding is labelled with the new backend, its
    ``baseline`` column the old one's figure."""
    result = GateResult()
    for old_spec, new_spec in pairs:
        spec = "CAST(backend AS VARCHAR)"
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW paired_old AS SELECT * REPLACE ({literal(new_spec)} "
            f"AS backend) FROM {source} WHERE {spec} = {literal(old_spec)}"
        )
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW paired_new AS SELECT * FROM {source} "
            f"WHERE {spec} = {literal(new_spec)}"
        )
        judged = judge(
            con, "paired_old", "paired_new", deterministic, tolerance, compare_time=False
        )
        result.findings += judged.findings
        result.compared += judged.compared
        if not compare_time:
            continue
        for dataset, (old, new) in sorted(_times(con).items()):
            result.findings.append(
                Finding(new_spec, dataset, *time_finding(old, new, time_ratio, alpha))
            )
    listed = "; ".join(f"{old} -> {new}" for old, new in pairs)
    result.notes.append(f"paired in one run, old -> new: {listed}")
    if compare_time:
        result.notes.append(
            f"time: per-puzzle ratios new/old, median [95% bootstrap interval]; a regression "
            f"is above x{time_ratio:g}, interval above 1, one-sided Wilcoxon p < {alpha:g}"
        )
    return result


def _times(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per dataset, the solve times (old, new) of the puzzles both backends of the pair
    :func:`harness.gate.baseline.judge` last compared answered, in the old one's order."""
    found = con.execute(answered_pairs(timed=True)).fetchnumpy()
    datasets = found["dataset"].astype(object)
    old, new = floats(found["old"]), floats(found["new"])
    return {str(d): (old[datasets == d], new[datasets == d]) for d in dict.fromkeys(datasets)}


def parse_pair(text: str) -> tuple[str, str]:
    """``OLD,NEW`` -> (old, new); a ``cmd:`` spec may hold commas, so the split is at the
    comma that leaves two names the run has, tried by :func:`check_file`."""
    old, sep, new = text.partition(",")
    if not sep or not old.strip() or not new.strip():
        raise ResultsError(f"--pair {text!r}: give two backend specs, OLD,NEW")
    return old.strip(), new.strip()


def _split_known(text: str, known: Sequence[str]) -> tuple[str, str]:
    """The split of ``OLD,NEW`` into two specs the run has (specs may contain commas)."""
    for index, char in enumerate(text):
        if char == "," and text[:index].strip() in known and text[index + 1 :].strip() in known:
            return text[:index].strip(), text[index + 1 :].strip()
    old, new = parse_pair(text)
    missing = [s for s in (old, new) if s not in known]
    raise ResultsError(
        f"--pair: no backend {missing[0]!r} in the results; they hold {', '.join(known)}"
    )


def check_file(
    path: Path,
    pair: str | None = None,
    tolerance: float = 0.0,
    time_ratio: float = PAIRED_TIME_RATIO,
    alpha: float = 0.01,
    compare_time: bool = True,
) -> GateResult:
    """The paired verdict for one results CSV: the pair ``OLD,NEW`` given, else every pair
    its ``--against`` run recorded. Raises :class:`ResultsError` for a CSV that is not a
    results CSV, a pair it does not hold, or a run with no pairs."""
    with read([path]) as results:  # every row checked: a malformed file is one clear line
        meta = provenance.read_meta(path)
        query = "SELECT backend FROM file_0 GROUP BY backend ORDER BY min(rowid)"
        known = [b for (b,) in results.con.execute(query).fetchall()]
        if pair is not None:
            pairs = [_split_known(pair, known)]
        else:
            pairs = pairs_in(meta)
            if not pairs:
                raise ResultsError(
                    f"{path}: not a run made with --against; give a baseline CSV, or --pair OLD,NEW"
                )
        return judge_pairs(
            results.con,
            "file_0",
            pairs,
            deterministic_in(meta),
            tolerance,
            time_ratio,
            alpha,
            compare_time,
        )
