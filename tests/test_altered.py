"""A results file is vouched for by its run's record of it, or its answers are checked again;
its metadata is checked once, the same way, by every command that reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.results import ResultsError, engine
from harness.results.metadata import problem
from tests.conftest import PROJECT


def invoke(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def run_csv(tmp_path: Path) -> Path:
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "-b", "norvig", "--out", out, PROJECT / "datasets" / "easy.txt")
    assert 0 == result.exit_code, result.output
    return out


def edit_solution(path: Path, row: int) -> None:
    """Change one digit of the solution of data row ``row`` (0: the first), by hand."""
    lines = path.read_bytes().split(b"\r\n")
    cells = lines[row + 1].split(b",")
    at = 12  # solution
    cells[at] = cells[at][:5] + (b"1" if cells[at][5:6] != b"1" else b"2") + cells[at][6:]
    lines[row + 1] = b",".join(cells)
    path.write_bytes(b"\r\n".join(lines))


def test_a_file_its_run_vouches_for_is_not_checked_again(run_csv: Path) -> None:
    with engine.read([run_csv]) as results:
        assert ([], 50) == (
            results.notes,
            results.records("SELECT count(*) AS n FROM rows")[0]["n"],
        )


def test_a_hand_edited_answer_is_wrong_in_every_reading_command(run_csv: Path) -> None:
    edit_solution(run_csv, 2)
    table = invoke("table", run_csv, "--format", "json")
    rows = json.loads(table.stdout)
    assert (0, 49, 1) == (table.exit_code, rows[0]["correct"], rows[0]["wrong"])
    assert "line 4: r1c6 changes the given" in table.stderr.replace("\n    ", " ")
    check = invoke("check", run_csv, run_csv, "--ignore-time")
    assert 2 == check.exit_code  # a WRONG row fails the gate, as a run's own would


def test_a_copy_with_a_new_time_is_still_vouched_for(run_csv: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.csv"
    copy.write_bytes(run_csv.read_bytes())
    (tmp_path / "copy.csv.meta.json").write_bytes(run_csv.with_name("r.csv.meta.json").read_bytes())
    with engine.read([copy]) as results:
        assert [] == results.notes


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"calibration": {"workload": "w", "start_s": 1e-320}}, "calibration.start_s is 1e-320"),
        ({"calibration": {"workload": "w", "start_s": 1e308}}, "calibration.start_s is 1e+308"),
        ({"backends": []}, "backends is empty"),
        ({"jobs": 0}, "jobs is 0"),
        ({"limits": {"timeout_s": 0, "solutions_limit": 1}}, "limits.timeout_s is 0"),
    ],
)
def test_metadata_beyond_its_bounds_is_refused(change: dict, said: str) -> None:
    assert said in (problem(change) or "")


def test_table_refuses_the_metadata_check_refuses(run_csv: Path) -> None:
    meta = run_csv.with_name("r.csv.meta.json")
    data = json.loads(meta.read_text())
    data["calibration"]["start_s"] = 1e308
    meta.write_text(json.dumps(data))
    outcomes = [
        invoke(command, run_csv, *extra) for command, *extra in (("table",), ("check", run_csv))
    ]
    assert [2, 2] == [r.exit_code for r in outcomes]
    assert all("calibration.start_s" in r.stderr for r in outcomes)
    with pytest.raises(ResultsError, match=r"calibration\.start_s"):
        engine.read([run_csv])
