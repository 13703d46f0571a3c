"""What a person sees at 100 columns: the run summary and `harness backends`."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from harness.cli import main
from tests.conftest import PROJECT

SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")


def test_run_summary_fits_100_columns_without_exponents(tmp_path: Path) -> None:
    """Six backends with native statistics on three hard puzzles: no line over 100, no 1e-05."""
    puzzles = tmp_path / "three.txt"
    lines = (PROJECT / "datasets" / "hard95.txt").read_text().splitlines()
    puzzles.write_text("\n".join([x for x in lines if x and not x.startswith("#")][:3]) + "\n")
    backends = [a for b in ("mrv", "dlx", "norvig", "logic", "ac3", "pycosat") for a in ("-b", b)]
    args = ["run", "-q", *backends, "--out", str(tmp_path / "r.csv"), str(puzzles)]
    result = CliRunner().invoke(main, args, env={"COLUMNS": "100"})
    output = result.output.splitlines()
    assert (0, [], []) == (
        result.exit_code,
        [x for x in output if len(x) > 100],
        [x for x in output if SCIENTIFIC.search(x)],
    )
    header = next(x for x in output if x.startswith("backend"))
    assert "\N{MULTIPLICATION SIGN} fastest" in header
    assert "correct" in header


def test_backends_fits_100_columns_and_explains_its_shorthand() -> None:
    """Every line of `harness backends` fits; the legend names seed 000 and A-1."""
    result = CliRunner().invoke(main, ["backends"], env={"COLUMNS": "100"})
    assert (0, []) == (result.exit_code, [x for x in result.output.splitlines() if len(x) > 100])
    assert "'seed 000'" in result.output
    assert "A-1/A-2" in result.output
