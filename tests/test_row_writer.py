"""RowWriter: the cells it writes, and when buffered rows reach the file."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from backends.base import Status
from harness.results import RowWriter, escape_cell, schema
from harness.results import writer as writer_module
from tests.results_file import read_rows

COLUMNS = schema.columns_for([])


def reference_line(row: dict[str, object]) -> list[str]:
    """The cells the per-cell helpers give: what the writer's inlined loop must match."""
    return [escape_cell(schema.cell_texts([row.get(c)])[0]) for c in COLUMNS]


def test_cells_match_the_per_cell_helpers(tmp_path: Path) -> None:
    """Status, None, float, int, formula-like and quoted text: written as the helpers say."""
    rows = [
        {"status": Status.SOLVED, "message": None, "solve_s": 0.1234567891234, "nodes": 7},
        {"status": Status.WRONG, "message": "=1+1", "solve_s": 1e-12, "host": "-"},
        {"status": "ERROR", "message": "'=x", "nodes": -3, "host": "+h"},
    ]
    path = tmp_path / "rows.csv"
    with RowWriter(path, COLUMNS) as writer:
        for row in rows:
            writer.write(row)
    with path.open(newline="") as f:
        written = list(csv.reader(f))[1:]
    assert [reference_line(r) for r in rows] == written


def test_the_file_holds_what_csv_writer_writes(tmp_path: Path) -> None:
    """Rows that need no quoting and rows that do (a comma, a quote, a line break, a formula
    start inside or at the start of a cell): byte for byte what csv.writer writes."""
    rows = [
        {"dataset": "d.txt", "status": Status.SOLVED, "solve_s": 2.5e-06, "nodes": 7},
        {"dataset": "a,b.txt", "message": "x,=y", "host": "h"},
        {"dataset": "d.txt", "message": 'say "hi"', "nodes": -1},
        {"dataset": "d.txt", "message": "two\nlines", "solution": "@1"},
        {"dataset": "d.txt", "message": "-", "host": "\tx", "puzzle": "+1"},
        {"dataset": "=cmd()", "message": ""},
    ]
    path, expected = tmp_path / "rows.csv", tmp_path / "expected.csv"
    with RowWriter(path, COLUMNS) as writer:
        for row in rows:
            writer.write(row)
    with expected.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(COLUMNS)
        out.writerows(reference_line(row) for row in rows)
    assert expected.read_bytes() == path.read_bytes()


def test_a_buffered_row_reaches_the_file_once_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """flush_stale keeps a row back until it has waited FLUSH_S, then writes it out."""
    path = tmp_path / "rows.csv"
    with RowWriter(path, COLUMNS) as writer:
        monkeypatch.setattr(writer_module, "FLUSH_S", 3600.0)
        writer.write({"status": "SOLVED"})
        writer.flush_stale()
        before = len(read_rows(path)[1])
        monkeypatch.setattr(writer_module, "FLUSH_S", 0.0)
        writer.flush_stale()
        assert (0, 1) == (before, len(read_rows(path)[1]))


def test_a_long_wait_flushes_at_once(tmp_path: Path) -> None:
    """waiting(long=True) writes out every buffered row, however recent."""
    path = tmp_path / "rows.csv"
    with RowWriter(path, COLUMNS) as writer:
        writer.write({"status": "SOLVED"})
        writer.write({"status": "UNSAT"})
        writer.waiting(True)
        assert ["SOLVED", "UNSAT"] == [r["status"] for r in read_rows(path)[1]]
