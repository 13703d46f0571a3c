"""The cmd: backend: outside executables over the line protocol, measured like a built-in."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest
from click.testing import CliRunner

from backends import make_backend
from backends.command import EXAMPLE, SolverError
from harness.cli import main
from harness.results import read_rows
from tests.conftest import PROJECT, pattern_puzzle

FAKE = PROJECT / "tests" / "fake_solver.py"


def fake(mode: str) -> str:
    """The ``-b`` spec of the fake solver in ``mode``."""
    return f"cmd:{sys.executable} {FAKE} {mode}"


def run(tmp_path: Path, spec: str, data: Path, *args: str) -> tuple[int, list[dict[str, str]]]:
    """``harness run -q -b SPEC ARGS DATA``: exit code and rows."""
    out = tmp_path / "run.csv"
    command = ["run", "-q", "-b", spec, *args, "--out", str(out), str(data)]
    result = CliRunner().invoke(main, command)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, read_rows(out)[1]


def three_puzzles(tmp_path: Path) -> Path:
    """An easy puzzle, the one the fake solver misbehaves on, an easy one again."""
    data = tmp_path / "puzzles.txt"
    data.write_text("".join(pattern_puzzle(2, k).to_string() + "\n" for k in (2, 3, 2)))
    return data


def left_behind(marker: str) -> list[int]:
    """Processes (not zombies) whose command line mentions ``marker``, 2 s later at most."""
    deadline = time.monotonic() + 2
    while True:
        found = []
        for proc in psutil.process_iter(["cmdline", "status"]):
            cmdline = " ".join(proc.info["cmdline"] or ())
            if marker in cmdline and proc.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_example_python_solver_on_top95(tmp_path: Path, shared_datasets: Path) -> None:
    """`-b cmd` (the example Python solver) solves Norvig's top95, every answer checked."""
    code, rows = run(tmp_path, "cmd", shared_datasets / "norvig-top95.txt")
    assert (0, ["SOLVED"] * 95) == (code, [row["status"] for row in rows])
    assert [] == left_behind(str(EXAMPLE))


def test_example_c_solver_on_top95(tmp_path: Path, shared_datasets: Path) -> None:
    """The example C solver, compiled here, solves Norvig's top95, every answer checked."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH")
    binary = tmp_path / "solver"
    source = PROJECT / "examples" / "cmd" / "solver.c"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], check=True)
    code, rows = run(tmp_path, f"cmd:{binary}", shared_datasets / "norvig-top95.txt")
    assert (0, ["SOLVED"] * 95) == (code, [row["status"] for row in rows])
    assert [] == left_behind(str(binary))


def tiny_solver_spec(name: str, tmp_path: Path) -> str:
    """The ``-b`` spec of the README's short example solver ``tiny.py`` or ``tiny.c``."""
    source = PROJECT / "examples" / "cmd" / name
    if name.endswith(".py"):
        return f"cmd:{sys.executable} {source}"
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH")
    binary = tmp_path / "tiny"
    subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], check=True)
    return f"cmd:{binary}"


@pytest.mark.parametrize("name", ["tiny.py", "tiny.c"])
def test_readme_tiny_solvers_count_to_the_limit(name: str, tmp_path: Path) -> None:
    """The README's short solvers prove uniqueness, UNSAT and two solutions, checked."""
    data = tmp_path / "mixed.txt"
    files = ("easy.txt", "unsolvable.txt", "multi.txt")
    data.write_text("".join((PROJECT / "datasets" / f).read_text() for f in files))
    args = ("--limit-solutions", "2", "--timeout", "20")
    code, rows = run(tmp_path, tiny_solver_spec(name, tmp_path), data, *args)
    nine = [row for row in rows if row["size"] == "9"]
    assert 0 == code
    assert {"SOLVED": 53, "UNSAT": 4} == dict(Counter(row["status"] for row in nine))
    assert {"1", "2", "0"} == {row["solutions"] for row in nine}


#: A hung solver's TIMEOUT: stopped by the backend at its time limit, or, when a loaded
#: machine wakes the backend late, killed by the harness's pool a little after.
KILLED = ("solver killed at 1 s", "killed after 1.")


@pytest.mark.parametrize(
    ("mode", "status", "message"),
    [
        ("hang", "TIMEOUT", KILLED),
        ("fork", "TIMEOUT", KILLED),
        ("crash", "ERROR", ("SolverError: the solver exited (exit code 3)",)),
        ("garbage", "ERROR", ("SolverError: not '<STATUS> <grid or -> [key=value ...]': 'hello",)),
    ],
)
def test_misbehaving_solver(
    tmp_path: Path, mode: str, status: str, message: tuple[str, ...]
) -> None:
    """Hang, fork and hang, crash, garbage: the right status in time, a fresh solver; none left."""
    _, rows = run(tmp_path, fake(mode), three_puzzles(tmp_path), "--timeout", "1")
    statuses = [row["status"] for row in rows]
    assert ["SOLVED", status, "SOLVED"] == statuses
    assert rows[1]["message"].startswith(message)
    assert float(rows[1]["wall_s"]) < 1.0 + 1.0
    assert float(rows[2]["solve_s"]) < start_s()  # the solver's restart was not timed
    assert [] == left_behind(f"{FAKE} {mode}")


def start_s() -> float:
    """Seconds to start the fake solver's interpreter now (under this load): a timed
    restart would take at least as long."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def test_comments_counters_and_native_columns(tmp_path: Path) -> None:
    """# lines are skipped; nodes is a counter, time_us and unknown keys native columns."""
    code, rows = run(tmp_path, fake("answer"), three_puzzles(tmp_path))
    fields = [(r["status"], r["nodes"], r["time_us"], r["flips"]) for r in rows]
    assert (0, [("SOLVED", "1", "12", "7")] * 3) == (code, fields)


def test_solver_memory_counts_in_peak_and_limit(tmp_path: Path) -> None:
    """A solver holding 300 MiB: its row's peak shows it, and a 250 MiB limit is MEMOUT."""
    _, rows = run(tmp_path, fake("hog"), three_puzzles(tmp_path))
    assert float(rows[1]["peak_rss_mib"]) > 300 > float(rows[0]["peak_rss_mib"])
    # A fresh harness process, as a user runs it: a worker forked from this test process
    # would start with the test's own memory (hundreds of MiB once the suite has run).
    out = tmp_path / "limited.csv"
    harness = str(Path(sys.executable).parent / "harness")
    command = [harness, "run", "-q", "-b", fake("hog-hang"), "--memory-limit", "250"]
    subprocess.run([*command, "--out", str(out), str(three_puzzles(tmp_path))], check=False)
    statuses = [row["status"] for row in read_rows(out)[1]]
    assert ["SOLVED", "MEMOUT", "SOLVED"] == statuses


def test_solver_that_cannot_start_breaks_once(tmp_path: Path) -> None:
    """A command that does not exist: one ERROR row per puzzle, naming it."""
    code, rows = run(tmp_path, "cmd:./no-such-solver --fast", three_puzzles(tmp_path))
    messages = {row["message"].split(" (")[0] for row in rows}
    expected = {
        "warm-up failed: SolverError: cannot start './no-such-solver': No such file or directory"
    }
    assert (4, expected) == (code, messages)


def test_spec_is_the_command_line() -> None:
    """Everything after cmd: is the command, split like a shell's; cmd alone is the example."""
    backend = make_backend("cmd:./my_solver --fast 'two words'")
    assert (["./my_solver", "--fast", "two words"], "cmd") == (
        backend.argv,
        make_backend("cmd").spec,
    )


def test_solver_without_ready_is_refused() -> None:
    """A first line other than READY is a SolverError quoting it."""
    backend = make_backend("cmd:echo hello")
    with pytest.raises(SolverError, match="not READY: 'hello'"):
        backend.solve(backend.encode(pattern_puzzle(2, 2)))
