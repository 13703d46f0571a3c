"""Whatever a ``cmd:`` solver answers (statuses, counts, statistics, solution text, lines
that break the protocol), or a ``lib:`` function returns (any count, any counters, any 17
bytes in its solution buffer), a whole run ends with every planned row written, every
refused answer an ERROR, UNKNOWN or WRONG row, never a traceback, and a file every reading
command reads."""

from __future__ import annotations

import json
import struct
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from click.testing import Result as Invoked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.check.checker import check_solution
from harness.cli import main
from harness.results import engine
from tests.conftest import pattern_puzzle
from tests.results_file import read_rows
from tests.test_lib import compile_library

#: Answers the solver gives, one a puzzle, in order, from the JSON file in argv[1].
SOLVER = """
import json, sys
answers = json.load(open(sys.argv[1]))
print("READY", flush=True)
for k, line in enumerate(sys.stdin):
    print(answers[k % len(answers)], flush=True)
"""
PUZZLES = [pattern_puzzle(2, 2 + k % 2) for k in range(3)]
SOLUTION = pattern_puzzle(2, 0).to_string()

numbers = st.one_of(
    st.integers(-5, 2**70), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4)
)
statistics = st.dictionaries(
    st.sampled_from(["solutions", "nodes", "guesses", "backtracks", "time_us", "conflicts"]),
    numbers,
    max_size=4,
)
grids = st.one_of(
    st.just(SOLUTION),
    st.just("-"),
    st.text(alphabet="1234.x", min_size=0, max_size=20),
    st.just(SOLUTION[::-1]),
)
answers = st.builds(
    lambda status, grid, stats: " ".join(
        [status, grid or "-", *(f"{k}={v}".replace(" ", "_") for k, v in stats.items())]
    ),
    st.sampled_from(["SOLVED", "UNSAT", "UNKNOWN", "TIMEOUT", "MAYBE", ""]),
    grids,
    statistics,
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(script=st.lists(answers, min_size=1, max_size=3))
def test_any_answer_makes_a_whole_readable_run(script: list[str], tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # one of its own: an example may come again
    (folder / "answers.json").write_text(json.dumps(script))
    (folder / "solver.py").write_text(SOLVER)
    data = folder / "p.txt"
    data.write_text("".join(p.to_string() + "\n" for p in PUZZLES))
    spec = f"cmd:{sys.executable} {folder / 'solver.py'} {folder / 'answers.json'}"
    out = folder / "r.csv"
    run = CliRunner().invoke(
        main, ["run", "-q", "-b", spec, "--timeout", "5", "--out", str(out), str(data)]
    )
    assert_whole_run(run, out)


def assert_whole_run(run: Invoked, out: Path) -> None:
    """A run that ended by itself, with a row for every puzzle, only checked answers SOLVED,
    and a file that reads back, every row of it, in the engine and in ``harness table``."""
    assert run.exception is None or isinstance(run.exception, SystemExit), run.output
    assert run.exit_code in (0, 3, 4), run.output
    rows = read_rows(out)[1]
    assert len(PUZZLES) == len(rows)
    for row in rows:
        assert row["status"] in {"SOLVED", "UNSAT", "UNKNOWN", "TIMEOUT", "WRONG", "ERROR"}
        if row["status"] == "SOLVED":  # only a checked answer is SOLVED
            puzzle = PUZZLES[int(row["line"]) - 1]
            answer = tuple(int(c) for c in row["solution"])
            assert check_solution(puzzle.cells, answer) is None
        assert row["status"] != "UNSAT", row  # every puzzle here has a solution
    with engine.read([out]) as results:  # the file reads back, every row of it
        assert len(PUZZLES) == results.counts[0]
    table = CliRunner().invoke(main, ["table", str(out), "--format", "json"])
    assert 0 == table.exit_code, table.output


#: A ``lib:`` function that returns, call after call, the records of the file SCRIPT: the
#: count to return, the four counters to leave in ``stats`` and 17 bytes for the solution
#: buffer (a 4x4 grid's 16 and its NUL, or anything else).
SCRIPTED = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
static long calls;
int64_t scripted(const char *puzzle, int64_t limit, char *solution, int64_t *stats) {
    int64_t head[5];
    char grid[17];
    FILE *f = fopen(SCRIPT, "rb");
    if (!f) return -99;
    fseek(f, 0, SEEK_END);
    long records = ftell(f) / 57;
    fseek(f, (calls++ % records) * 57, SEEK_SET);
    int read = fread(head, 8, 5, f) == 5 && fread(grid, 1, 17, f) == 17;
    fclose(f);
    if (!read) return -98;
    memcpy(stats, head + 1, 4 * sizeof *stats);
    memcpy(solution, grid, 17);
    return head[0];
}
"""
#: One record of the script, as the library reads it.
RECORD = struct.Struct("=5q17s")


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The scripted library, built, and the script it reads."""
    folder = tmp_path_factory.mktemp("scripted")
    script = folder / "script.bin"
    source = SCRIPTED.replace("SCRIPT", json.dumps(str(script)))
    return compile_library(folder, source, "scripted"), script


int64 = st.integers(-(2**63), 2**63 - 1)
returns = st.one_of(st.sampled_from([-1, 0, 1, 2, 3]), int64)
counters = st.one_of(st.just(-1), st.integers(0, 10**6), int64)
buffers = st.one_of(
    st.just(SOLUTION.encode() + b"\0"),
    st.just(SOLUTION[::-1].encode() + b"\0"),
    st.just(SOLUTION.encode() + b"7"),  # no NUL after the grid
    st.binary(min_size=17, max_size=17),
)
records = st.builds(
    lambda count, stats, grid: RECORD.pack(count, *stats, grid),
    returns,
    st.tuples(counters, counters, counters, counters),
    buffers,
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(script=st.lists(records, min_size=1, max_size=3), limit=st.sampled_from(["1", "2"]))
def test_any_library_answer_makes_a_whole_readable_run(
    script: list[bytes], limit: str, scripted: tuple[Path, Path], tmp_path: Path
) -> None:
    library, script_file = scripted
    script_file.write_bytes(b"".join(script))
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # one of its own: an example may come again
    data = folder / "p.txt"
    data.write_text("".join(p.to_string() + "\n" for p in PUZZLES))
    out = folder / "r.csv"
    command = ["run", "-q", "-b", f"lib:{library}:scripted", "--limit-solutions", limit]
    run = CliRunner().invoke(main, [*command, "--timeout", "5", "--out", str(out), str(data)])
    assert_whole_run(run, out)
