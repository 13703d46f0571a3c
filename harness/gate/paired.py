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

import numpy as np
import pandas as pd

from harness.gate.baseline import (
    PAIR_KEYS,
    Finding,
    GateResult,
    _deterministic_in,
    compare,
    p_value,
    same_dataset_names,
)
from harness.results import ResultsError, provenance
from harness.tables import frames as tables

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
    old: pd.DataFrame, new: pd.DataFrame, time_ratio: float, alpha: float, seed: int = 0
) -> tuple[str, str, str, str] | None:
    """The time row for one pair on one dataset (per-puzzle rows of each); None when no
    puzzle was answered by both."""
    both = old.merge(new, on=[k for k in PAIR_KEYS if k != "backend"], suffixes=("_o", "_n"))
    both = both[both.status_o.isin(tables.ANSWERED) & both.status_n.isin(tables.ANSWERED)]
    both = both[both.solve_s_o.notna() & both.solve_s_n.notna()]
    if not len(both):
        return None
    median, low, high, slower, faster = ratio_statistics(both.solve_s_o, both.solve_s_n, seed)
    verdict = "ok"
    if median > time_ratio and slower < alpha and low > 1:
        verdict = "REGRESSION"
    elif median < 1 / time_ratio and faster < alpha and high < 1:
        verdict = "improved"
    shown = f"x{median:.3g} [{low:.3g}, {high:.3g}], {p_value(slower)}, {len(both)} pairs"
    return (
        "paired solve ms (median)",
        _ms(both.solve_s_o.median()),
        f"{_ms(both.solve_s_n.median())} ({shown})",
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
    """Judge each (old, new) pair of backends in ``frame`` (one run's rows); each finding
    is labelled with the new backend, its ``baseline`` column the old one's figure."""
    result = GateResult()
    known = deterministic or {}
    frame = same_dataset_names(frame, frame)[0]  # datasets named as the other rows name them
    for old_spec, new_spec in pairs:
        old_rows = frame[frame.backend == old_spec].assign(backend=new_spec)
        new_rows = frame[frame.backend == new_spec]
        judged = compare(old_rows, new_rows, known, tolerance, compare_time=False)
        result.findings += judged.findings
        result.compared += judged.compared
        if not compare_time:
            continue
        old_p, new_p = tables.per_puzzle(old_rows), tables.per_puzzle(new_rows)
        for dataset in sorted(set(old_p.dataset) & set(new_p.dataset)):
            row = time_finding(
                old_p[old_p.dataset == dataset], new_p[new_p.dataset == dataset], time_ratio, alpha
            )
            if row is not None:
                result.findings.append(Finding(new_spec, dataset, *row))
    listed = "; ".join(f"{old} -> {new}" for old, new in pairs)
    result.notes.append(f"paired in one run, old -> new: {listed}")
    if compare_time:
        result.notes.append(
            f"time: per-puzzle ratios new/old, median [95% bootstrap interval]; a regression "
            f"is above x{time_ratio:g}, interval above 1, one-sided Wilcoxon p < {alpha:g}"
        )
    return result


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
    frame = tables.load(path)  # every row checked: a malformed file is one clear line
    meta = provenance.read_meta(path)
    known = list(dict.fromkeys(frame["backend"]))
    if pair is not None:
        pairs = [_split_known(pair, known)]
    else:
        pairs = pairs_in(meta)
        if not pairs:
            raise ResultsError(
                f"{path}: not a run made with --against; give a baseline CSV, or --pair OLD,NEW"
            )
    return compare_pairs(
        frame, pairs, _deterministic_in(meta), tolerance, time_ratio, alpha, compare_time
    )
