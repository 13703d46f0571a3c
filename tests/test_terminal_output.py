"""What a person sees at 100 columns: the run summary and `harness backends`."""

from __future__ import annotations

import os
import re
from pathlib import Path

from click.testing import CliRunner

from backends import REGISTRY, backend_class
from harness.cli import main
from tests.conftest import PROJECT, pattern_puzzle

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


def test_the_jobs_note_fits_100_columns(tmp_path: Path) -> None:
    """--jobs as many as the cores: the note on sharing the CPUs is wrapped within 100."""
    puzzles = tmp_path / "one.txt"
    puzzles.write_text(pattern_puzzle(2).to_string() + "\n")
    jobs = str(os.cpu_count() or 1)
    args = ["run", "--jobs", jobs, "--out", str(tmp_path / "r.csv"), str(puzzles)]
    result = CliRunner().invoke(main, args, env={"COLUMNS": "100"})
    note = result.stderr[: result.stderr.index("solving") if "solving" in result.stderr else None]
    assert (0, True, []) == (
        result.exit_code,
        note.startswith(f"note: --jobs {jobs} on"),
        [x for x in result.output.splitlines() if len(x) > 100],
    )


def test_backends_never_splits_a_word() -> None:
    """Each option's choices and each backend's name appear whole (a long list of choices
    is broken after a '|', not inside a name)."""
    result = CliRunner().invoke(main, ["backends"], env={"COLUMNS": "100"})
    words = set(re.split(r"[\s|(),:\[\]]+", result.output))
    expected = {name for name in REGISTRY}
    options = [o for name in REGISTRY for o in backend_class(name).options]
    expected |= {c for o in options for c in o.choices or ()}
    assert (0, set()) == (result.exit_code, expected - words)


def test_backends_names_no_folder_outside_the_project() -> None:
    """The shorthand's legend points at the project's own docs, not at a folder beside it."""
    result = CliRunner().invoke(main, ["backends"], env={"COLUMNS": "100"})
    assert (0, False, True) == (
        result.exit_code,
        "../" in result.output,
        "docs/benchmarks.md" in result.output,
    )


def test_datasets_fits_100_columns() -> None:
    """Every line of `harness datasets` fits 100 columns, a long web address included."""
    result = CliRunner().invoke(main, ["datasets"], env={"COLUMNS": "100"})
    assert (0, []) == (result.exit_code, [x for x in result.output.splitlines() if len(x) > 100])
