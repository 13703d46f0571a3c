"""The gate reads results CSVs with the results engine: the rows it refuses, the lines it
names and the verdicts it gives."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from harness import gate
from harness.cli import main
from harness.exit_codes import CheckExit
from harness.gate.baseline import read
from harness.results import ResultsError, provenance
from tests.conftest import pattern_puzzle
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


def _probed(path: Path, wall_ms: float, sliced: float, queue: int) -> None:
    """Add to ``path``'s metadata the summary of a load probe, as older runs recorded it."""
    meta_path = provenance.meta_path_for(path)
    meta = json.loads(meta_path.read_text())
    spread = {"min": wall_ms, "q1": wall_ms, "median": wall_ms, "q3": wall_ms, "max": wall_ms}
    meta["conditions"] = {
        "workload": "9-queens by bit operations",
        "every_s": 2.0,
        "samples": 20,
        "usable_cpus": 2,
        "wall_ms": spread,
        "cpu_ms": {**spread, "median": 4.3},
        "cpu_share": {"min": 0.5, "q1": 0.5, "median": 4.3 / wall_ms, "q3": 1.0, "max": 1.0},
        "sliced": sliced,
        "run_queue": {"median": queue, "max": queue},
    }
    meta_path.write_text(json.dumps(meta))


def test_a_load_probe_in_older_metadata_is_read_and_decides_nothing(tmp_path: Path) -> None:
    """Runs whose metadata hold a load probe's summary (the baseline's quiet, the new run's
    busy) are read as any other; a new run 1.8x slower in wall and CPU time alike is a
    REGRESSION, whatever the probe said."""
    times = [0.01 + k * 1e-4 for k in range(30)]
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    slower = [t * 1.8 for t in times]
    grid = {"puzzle": pattern_puzzle(3).to_string(), "solution": pattern_puzzle(3, 0).to_string()}
    write_run(old, frame(times, [10] * 30).assign(solve_cpu_s=times, **grid), 0.001)
    write_run(new, frame(slower, [10] * 30).assign(solve_cpu_s=slower, **grid), 0.001)
    _probed(old, 4.3, 0.0, 1)
    _probed(new, 9.3, 0.9, 6)
    result = CliRunner().invoke(main, ["check", str(old), str(new)])
    assert (CheckExit.REGRESSION, True) == (result.exit_code, "**REGRESSION**" in result.output)
    assert "INCONCLUSIVE" not in result.output
