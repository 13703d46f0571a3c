"""The results engine (harness.results.engine): every rule of a results CSV, line numbers
that point at the bad row, torn rows dropped, several files at once, native statistics,
escaped text, what --resume reads; and what a run does with the rows it reads back."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import backends
from backends.base import SolveResult, Status
from backends.puzzle import Puzzle
from harness.check.crosscheck import cross_check
from harness.cli import main
from harness.results import BASE_COLUMNS, FORMULA_STARTS, ResultsError, RowWriter, engine
from harness.results.schema import escape_cell
from harness.tables import render, stats
from tests.conftest import pattern_puzzle
from tests.corrupt_corpus import BIG, csv_text, good_rows
from tests.fake_backends import _Fake
from tests.results_file import read_rows

STATUSES = " ".join(sorted(s.value for s in Status))
#: A message a CSV must quote: a comma, quotes, line breaks, a blank line.
AWKWARD = 'said "no", then\nstopped\n\nat 3 s'


def refusal(path: Path, **kwargs: Any) -> str:
    """The one line :func:`engine.read` refuses ``path`` with."""
    with pytest.raises(ResultsError) as caught:
        engine.read([path], **kwargs).close()
    return str(caught.value)


def records(path: Path, query: str = "SELECT * EXCLUDE (run) FROM rows") -> list[dict]:
    with engine.read([path]) as results:
        return results.records(query)


def text_of(rows: list[dict[str, str]], header: list[str] | None = None, crlf: bool = False):
    """The CSV text of ``rows``, lines ended by CRLF (as the writer ends them) or LF."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n" if crlf else "\n")
    header = header or list(BASE_COLUMNS)
    writer.writerow(header)
    for row in rows:
        writer.writerow([row.get(c, "") for c in header])
    return buffer.getvalue()


def put(path: Path, text: str) -> Path:
    path.write_bytes(text.encode())
    return path


# -- the rules of a row ----------------------------------------------------------------------

WHOLE = "not a whole number below 10^18"
NUMBER = "not a number (finite, zero or more)"
GOOD_WHOLE = ["0", "7", "+5", "-0", "5.", "1e3", "1.5e+3", "0" * 19, "1" * 18]
BAD_WHOLE = ["-5", ".5", "5e-05", "inf", "nan", "1e400", "'5", "=1", "x", BIG, "1" * 19]
CASES = (
    [(c, v, None) for c in ("line", "repeat", "limit") for v in GOOD_WHOLE]
    + [(c, v, WHOLE) for c in ("line", "repeat", "limit") for v in ["", *BAD_WHOLE]]
    + [(c, v, None) for c in ("size", "solutions") for v in ["", *GOOD_WHOLE]]
    + [(c, v, WHOLE) for c in ("size", "solutions") for v in BAD_WHOLE]
    + [(c, v, None) for c in ("solve_s", "nodes", "peak_rss_mib") for v in ["", "0", "7"]]
    + [(c, v, None) for c in ("solve_s", "nodes") for v in ["-0", ".5", "5e-05", BIG, "1" * 19]]
    + [(c, v, NUMBER) for c in ("solve_s", "nodes", "peak_rss_mib") for v in ["-5", "inf"]]
    + [(c, v, NUMBER) for c in ("solve_s", "nodes") for v in ["nan", "1e400", "'5", "=1", "x"]]
    + [(c, "", "is empty") for c in ("dataset", "puzzle", "backend")]
    + [(c, "=1", None) for c in ("dataset", "puzzle", "backend")]
    + [("status", v, f"not one of {STATUSES}") for v in ["", "x", "solved"]]
    + [("status", "TIMEOUT", None), ("message", "a\0b", None), ("host", "", None)]
    + [(c, "a\0b", "holds a NUL byte") for c in ("dataset", "backend", "host")]
)


@pytest.mark.parametrize(("column", "value", "rule"), CASES)
def test_each_rule_of_a_row(tmp_path: Path, column: str, value: str, rule: str | None) -> None:
    """A cell on line 4 that keeps the rules is read; one that breaks a rule is refused in
    one line naming the file, the line, the column and the rule."""
    rows = good_rows()
    rows[2][column] = value
    path = put(tmp_path / "r.csv", csv_text(rows))
    if rule is None:
        with engine.read([path]) as results:
            assert [8] == results.counts
        return
    message = refusal(path)
    assert (message.startswith(f"{path}:4: {column} "), rule in message) == (True, True), message
    assert 1 == len(message.splitlines())


@pytest.mark.parametrize(
    ("header", "said"),
    [
        (
            ["dataset", "line", "backend"],
            ": not a harness results CSV (no column puzzle, repeat, limit, status, solve_s)",
        ),
        ([*BASE_COLUMNS, "nodes"], ":1: column 'nodes' appears more than once"),
        ([*BASE_COLUMNS, ""], f":1: column {len(BASE_COLUMNS) + 1} has no name"),
    ],
)
def test_each_rule_of_the_header(tmp_path: Path, header: list[str], said: str) -> None:
    """A header without a required column, with a column twice or one unnamed: refused."""
    path = put(tmp_path / "r.csv", csv_text(good_rows(), header))
    assert f"{path}{said}" == refusal(path)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\n\n  \nsolve_s\n", ":1: the header is empty"),
        (b"dataset,li\0ne\n", ":1: not a results CSV (the header holds a NUL byte)"),
        (b"dataset,\xff\xfe\n", ":1: not a results CSV (the header is not UTF-8)"),
        (b"\rdataset,line\n", ":1: not a results CSV (a carriage return inside the header)"),
    ],
)
def test_a_header_that_is_not_one(tmp_path: Path, data: bytes, said: str) -> None:
    path = tmp_path / "r.csv"
    path.write_bytes(data)
    assert f"{path}{said}" == refusal(path)


def test_a_file_of_white_space_has_no_rows(tmp_path: Path) -> None:
    """Nothing but white space: no header, no rows; the kept columns are there."""
    path = tmp_path / "r.csv"
    path.write_bytes(b" \n\n")
    with engine.read([path], ["dataset", "solve_s"]) as results:
        assert ([0], ["run", "dataset", "solve_s"]) == (
            results.counts,
            [d[0] for d in results.sql("SELECT * FROM rows").description],
        )


# -- line numbers ----------------------------------------------------------------------------


def lines_with(bad: str, multiline: bool, blank: bool) -> tuple[list[str], int]:
    """The physical lines of a file whose fourth row is ``bad`` (``row``: a good row with
    status DONE; ``short``: 3 fields; ``quoted``: 3 fields, one of two lines; ``long``: one
    field too many), after a row with a message of 4 lines (``multiline``) and a blank line
    (``blank``); and the line of the bad row."""
    rows = good_rows()
    rows[1]["message"] = AWKWARD if multiline else "plain"
    lines = text_of(rows).splitlines(keepends=True)
    at = 1 + 3 + 3 * multiline  # header, three rows (one of 4 lines when multiline)
    fourth = lines[at]
    lines[at] = {
        "row": fourth.replace(",SOLVED,", ",DONE,"),
        "short": "a,b,c\n",
        "quoted": 'a,"b\nc",d\n',
        "long": fourth.rstrip("\n") + ",extra\n",
    }[bad]
    if blank:
        lines.insert(at, "\n")
    return lines, at + 1 + blank


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("bad", ["row", "short", "quoted", "long"])
@pytest.mark.parametrize(("multiline", "blank"), [(False, False), (True, False), (True, True)])
def test_the_line_named_is_the_bad_rows(
    tmp_path: Path, crlf: bool, bad: str, multiline: bool, blank: bool
) -> None:
    """A bad cell, a short or a long row is named by its line in the file, after a quoted
    message of several lines and after a blank line, with LF or CRLF line ends."""
    lines, line = lines_with(bad, multiline, blank)
    text = "".join(lines).replace("\n", "\r\n") if crlf else "".join(lines)
    path = tmp_path / "r.csv"
    path.write_bytes(text.encode())
    said = {
        "row": f"status is 'DONE', not one of {STATUSES}",
        "short": f"3 field(s), the header has {len(BASE_COLUMNS)}",
        "quoted": f"3 field(s), the header has {len(BASE_COLUMNS)}",
        "long": f"{len(BASE_COLUMNS) + 1} field(s), the header has {len(BASE_COLUMNS)}",
    }[bad]
    assert f"{path}:{line}: {said}" == refusal(path)


@pytest.mark.parametrize("tail", ["a,b,c\n", "x\n", "'done'\n"])
def test_a_short_last_row_is_refused_not_dropped(tmp_path: Path, tail: str) -> None:
    """A last row of too few fields, its line ended: refused on its line (only a row
    without its newline is torn)."""
    path = put(tmp_path / "r.csv", csv_text(good_rows()) + tail)
    fields = len(next(csv.reader([tail])))
    assert f"{path}:10: {fields} field(s), the header has {len(BASE_COLUMNS)}" == refusal(path)


# -- torn rows, line ends --------------------------------------------------------------------


@pytest.mark.parametrize("crlf", [False, True])
def test_a_torn_last_row_is_dropped_wherever_it_was_cut(tmp_path: Path, crlf: bool) -> None:
    """The last row (its message quoted: a comma and quotes) cut at any byte before its
    newline, inside the quoted cell too: the rows before it are read, exactly."""
    rows = good_rows()
    rows[-1]["message"] = 'said "no", then stopped'
    text = text_of(rows, crlf=crlf).encode()
    whole = put(tmp_path / "whole.csv", text_of(rows[:-1], crlf=crlf))
    expected = records(whole)
    start = text.rindex(b"\n", 0, len(text) - 1) + 1
    quoted = range(text.index(b'"said'), text.index(b'stopped"') + 9)
    cuts = sorted({*range(start + 1, len(text), 9), *quoted, len(text) - 1})
    path = tmp_path / "r.csv"
    for cut in cuts:
        path.write_bytes(text[:cut])
        assert (cut, expected) == (cut, records(path))


def test_lf_and_crlf_files_read_the_same(tmp_path: Path) -> None:
    """The same rows, lines ended by LF or by CRLF: the same table; a message's own line
    breaks are kept as written."""
    rows = good_rows()
    rows[3]["message"] = AWKWARD
    lf = records(put(tmp_path / "lf.csv", text_of(rows)))
    crlf = records(put(tmp_path / "crlf.csv", text_of(rows, crlf=True)))
    assert (lf, AWKWARD) == (crlf, lf[3]["message"])
    assert (8, 1, 0.001) == (len(lf), lf[0]["line"], lf[0]["solve_s"])


# -- several files, natives, escaped text ----------------------------------------------------


def test_several_files_are_read_at_once(tmp_path: Path) -> None:
    """Three files: the view rows holds them all, its run column naming each by its stem (by
    its path where two share one); file_<i> holds file i's; a base column a file lacks is
    there, empty; a native column of one file is in the view, empty for the others."""
    (tmp_path / "b").mkdir()
    rows = good_rows()
    first = put(tmp_path / "one.csv", csv_text(rows[:3]))
    no_nodes = [c for c in BASE_COLUMNS if c != "nodes"]
    second = put(tmp_path / "b" / "one.csv", csv_text(rows[3:5], no_nodes))
    for row in rows[5:]:
        row["conflicts"] = "12"
    third = put(tmp_path / "two.csv", csv_text(rows[5:], [*BASE_COLUMNS, "conflicts"]))
    with engine.read([first, second, third]) as results:
        runs = results.records("SELECT run, count(*) AS n FROM rows GROUP BY run ORDER BY run")
        nodes = results.records("SELECT nodes FROM file_1")
        conflicts = results.records("SELECT count(*) AS n FROM rows WHERE conflicts IS NULL")
        assert ([3, 2, 3], ["conflicts"]) == (results.counts, results.natives)
    assert [
        {"run": str(second), "n": 2},
        {"run": str(first), "n": 3},
        {"run": "two", "n": 3},
    ] == runs
    assert ([{"nodes": None}] * 2, [{"n": 5}]) == (nodes, conflicts)


def test_native_columns_are_numbers_or_text(tmp_path: Path) -> None:
    """A native column of numbers (some empty) is read as numbers, one with a word as text,
    an escaped text unescaped; natives=False leaves them out, columns keeps the named."""
    rows = good_rows()
    for k, row in enumerate(rows):
        row |= {"conflicts": str(k) if k % 3 else "", "mode": "fast" if k else "'=2"}
    path = put(tmp_path / "r.csv", csv_text(rows, [*BASE_COLUMNS, "conflicts", "mode"]))
    with engine.read([path]) as results:
        got = results.records("SELECT conflicts, mode FROM rows LIMIT 3")
        kinds = (results.natives, results.numeric_natives)
    assert ((["conflicts", "mode"], ["conflicts"])) == kinds
    assert [
        {"conflicts": None, "mode": "=2"},
        {"conflicts": 1.0, "mode": "fast"},
        {"conflicts": 2.0, "mode": "fast"},
    ] == got
    with engine.read([path], ["dataset", "solve_s"], natives=False) as results:
        names = [d[0] for d in results.sql("SELECT * FROM rows").description]
    assert ["run", "dataset", "solve_s"] == names


TEXTS = st.text(
    alphabet=st.sampled_from([*FORMULA_STARTS, "'", '"', ",", "\n", "a", "1", ".", " ", "é"]),
    min_size=1,
    max_size=8,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(TEXTS, min_size=1, max_size=12))
def test_escaped_text_is_read_back_raw(texts: list[str]) -> None:
    """Datasets, backends, hosts and messages escaped against formulas as the writer escapes
    them: the engine reads back the raw text, as tests/results_file.py does."""
    rows = []
    for k, text in enumerate(texts):
        row = good_rows()[0]
        row |= {"line": str(k + 1), "dataset": text, "backend": text, "host": text}
        rows.append(row | {"message": text})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.csv"
        header = list(BASE_COLUMNS)
        lines = [header, *([escape_cell(r.get(c, "")) for c in header] for r in rows)]
        with path.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows(lines)
        got = records(path, "SELECT dataset, backend, host, message FROM rows")
        raw = read_rows(path)[1]
    columns = ("dataset", "backend", "host", "message")
    assert [{c: t for c in columns} for t in texts] == got
    assert [{c: r[c] for c in columns} for r in raw] == got


# -- what --resume reads ---------------------------------------------------------------------


def test_resumable_holds_the_exact_keys_of_the_whole_rows(tmp_path: Path) -> None:
    """The header, the number of whole rows and their resume keys, as the run makes them
    (line 07 is line 7; an escaped dataset is its raw name); a torn row is not one."""
    rows = good_rows()[:3]
    rows[1] |= {"line": "07", "dataset": "'=x.txt", "repeat": "2"}
    path = put(tmp_path / "r.csv", csv_text(rows) + "datasets/demo.txt,9,torn")
    found = engine.resumable(path, 1)
    puzzle = rows[0]["puzzle"]
    keys = {
        engine.KEY_SEPARATOR.join(key)
        for key in [
            ("datasets/demo.txt", "1", puzzle, "norvig", "0"),
            ("=x.txt", "7", rows[1]["puzzle"], "naive", "2"),
            ("datasets/demo.txt", "2", rows[2]["puzzle"], "norvig", "0"),
        ]
    }
    assert (list(BASE_COLUMNS), 3, keys) == (found.header, found.rows, found.keys)
    assert found.done(("=x.txt", "7", rows[1]["puzzle"], "naive", "2"))
    assert not found.done(("datasets/demo.txt", "1", puzzle, "norvig", "1"))


def test_resumable_refuses_rows_of_another_limit(tmp_path: Path) -> None:
    """Rows measured under --limit-solutions 2 are not completed by a run under 1."""
    rows = good_rows()
    rows[5]["limit"] = "2"
    path = put(tmp_path / "r.csv", csv_text(rows))
    with pytest.raises(ResultsError) as caught:
        engine.resumable(path, 1)
    assert (
        f"{path}: its rows were measured with --limit-solutions 2, not 1; "
        "resume with the same limit or choose another --out"
    ) == str(caught.value)


# -- what a run does with the rows it reads back ---------------------------------------------


def test_failure_lines_name_the_most_common_reason(tmp_path: Path) -> None:
    """One line per failing status: its count and its most common message, numbers aside
    (the example the first in order); statuses lists those present."""
    messages = [("ERROR", "died at 3 s"), ("ERROR", "died at 5 s"), ("ERROR", "no memory")]
    messages += [("WRONG", AWKWARD), ("SOLVED", "")]
    rows = good_rows()[:5]
    for row, (status, message) in zip(rows, messages, strict=True):
        row |= {"status": status, "message": message}
    with engine.read([put(tmp_path / "r.csv", csv_text(rows))]) as results:
        lines = stats.failure_lines(results.con)
        present = stats.statuses(results.con), stats.statuses(results.con, excluding=["norvig"])
    assert [
        f"WRONG: 1 row(s); most common reason (1): {AWKWARD}",
        "ERROR: 3 row(s); most common reason (2): died at 3 s",
    ] == lines
    assert ({"ERROR", "WRONG", "SOLVED"}, {"ERROR", "WRONG"}) == present


def test_a_refuted_claim_changes_the_table_and_the_csv_only_there(tmp_path: Path) -> None:
    """Under limit 2, a claim of a unique solution beside a different checked solution: WRONG
    in the engine's table and, through the writer, in the CSV; the other rows, an awkward
    message too, unchanged."""
    path = tmp_path / "r.csv"
    cells = {"dataset": "d.txt", "repeat": 0, "limit": 2, "status": "SOLVED", "puzzle": "p"}
    claims = [(1, "a", 1, "g1"), (1, "b", 1, "g2"), (2, "b", 1, "g3")]
    with RowWriter(path, list(BASE_COLUMNS)) as writer:
        for line, backend, count, grid in claims:
            writer.write(
                cells
                | {"line": line, "backend": backend, "solutions": count, "solution": grid}
                | {"message": AWKWARD if line == 2 else ""}
            )
        writer.flush()
        with engine.read([path], vouched=True) as results:
            verdicts = cross_check(results.con, "file_0", 2)
            table = results.records("SELECT status FROM file_0 ORDER BY rowid")
        writer.change(verdicts)
    reason = "claimed a unique solution, but b found a different checked one"
    other = "claimed a unique solution, but a found a different checked one"
    assert {
        0: {"status": "WRONG", "message": reason},
        1: {"status": "WRONG", "message": other},
    } == verdicts
    assert ["WRONG", "WRONG", "SOLVED"] == [r["status"] for r in table]
    assert [("WRONG", reason), ("WRONG", other), ("SOLVED", AWKWARD)] == [
        (r["status"], r["message"]) for r in read_rows(path)[1]
    ]


class Awkward(_Fake):
    """Gives up with a message holding a comma, quotes, line breaks and a formula start."""

    name = "awkward"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        return SolveResult(Status.UNKNOWN, message="=" + AWKWARD)


def puzzle_file(path: Path, count: int) -> Path:
    path.write_text("".join(pattern_puzzle(2, 2 + k % 2).to_string() + "\n" for k in range(count)))
    return path


def test_a_message_survives_a_run_and_its_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_backends: dict
) -> None:
    """An awkward message is in the CSV as the backend gave it, and read back raw; the run
    cut to two rows and a torn one, then resumed, prints the tables of the whole CSV (every
    puzzle counted) and says how many rows it found."""
    monkeypatch.setitem(backends.REGISTRY, Awkward.name, Awkward)
    data = puzzle_file(tmp_path / "p.txt", 3)
    out = tmp_path / "r.csv"
    args = ["run", "-q", "-b", "awkward", "-b", "mrv", "--out", str(out)]
    first = CliRunner().invoke(main, [*args, str(data)])
    assert 0 == first.exit_code, first.output
    text = out.read_bytes()
    ends = [i + 2 for i in range(len(text)) if text.startswith(b"\r\n", i)]  # rows' ends
    out.write_bytes(text[: ends[2]] + b'p.txt,3,"torn mid,')  # the header, two rows, a torn one
    resumed = CliRunner().invoke(main, [*args, "--resume", str(data)])
    assert 0 == resumed.exit_code, resumed.output
    _, rows = read_rows(out)
    with engine.read([out]) as results:
        messages = results.records("SELECT message FROM rows WHERE backend = 'awkward'")
        expected = render.render(stats.summary(results.con))
    assert (6, ["=" + AWKWARD] * 3) == (len(rows), [m["message"] for m in messages])
    assert ["=" + AWKWARD] * 3 == [r["message"] for r in rows if r["backend"] == "awkward"]
    assert resumed.output.startswith(expected)
    assert "resumed: 2 row(s) were already in the CSV" in resumed.output
    assert [(3, 3), (3, 0)] == sorted(
        ((r["puzzles"], r["solved"]) for r in stats_rows(out)), reverse=True
    )


def stats_rows(path: Path) -> list[dict[str, Any]]:
    with engine.read([path]) as results:
        return stats.summary(results.con)


def test_each_database_spills_to_a_folder_of_its_own_removed_at_close() -> None:
    """Two databases open at once never share a spill folder (DuckDB names its spill files
    alike); a database that spilled (held to 10 MB here) leaves no folder once closed,
    whichever way it is closed."""
    first, second = engine.connect(), engine.connect()
    setting = "SELECT current_setting('temp_directory')"
    folders = [Path(con.execute(setting).fetchone()[0]) for con in (first, second)]
    spilled = []
    for con, close in ((first, con_close), (second, results_close)):
        con.execute("SET memory_limit = '10MB'")
        con.execute(
            "CREATE TABLE t AS SELECT random() AS x, repeat('a', 40) AS s FROM range(1000000)"
        )
        con.execute("SELECT * FROM t ORDER BY x LIMIT 1 OFFSET 10").fetchone()
        spilled.append(folders[len(spilled)].exists())
        close(con)
    assert (True, [True, True], [False, False]) == (
        folders[0] != folders[1],
        spilled,
        [f.exists() for f in folders],
    )


def con_close(con: Any) -> None:
    con.close()


def results_close(con: Any) -> None:
    engine.Results(con, [], []).close()


def test_results_past_the_engines_memory_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the engine cannot hold in its memory, as it reads it or as it sums it up: one
    line naming the limit, exit 2, never a traceback."""
    import duckdb
    from click.testing import CliRunner

    from harness.cli import main

    path = put(tmp_path / "r.csv", csv_text(good_rows()))
    monkeypatch.setattr(engine, "MEMORY_LIMIT", "1MB")  # as DuckDB says it
    reading = CliRunner().invoke(main, ["table", str(path)])
    monkeypatch.undo()

    def too_much(*args: object, **kwargs: object) -> None:
        raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate\nmore")

    monkeypatch.setattr(stats, "summary", too_much)
    summing = CliRunner().invoke(main, ["table", str(path)])
    assert [(2, True, 1)] * 2 == [
        (r.exit_code, "the results engine may hold" in r.output, len(r.output.splitlines()))
        for r in (reading, summing)
    ], reading.output + summing.output
