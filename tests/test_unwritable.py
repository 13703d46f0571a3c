"""A value a solver reports that no results column holds is that row's ERROR, with the value:
the run goes on, and every reading command, ``--resume`` included, reads the file back."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from tests.conftest import pattern_puzzle
from tests.results_file import read_rows

SOLVER = """
import sys
print("READY", flush=True)
for line in sys.stdin:
    print("SOLVED {solution} {stats}", flush=True)
"""


def solver(tmp_path: Path, stats: str) -> str:
    """The ``-b`` spec of a ``cmd:`` solver that answers right, with ``stats`` appended."""
    script = tmp_path / "solver.py"
    script.write_text(SOLVER.format(solution=pattern_puzzle(2, 0).to_string(), stats=stats))
    return f"cmd:{sys.executable} {script}"


@pytest.mark.parametrize(
    ("stats", "shown"),
    [
        ("solutions=128", "128"),
        (f"solutions={2**63 - 1}", str(2**63 - 1)),
        (f"nodes={10**400}", "nodes=" + "1" + "0" * 39),
    ],
)
def test_a_value_past_its_column_is_an_error_row(stats: str, shown: str, tmp_path: Path) -> None:
    data = tmp_path / "p.txt"
    data.write_text(pattern_puzzle(2, 1).to_string() + "\n")
    out = tmp_path / "r.csv"
    run = CliRunner().invoke(
        main, ["run", "-q", "-b", solver(tmp_path, stats), "--out", str(out), str(data)]
    )
    rows = read_rows(out)[1]
    assert (4, ["ERROR"]) == (run.exit_code, [r["status"] for r in rows]), run.output
    assert shown in rows[0]["message"]
    table = CliRunner().invoke(main, ["table", str(out), "--format", "json"])
    resume = CliRunner().invoke(
        main, ["run", "-q", "-b", solver(tmp_path, stats), "--resume", "--out", str(out), str(data)]
    )
    assert (0, 4, 1) == (table.exit_code, resume.exit_code, len(read_rows(out)[1]))
