"""The rules of a results CSV checked by columns (harness.results.scan and the loader) give
the verdict of checking it a row at a time, on the corrupt corpus and on odd cells."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from harness.results import ResultsError, check_results, reading
from harness.tables import load
from tests.corrupt_corpus import BIG, VARIANTS, csv_text, good_rows, write_run
from tests.test_hardening_fuzz import results_text

#: Cells that a number or text column may or may not take.
ODD = ["", "0", "7", "+5", " 5", "5 ", "-0", "-5", "5.", ".5", ".", "1e3", "1.5e+3", "5e-05"]
ODD += ["inf", "nan", "1e400", "'5", "=1", "x", BIG, "0" * 18, "0" * 19, "1" * 18, "1" * 19]
COLUMNS = ["line", "repeat", "limit", "size", "solutions", "solve_s", "nodes", "peak_rss_mib"]
COLUMNS += ["dataset", "puzzle", "backend", "status", "host", "message"]


def by_rows(path: Path) -> bool:
    """Whether reading a row at a time takes the file."""
    try:
        check_results(path)
    except ResultsError:
        return False
    return True


def verdicts(path: Path) -> tuple[bool | None, bool]:
    """(by columns, by rows); by columns None where the bytes cannot tell."""
    return load.by_columns(path), by_rows(path)


def agree(path: Path) -> bool:
    columns, rows = verdicts(path)
    return columns is None or columns == rows


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_corpus_gets_one_verdict(variant: str, tmp_path: Path) -> None:
    """Each corrupt variant: by columns, the verdict of reading a row at a time."""
    data, meta = VARIANTS[variant]()
    path = write_run(tmp_path / "x.csv", data, meta)
    assert (variant, True) == (variant, agree(path))


def test_the_bytes_tell_most_of_the_corpus(tmp_path: Path) -> None:
    """Only variants with quotes or text that is not UTF-8 are left to reading a row at a
    time (CRLF line ends, as the writer ends rows, are read by columns)."""
    undecided = []
    for name, make in sorted(VARIANTS.items()):
        path = write_run(tmp_path / "x.csv", make()[0])
        if load.by_columns(path) is None:
            undecided.append(name)
    assert ["not UTF-8", "unbalanced quote"] == undecided


@pytest.mark.parametrize("column", COLUMNS)
def test_odd_cells_get_one_verdict(column: str, tmp_path: Path) -> None:
    """Signs, spaces, exponents, inf, nan, 19 digits, quotes: each cell in each column, the
    same verdict both ways."""
    disagree = []
    for value in ODD:
        rows = good_rows()
        rows[2][column] = value
        path = write_run(tmp_path / "x.csv", csv_text(rows).encode())
        if not agree(path):
            disagree.append(value)
    assert [] == disagree


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=results_text())
def test_random_files_get_one_verdict(text: str) -> None:
    """Random columns, cells, widths and cuts: the same verdict both ways."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.csv"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        assert (True, text) == (agree(path), text)


def test_a_block_boundary_inside_the_file_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks of 100 bytes (rows cut across blocks): the good file is taken, a bad cell in
    its last row is found."""
    monkeypatch.setattr(reading, "BLOCK", 100)
    good = write_run(tmp_path / "good.csv")
    rows = good_rows()
    rows[-1]["nodes"] = "-3"
    bad = write_run(tmp_path / "bad.csv", csv_text(rows).encode())
    assert [(True, True), (False, False)] == [verdicts(good), verdicts(bad)]


def message(call, path: Path) -> str:
    with pytest.raises(ResultsError) as caught:
        call(path)
    return str(caught.value)


@pytest.mark.parametrize(
    "cells",
    [
        [(1, "status", "DONE"), (6, "nodes", "-1")],
        [(5, "solve_s", "nan"), (6, "line", "x")],
        [(6, "solve_s", "1e400"), (7, "backend", "")],
        [(3, "guesses", "abc")],
        [(7, "size", "9.0")],
    ],
)
def test_the_first_bad_row_is_named_as_reading_every_row_names_it(
    cells: list[tuple[int, str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks of 600 bytes, bad cells in two of them: the loader names the line that
    check_results names."""
    monkeypatch.setattr(reading, "BLOCK", 600)
    rows = good_rows()
    for row, column, value in cells:
        rows[row][column] = value
    path = write_run(tmp_path / "x.csv", csv_text(rows).encode())
    assert message(check_results, path) == message(lambda p: load.read(p, {"line": None}), path)


@pytest.mark.parametrize("batch", [2, 4096])
def test_a_bad_cell_before_a_short_row_is_named_first(
    batch: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a row at a time, by batches: a bad status on line 4 is named before the short
    row on line 7, in one batch or in two."""
    monkeypatch.setattr(reading, "BATCH", batch)
    lines = csv_text(good_rows()).splitlines(keepends=True)
    lines[3] = lines[3].replace("SOLVED", "DONE")
    lines[6] = "a,b,c\n"
    path = write_run(tmp_path / "x.csv", "".join(lines).encode())
    expected = f"{path}:4: status is 'DONE', not one of {' '.join(sorted(reading.STATUSES))}"
    assert expected == message(check_results, path)


@pytest.mark.parametrize(
    "cells",
    [
        [],
        [(6, "nodes", "-1")],
        [(1, "status", "DONE")],
        [(3, "status", "DONE"), (6, "nodes", "-1")],
        [(5, "message", 'a "quoted" word'), (7, "line", "x")],
    ],
)
def test_quoted_cells_across_blocks_keep_the_verdict_and_the_line(
    cells: list[tuple[int, str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks of 300 bytes, messages holding commas and line breaks (quoted cells that run
    across blocks): the loader takes the file, or names the line, as check_results does."""
    monkeypatch.setattr(reading, "BLOCK", 300)
    rows = good_rows()
    rows[2]["message"] = "first, then\nsecond line, " + "x" * 400
    rows[4]["message"] = 'said "no", then\n\nstopped'
    for row, column, value in cells:
        rows[row][column] = value
    path = write_run(tmp_path / "x.csv", csv_text(rows).encode())
    try:
        expected = ("taken", len(rows)) if by_rows(path) else message(check_results, path)
        got = ("taken", len(load.read(path, {"line": None})))
    except ResultsError as refused:
        got = str(refused)
    assert expected == got
