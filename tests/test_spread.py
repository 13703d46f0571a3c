"""With --repeat, the tables show the spread of the repeats and the CPU time beside the wall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.results import engine
from harness.tables import render, stats
from tests.results_file import write_rows

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


def written(path: Path, repeats: dict[int, list[tuple[str, float, float]]]) -> Path:
    """The CSV ``path`` holding the rows of ``repeats``."""
    rows = [
        row(line, repeat, *run) for line, runs in repeats.items() for repeat, run in enumerate(runs)
    ]
    return write_rows(path, rows)


def summary(path: Path) -> list[dict[str, object]]:
    with engine.read([path]) as results:
        return stats.summary(results.con)


def table_json(path: Path) -> list[dict[str, object]]:
    """``harness table --format json`` of the CSV ``path``."""
    result = CliRunner().invoke(main, ["table", "--format", "json", str(path)])
    assert 0 == result.exit_code, result.output
    return json.loads(result.output)


def test_the_summary_and_harness_table_show_the_spread_and_cpu(tmp_path: Path) -> None:
    """Puzzle 1's repeats (1-4 ms) spread 60 % of their median, puzzle 2's answered ones (10,
    10, 10, 20 ms) 25 %: the table gives their median, 42.5 %, the median fastest repeat
    5.5 ms, the median CPU 3.125 ms; the summary and harness table alike."""
    path = written(tmp_path / "r.csv", REPEATS)
    columns = ("median_ms", "cpu_ms", "spread_pct", "min_ms")
    direct = {c: round(summary(path)[0][c], 9) for c in columns}
    printed = {c: round(table_json(path)[0][c], 9) for c in columns}  # type: ignore[arg-type]
    expected = {"median_ms": 6.25, "cpu_ms": 3.125, "spread_pct": 42.5, "min_ms": 5.5}
    assert (expected, expected) == (direct, printed)


def test_the_spread_of_each_puzzle_leaves_out_unanswered_repeats(tmp_path: Path) -> None:
    """Per puzzle: the interquartile range over the median and the fastest of the answered
    repeats (puzzle 2's TIMEOUT left out); a puzzle with one answered repeat has none."""
    repeats = {**REPEATS, 3: [("SOLVED", 0.005, 0.001), ("TIMEOUT", 1.0, 1.0)]}
    with engine.read([written(tmp_path / "r.csv", repeats)]) as results:
        stats.per_puzzle(results.con)
        got = results.con.execute(
            "SELECT line, solve_spread, solve_fastest FROM puzzles ORDER BY line"
        ).fetchall()
        spread = stats.repeat_spread(results.con, "puzzles")
    assert [(1, 0.6, 0.001), (2, 0.25, 0.01), (3, None, None)] == [
        (line, None if s is None else pytest.approx(s), f) for line, s, f in got
    ]
    assert [{"backend": "b", "spread_pct": 42.5, "min_ms": 5.5}] == [
        {k: v if isinstance(v, str) else round(v, 9) for k, v in r.items()} for r in spread
    ]


def test_without_repeats_only_the_cpu_time_is_added(tmp_path: Path) -> None:
    """One row per puzzle: a CPU column, no spread columns, in the summary and harness
    table's JSON."""
    first = {line: runs[:1] for line, runs in REPEATS.items()}
    path = written(tmp_path / "r.csv", first)
    direct, printed = summary(path)[0], table_json(path)[0]
    got = (direct["median_ms"], "cpu_ms" in direct, "spread_pct" in direct)
    assert (5.5, True, False) == got
    assert (2.75, False) == (printed["cpu_ms"], "min_ms" in printed)


def test_the_printed_table_fits_100_columns_and_names_the_spread(tmp_path: Path) -> None:
    """The text table, in parts of at most 100 characters, has the new headers; the CSV
    output of harness table keeps the new columns."""
    path = written(tmp_path / "r.csv", REPEATS)
    text = render.render(summary(path))
    widest = max(len(line) for line in text.splitlines())
    headers = [h for h in ("cpu ms", "repeat IQR %", "min repeat ms") if h in text]
    result = CliRunner().invoke(main, ["table", "--format", "csv", str(path)])
    header = result.output.splitlines()[0].split(",")
    assert (True, 3) == (widest <= 100, len(headers))
    at = header.index("median_ms")
    assert ["median_ms", "cpu_ms", "wall_cpu", "spread_pct", "min_ms"] == header[at : at + 5]
