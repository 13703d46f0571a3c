"""With --repeat, the tables show the spread of the repeats and the CPU time beside the wall."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from harness.results.compact import CompactRows

from harness.cli import main
from harness.results import columns_for
from harness.results.writer import RowWriter
from harness.tables import render, summary

#: Per puzzle line: (status, solve_s, solve_cpu_s) of each repeat, in repeat order.
REPEATS = {
    1: [
        ("SOLVED", 0.001, 0.0005),
        ("SOLVED", 0.002, 0.001),
        ("SOLVED", 0.003, 0.0015),
        ("SOLVED", 0.004, 0.002),
    ],
    2: [
        ("SOLVED", 0.010, 0.005),
        ("SOLVED", 0.010, 0.005),
        ("SOLVED", 0.010, 0.005),
        ("SOLVED", 0.020, 0.01),
        ("TIMEOUT", 1.0, 1.0),  # not an answer: not in the spread
    ],
}


def row(line: int, repeat: int, status: str, wall: float, cpu: float) -> dict[str, object]:
    """One row of backend ``b`` on dataset ``d.txt``."""
    return {"dataset": "d.txt", "line": line, "puzzle": f"p{line}", "backend": "b"} | {
        "repeat": repeat,
        "limit": 1,
        "size": 9,
        "status": status,
        "solutions": 1 if status == "SOLVED" else 0,
        "encode_s": 0.0001,
        "solve_s": wall,
        "solve_cpu_s": cpu,
        "nodes": 5,
        "guesses": 0,
    }


def written(path: Path, repeats: dict[int, list[tuple[str, float, float]]]) -> CompactRows:
    """The rows written to the CSV ``path``, and as the run keeps them."""
    rows = CompactRows(limit=1)
    with RowWriter(path, columns_for([]), compact=rows) as writer:
        for line, runs in repeats.items():
            for repeat, (status, wall, cpu) in enumerate(runs):
                writer.write(row(line, repeat, status, wall, cpu))
    return rows


def table_json(path: Path) -> list[dict[str, object]]:
    """``harness table --format json`` of the CSV ``path``."""
    result = CliRunner().invoke(main, ["table", "--format", "json", str(path)])
    assert 0 == result.exit_code, result.output
    return json.loads(result.output)


def test_the_run_and_harness_table_show_the_same_spread_and_cpu(tmp_path: Path) -> None:
    """Puzzle 1's repeats (1-4 ms) spread 60 % of their median, puzzle 2's answered ones (10,
    10, 10, 20 ms) 25 %: the table gives their median, 42.5 %, the median fastest repeat
    5.5 ms, the median CPU 3.125 ms; from the run's columns as from the CSV."""
    path = tmp_path / "r.csv"
    run = summary.summary(summary.run_puzzles(written(path, REPEATS)))
    columns = ("median_ms", "cpu_ms", "spread_pct", "min_ms")
    from_run = {c: round(run[0][c], 9) for c in columns}
    from_csv = {c: round(table_json(path)[0][c], 9) for c in columns}  # type: ignore[arg-type]
    expected = {"median_ms": 6.25, "cpu_ms": 3.125, "spread_pct": 42.5, "min_ms": 5.5}
    assert (expected, expected) == (from_run, from_csv)


def test_without_repeats_only_the_cpu_time_is_added(tmp_path: Path) -> None:
    """One row per puzzle: a CPU column, no spread columns, in the run's table and in the
    CSV's."""
    path = tmp_path / "r.csv"
    first = {line: runs[:1] for line, runs in REPEATS.items()}
    run = summary.summary(summary.run_puzzles(written(path, first)))
    from_csv = table_json(path)[0]
    assert (5.5, True, False) == (run[0]["median_ms"], "cpu_ms" in run[0], "spread_pct" in run[0])
    assert (2.75, False) == (from_csv["cpu_ms"], "min_ms" in from_csv)


def test_the_printed_table_fits_100_columns_and_names_the_spread(tmp_path: Path) -> None:
    """The text table, in parts of at most 100 characters, has the new headers; the CSV
    output of harness table keeps the new columns."""
    path = tmp_path / "r.csv"
    text = render.render(summary.summary(summary.run_puzzles(written(path, REPEATS))))
    widest = max(len(line) for line in text.splitlines())
    headers = [h for h in ("cpu ms", "repeat IQR %", "min repeat ms") if h in text]
    result = CliRunner().invoke(main, ["table", "--format", "csv", str(path)])
    header = result.output.splitlines()[0].split(",")
    assert (True, 3) == (widest <= 100, len(headers))
    at = header.index("median_ms")
    assert ["median_ms", "cpu_ms", "spread_pct", "min_ms"] == header[at : at + 4]


def test_puzzle_codes_are_the_sorted_puzzles_whatever_the_lines() -> None:
    """Rows of two datasets and two backends, lines close together or far apart: each row's
    code is the rank of its (dataset, line) among the puzzles, as sorting them gives."""
    for lines in ([3, 1, 2], [3, 1, 10**7]):
        rows = CompactRows(limit=1)
        for dataset in ("d.txt", "e.txt"):
            for line in lines:
                for backend in ("a", "b"):
                    cells = {"dataset": dataset, "backend": backend}
                    rows.add(row(line, 0, "SOLVED", 0.001, 0.001) | cells)
        got = summary._puzzle_codes(rows)
        ids = rows.puzzle_ids()
        expected = sorted(set(ids.tolist()))
        assert expected == got.labels.tolist()
        assert [expected.index(i) for i in ids.tolist()] == got.codes.tolist()
