"""Whatever a ``cmd:`` solver answers (statuses, counts, statistics, solution text, lines
that break the protocol), a whole run ends with every planned row written, every refused
answer an ERROR or WRONG row, never a traceback, and a file every reading command reads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.check.checker import check_solution
from harness.cli import main
from harness.results import engine
from tests.conftest import pattern_puzzle
from tests.results_file import read_rows

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
    folder = tmp_path / str(abs(hash(tuple(script))))
    folder.mkdir()
    (folder / "answers.json").write_text(json.dumps(script))
    (folder / "solver.py").write_text(SOLVER)
    data = folder / "p.txt"
    data.write_text("".join(p.to_string() + "\n" for p in PUZZLES))
    spec = f"cmd:{sys.executable} {folder / 'solver.py'} {folder / 'answers.json'}"
    out = folder / "r.csv"
    run = CliRunner().invoke(
        main, ["run", "-q", "-b", spec, "--timeout", "5", "--out", str(out), str(data)]
    )
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
    with engine.read([out]) as results:  # the file reads back, every row of it
        assert len(PUZZLES) == results.counts[0]
    table = CliRunner().invoke(main, ["table", str(out), "--format", "json"])
    assert 0 == table.exit_code, table.output
