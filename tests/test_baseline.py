"""CI gate: hand-written backends' answers and node counts match the committed baseline."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import backends
from backends.base import SolveResult
from backends.puzzle import Puzzle
from harness import gate
from harness.cli import main
from harness.exit_codes import CheckExit
from tests.conftest import pattern_puzzle
from tests.fake_backends import _Fake, _pattern_answer
from tests.results_file import read_rows

PROJECT = Path(__file__).resolve().parents[1]
BASELINE = PROJECT / "results" / "baselines" / "ci-easy.csv"
#: To update on purpose, rerun from the project root and commit both files (the .meta.json
#: holds the calibration that makes its times comparable with a later run's):
#: rm results/baselines/ci-easy.*; harness run -q -b mrv -b ac3 -b dlx -b norvig \
#:     -b norvig:pairs=true -b logic datasets/easy.txt --out results/baselines/ci-easy.csv


def test_baseline_counters_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh run equals the baseline in answers and deterministic counters (time ignored)."""
    monkeypatch.chdir(PROJECT)
    specs = sorted({row["backend"] for row in read_rows(BASELINE)[1]})
    out = tmp_path / "new.csv"
    args = ["run", "-q", *[a for s in specs for a in ("-b", s)], "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "datasets/easy.txt"])
    assert 0 == result.exit_code, result.output
    verdict = gate.check_files(BASELINE, out, compare_time=False)
    assert CheckExit.OK == verdict.exit_code, verdict.markdown()


def test_a_run_of_two_backends_holds_against_the_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`harness run -b mrv -b norvig --baseline ci-easy.csv` holds: other backends are not run.
    Time is left out: the baseline's times are another day's, on another machine perhaps
    (time verdicts are tested on runs made side by side, below and in test_verdict.py)."""
    monkeypatch.chdir(PROJECT)
    args = ["run", "-q", "-b", "mrv", "-b", "norvig", "--ignore-time", "--baseline", str(BASELINE)]
    result = CliRunner().invoke(
        main, [*args, "--out", str(tmp_path / "r.csv"), "datasets/easy.txt"]
    )
    assert 0 == result.exit_code, result.output
    assert "| ac3 | easy.txt | present | 50 puzzles | not run | info |" in result.output
    assert "time not judged (--ignore-time)" in result.output


class Busy(_Fake):
    """Solves after ``rounds`` turns of a Python loop (some 10 ms): a backend whose speed a
    test can change, and which the machine's load slows as it slows the calibration's
    workload (a wait on the clock would not be, and its calibrated time would shrink)."""

    name = "busy"
    rounds = 200_000

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        for _ in range(self.rounds):
            pass
        return _pattern_answer(puzzle)


def test_a_real_slowdown_still_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same backend made 8x slower (more than a load change between two short runs can
    hide from their calibration) fails the calibrated gate (exit 1, REGRESSION)."""
    monkeypatch.setitem(backends.REGISTRY, Busy.name, Busy)
    data = tmp_path / "p.txt"
    data.write_text((pattern_puzzle(2, 2).to_string() + "\n") * 12)
    base, new = tmp_path / "base.csv", tmp_path / "new.csv"
    first = CliRunner().invoke(main, ["run", "-q", "-b", "busy", "--out", str(base), str(data)])
    assert 0 == first.exit_code, first.output
    monkeypatch.setattr(Busy, "rounds", 8 * Busy.rounds)
    args = ["run", "-q", "-b", "busy", "--baseline", str(base), "--out", str(new), str(data)]
    result = CliRunner().invoke(main, args)
    assert 1 == result.exit_code, result.output
    assert "| busy | p.txt | median solve CPU ms" in result.output  # its work's clock
