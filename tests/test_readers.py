"""harness.puzzles.readers: layouts, bad lines, whole-file errors, fuzzing, round trips."""

from __future__ import annotations

import dataclasses
import gzip
import io
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends.puzzle import Puzzle, canonical_alphabet
from harness.puzzles.readers import (
    BadLine,
    DatasetError,
    PuzzleRecord,
    ReadResult,
    format_bad_lines,
    iter_puzzles,
    iter_text,
    read_puzzles,
    read_text,
)
from harness.puzzles.readers.batch import check
from harness.puzzles.readers.records import new_record
from harness.puzzles.readers.symbols import digit_table, is_token, token_of
from tests.puzzles import SHARED_DATASETS

DATA = Path(__file__).parent / "data" / "readers"


def solved_grid(box: int, relabel: str | None = None) -> str:
    """A valid full grid in canonical symbols, from the shifted-rows pattern."""
    n = box * box
    symbols = relabel or canonical_alphabet(n)
    return "".join(symbols[(r * box + r // box + c) % n] for r in range(n) for c in range(n))


def with_holes(solution: str, box: int) -> str:
    """The solution with every cell off the (r + c) % 3 == 0 diagonals emptied."""
    n = box * box
    return "".join(ch if (i // n + i % n) % 3 == 0 else "." for i, ch in enumerate(solution))


SOL = solved_grid(3)
PUZ = with_holes(SOL, 3)
SOL2 = solved_grid(3, "975318642")
PUZ2 = with_holes(SOL2, 3)


def p(text: str) -> Puzzle:
    return Puzzle.parse(text)


def rows_of(text: str, n: int) -> list[str]:
    return [text[i : i + n] for i in range(0, n * n, n)]


def lines_and_puzzles(result: ReadResult) -> list[tuple[int, Puzzle]]:
    return [(r.line, r.puzzle) for r in result.records]


def only_bad(text: str) -> list[tuple[int, str]]:
    """Read text expected to hold no good puzzle; return its (line, reason) pairs."""
    result = read_text(text, "t.txt")
    assert [] == list(result.records)
    return [(b.line, b.reason) for b in result.bad]


# --------------------------------------------------------------------------- one per line


def test_one_line_dots_and_zeros() -> None:
    """81-character lines with '.' or '0' for empty cells are read with their line numbers."""
    result = read_text(f"{PUZ}\n{PUZ2.replace('.', '0')}\n", "x")
    assert [(1, p(PUZ)), (2, p(PUZ2))] == lines_and_puzzles(result)
    assert () == result.bad


def test_every_empty_mark_is_accepted() -> None:
    """'.', '0', '-', '_' and '*' all mean an empty cell."""
    lines = [PUZ.replace(".", mark) for mark in ".0-_*"]
    result = read_text("\n".join(lines), "x")
    assert [p(PUZ)] * 5 == [r.puzzle for r in result.records]


def test_comments_and_blank_lines_are_skipped() -> None:
    """'#' lines and blank lines are skipped but still counted in line numbers."""
    text = f"# header\n\n{PUZ}\n   \n# more\n{PUZ2}\n"
    assert [(3, p(PUZ)), (6, p(PUZ2))] == lines_and_puzzles(read_text(text, "x"))


def test_crlf_and_bom_file() -> None:
    """A UTF-8 BOM and CRLF line endings are tolerated."""
    result = read_puzzles(str(DATA / "crlf_bom.txt"))
    assert [(2, p(PUZ)), (4, p(PUZ2))] == lines_and_puzzles(result)
    assert () == result.bad


def test_crlf_and_bom_text() -> None:
    """read_text strips a BOM and splits CRLF and CR line endings like a file."""
    text = f"\ufeff{PUZ}\r\n{PUZ2}\r{PUZ}\r\n"
    assert [(1, p(PUZ)), (2, p(PUZ2)), (3, p(PUZ))] == lines_and_puzzles(read_text(text, "x"))


def test_rating_after_the_grid_is_meta() -> None:
    """Ratings and ';' fields after the grid are kept raw, stripped, in meta."""
    text = f"{PUZ}  # 2.3\n{PUZ} 9.9\n{PUZ};SE 9.9;hard \n{PUZ}\n"
    assert ["# 2.3", "9.9", ";SE 9.9;hard", ""] == [r.meta for r in read_text(text, "x").records]


def test_meta_without_count_or_solution_leaves_them_none() -> None:
    """A rating is not taken for a count or a solution."""
    record = read_text(f"{PUZ} 7\n", "x").records[0]
    assert (None, None) == (record.expected_count, record.expected_solution)


def test_tdoku_count_and_solution() -> None:
    """tdoku's puzzle:count:solution gives expected_count and expected_solution."""
    result = read_puzzles(str(DATA / "tdoku.txt"))
    got = [(r.line, r.puzzle, r.expected_count, r.expected_solution) for r in result.records]
    assert [(2, p(PUZ), 1, p(SOL)), (3, p(PUZ2), 1, p(SOL2))] == got
    assert f":1:{SOL}" == result.records[0].meta


def test_tdoku_count_without_solution() -> None:
    """'puzzle:0:' (no solution found) gives count 0 and no solution."""
    record = read_text(f"{PUZ}:0:\n", "x").records[0]
    assert (0, None) == (record.expected_count, record.expected_solution)


def test_tdoku_solution_field_with_a_typo_is_a_bad_line() -> None:
    """tdoku's third field of the grid's size is the solution, so a typo in it is reported."""
    solution = SOL[:5] + "?" + SOL[6:]
    reason = only_bad(f"{PUZ}:1:{solution}\n")[0][1]
    assert reason.startswith("expected solution: bad character '?' at column 90")


def test_solution_after_a_space_is_extracted() -> None:
    """A whole grid after the puzzle, separated by a space, is the expected solution."""
    record = read_text(f"{PUZ} {SOL}\n", "x").records[0]
    assert p(SOL) == record.expected_solution


def test_headerless_puzzle_comma_solution() -> None:
    """'puzzle,solution' lines without a CSV header still give the solution."""
    record = read_text(f"{PUZ},{SOL}\n", "x").records[0]
    assert (p(PUZ), p(SOL)) == (record.puzzle, record.expected_solution)


# --------------------------------------------------------------------------- CSV


def test_kaggle_csv() -> None:
    """A quizzes,solutions CSV gives puzzles, solutions and line numbers after the header."""
    result = read_puzzles(str(DATA / "kaggle.csv"))
    got = [(r.line, r.puzzle, r.expected_solution) for r in result.records]
    assert [(2, p(PUZ), p(SOL)), (3, p(PUZ2), p(SOL2))] == got


def test_csv_puzzle_solution_with_extra_columns() -> None:
    """Extra columns stay in meta; the column order comes from the header."""
    text = f"id,difficulty,solution,puzzle\n7,2.5,{SOL},{PUZ}\n"
    record = read_text(text, "x").records[0]
    assert (p(PUZ), p(SOL), f"7,2.5,{SOL}") == (
        record.puzzle,
        record.expected_solution,
        record.meta,
    )


def test_csv_quoted_fields_and_semicolons() -> None:
    """Quoted fields and ';' delimiters are read too."""
    text = f'"puzzle";"rating"\n"{PUZ}";"3.1"\n'
    record = read_text(text, "x").records[0]
    assert (p(PUZ), "3.1") == (record.puzzle, record.meta)


def test_csv_without_solution_column() -> None:
    """A CSV with only a puzzle column gives no expected solution."""
    record = read_text(f"puzzle\n{PUZ}\n", "x").records
    assert [(2, p(PUZ), None)] == [(r.line, r.puzzle, r.expected_solution) for r in record]


def test_csv_bad_rows() -> None:
    """A short field, a missing column and a solution of the wrong length are bad lines."""
    text = f"quizzes,solutions\n{PUZ[:80]},{SOL}\n\n{PUZ},{SOL[:80]}\n{PUZ}\n"
    result = read_text(text, "k.csv")
    assert [
        (2, "wrong length: 80 cells in column 'quizzes'; expected 16, 81, 256 or 625"),
        (4, "expected solution in column 'solutions' has 80 cells, the puzzle 81"),
    ] == [(b.line, b.reason) for b in result.bad]
    assert [(5, None)] == [(r.line, r.expected_solution) for r in result.records]


def test_csv_missing_puzzle_field() -> None:
    """A row with fewer fields than the puzzle column's position is a bad line."""
    assert [(2, "1 field: no 'puzzle' (field 2)")] == only_bad("id,puzzle\n17\n")


# --------------------------------------------------------------------------- gzip and stdin


def test_gzip_csv() -> None:
    """A .gz file is decompressed."""
    assert [p(PUZ), p(PUZ2)] == [
        r.puzzle for r in read_puzzles(str(DATA / "kaggle.csv.gz")).records
    ]


def test_gzip_detected_by_magic_without_suffix(tmp_path: Path) -> None:
    """Gzip data is recognised by its magic number whatever the file is called."""
    path = tmp_path / "puzzles.txt"
    path.write_bytes(gzip.compress(f"{PUZ}\n{PUZ2}\n".encode()))
    assert [(1, p(PUZ)), (2, p(PUZ2))] == lines_and_puzzles(read_puzzles(str(path)))


def test_stdin_dash() -> None:
    """'-' reads the given stdin stream and names the dataset '-'."""
    result = read_puzzles("-", stdin=io.StringIO(f"\ufeff{PUZ}\n"))
    assert [("-", 1, p(PUZ))] == [(r.dataset, r.line, r.puzzle) for r in result.records]


def test_stdin_defaults_to_sys_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a stream argument, '-' reads sys.stdin."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{PUZ2}\n"))
    assert [(1, p(PUZ2))] == lines_and_puzzles(read_puzzles("-"))


def test_stdin_binary_is_a_dataset_error() -> None:
    """A NUL byte on stdin makes a DatasetError naming '-'."""
    with pytest.raises(DatasetError, match=r"^-: binary data"):
        read_puzzles("-", stdin=io.StringIO("abc\x00def\n"))


def test_records_equal_normally_built_ones() -> None:
    """Records (and their puzzles) compare and hash like ones built by their constructors."""
    record = read_text(f"{PUZ}:1:{SOL}\n", "x").records[0]
    built = PuzzleRecord("x", 1, Puzzle.parse(PUZ), 1, Puzzle.parse(SOL), f":1:{SOL}")
    assert (built, hash(built)) == (record, hash(record))


def test_dataset_is_the_path_as_given() -> None:
    """Records and bad lines carry the path exactly as passed in."""
    path = str(DATA / "tdoku.txt")
    assert {path} == {r.dataset for r in read_puzzles(path).records}


# --------------------------------------------------------------------------- multi-line grids


def test_euler_grids_with_headers() -> None:
    """Project Euler p096 layout: 'Grid NN' then 9 rows of 9 digits, 0 empty."""
    result = read_puzzles(str(DATA / "euler.txt"))
    assert [(2, p(PUZ)), (12, p(PUZ2))] == lines_and_puzzles(result)
    assert () == result.bad


def test_decorated_grid_with_separators() -> None:
    """'|', spaces and '------+-------+------' separators are decoration."""
    text = p(PUZ).pretty() + "\n"
    assert [(1, p(PUZ))] == lines_and_puzzles(read_text(text, "x"))


def test_boxed_grid_with_borders() -> None:
    """A grid drawn with outer borders, '+' corners and '=' headers is read."""
    body = []
    for r, row in enumerate(rows_of(PUZ, 9)):
        if r % 3 == 0:
            body.append("+-------+-------+-------+")
        body.append("| " + " | ".join(" ".join(row[c : c + 3]) for c in (0, 3, 6)) + " |")
    body.append("+-------+-------+-------+")
    text = "========\n" + "\n".join(body) + "\n========\n"
    assert [(3, p(PUZ))] == lines_and_puzzles(read_text(text, "x"))


def test_grids_separated_by_blank_lines() -> None:
    """Grids one after another, separated by blank lines."""
    text = "\n".join(rows_of(PUZ, 9)) + "\n\n" + "\n".join(rows_of(PUZ2, 9)) + "\n"
    assert [(1, p(PUZ)), (11, p(PUZ2))] == lines_and_puzzles(read_text(text, "x"))


def test_grid_rows_of_dashes_with_spaces() -> None:
    """A spaced row of '-' empty marks is a row, not a separator."""
    rows = [" ".join(row.replace(".", "-")) for row in rows_of(with_holes(SOL, 3), 9)]
    rows[1] = " ".join("-" * 9)
    expected = p("".join(r.replace(" ", "") for r in rows))
    assert [(1, expected)] == lines_and_puzzles(read_text("\n".join(rows), "x"))


def test_one_line_and_grids_mixed() -> None:
    """One-line puzzles and grids can follow each other in one file."""
    text = PUZ + "\nGrid 01\n" + "\n".join(rows_of(PUZ2, 9)) + "\n" + PUZ + "\n"
    assert [(1, p(PUZ)), (3, p(PUZ2)), (12, p(PUZ))] == lines_and_puzzles(read_text(text, "x"))


# --------------------------------------------------------------------------- other sizes

SOL4 = solved_grid(2)
PUZ4 = with_holes(SOL4, 2)
SOL16 = solved_grid(4)
PUZ16 = with_holes(SOL16, 4)
SOL25 = solved_grid(5)
PUZ25 = with_holes(SOL25, 5)


def test_4x4_one_line_and_grid() -> None:
    """4x4 puzzles one per line (several in a row) and as a 4-row grid."""
    text = f"{PUZ4}\n{SOL4}\n{PUZ4}\n\n" + "\n".join(rows_of(PUZ4, 4)) + "\n"
    expected = [(1, p(PUZ4)), (2, p(SOL4)), (3, p(PUZ4)), (5, p(PUZ4))]
    assert expected == lines_and_puzzles(read_text(text, "x"))


def test_16x16_one_line_grid_and_pretty() -> None:
    """16x16 as one line, as plain rows and decorated by Puzzle.pretty()."""
    text = PUZ16 + "\n\n" + "\n".join(rows_of(PUZ16, 16)) + "\n\n" + p(PUZ16).pretty() + "\n"
    expected = [(1, p(PUZ16)), (3, p(PUZ16)), (20, p(PUZ16))]
    assert expected == lines_and_puzzles(read_text(text, "x"))


def test_16x16_numeric_tokens() -> None:
    """A 16x16 grid of whitespace-separated numbers, 0 empty."""
    puzzle = p(PUZ16)
    lines = [" ".join(str(d) for d in puzzle.cells[r * 16 : r * 16 + 16]) for r in range(16)]
    assert [(1, puzzle)] == lines_and_puzzles(read_text("\n".join(lines), "x"))


def test_16x16_hex_alphabet() -> None:
    """A 16x16 puzzle in zero-based hexadecimal (0-F, '.' empty) is detected."""
    hex_text = PUZ16.translate(str.maketrans("123456789ABCDEFG", "0123456789ABCDEF"))
    assert [p(PUZ16)] == [r.puzzle for r in read_text(hex_text, "x").records]


def test_16x16_grid_whose_first_rows_look_4x4() -> None:
    """Rows using only 1-4 are taken as 4x4 puzzles only until a 16x16 row shows up."""
    rows = rows_of(PUZ16, 16)
    rows[0] = "1234............"
    rows[1] = "................"
    expected = p("".join(rows))
    assert [(1, expected)] == lines_and_puzzles(read_text("\n".join(rows), "x"))


def test_16x16_grid_after_header_even_if_all_rows_look_4x4() -> None:
    """After a header line, 16-symbol lines are a 16x16 grid, even an empty one."""
    text = "Grid 01\n" + "\n".join(["." * 16] * 16) + "\n"
    assert [(2, Puzzle(4, (0,) * 256))] == lines_and_puzzles(read_text(text, "x"))


def test_25x25_one_line_and_grid() -> None:
    """25x25 as one line and as a decorated grid."""
    text = PUZ25 + "\n" + p(PUZ25).pretty() + "\n"
    assert [(1, p(PUZ25)), (2, p(PUZ25))] == lines_and_puzzles(read_text(text, "x"))


def test_25x25_numeric_tokens() -> None:
    """A 25x25 grid of numbers with '.' for empty cells."""
    puzzle = p(PUZ25)
    lines = [
        " ".join(str(d) if d else "." for d in puzzle.cells[r * 25 : r * 25 + 25])
        for r in range(25)
    ]
    assert [(1, puzzle)] == lines_and_puzzles(read_text("\n".join(lines), "x"))


def test_16x16_solution_with_lowercase() -> None:
    """Letters are case-insensitive, in puzzles and solutions."""
    record = read_text(f"{PUZ16.lower()}:1:{SOL16.lower()}\n", "x").records[0]
    assert (p(PUZ16), p(SOL16)) == (record.puzzle, record.expected_solution)


# --------------------------------------------------------------------------- bad lines


def test_wrong_length_line() -> None:
    """A line of the wrong length says its length and the lengths expected."""
    expected = (
        "wrong length: 80 cells; expected 16, 81, 256 or 625 for a one-line puzzle, "
        "or 4, 9, 16 or 25 for a grid row followed by the grid's other rows"
    )
    assert [(2, expected)] == only_bad(f"# c\n{PUZ[:80]}\n")


def test_wrong_length_with_meta() -> None:
    """The length counted is the grid's, not the metadata's."""
    assert "wrong length: 82 cells" in only_bad(f"{PUZ}1 # rated 3\n")[0][1]


def test_bad_character_names_it_and_its_column() -> None:
    """A bad character is named with its 1-based column."""
    line = "  " + PUZ[:4] + "x" + PUZ[5:]
    reason = "bad character 'x' at column 7; expected 1-9, or an empty mark (one of *-.0_)"
    assert [(1, reason)] == only_bad(line)


def test_bad_character_16x16_no_alphabet() -> None:
    """A 16x16 symbol outside every alphabet is named with its column."""
    line = PUZ16[:10] + "Z" + PUZ16[11:]
    reason = only_bad(line)[0][1]
    assert reason.startswith("bad character 'Z' at column 11; expected 1-9, A-G or A-P or 0-9, A-F")


def test_16x16_mixed_alphabets() -> None:
    """A digit beside 'H' (letters A-P only) fits no single 16x16 alphabet."""
    line = "5H" + "." * 254
    assert only_bad(line)[0][1].startswith("character 'H' at column 2 mixes alphabets")


def test_duplicate_in_row() -> None:
    """Two equal givens in a row name the digit and the row."""
    line = PUZ[:18] + "77" + PUZ[20:]
    assert [(1, "digit 7 appears twice in row 3 (and 1 more conflict)")] == only_bad(line)


def test_duplicate_in_column() -> None:
    """Two equal givens in a column name the column."""
    cells = ["."] * 81
    cells[4] = cells[76] = "5"
    assert [(1, "digit 5 appears twice in column 5")] == only_bad("".join(cells))


def test_duplicate_in_box() -> None:
    """Two equal givens in a box name the box."""
    cells = ["."] * 81
    cells[30] = cells[40] = "9"
    assert [(1, "digit 9 appears twice in box 5")] == only_bad("".join(cells))


def test_duplicate_three_times_16x16() -> None:
    """A digit three times in one unit says so, in the file's own symbol."""
    line = "GGG" + "." * 253
    assert "digit G appears 3 times in row 1" in only_bad(line)[0][1]


def test_grid_cut_short() -> None:
    """A grid cut short is reported at its first line, and the next grid still reads."""
    text = (
        "Grid 01\n" + "\n".join(rows_of(PUZ, 9)[:5]) + "\nGrid 02\n" + "\n".join(rows_of(PUZ2, 9))
    )
    result = read_text(text, "g.txt")
    assert [(2, "grid cut short: 5 of 9 rows")] == [(b.line, b.reason) for b in result.bad]
    assert [(8, p(PUZ2))] == lines_and_puzzles(result)


def test_grid_cut_short_by_blank_line() -> None:
    """A blank line ends a grid; an unfinished grid is a bad line."""
    text = "\n".join(rows_of(PUZ, 9)[:3]) + "\n\n" + PUZ2 + "\n"
    result = read_text(text, "g.txt")
    assert [(1, "grid cut short: 3 of 9 rows")] == [(b.line, b.reason) for b in result.bad]
    assert [(5, p(PUZ2))] == lines_and_puzzles(result)


def test_grid_rows_of_unequal_length() -> None:
    """A row of another length is reported at the grid's first line."""
    rows = rows_of(PUZ, 9)
    rows[3] = rows[3][:8]
    text = "\n# c\n" + "\n".join(rows) + "\n"
    reason = "rows of unequal length: line 6 has 8 cells, line 3 has 9"
    assert [(3, reason)] == only_bad(text)


def test_grid_bad_character_gives_line_and_column() -> None:
    """A bad symbol in a grid is located by line and column, reported at the grid's start."""
    rows = rows_of(PUZ, 9)
    rows[2] = rows[2][:4] + "x" + rows[2][5:]
    reason = "bad character 'x' at line 3, column 5; expected 1-9, or an empty mark (one of *-.0_)"
    assert [(1, reason)] == only_bad("\n".join(rows))


def test_grid_duplicate() -> None:
    """A repeated digit in a grid is reported at its first line."""
    rows = rows_of(PUZ, 9)
    rows[8] = "1" + rows[8][1:]
    assert [(2, "digit 1 appears twice in row 9 (and 2 more conflicts)")] == only_bad(
        "Grid 01\n" + "\n".join(rows)
    )


def test_numeric_grid_bad_number() -> None:
    """A number above n in a numeric 16x16 grid is named with its place."""
    puzzle = p(PUZ16)
    lines = [" ".join(str(d) for d in puzzle.cells[r * 16 : r * 16 + 16]) for r in range(16)]
    lines[1] = "17" + lines[1][lines[1].index(" ") :]
    reason = only_bad("\n".join(lines))[0][1]
    assert reason.startswith("bad number '17' at line 2, column 1; expected 1-16")


def test_numeric_grid_duplicate_shows_the_number() -> None:
    """A repeated number in a numeric grid is shown as the number the file holds."""
    lines = [" ".join(["."] * 16) for _ in range(16)]
    lines[0] = "12 12 " + " ".join(["."] * 14)
    assert [(1, "digit 12 appears twice in row 1 (and 1 more conflict)")] == only_bad(
        "\n".join(lines)
    )


def test_lone_row_is_wrong_length() -> None:
    """A 9-cell line followed by something else is a wrong-length line."""
    assert [(1, 9)] == [(line, int(reason.split()[2])) for line, reason in only_bad("123456789\n")]


def test_solution_contradicting_givens() -> None:
    """An expected solution that disagrees with a given is a bad line naming the cell (the
    answer checker's words: it checks expected solutions as it checks answers)."""
    reason = "expected solution refused: r1c1 changes the given 1 to 9"
    assert [(1, reason)] == only_bad(f"{PUZ}:1:{SOL2}\n")


def test_solution_invalid() -> None:
    """An expected solution with a repeated digit is a bad line."""
    bad_solution = SOL[:80] + SOL[0]
    assert [(1, "expected solution refused: row 9 lacks digit 8")] == only_bad(
        f"{PUZ},{bad_solution}\n"
    )


def test_solution_incomplete() -> None:
    """An expected solution with empty cells is a bad line."""
    reason = only_bad(f"quizzes,solutions\n{PUZ},{PUZ}\n")[0][1]
    assert "expected solution refused: r1c2 is empty" == reason


def test_csv_solution_bad_character() -> None:
    """A bad character in a CSV solution names it and its column on the line."""
    solution = SOL[:10] + "x" + SOL[11:]
    reason = only_bad(f"quizzes,solutions\n{PUZ},{solution}\n")[0][1]
    assert reason.startswith("expected solution: bad character 'x' at column 93")


def test_bad_lines_do_not_stop_reading() -> None:
    """Good puzzles around bad lines are all read, in order."""
    text = f"{PUZ}\nnonsense!\n{PUZ[:40]}\n{PUZ2}\n"
    result = read_text(text, "x")
    assert [(1, p(PUZ)), (4, p(PUZ2))] == lines_and_puzzles(result)
    assert [2, 3] == [b.line for b in result.bad]


def test_header_words_are_not_bad_lines() -> None:
    """Title lines such as 'Puzzle 3:' are headers, not errors."""
    assert () == read_text(f"Hard puzzles\nPuzzle 3:\n{PUZ}\n", "x").bad


def test_letters_puzzle_of_wrong_length_is_not_a_header() -> None:
    """A 16x16 puzzle in letters with a cell missing is a bad line, not a title."""
    line = "ABCD." + PUZ16.translate(str.maketrans("123456789ABCDEFG", "ABCDEFGHIJKLMNOP"))[:250]
    assert [(1, 255)] == [(n, int(reason.split()[2])) for n, reason in only_bad(line)]


def test_bad_line_str() -> None:
    """A BadLine prints as FILE:LINE: reason."""
    assert "a.txt:7: oops" == str(BadLine("a.txt", 7, "oops"))


# --------------------------------------------------------------------------- whole-file errors


@pytest.mark.parametrize(
    ("name", "message"),
    [
        pytest.param("nowhere.txt", r"nowhere\.txt: no such file", id="missing file"),
        pytest.param("", r"readers: is a directory", id="directory"),
        pytest.param("garbage.bin", r"garbage\.bin: ", id="binary garbage"),
        pytest.param("latin1.txt", r"latin1\.txt: not UTF-8 text .*xe9", id="not UTF-8"),
        pytest.param("not_gzip.txt.gz", r"not_gzip\.txt\.gz: not a gzip file", id="gz, not gzip"),
        pytest.param(
            "truncated.txt.gz", r"truncated\.txt\.gz: corrupt gzip data", id="truncated gzip"
        ),
    ],
)
def test_unreadable_file(name: str, message: str) -> None:
    """A file that cannot be read as puzzles is a DatasetError naming it and saying why."""
    with pytest.raises(DatasetError, match=message):
        read_puzzles(str(DATA / name))


def test_dataset_error_is_a_sudoku_error() -> None:
    """DatasetError belongs to the project's exception hierarchy."""
    from backends.errors import SudokuError

    assert issubclass(DatasetError, SudokuError)


# --------------------------------------------------------------------------- format_bad_lines


def test_format_bad_lines_limit() -> None:
    """Only `limit` lines are listed, then how many more there are."""
    bad = [BadLine("f", i, "r") for i in range(1, 6)]
    assert "f:1: r\nf:2: r\n... and 3 more bad lines" == format_bad_lines(bad, limit=2)


def test_format_bad_lines_all_shown() -> None:
    """Under the limit every line is listed and nothing else."""
    assert "f:1: r" == format_bad_lines([BadLine("f", 1, "r")])


def test_format_bad_lines_one_more() -> None:
    """One hidden line is 'line', not 'lines'."""
    bad = [BadLine("f", 1, "r"), BadLine("f", 2, "r")]
    assert "f:1: r\n... and 1 more bad line" == format_bad_lines(bad, limit=1)


# --------------------------------------------------------------------------- streaming


def test_iter_text_matches_read_text() -> None:
    """The streaming reader yields the same records and bad lines, interleaved by line."""
    text = f"{PUZ}\nbad\n{PUZ2}\n"
    items = list(iter_text(text, "x"))
    assert [PuzzleRecord, BadLine, PuzzleRecord] == [type(item) for item in items]
    assert [1, 2, 3] == [item.line for item in items]


def test_iter_puzzles_missing_file_raises_at_once() -> None:
    """iter_puzzles raises DatasetError when called, not on first use."""
    with pytest.raises(DatasetError):
        iter_puzzles(str(DATA / "nowhere.txt"))


def test_many_lines_cross_batches() -> None:
    """Thousands of lines (more than one batch) keep their order and numbers."""
    lines = [PUZ if i % 3 else PUZ2 for i in range(10_000)]
    lines[5000] = "oops"
    result = read_text("\n".join(lines), "x")
    assert (9_999, [5001]) == (len(result.records), [b.line for b in result.bad])
    assert [1, 2, 3] == [r.line for r in result.records[:3]]
    assert 10_000 == result.records[-1].line


# --------------------------------------------------------------------------- public datasets


@pytest.mark.parametrize(
    ("name", "count"),
    [("norvig-top95.txt", 95), ("norvig-hardest.txt", 11), ("norvig-easy50.txt", 50)],
)
def test_public_datasets(name: str, count: int) -> None:
    """Each public Norvig set reads completely, with no bad line."""
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"public datasets folder {SHARED_DATASETS} is absent")
    result = read_puzzles(str(SHARED_DATASETS / name))
    assert (count, ()) == (len(result.records), result.bad)


# --------------------------------------------------------------------------- fuzzing

JUNK_PIECES = [
    "Grid 01",
    "========",
    "------+-------+------",
    "+---+---+",
    "|",
    " ",
    "#",
    ":",
    ";",
    ",",
    "quizzes,solutions",
    PUZ,
    PUZ[:40],
    SOL,
    PUZ4,
    PUZ16,
    "1 2 3 4",
    "10 11 . 3",
    "003020600",
    "ß",
    "ﬁ",
    "\ufeff",
    "\r",
    "\t",
    "9" * 30,
    "\x00",
    "\udcff",
]

fuzz_line = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="123456789ABCDEFGP0.-_*|+= \t:;,#", max_size=90),
    st.lists(st.sampled_from(JUNK_PIECES), max_size=4).map("".join),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(fuzz_line, max_size=30), st.booleans())
def test_random_text_never_raises(lines: list[str], csv_header: bool) -> None:
    """Any text reads without raising; every problem is a BadLine, all in line order."""
    text = ("quizzes,solutions\n" if csv_header else "") + "\n".join(lines)
    result = read_text(text, "fuzz")
    numbers = [r.line for r in result.records]
    bad_numbers = [b.line for b in result.bad]
    assert sorted(numbers) == numbers
    assert sorted(bad_numbers) == bad_numbers
    assert all(b.reason for b in result.bad)


@st.composite
def solved_and_puzzle(draw: st.DrawFn, box: int) -> tuple[Puzzle, Puzzle]:
    """A random full grid (pattern, relabelled, rows and columns shuffled) and a puzzle of it."""
    n = box * box
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    digits = list(range(1, n + 1))
    rnd.shuffle(digits)

    def order() -> list[int]:
        bands = rnd.sample(range(box), box)
        return [b * box + i for b in bands for i in rnd.sample(range(box), box)]

    rows, cols = order(), order()
    full = tuple(digits[(r * box + r // box + c) % n] for r in rows for c in cols)
    density = draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]))
    cells = tuple(d if rnd.random() < density else 0 for d in full)
    return Puzzle(box, full), Puzzle(box, cells)


def marks_text(puzzle: Puzzle, rnd: random.Random) -> str:
    """One-line text with a random empty mark per empty cell ('0' only up to 9x9)."""
    marks = ".0-_*" if puzzle.n <= 9 else ".-_*"
    text = [ch if ch != "." else rnd.choice(marks) for ch in puzzle.to_string()]
    if "." not in text and "0" not in text and "." in puzzle.to_string():
        text[puzzle.to_string().index(".")] = "."  # never an all-'-' line (a separator)
    return "".join(text)


def layout(name: str, solved: Puzzle, puzzle: Puzzle, rnd: random.Random) -> str:
    """The puzzle written in one of the supported layouts."""
    n = puzzle.n
    if name == "one-line":
        return marks_text(puzzle, rnd)
    if name == "tdoku":
        return f"{puzzle}:1:{solved}"
    if name == "csv":
        return f"quizzes,solutions\n{puzzle},{solved}"
    if name == "lowercase":
        return puzzle.to_string().lower()
    if name == "rows":  # a row of only '-' marks is a separator line, by the readers' rule
        rows = [
            row if set(row) != {"-"} else "." + row[1:]
            for row in rows_of(marks_text(puzzle, rnd), n)
        ]
        return "Grid 01\n" + "\n".join(rows)
    if name == "pretty":
        return puzzle.pretty()
    assert name == "numbers"
    return "\n".join(" ".join(str(d) for d in puzzle.cells[r * n : (r + 1) * n]) for r in range(n))


LAYOUTS = ["one-line", "tdoku", "csv", "lowercase", "rows", "pretty", "numbers"]


@pytest.mark.parametrize(
    ("name", "box"),
    [(name, box) for name in LAYOUTS for box in (2, 3, 4, 5) if name != "numbers" or box > 3],
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_round_trip(box: int, name: str, data: st.DataObject) -> None:
    """Random valid puzzles written in each layout read back exactly."""
    count = data.draw(st.integers(1, 3))
    pairs = [data.draw(solved_and_puzzle(box)) for _ in range(count)]
    rnd = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    if name == "csv":
        body = "\n".join(f"{puzzle},{solved}" for solved, puzzle in pairs)
        text = "quizzes,solutions\n" + body
    else:
        separator = "\n" if name in ("one-line", "tdoku", "lowercase") else "\n\n"
        text = separator.join(layout(name, solved, puzzle, rnd) for solved, puzzle in pairs)
    result = read_text(text + "\n", "rt")
    assert () == result.bad
    assert [puzzle for _, puzzle in pairs] == [r.puzzle for r in result.records]
    if name in ("tdoku", "csv"):
        assert [solved for solved, _ in pairs] == [r.expected_solution for r in result.records]


def test_reading_never_imports_numpy(tmp_path: Path) -> None:
    """Reading puzzles, solutions, grids and bad lines leaves numpy out of sys.modules."""
    grid = "\n".join(rows_of(PUZ2, 9))
    bad = PUZ[:-1] + "x"
    path = tmp_path / "mix.txt"
    path.write_text(f"{PUZ}:1:{SOL}\n{bad}\n{solved_grid(4)}\n\n{grid}\n")
    code = (
        "import sys\n"
        "from harness.puzzles.readers import read_puzzles\n"
        "result = read_puzzles(sys.argv[1])\n"
        "print(len(result.records), len(result.bad), 'numpy' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    assert "3 1 False" == done.stdout.strip()


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_batch_check_finds_each_digit_repeated(box: int) -> None:
    """In one batch, a digit given twice in a row is found for every digit, in every plane."""
    n = box * box
    alphabet = canonical_alphabet(n)
    texts = [PUZ if box == 3 else "." * n * n]
    for symbol in alphabet:
        texts.append(symbol + "." * (n - 2) + symbol + "." * (n * n - n))
    refused, grids, _ = check(texts, [None] * len(texts), n, alphabet)
    assert set(range(1, n + 1)) == refused
    assert [ord(ch) for ch in texts[-1].translate(digit_table(n, alphabet))] == list(
        list(grids)[-1]
    )


@pytest.mark.parametrize("box", [2, 3, 4, 5])
def test_batch_check_finds_each_wrong_solution(box: int) -> None:
    """Solutions missing a digit, changing a given or with a foreign symbol are refused."""
    n = box * box
    alphabet = canonical_alphabet(n)
    solution = solved_grid(box)
    puzzle = with_holes(solution, box)
    other = alphabet[alphabet.index(solution[0]) - 1]  # a digit that is not the first cell's
    solutions = [
        solution,
        other + solution[1:],  # breaks its column and box, and changes a given
        solution[:-1] + ".",  # incomplete
        solution[:-1] + "x",  # a foreign symbol
        None,
    ]
    refused, _, expected = check([puzzle] * len(solutions), solutions, n, alphabet)
    assert {1, 2, 3} == refused
    assert [ord(ch) for ch in solution.translate(digit_table(n, alphabet))] == list(
        expected[0] or ()
    )
    assert expected[4] is None


@given(st.text(alphabet=" \t\x1c\x85\xa0\u3000:;,#|.19aZ", max_size=8))
def test_is_token_is_token_of_the_whole_line(line: str) -> None:
    """is_token(line) says whether token_of(line) is the whole line, whitespace of any kind."""
    assert (token_of(line) == line) == is_token(line)


def test_new_record_is_the_dataclass_record() -> None:
    """new_record builds the same frozen record as PuzzleRecord(...), field for field."""
    fields = ("d", 3, p(PUZ), 1, p(SOL), "meta")
    record = new_record(*fields)
    assert PuzzleRecord(*fields) == record
    assert repr(PuzzleRecord(*fields)) == repr(record)
    assert hash(PuzzleRecord(*fields)) == hash(record)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.line = 4  # type: ignore[misc]
