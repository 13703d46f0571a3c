"""The gate reads results CSVs by columns: the rows it refuses, the lines it names and the
verdicts it gives are those of reading every row."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harness import gate
from harness.exit_codes import CheckExit
from harness.gate.baseline import read_frame
from harness.results import ResultsError, read_results
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


def message(call, path: Path) -> str:
    with pytest.raises(ResultsError) as caught:
        call(path)
    return str(caught.value)


@pytest.mark.parametrize(
    ("row", "column", "value"),
    [
        (3, "status", "DONE"),
        (1, "status", ""),
        (2, "line", "-4"),
        (2, "repeat", "1.5"),
        (4, "nodes", "abc"),
        (0, "solve_s", "NA"),
        (3, "solve_s", "0.1,extra"),
    ],
)
def test_a_bad_cell_is_named_as_reading_every_row_names_it(
    good: Path, row: int, column: str, value: str
) -> None:
    """Each corruption: the same one line as read_results gives (file, line, reason)."""
    bad = corrupt(good, row, column, value)
    assert message(read_results, bad) == message(read_frame, bad)


def test_a_short_row_is_named_as_reading_every_row_names_it(good: Path) -> None:
    """A row of 4 fields in the middle: the same line and count."""
    lines = good.read_text().splitlines()
    bad = good.with_name("short.csv")
    bad.write_text("\n".join([*lines[:3], "d.txt,3,p2,mrv", *lines[4:]]) + "\n")
    assert message(read_results, bad) == message(read_frame, bad)


def test_a_torn_last_line_is_dropped(good: Path, tmp_path: Path) -> None:
    """A run killed mid-row: its last line (no newline, nodes cut) is not compared."""
    text = good.read_text()
    torn = write_run(tmp_path / "torn.csv", pd.read_csv(good), 0.001)  # and its metadata
    torn.write_text(text + text.splitlines()[-1][:40])
    assert 5 == len(read_frame(torn))
    assert CheckExit.OK == gate.check_files(good, torn).exit_code


def test_the_same_line_with_another_puzzle_is_another_puzzle(tmp_path: Path) -> None:
    """A dataset whose line 3 changed puzzle between the runs: its counters are not paired,
    so a different node count there is no regression, as when rows matched by text."""
    old = frame(base_times(5), [10] * 5)
    new = old.assign(nodes=[10, 10, 99, 10, 10], puzzle=["p0", "p1", "other", "p3", "p4"])
    verdict = gate.compare(old, new, {"mrv": True})
    nodes = [f for f in verdict.findings if f.check == "nodes"]
    assert [("total 40", "ok")] == [(f.baseline, f.verdict) for f in nodes]
