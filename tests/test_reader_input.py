"""Input the readers must survive: huge lines, endless or bomb-like files, FIFOs and pipes,
solutions of the wrong length, a CSV header without a puzzle column; and `harness explain`
on typed 16x16/25x25 text and on standard input."""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from backends.puzzle import Puzzle
from harness.cli import main
from harness.exit_codes import RunExit
from harness.puzzles.readers import MAX_LINE, DatasetError, read_puzzles, read_text
from tests.conftest import PROJECT
from tests.test_readers import PUZ, PUZ2, SOL, solved_grid

EASY = [
    line.strip()
    for line in (PROJECT / "datasets" / "easy.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]


def invoke(*args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def run_file(tmp_path: Path, name: str, text: str) -> tuple[Path, Result]:
    """`harness run` through the CLI on a file holding ``text``: the file, and the result."""
    path = tmp_path / name
    path.write_text(text)
    return path, invoke("run", "-q", "--out", str(tmp_path / "r.csv"), str(path))


def bad_of(text: str) -> list[tuple[int, str]]:
    return [(b.line, b.reason) for b in read_text(text, "t.txt").bad]


def run_cli(
    args: list[str], timeout: float = 120, shell: bool = False
) -> subprocess.CompletedProcess:
    """`harness ARGS` in a child process, its address space capped at 3 GiB."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    command = [sys.executable, "-c", "from harness.cli import main; main()", *args]
    if shell:
        command = ["bash", "-c", " ".join(args)]
    return subprocess.run(
        command,
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=cap,
        check=False,
    )


# --------------------------------------------------------------------------- line too long


def test_line_too_long_is_a_bad_line_and_reading_goes_on() -> None:
    """A line over MAX_LINE characters is 'line too long'; the lines around it are read."""
    result = read_text(f"{PUZ}\n{'1' * (MAX_LINE + 5)}\n{PUZ2}\n", "t.txt")
    assert [1, 3] == [r.line for r in result.records]
    assert [(2, f"line too long: more than {MAX_LINE:,} characters")] == [
        (b.line, b.reason) for b in result.bad
    ]


def test_longest_line_allowed_is_read() -> None:
    """A line of exactly MAX_LINE characters is read as usual (here: metadata after a grid)."""
    line = f"{PUZ} " + "x" * (MAX_LINE - 82)
    assert (MAX_LINE, 1) == (len(line), len(read_text(line + "\n", "t").records))


def test_cli_names_a_line_too_long(tmp_path: Path) -> None:
    """`harness run` on a file with a huge line prints FILE:LINE: line too long, exit 2."""
    path, result = run_file(tmp_path, "p.txt", f"{PUZ}\n{'.' * 10**6}\n")
    assert RunExit.USAGE == result.exit_code
    assert f"{path}:2: line too long: more than {MAX_LINE:,} characters" in result.output


def test_gzip_bomb_of_one_line_reads_in_bounded_memory(tmp_path: Path) -> None:
    """64 MB of '0' without a line break, gzipped to 64 KB: one bad line, under 8 MB traced."""
    path = tmp_path / "bomb.txt.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        for _ in range(64):
            out.write(b"0" * (1 << 20))
    tracemalloc.start()
    try:
        result = read_puzzles(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [1] == [b.line for b in result.bad]
    assert peak < 8 << 20, f"peak {peak / 2**20:.1f} MiB"


def test_gzip_of_zero_bytes_is_binary(tmp_path: Path) -> None:
    """A .gz of 256 MB of NUL bytes is refused at once as binary, in bounded memory, exit 2."""
    path = tmp_path / "zeros.gz"
    with gzip.open(path, "wb", compresslevel=1) as out:
        for _ in range(256):
            out.write(bytes(1 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(DatasetError, match="binary data"):
            read_puzzles(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"peak {peak / 2**20:.1f} MiB"
    result = invoke("run", "-q", "--out", str(tmp_path / "r.csv"), str(path))
    assert RunExit.USAGE == result.exit_code
    assert "binary data (a NUL byte)" in result.output


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_is_refused_without_blowing_up(tmp_path: Path) -> None:
    """`harness run /dev/zero` stops at once with one line, exit 2, within a 3 GiB cap."""
    done = run_cli(["run", "-q", "--out", str(tmp_path / "r.csv"), "/dev/zero"], timeout=60)
    assert RunExit.USAGE == done.returncode
    assert "harness: error: /dev/zero: binary data (a NUL byte)" in done.stderr
    assert "Traceback" not in done.stderr


# --------------------------------------------------------------------------- FIFOs and pipes


def rows_of(path: Path) -> int:
    return len(path.read_text().splitlines()) - 1


def test_fifo_is_read_whole(tmp_path: Path) -> None:
    """A named pipe is opened once: all 200 puzzles run, none lost, no hang."""
    fifo = tmp_path / "puzzles.fifo"
    data = tmp_path / "puzzles.txt"
    data.write_text("".join(f"{line}\n" for line in EASY * 4))
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat '{data}' > '{fifo}'"])
    try:
        out = tmp_path / "r.csv"
        done = run_cli(["run", "-q", "--timeout", "10", "--out", str(out), str(fifo)])
    finally:
        writer.kill()
        writer.wait()
    assert 0 == done.returncode, done.stderr
    assert 200 == rows_of(out)


def test_process_substitution_is_read_whole(tmp_path: Path) -> None:
    """`harness run <(cat FILE)` runs every puzzle: the pipe is not opened twice."""
    data = tmp_path / "puzzles.txt"
    data.write_text("".join(f"{line}\n" for line in EASY * 4))
    out = tmp_path / "r.csv"
    harness = f"'{sys.executable}' -c 'from harness.cli import main; main()'"
    command = f"{harness} run -q --timeout 10 --out '{out}' <(cat '{data}')"
    done = run_cli([command], shell=True)
    assert 0 == done.returncode, done.stderr
    assert 200 == rows_of(out)


def test_gzip_on_stdin() -> None:
    """Gzip data on standard input is recognised from its first bytes."""
    result = invoke("explain", "-", input=gzip.compress(f"{EASY[0]}\n".encode()))
    assert 0 == result.exit_code, result.output
    assert result.output.startswith(f"puzzle {Puzzle.parse(EASY[0]).to_string()}")


# --------------------------------------------------------------------------- expected solutions


@pytest.mark.parametrize(
    ("line", "size"),
    [
        (f"{PUZ}:1:{SOL[:80]}", 80),
        (f"{PUZ} {SOL[:80]}", 80),
        (f"{PUZ},{SOL}9", 82),
        (f"{PUZ};{SOL[:61]}", 61),
    ],
    ids=["tdoku", "space", "comma", "semicolon"],
)
def test_solution_of_the_wrong_length_is_a_bad_line(line: str, size: int) -> None:
    """Text after the grid that claims to be a solution but has the wrong length is reported."""
    assert [(1, f"expected solution has {size} cells, the puzzle 81")] == bad_of(line + "\n")


@pytest.mark.parametrize(
    "meta", [":1:", ":30", " # 2.3", " 7.1/1.2/1.2 hard", " 123456789012345678901234567890"]
)
def test_metadata_that_is_no_solution_is_kept(meta: str) -> None:
    """Counts, ratings and short numbers after the grid are not taken for solutions."""
    result = read_text(f"{PUZ}{meta}\n", "t")
    assert ((), [meta.strip()]) == (result.bad, [r.meta for r in result.records])


def test_cli_reports_a_solution_of_80_cells(tmp_path: Path) -> None:
    """`harness run` on 'puzzle:1:<80 cells>' names the file, line and length, exit 2."""
    path, result = run_file(tmp_path, "t.txt", f"{PUZ}:1:{SOL[:80]}\n")
    assert RunExit.USAGE == result.exit_code
    assert f"{path}:1: expected solution has 80 cells, the puzzle 81\n" in result.output


# --------------------------------------------------------------------------- CSV headers


def test_csv_header_without_a_puzzle_column(tmp_path: Path) -> None:
    """'foo,bar' as the first line is a header without a puzzle column, not 3 cells."""
    path, result = run_file(tmp_path, "t.csv", f"foo,bar\n{PUZ},x\n")
    assert RunExit.USAGE == result.exit_code
    assert f"{path}:1: looks like a CSV header without a 'quizzes' or 'puzzle' column" in (
        result.output
    )


@pytest.mark.parametrize(
    ("first", "reported"),
    [("Grid 01", False), ("Puzzle 3:", False), ("id;rating", True), ("a\tb", True)],
)
def test_first_line_headers(first: str, reported: bool) -> None:
    """Grid headers stay headers; name-only CSV lines (any delimiter) are reported."""
    reasons = [reason for _, reason in bad_of(f"{first}\n{PUZ}\n")]
    assert reported == any("CSV header" in reason for reason in reasons)


# --------------------------------------------------------------------------- explain


def test_explain_typed_16x16() -> None:
    """A 16x16 puzzle typed as text is explained (it was 'File name too long')."""
    text = "".join(
        ch if k % 5 else "." for k, ch in enumerate(Puzzle.from_digits(_grid(4)).to_string())
    )
    result = invoke("explain", text)
    assert 0 == result.exit_code, result.output
    assert result.output.startswith(f"puzzle {Puzzle.parse(text).to_string()}")


def test_explain_typed_25x25() -> None:
    """A 25x25 puzzle typed as text is explained."""
    text = "".join(
        ch if k % 40 else "." for k, ch in enumerate(Puzzle.from_digits(_grid(5)).to_string())
    )
    result = invoke("explain", "--timeout", "20", text)
    assert 0 == result.exit_code, result.output
    assert result.output.splitlines()[-1].startswith("rating: tier")


def test_explain_pasted_grid() -> None:
    """A grid pasted on several lines is read as the readers read a file."""
    result = invoke("explain", Puzzle.parse(EASY[0]).pretty())
    assert 0 == result.exit_code, result.output
    assert result.output.startswith(f"puzzle {Puzzle.parse(EASY[0]).to_string()}")


def test_explain_stdin() -> None:
    """`harness explain -` explains the one puzzle on standard input."""
    result = invoke("explain", "-", input=f"# one puzzle\n{EASY[0]}\n")
    assert 0 == result.exit_code, result.output
    assert result.output.startswith(f"puzzle {Puzzle.parse(EASY[0]).to_string()}")


def test_explain_stdin_line() -> None:
    """`harness explain -:LINE` picks one puzzle of several on standard input."""
    result = invoke("explain", "-:2", input=f"{EASY[0]}\n{EASY[1]}\n")
    assert (0, f"puzzle {Puzzle.parse(EASY[1]).to_string()}") == (
        result.exit_code,
        result.output.splitlines()[0],
    )


def test_explain_stdin_with_several_puzzles() -> None:
    """Several puzzles on standard input and no line: one error line, exit 2."""
    result = invoke("explain", "-", input=f"{EASY[0]}\n{EASY[1]}\n")
    assert (RunExit.USAGE, "harness: error: standard input holds 2 puzzles; give -:LINE\n") == (
        result.exit_code,
        result.output,
    )


def _grid(box: int) -> list[int]:
    """A full grid of side box*box, from test_readers' shifted-rows pattern."""
    return list(Puzzle.parse(solved_grid(box)).cells)
