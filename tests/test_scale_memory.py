"""harness run in bounded memory: 200,000 small puzzles do not cost a row each in memory."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT, pattern_puzzle

#: Puzzles in the large run: held as rows (some 2 KB each) they would take ~400 MB.
PUZZLES = 200_000
#: What the large run may take beyond a run of one puzzle, MiB: the results engine's read of
#: the CSV at the end (DuckDB's buffers and its table of the columns the end reads), the
#: reading and writing buffers; rows held in memory would take ~400 MB more.
ALLOWED_MIB = 300

#: Runs the harness as this process's only child; prints the child's peak resident KiB.
PEAK = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def puzzle_file(path: Path, count: int) -> Path:
    """``count`` 4x4 puzzles, one a line, their digits relabelled at random."""
    text = pattern_puzzle(2, blanks_per_row=2).to_string()
    rng = random.Random(4)
    lines = []
    for _ in range(count):
        digits = rng.sample("1234", 4)
        lines.append(text.translate(str.maketrans("1234", "".join(digits))) + "\n")
    path.write_text("".join(lines))
    return path


def peak_mib(puzzles: Path, out: Path) -> float:
    """The peak resident memory of ``harness run`` on ``puzzles`` (and of its workers,
    which never hold more than it did when they were forked), MiB."""
    harness = [sys.executable, "-c", "from harness.cli import main; main()"]
    run = [*harness, "run", "-q", "-b", "bitmask", "--jobs", "2", "--out", str(out), str(puzzles)]
    done = subprocess.run(
        [sys.executable, "-c", PEAK, *run],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    return int(done.stdout.split()[-1]) / 1024


@pytest.mark.slow
def test_a_large_run_costs_a_few_bytes_a_row(tmp_path: Path) -> None:
    """200,000 puzzles take less than 300 MiB more than one puzzle does."""
    one = peak_mib(puzzle_file(tmp_path / "one.txt", 1), tmp_path / "one.csv")
    large = tmp_path / "large.csv"
    many = peak_mib(puzzle_file(tmp_path / "many.txt", PUZZLES), large)
    assert PUZZLES + 1 == len(large.read_bytes().splitlines())
    assert many - one < ALLOWED_MIB, f"{many:.0f} MiB against {one:.0f} MiB for one puzzle"
