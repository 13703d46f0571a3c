"""The order of a run (harness.run.plan): the backends shuffled with the seed, each pair of
an --against run as one place in that order, old first on one puzzle and new first on the next."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from backends.mrv import MrvBackend
from harness.puzzles.readers import PuzzleRecord
from harness.run.config import BackendChoice, RunConfig
from harness.run.plan import plan
from tests.conftest import pattern_puzzle

PAIRS = {"mrv@HEAD": "mrv", "norvig@HEAD": "norvig"}
SPECS = ["mrv", "norvig", "dlx", "bitmask", "mrv@HEAD", "norvig@HEAD"]


def records(count: int) -> list[PuzzleRecord]:
    return [PuzzleRecord("d.txt", k + 1, pattern_puzzle(3), None, None, "") for k in range(count)]


def config(pairs: dict[str, str] | None, repeat: int = 1) -> RunConfig:
    choices = [BackendChoice(spec, MrvBackend, None) for spec in SPECS]
    against = None if pairs is None else {"rev": "HEAD", "pairs": pairs}
    return RunConfig(choices, Path("run.csv"), repeat=repeat, seed=3, against=against)


def solves(pairs: dict[str, str] | None, repeat: int) -> dict[tuple[int, int], list[str]]:
    """Each (line, repeat)'s timed solves, in run order."""
    order: dict[tuple[int, int], list[str]] = defaultdict(list)
    for record, spec, at, warmup in plan(records(12), config(pairs, repeat)):
        if not warmup:
            order[(record.line, at)].append(spec)
    return order


def test_each_pair_runs_its_two_solves_together_old_and_new_first_by_puzzle() -> None:
    """Two pairs and two lone backends, 12 puzzles, 2 repeats: on every puzzle and repeat
    each pair's solves are adjacent, the old one first on both repeats of the first puzzle,
    the new one first on both of the next, and so on; where the pairs and the lone backends
    stand still varies."""
    order = solves(PAIRS, repeat=2)
    firsts: dict[str, list[str]] = defaultdict(list)
    for specs in order.values():
        assert sorted(SPECS) == sorted(specs)
        for old, new in PAIRS.items():
            at = specs.index(old), specs.index(new)
            assert 1 == abs(at[0] - at[1]), specs
            firsts[new].append("old" if at[0] < at[1] else "new")
    alternating = ["old", "old", "new", "new"] * 6
    assert {"mrv": alternating, "norvig": alternating} == firsts
    places = {tuple(s for s in specs if "@" not in s) for specs in order.values()}
    assert len(places) > 4
