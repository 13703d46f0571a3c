"""A backend's time as both gates judge it: the clock that measures its work, and the load
its solves show.

Both gates pair the puzzles that two runs (or the two sides of a pair) answered, each with
its three clocks (:mod:`harness.gate.clocks`): :class:`Pairs`.

**The clock.** :func:`clock_for` asks :func:`harness.gate.clocks.judging_clock`, with the
larger of the two runs' median CPU over wall (a solver that ran on several threads in
either run is judged on wall); CPU time and the solver's own clock count only where both
runs hold them for every puzzle.

**The load.** A solve's wall time over its CPU time is 1 when its worker had a CPU to
itself, and grows as the scheduler gives that CPU to other work (for a solver on several
threads, its CPU over wall falls instead). Each puzzle gives the ratio of the two runs'
wall/CPU; the load changed when their median moved by more than :data:`LOAD_CHANGE`
either way and beyond the noise of the puzzles: the confidence interval of that median
excludes 1 and a one-sided Wilcoxon test on their logarithms gives p < alpha
(:func:`ratio_statistics`, :func:`direction`). The 10 % keeps out the few per cent two
quiet runs may differ by (significant over many puzzles, meaningless), and a load change
within it cannot alone carry a wall time past either gate's time ratio (x1.1, x1.25).

When the load changed, one line says so, with the wall and CPU ratios: "wall x2.2 but CPU
x1.01: the new run was descheduled (wall/CPU 1.00 -> 2.09)". A finding judged on wall is
then INCONCLUSIVE, never REGRESSION: the wall time moved with the load, and it cannot tell
a slowdown from it. A finding judged on CPU keeps its verdict: CPU time is what the load
does not add to. Load is read only from a backend whose CPU time is its own work (not a
``cmd:`` program's) and that both runs timed on CPU.

**The calibration.** Against a stored baseline the new times are divided by the two runs'
calibration ratio (:func:`harness.gate.baseline.time_judgement`). That corrects for a
machine running at another speed, but it is one workload, and a solver's time need not
move with it in proportion: one CI machine ran the calibration x1.44 slower than the
baseline's while the same code's solves took x1.8 to x2.0 the CPU time. So a slowdown
that remains after the correction and is no larger than the correction itself
(:func:`beyond_calibration`) cannot be told from the machine: it is INCONCLUSIVE, with one
line saying so, never REGRESSION. A slowdown beyond it, or on a machine whose calibration
held, keeps its verdict. ``--against`` compares both sides in one run and needs none of this.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from harness.gate.clocks import CPU, OWN, WALL, in_process, judging_clock

#: A load change moves the median per-puzzle ratio of wall/CPU by more than this factor.
LOAD_CHANGE = 1.10
#: Fewer pairs than this: no test is significant.
MIN_PAIRS = 5
#: The clocks as a time check names them.
SHORT = {CPU: "CPU", OWN: "own", WALL: "wall"}
#: The verdict of a wall-time finding under a load that changed.
INCONCLUSIVE = "INCONCLUSIVE"

#: A gate's time rule: from the old and new times of the puzzles (seconds, the new ones
#: calibrated), the baseline's figure, the new run's, and the verdict.
Rule = Callable[[np.ndarray, np.ndarray], tuple[str, str, str]]


@dataclass
class Pairs:
    """One backend's puzzles on one dataset that both runs answered with a wall time: their
    lines and, per clock, each run's times (seconds, NaN where unknown), in the same order."""

    lines: np.ndarray
    old: dict[str, np.ndarray]
    new: dict[str, np.ndarray]

    def known(self, clock: str) -> bool:
        """Whether both runs hold ``clock`` for every puzzle."""
        return len(self.lines) > 0 and all(np.isfinite(t[clock]).all() for t in self.runs)

    @property
    def runs(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        return self.old, self.new

    def cpu_over_wall(self) -> float | None:
        """The larger of the two runs' median CPU time over wall time (None without CPU)."""
        if not self.known(CPU):
            return None
        return max(_median(t[CPU], t[WALL]) for t in self.runs)


def _median(top: np.ndarray, bottom: np.ndarray) -> float:
    """The median of ``top / bottom`` over the puzzles where both are above 0."""
    keep = (top > 0) & (bottom > 0)
    return float(np.median(top[keep] / bottom[keep])) if keep.any() else math.nan


def clock_for(spec: str, pairs: Pairs) -> str:
    """The column whose times judge backend ``spec`` on these pairs (see the module)."""
    return judging_clock(spec, pairs.cpu_over_wall(), pairs.known(OWN))


def _ratios(old: Sequence[float], new: Sequence[float]) -> np.ndarray:
    """The per-puzzle ratios new / old that are finite and above 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.asarray(new, dtype=float) / np.asarray(old, dtype=float)
    return ratios[np.isfinite(ratios) & (ratios > 0)]


def median_of_ratios(old: Sequence[float], new: Sequence[float]) -> float:
    """The median per-puzzle ratio new / old (NaN without one)."""
    ratios = _ratios(old, new)
    return float(np.median(ratios)) if len(ratios) else math.nan


def ratio_statistics(
    old: Sequence[float], new: Sequence[float], confidence: float = 0.95
) -> tuple[float, float, float, float, float]:
    """For per-puzzle values: the median ratio new / old, its confidence interval (low,
    high; :func:`median_interval`), and the one-sided Wilcoxon p-values that new is larger,
    and that it is smaller."""
    from scipy.stats import wilcoxon  # a second's import: only when there is a test to run

    ratios = _ratios(old, new)
    if not len(ratios):
        return math.nan, math.nan, math.nan, 1.0, 1.0
    median = median_of_ratios(old, new)
    low, high = median_interval(ratios, confidence)
    logs = np.log(ratios)
    if len(ratios) < MIN_PAIRS or not logs.any():
        return median, low, high, 1.0, 1.0
    larger = float(wilcoxon(logs, alternative="greater").pvalue)
    smaller = float(wilcoxon(logs, alternative="less").pvalue)
    return median, low, high, larger, smaller


def median_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """A distribution-free confidence interval for the median of ``values``: the order
    statistics at the binomial ranks around it (exact coverage of at least ``confidence``
    for any continuous distribution; no resampling, so the same values give the same
    interval). NaN for too few values to hold one."""
    from scipy.stats import binom

    ordered = np.asarray(values, dtype=float)
    n = len(ordered)
    k = int(binom.ppf((1 - confidence) / 2, n, 0.5)) if n else 0  # [x_(k), x_(n-k+1)]
    if k < 1 or n - k < k - 1:
        return math.nan, math.nan
    ordered = np.partition(ordered, [k - 1, n - k])
    return float(ordered[k - 1]), float(ordered[n - k])


def direction(statistics: tuple[float, ...], limit: float, alpha: float) -> int:
    """From :func:`ratio_statistics`: 1 when the ratios lie above ``limit`` (the median
    above it, the interval above 1, p < ``alpha``), -1 for the mirror image below
    1 / ``limit``, else 0."""
    median, low, high, larger, smaller = statistics
    if median > limit and larger < alpha and low > 1:
        return 1
    if median < 1 / limit and smaller < alpha and high < 1:
        return -1
    return 0


@dataclass
class Load:
    """Each run's median wall time over CPU time, and whether the load changed."""

    old: float
    new: float
    changed: bool


def load(spec: str, pairs: Pairs, alpha: float) -> Load | None:
    """The two runs' load as backend ``spec``'s solves show it (see the module); None where
    they do not show it."""
    if not in_process(spec) or not pairs.known(CPU):
        return None
    old, new = pairs.old, pairs.new
    keep = (old[CPU] > 0) & (new[CPU] > 0) & (old[WALL] > 0) & (new[WALL] > 0)
    if keep.sum() < MIN_PAIRS:
        return None
    before, after = (t[WALL][keep] / t[CPU][keep] for t in (old, new))
    moved = direction(ratio_statistics(before, after), LOAD_CHANGE, alpha)
    return Load(float(np.median(before)), float(np.median(after)), moved != 0)


def beyond_calibration(ratio: float, scale: float) -> bool:
    """Whether a calibrated time ratio lies beyond what the calibration itself moved by
    (``scale``, either way): only then can a slowdown be told from the machine (see the
    module)."""
    return ratio > max(scale, 1 / scale)


@dataclass
class Judged:
    """A backend's time on one dataset as a gate judged it: the clock, the puzzles' times
    on it (seconds, the new ones calibrated), the finding's figures and verdict, and the
    lines about the load when it changed and about a calibration that cannot tell."""

    clock: str
    old: np.ndarray
    new: np.ndarray
    baseline: str
    shown: str
    verdict: str
    said: list[str]


def judge(
    spec: str,
    pairs: Pairs,
    rule: Rule,
    alpha: float,
    scale: float = 1.0,
    sides: tuple[str, str] = ("the baseline", "the new run"),
) -> Judged:
    """Judge backend ``spec``'s time on ``pairs`` by a gate's ``rule`` on the clock that
    judges it, new times divided by ``scale``; under a load that changed, say so in one
    line (the median per-puzzle ratios on wall and CPU, ``sides`` naming the two runs) and
    make a finding on wall time INCONCLUSIVE; make a slowdown within the calibration's own
    move INCONCLUSIVE, and say so (see the module)."""
    clock = clock_for(spec, pairs)
    old, new = pairs.old[clock], pairs.new[clock] / scale
    baseline, shown, verdict = rule(old, new)
    said = []
    ratio = median_of_ratios(old, new)
    if verdict == "REGRESSION" and not beyond_calibration(ratio, scale):
        verdict = INCONCLUSIVE
        said.append(
            f"{SHORT[clock]} x{ratio:.3g} after calibration, within the calibration's "
            f"own x{scale:.3g}: not told from the machine (--against compares in one run)"
        )
    seen = load(spec, pairs, alpha)
    if seen is not None and seen.changed:
        verdict = INCONCLUSIVE if clock == WALL else verdict
        wall, cpu = (median_of_ratios(pairs.old[c], pairs.new[c] / scale) for c in (WALL, CPU))
        who = sides[1] if seen.new > seen.old else sides[0]
        load_said = f"wall/CPU {seen.old:.2f} -> {seen.new:.2f}"
        if clock == WALL:  # on several threads: CPU above wall, and falling under load
            load_said = f"CPU/wall {1 / seen.old:.2f} -> {1 / seen.new:.2f}"
        said.append(f"wall x{wall:.3g} but CPU x{cpu:.3g}: {who} was descheduled ({load_said})")
    return Judged(clock, old, new, baseline, shown, verdict, said)
