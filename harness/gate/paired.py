"""The paired gate: two backends of one run, old against new, puzzle by puzzle.

Used by ``harness run --against REV`` (each ``SPEC@REV`` against ``SPEC``) and by ``harness
check RUN.csv --pair OLD,NEW`` (two ``cmd:`` builds, two plugin versions, two option sets).
Both ran in one run, their solves interleaved puzzle by puzzle, so whatever load the machine
had fell on both alike: their times compare directly, with no calibration.

Answers and counters are judged by the rules of :mod:`harness.gate.baseline` (rules 1 to 3,
the old backend's rows standing as the baseline). Time is judged on the clock that
measures the backend's work, as against a baseline (:mod:`harness.gate.timing`), by the
per-puzzle ratios new / old of the median time over repeats:

- a one-sided Wilcoxon signed-rank test on their logarithms (is new slower?), ``p``;
- a distribution-free confidence interval for their median (order statistics at binomial
  ranks: the same rows give the same verdict);
- REGRESSION when the median ratio exceeds ``time_ratio`` (default
  :data:`PAIRED_TIME_RATIO`), ``p < alpha`` and the whole interval lies above 1;
  "improved" for the mirror image; "ok" otherwise.

When one side's wall/CPU ratio moved from the other's beyond its noise (one side was
descheduled more), one line says so, and a finding on wall time is INCONCLUSIVE.

Exit codes are those of the baseline gate, :class:`harness.exit_codes.CheckExit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from harness.gate import timing
from harness.gate.baseline import (
    GateResult,
    deterministic_in,
    incomplete_notes,
    judge,
    p_value,
    read,
    timed_pairs,
)
from harness.gate.timing import ratio_statistics
from harness.results import completeness, engine, provenance
from harness.results.schema import ResultsError
from harness.tables.stats import literal

if TYPE_CHECKING:
    import duckdb

#: A paired slowdown must exceed this median ratio to count: pairs measured in one run are
#: free of the day-to-day noise the baseline gate's 1.25 allows for.
PAIRED_TIME_RATIO = 1.10
#: The two sides of a pair, as the line about their load names them.
SIDES = ("the old side", "the new side")


def pairs_in(meta: dict | None) -> list[tuple[str, str]]:
    """The (old, new) specs a run made with ``--against`` holds, from its metadata."""
    against = (meta or {}).get("against")
    if not isinstance(against, dict) or not isinstance(against.get("pairs"), dict):
        return []
    return [(str(old), str(new)) for old, new in against["pairs"].items()]


def time_rule(time_ratio: float, alpha: float) -> timing.Rule:
    """The time rule of a pair on one dataset, from the times (old, new) of the puzzles
    both answered: the old median (ms), the new one with the ratio's statistics, the verdict."""

    def rule(old: np.ndarray, new: np.ndarray) -> tuple[str, str, str]:
        statistics = ratio_statistics(old, new)
        median, low, high, slower, _ = statistics
        verdict = {1: "REGRESSION", -1: "improved", 0: "ok"}[
            timing.direction(statistics, time_ratio, alpha)
        ]
        shown = f"x{median:.3g} [{low:.3g}, {high:.3g}], {p_value(slower)}, {len(old)} pairs"
        return _ms(float(np.median(old))), f"{_ms(float(np.median(new)))} ({shown})", verdict

    return rule


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
    only_common: bool = False,
) -> GateResult:
    """Judge each (old, new) pair of backends in ``source`` (one run's rows, a table, view
    or registered frame of ``con``); each finding is labelled with the new backend, its
    ``baseline`` column the old one's figure. With ``only_common`` (a run that stopped
    early), only the puzzles both sides reached."""
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
            con,
            "paired_old",
            "paired_new",
            deterministic,
            tolerance,
            compare_time=False,
            only_common=only_common,
            common_note=False,
        )
        result.findings += judged.findings
        result.compared += judged.compared
        if not compare_time:
            continue
        rule = time_rule(time_ratio, alpha)
        for (_, dataset), puzzles in sorted(timed_pairs(con).items()):
            time = timing.judge(new_spec, puzzles, rule, alpha, sides=SIDES)
            check = f"paired solve {timing.SHORT[time.clock]} ms (median)"
            result.timed(new_spec, dataset, check, puzzles, time)
    listed = "; ".join(f"{old} -> {new}" for old, new in pairs)
    result.notes.append(f"paired in one run, old -> new: {listed}")
    if compare_time:
        result.notes.append(
            f"time: per-puzzle ratios new/old, median [95% interval]; a regression "
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
        run = completeness.of(results, 0)
        result = judge_pairs(
            results.con,
            "file_0",
            pairs,
            deterministic_in(meta),
            tolerance,
            time_ratio,
            alpha,
            compare_time,
            only_common=run.incomplete,
        )
    result.incomplete = run.incomplete
    result.notes[:0] = [*incomplete_notes(run, meta, "the run"), *results.notes]
    return result
