"""Fewer points for a plot of very many, chosen so its picture stays the same, and the
sentence that tells the reader what was left out.

A curve of sorted values (a cactus plot, a distribution) keeps at most :data:`CURVE_POINTS`
of them: half at evenly spaced ranks (the quantiles, where the curve is flat and dense)
and half where the values cross evenly spaced levels on a log scale (the steep tail, where
a few slow puzzles climb orders of magnitude), plus the first, the last and the two on
either side of a limit (the timeout). A scatter plot of more than :data:`DENSITY_ABOVE`
points is drawn as a 2-D density instead (hexagonal bins counting the points in each).
"""

from __future__ import annotations

import numpy as np

from harness.tables.humanize import count

#: The most points one curve keeps.
CURVE_POINTS = 2000
#: Above this many points a scatter plot becomes a 2-D density.
DENSITY_ABOVE = 4000
#: The most WRONG answers a density plot marks one by one.
MARKED = 1000


def curve(values: np.ndarray, limit: float | None = None, points: int = CURVE_POINTS) -> np.ndarray:
    """The indexes (ascending) of the sorted ``values`` a curve of them keeps: every one when
    there are at most ``points``, else about ``points`` of them, always the first and the
    last, and where the values pass ``limit`` the last at or under it and the first over."""
    n = len(values)
    if n <= points:
        return np.arange(n)
    half = (points - 4) // 2
    ranks = np.linspace(0, n - 1, half).round().astype(np.int64)
    keep = [ranks, np.array([0, n - 1])]
    positive = values[values > 0]
    if len(positive) > 1 and positive[-1] > positive[0]:
        levels = np.logspace(np.log10(positive[0]), np.log10(positive[-1]), half)
        keep.append(np.searchsorted(values, levels, side="left").clip(0, n - 1))
    if limit is not None and values[0] <= limit < values[-1]:
        over = int(np.searchsorted(values, limit, side="right"))
        keep.append(np.array([over - 1, over]))
    return np.unique(np.concatenate(keep))


def dense(points: int) -> bool:
    """Whether a scatter plot of ``points`` points is drawn as a 2-D density."""
    return points > DENSITY_ABOVE


def curve_note(what: str, kept: int, total: int, limit: bool = True) -> str:
    """The sentence saying how a curve of ``total`` points was thinned to ``kept`` (with
    ``limit``, a curve drawn against the timeout)."""
    crossing = " and the timeout crossing are" if limit else " are"
    return (
        f"{what}: {count(kept)} of {count(total)} points per backend at most, chosen by "
        "quantile (half at evenly spaced ranks, half where the values cross evenly spaced "
        f"log levels); the extremes{crossing} kept."
    )


def density_note(what: str, total: int, wrong: int = 0, pinned: bool = True) -> str:
    """The sentence saying a scatter plot of ``total`` points is drawn as a density (with
    ``pinned``, unanswered puzzles are among them, at the timeout)."""
    marked = ""
    if wrong:
        shown = min(wrong, MARKED)
        marked = f"; WRONG answers marked one by one ({count(shown)} of {count(wrong)})"
    where = "; unanswered puzzles sit at the timeout" if pinned else ""
    return (
        f"{what}: {count(total)} points drawn as a 2-D density (hexagonal bins; the colour "
        f"is the number of puzzles in a bin, log scale{where}){marked}."
    )
