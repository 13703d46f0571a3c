"""An UNSAT claim is a right answer only when proven: by the file's count of 0, or by the
harness's own search exhausting the puzzle. A solution found refutes it; a search that runs
out of nodes leaves it unproven, UNKNOWN, never counted correct."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.check import judge
from harness.cli import main
from tests.conftest import PROJECT, pattern_puzzle
from tests.results_file import read_rows


def run(tmp_path: Path, data: Path) -> tuple[int, list[dict[str, str]], dict]:
    """``harness run -b claims-unsat`` on ``data``: exit code, rows, the table's counts
    (summed over its rows: a file of 4x4 and 9x9 puzzles has one a size)."""
    out = tmp_path / "r.csv"
    result = CliRunner().invoke(
        main, ["run", "-q", "-b", "claims-unsat", "--out", str(out), str(data)]
    )
    table = CliRunner().invoke(main, ["table", str(out), "--format", "json"])
    counts = {}
    for row in json.loads(table.output):
        for name in ("solved", "correct", "wrong", "unsat", "unknown"):
            counts[name] = counts.get(name, 0) + row[name]
    return result.exit_code, read_rows(out)[1], counts


def solvable(tmp_path: Path) -> Path:
    data = tmp_path / "p.txt"
    data.write_text("".join(pattern_puzzle(2, 2 + k % 2).to_string() + "\n" for k in range(4)))
    return data


def test_an_unsat_claim_on_a_solvable_puzzle_is_wrong(tmp_path: Path, fake_backends) -> None:
    code, rows, table = run(tmp_path, solvable(tmp_path))
    assert (3, {"WRONG"}) == (code, {r["status"] for r in rows})
    assert all(
        r["message"].startswith("claimed UNSAT, but the harness's own search found") for r in rows
    )
    assert (0, 0, 4) == (table["solved"], table["correct"], table["wrong"])


def test_an_unproven_unsat_claim_is_unknown_never_correct(
    tmp_path: Path, fake_backends, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(judge, "CLAIM_NODES", 1)  # the search gives up at once
    code, rows, table = run(tmp_path, solvable(tmp_path))
    assert (0, {"UNKNOWN"}) == (code, {r["status"] for r in rows})
    assert all(r["message"].startswith("claimed UNSAT, unproven") for r in rows)
    assert (0, 0, 4) == (table["correct"], table["unsat"], table["unknown"])


def test_an_unsat_claim_the_file_confirms_is_correct(tmp_path: Path, fake_backends) -> None:
    code, rows, table = run(tmp_path, PROJECT / "datasets" / "unsolvable.txt")
    assert (0, {"UNSAT"}) == (code, {r["status"] for r in rows})
    assert (len(rows), len(rows)) == (table["correct"], table["unsat"])
