"""``harness history find GOOD BAD``: the first commit where a backend became slower, or its
counters changed, bisected as ``git bisect`` does.

The candidates are the commits after GOOD up to BAD on the paths between them (``git
rev-list --ancestry-path GOOD..BAD``, oldest first). Each step measures the middle candidate
against the last commit known good, the two interleaved puzzle by puzzle in one run
(:mod:`harness.history.measure`), and judges it by the steps :mod:`harness.history.trends`
finds between them: **slower** (a significant time step above 1), **changed** (a counter of
a deterministic backend differs), else **same** (a faster commit is the same for this
search). Slower or changed, the middle is bad and the search goes on before it; else after
it. BAD is measured too when no step judged a commit bad (its neighbour against it), so a
range without a step says so instead of naming BAD.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.history.git import Commit
from harness.history.trends import Step, Trends

SLOWER, CHANGED, SAME = "slower", "changed", "same"


@dataclass
class Verdict:
    """One step of the search: ``commit`` measured against ``good``."""

    commit: Commit
    good: Commit
    verdict: str  # SLOWER, CHANGED or SAME
    steps: list[Step] = field(default_factory=list)  # what changed between the two
    csv: Path | None = None

    @property
    def bad(self) -> bool:
        return self.verdict != SAME

    def record(self) -> dict[str, Any]:
        return {
            "commit": self.commit.sha,
            "against": self.good.sha,
            "verdict": self.verdict,
            "changes": [s.record() for s in self.steps],
            "csv": None if self.csv is None else str(self.csv),
        }

    def line(self, index: int) -> str:
        said = "; ".join(f"{s.backend} on {s.dataset}: {s.said()}" for s in self.steps)
        head = f"step {index}: {self.commit.short} against {self.good.short}: {self.verdict}"
        return head + (f" ({said})" if said else "")


def judge(trends: Trends, good: Commit, commit: Commit) -> tuple[str, list[Step]]:
    """The verdict on ``commit`` against ``good`` from the trends of their run."""
    found = [s for s in trends.steps if s.commit.sha == commit.sha and s.previous.sha == good.sha]
    bad = [s for s in found if s.kind != "time" or (s.ratio or 0) > 1]
    if any(s.kind == "time" for s in bad):
        return SLOWER, bad
    if bad:
        return CHANGED, bad
    return SAME, [s for s in found if s not in bad]


def search(
    good: Commit,
    candidates: Sequence[Commit],
    measure: Callable[[Commit, Commit, int], Verdict],
    report: Callable[[Verdict, int], None] = lambda verdict, index: None,
) -> tuple[Commit | None, list[Verdict]]:
    """The first bad commit of ``candidates`` (oldest first, the last one the known bad),
    and each step's verdict; ``measure(good, commit, index)`` runs and judges one step,
    ``report`` hears of each as it is done."""
    line = [good, *candidates]
    low, high = 0, len(line) - 1
    verdicts: list[Verdict] = []
    high_seen = False

    def step(known: int, tried: int) -> Verdict:
        verdict = measure(line[known], line[tried], len(verdicts) + 1)
        verdicts.append(verdict)
        report(verdict, len(verdicts))
        return verdict

    while high - low > 1:
        middle = (low + high) // 2
        if step(low, middle).bad:
            high, high_seen = middle, True
        else:
            low = middle
    if high > low and not high_seen and not step(low, high).bad:
        return None, verdicts
    return (line[high] if high > low else None), verdicts
