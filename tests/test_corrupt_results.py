"""Corrupt results CSVs and metadata through every reading command: one line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.exit_codes import CheckExit, RunExit
from tests.corrupt_corpus import BIG, VARIANTS, csv_text, good_rows, write_run

#: Variants every reading command takes as a results CSV (the others are refused).
READABLE = {
    "blank line between rows",  # DuckDB skips a blank line; no row is lost or changed
    "torn last row",
    "torn last row in a key",
    "CRLF line ends",
    "byte order mark",
    "reordered columns",
    "required columns only",
    "a 300 KB field",
    "a 300 KB message",
    "a 300 KB puzzle",
    "limit of 0",
    "solve_s empty",
    "guesses of 2^64",
    "nodes of 2^70",
    "guesses of 2^64 in every row",
    "backtracks of 1.5",
    "solution too short",
    "dataset formula",
    "backend formula",
    "native column of 2^64",
    "native column of inf",
    "native column of text",
}
#: Variants with no result rows: ``check`` judges them (every baseline row is missing).
EMPTY = {"empty file", "header only", "torn header", "torn first row", "only blank lines"}
EMPTY |= {"only whitespace"}


def invoke(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def commands(base: Path, bad: Path, folder: Path) -> dict[str, list[object]]:
    return {
        "table": ["table", bad],
        "check new": ["check", base, bad],
        "check baseline": ["check", bad, base],
        "report": ["report", bad, "-o", folder / "r.html"],
        "plot": ["plot", "cactus", bad, "-o", folder / "p.svg"],
    }


def outcome(result, name: str) -> tuple[object, ...]:
    """(no traceback, exit code class, and for a refusal: one line naming the file)."""
    clean = result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    if result.exit_code in (0, CheckExit.REGRESSION) or (result.stdout and not lines):
        return clean, "done"
    one_line = len(lines) == 1 and lines[0].startswith("harness: error: ")
    return clean, result.exit_code, one_line, name in lines[-1] if lines else False


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_reading_command_refuses_in_one_line(variant: str, tmp_path: Path) -> None:
    """table, check (both ways), report, plot: a readable variant works, another is exit 2
    with one line naming the file; never a traceback."""
    base = write_run(tmp_path / "base.csv")
    data, meta = VARIANTS[variant]()
    bad = write_run(tmp_path / "x.csv", data, meta)
    of_meta = variant.startswith("meta")  # every command reads the metadata, table too
    for command, args in commands(base, bad, tmp_path).items():
        result = invoke(*args)
        name = "x.csv.meta.json" if of_meta else "x.csv"
        done = variant in READABLE or (
            not of_meta and variant in EMPTY and command.startswith("check")
        )
        expected = (True, "done") if done else (True, RunExit.USAGE, True, True)
        assert (command, *expected) == (command, *outcome(result, name))


def test_a_counter_past_64_bits_is_a_big_number(tmp_path: Path) -> None:
    """guesses=2^64 reads as a number: the table's JSON gives its median as one."""
    rows = good_rows()
    for row in rows:
        row["guesses"] = BIG
    csv = write_run(tmp_path / "big.csv", csv_text(rows).encode())
    result = invoke("table", csv, "--format", "json")
    got = {r["backend"]: r["guesses_per_puzzle"] for r in json.loads(result.output)}
    assert (0, {"norvig": 2**64, "naive": 2**64}) == (result.exit_code, got)


def test_a_torn_last_row_is_no_regression(tmp_path: Path) -> None:
    """A row torn by a kill mid-write is dropped by check, and the run is INCOMPLETE (exit
    2), not a regression against itself."""
    base = write_run(tmp_path / "base.csv")
    text = base.read_text()
    torn = write_run(tmp_path / "torn.csv", (text + text.splitlines()[1][:120]).encode())
    result = invoke("check", base, torn, "--ignore-time")
    assert (CheckExit.WRONG, "") == (result.exit_code, result.stderr)
    assert "INCOMPLETE" in result.stdout and "REGRESSION" not in result.stdout


def test_a_torn_last_row_is_not_in_the_table(tmp_path: Path) -> None:
    """The table of a file with a torn last row counts the whole rows only."""
    base = write_run(tmp_path / "base.csv")
    text = base.read_text()
    torn = write_run(tmp_path / "torn.csv", (text + text.splitlines()[1][:120]).encode())
    rows = json.loads(invoke("table", torn, "--format", "json").output)
    assert [4, 4] == [r["puzzles"] for r in rows]
