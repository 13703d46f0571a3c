"""CI gate: hand-written backends' answers and node counts match the committed baseline."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import gate
from harness.cli import main
from harness.results import read_rows

PROJECT = Path(__file__).resolve().parents[1]
BASELINE = PROJECT / "results" / "baselines" / "ci-easy.csv"
#: To update on purpose, rerun from the project root and commit both files:
#: harness run -q -b mrv -b ac3 -b dlx -b norvig -b norvig:pairs=true -b logic \
#:     datasets/easy.txt --out results/baselines/ci-easy.csv


def test_baseline_counters_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh run equals the baseline in answers and deterministic counters (time ignored)."""
    monkeypatch.chdir(PROJECT)
    specs = sorted({row["backend"] for row in read_rows(BASELINE)[1]})
    out = tmp_path / "new.csv"
    args = ["run", "-q", *[a for s in specs for a in ("-b", s)], "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "datasets/easy.txt"])
    assert 0 == result.exit_code, result.output
    verdict = gate.check_files(BASELINE, out, compare_time=False)
    assert gate.EXIT_OK == verdict.exit_code, verdict.markdown()
