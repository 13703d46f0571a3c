"""A run's rows as compact columns: failure lines, the cross-check over them, cells changed."""

from __future__ import annotations

from pathlib import Path

from harness.results.compact import STATUSES, CompactRows

from harness.check.crosscheck import cross_check
from harness.results.writer import RowWriter
from tests.results_file import read_rows

COLUMNS = ["dataset", "line", "puzzle", "backend", "repeat", "limit", "status", "message"]


def row(line: int, backend: str, status: str, message: str = "") -> dict[str, object]:
    return {"dataset": "d.txt", "line": line, "puzzle": f"p{line}", "backend": backend} | {
        "repeat": 0,
        "limit": 1,
        "status": status,
        "message": message,
    }


def test_failure_lines_name_the_most_common_reason() -> None:
    """One line per failing status: its count and its most common message, numbers aside."""
    rows = CompactRows(limit=1)
    for line, message in enumerate(["died at 3 s", "died at 5 s", "no memory"], start=1):
        rows.add(row(line, "a", "ERROR", message))
    rows.add(row(4, "a", "SOLVED"))
    assert ["ERROR: 3 row(s); most common reason (2): died at 3 s"] == rows.failure_lines()
    assert {"ERROR", "SOLVED"} == rows.present()


def test_an_unsat_claim_another_backend_refutes_is_wrong(tmp_path: Path) -> None:
    """UNSAT where another backend's checked answer exists: WRONG in the columns and the CSV."""
    path = tmp_path / "r.csv"
    rows = CompactRows(limit=1)
    with RowWriter(path, COLUMNS, compact=rows) as writer:
        for line, backend, status in [(1, "a", "SOLVED"), (1, "b", "UNSAT"), (2, "b", "UNSAT")]:
            writer.write(row(line, backend, status))
        writer.flush()
        verdicts = cross_check(rows)
        writer.change(verdicts)
    reason = "claimed UNSAT, but a found a checked solution"
    assert {1: {"status": "WRONG", "message": reason}} == verdicts
    assert ["SOLVED", "WRONG", "UNSAT"] == [STATUSES[code] for code in rows.status]
    assert [("SOLVED", ""), ("WRONG", reason), ("UNSAT", "")] == [
        (r["status"], r["message"]) for r in read_rows(path)[1]
    ]


def test_new_columns_widen_the_file_and_keep_its_rows(tmp_path: Path) -> None:
    """A column first met mid-run: the header widens, earlier rows get an empty cell."""
    path = tmp_path / "r.csv"
    with RowWriter(path, COLUMNS, compact=CompactRows(limit=1)) as writer:
        writer.write(row(1, "a", "SOLVED"))
        writer.add_columns(["updates"])
        writer.write(row(2, "a", "SOLVED") | {"updates": 7})
    header, rows = read_rows(path)
    assert ([*COLUMNS, "updates"], ["", "7"]) == (header, [r["updates"] for r in rows])


def test_spilled_columns_read_back_in_row_order(monkeypatch) -> None:
    """Columns spilled to their files every 3 rows, read 4 at a time, give back every row in
    order, in pieces of 4 rows; a native column first met at row 5 reads NaN before it."""
    import numpy as np

    from harness.results import compact

    monkeypatch.setattr(compact, "BLOCK", 3)
    monkeypatch.setattr(compact, "READ", 4)
    rows = CompactRows(limit=1)
    for line in range(1, 11):
        if line == 5:
            rows.add_native(["updates"])
        status = "SOLVED" if line % 2 else "TIMEOUT"
        rows.add(row(line, "ab"[line % 2], status) | {"solve_s": line / 10, "updates": line})
    solve, updates = rows.column("solve_s"), rows.column("updates")
    assert list(range(1, 11)) == rows.codes("line").tolist()
    assert [0, 1] * 5 == rows.codes("backend").tolist()  # b first met, then a
    assert [0.1, 0.3, 0.5, 0.7, 0.9] == solve.array()[::2].tolist()
    assert [5.0, 6.0, 7.0, 8.0, 9.0, 10.0] == updates.array()[4:].tolist()
    assert np.isnan(updates.array()[:4]).all()
    lines = [piece.tolist() for piece in rows.spilled["line"].pieces()]
    assert [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]] == lines  # READ rows each, as in memory
    assert (9, 8.0) == (rows.spilled["line"][8], updates[7])
    assert {"TIMEOUT"} == rows.present(excluding={"b"})
