"""The gate reads results CSVs with the results engine: the rows it refuses, the lines it
names and the verdicts it gives."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness import gate
from harness.exit_codes import CheckExit
from harness.gate.baseline import read
from harness.results import ResultsError
from tests.test_gate import base_times, frame, write_run


@pytest.fixture
def good(tmp_path: Path) -> Path:
    """Five rows of mrv on d.txt with its metadata."""
    return write_run(tmp_path / "good.csv", frame(base_times(5), [10] * 5), 0.001)


def corrupt(good: Path, row: int, column: str, value: str) -> Path:
    """``good`` with one cell of data row ``row`` (0-based) replaced by ``value``."""
    lines = good.read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[row + 1].split(",")
    cells[header.index(column)] = value
    lines[row + 1] = ",".join(cells)
    bad = good.with_name(f"bad-{column}-{row}.csv")
    bad.write_text("\n".join(lines) + "\n")
    return bad


def message(path: Path) -> str:
    """What the gate says of a results CSV it refuses."""
    with pytest.raises(ResultsError) as caught:
        read([path]).close()
    return str(caught.value)


STATUSES = "one of ERROR MEMOUT SOLVED TIMEOUT UNAVAILABLE UNKNOWN UNSAT WRONG"
NUMBER = "a number (finite, zero or more)"


@pytest.mark.parametrize(
    ("row", "column", "value", "said"),
    [
        (3, "status", "DONE", f"status is 'DONE', not {STATUSES}"),
        (1, "status", "", f"status is empty, not {STATUSES}"),
        (2, "line", "-4", "line is '-4', not a whole number below 10^18"),
        (2, "repeat", "1.5", "repeat is '1.5', not a whole number below 10^18"),
        (4, "nodes", "abc", f"nodes is 'abc', not {NUMBER}"),
        (0, "solve_s", "NA", f"solve_s is 'NA', not {NUMBER}"),
        (3, "solve_s", "0.1,extra", "26 field(s), the header has 25"),
    ],
)
def test_a_bad_cell_is_named_with_its_line(
    good: Path, row: int, column: str, value: str, said: str
) -> None:
    """Each corruption: one line naming the file, the line (the header is line 1) and what
    is wrong; a cell that adds a field is a row of too many fields."""
    bad = corrupt(good, row, column, value)
    assert f"{bad}:{row + 2}: {said}" == message(bad)


def test_a_short_row_is_named_with_its_line_and_count(good: Path) -> None:
    """A row of 4 fields in the middle: its line and its count, not its first bad cell."""
    lines = good.read_text().splitlines()
    bad = good.with_name("short.csv")
    bad.write_text("\n".join([*lines[:3], "d.txt,3,p2,mrv", *lines[4:]]) + "\n")
    assert f"{bad}:4: 4 field(s), the header has 25" == message(bad)


def test_a_torn_last_line_is_dropped(good: Path, tmp_path: Path) -> None:
    """A run killed mid-row: its last line (no newline, nodes cut) is not compared, and the
    run is INCOMPLETE (exit 2)."""
    text = good.read_text()
    torn = write_run(tmp_path / "torn.csv", pd.read_csv(good), 0.001)  # and its metadata
    torn.write_text(text + text.splitlines()[-1][:40])
    with read([torn]) as results:
        assert ([5], [True]) == (results.counts, results.torn)
    verdict = gate.check_files(good, torn)
    assert (CheckExit.WRONG, True) == (verdict.exit_code, verdict.incomplete)


def test_the_same_line_with_another_puzzle_is_another_puzzle(tmp_path: Path) -> None:
    """A dataset whose line 3 changed puzzle between the runs: its counters are not paired,
    so a different node count there is no regression, as when rows matched by text."""
    old = frame(base_times(5), [10] * 5)
    new = old.assign(nodes=[10, 10, 99, 10, 10], puzzle=["p0", "p1", "other", "p3", "p4"])
    verdict = gate.compare(old, new, {"mrv": True})
    nodes = [f for f in verdict.findings if f.check == "nodes"]
    assert [("total 40", "ok")] == [(f.baseline, f.verdict) for f in nodes]
