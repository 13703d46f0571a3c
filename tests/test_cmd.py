"""The cmd: backend: outside executables over the line protocol, measured like a built-in."""

from __future__ import annotations

import os
import re
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
from backends.cmd_backend import EXAMPLE, SolverError
from harness.cli import main
from harness.run.plan import HOST
from harness.run.worker import handle
from tests.conftest import PROJECT, pattern_puzzle
from tests.results_file import read_rows

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


def compiled(source: Path, tmp_path: Path) -> Path:
    """``source`` compiled with the C compiler on PATH (the test is skipped without one)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH")
    binary = tmp_path / source.stem
    subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], check=True)
    return binary


def test_example_c_solver_on_top95(tmp_path: Path, shared_datasets: Path) -> None:
    """The example C solver, compiled here, solves Norvig's top95, every answer checked."""
    binary = compiled(PROJECT / "examples" / "cmd" / "solver.c", tmp_path)
    code, rows = run(tmp_path, f"cmd:{binary}", shared_datasets / "norvig-top95.txt")
    assert (0, ["SOLVED"] * 95) == (code, [row["status"] for row in rows])
    assert [] == left_behind(str(binary))


@pytest.mark.parametrize("name", ["solver.c", "solver.py"])
def test_example_solvers_count_every_size_they_announce(name: str, tmp_path: Path) -> None:
    """The examples on 4x4 to 25x25 grids, at limit 2: no WRONG, multi.txt's two solutions."""
    source = PROJECT / "examples" / "cmd" / name
    command = f"{sys.executable} {source}" if name.endswith(".py") else compiled(source, tmp_path)
    data = tmp_path / "sizes.txt"
    data.write_text(
        "".join((PROJECT / "datasets" / f).read_text() for f in ("multi.txt", "sizes.txt"))
    )
    code, rows = run(tmp_path, f"cmd:{command}", data, "--limit-solutions", "2", "--timeout", "60")
    found = Counter((row["size"], row["status"], row["solutions"]) for row in rows)
    expected = {
        ("4", "SOLVED", "2"): 2,
        ("9", "SOLVED", "2"): 3,
        ("4", "SOLVED", "1"): 3,
        ("9", "SOLVED", "1"): 3,
        ("16", "SOLVED", "1"): 2,
        ("25", "SOLVED", "1"): 2,
    }
    assert (0, expected) == (code, dict(found))


def tiny_solver_spec(name: str, tmp_path: Path) -> str:
    """The ``-b`` spec of the short example solver ``examples/cmd/tiny.py`` or ``tiny.c``."""
    source = PROJECT / "examples" / "cmd" / name
    if name.endswith(".py"):
        return f"cmd:{sys.executable} {source}"
    return f"cmd:{compiled(source, tmp_path)}"


@pytest.mark.parametrize("name", ["tiny.py", "tiny.c"])
def test_tiny_solvers_count_to_the_limit(name: str, tmp_path: Path) -> None:
    """The short example solvers prove uniqueness, UNSAT and two solutions, checked."""
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
        ("exit-held", "ERROR", ("SolverError: the solver exited (exit code 3)",)),
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
    """# lines are skipped; nodes is a counter, time_us own_solve_s, other keys native."""
    code, rows = run(tmp_path, fake("answer"), three_puzzles(tmp_path))
    fields = [(r["status"], r["nodes"], r["own_solve_s"], r["flips"]) for r in rows]
    assert (0, [("SOLVED", "1", "0.000012000", "7")] * 3) == (code, fields)


def test_killed_harness_takes_what_its_solver_started_in_a_new_session(tmp_path: Path) -> None:
    """SIGKILL of the harness: a `setsid sleep` its solver started dies with it."""
    marker = f"{1000 + os.getpid() % 1000}.{time.time_ns() % 10**6:06d}"  # sleep's argument
    harness = str(Path(sys.executable).parent / "harness")
    command = [harness, "run", "-q", "-b", fake(f"setsid {marker}"), "--timeout", "60"]
    command += ["--out", str(tmp_path / "run.csv"), str(three_puzzles(tmp_path))]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert running(marker, appear=True), "the solver's sleep did not start"
    finally:
        proc.kill()
        proc.wait()
    assert not running(marker, appear=False)


def running(marker: str, appear: bool, within_s: float = 20.0) -> bool:
    """Whether a ``sleep MARKER`` runs, polled until one does (``appear``) or none does,
    ``within_s`` at most."""
    deadline = time.monotonic() + within_s
    while True:
        found = False
        for proc in psutil.process_iter(["cmdline", "status"]):
            if proc.info["cmdline"] == ["sleep", marker]:
                found |= proc.info["status"] != psutil.STATUS_ZOMBIE
        if found == appear or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


@pytest.mark.parametrize(("timeout", "waited"), [("0.5", "1"), ("2", "2")])
def test_silent_solver_waits_the_runs_timeout_at_least_the_floor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, timeout: str, waited: str
) -> None:
    """A solver that never says READY: warm-up failed after the run's timeout, or the floor."""
    monkeypatch.setattr(handle, "WARMUP_TIMEOUT_S", 1.0)
    code, rows = run(tmp_path, fake("silent"), three_puzzles(tmp_path), "--timeout", timeout)
    pattern = re.compile(rf"warm-up failed: no answer after {waited}(\.\d)? s")
    assert (4, [True] * 3) == (code, [bool(pattern.match(row["message"])) for row in rows])


def test_statistics_never_shadow_the_rows_columns(tmp_path: Path) -> None:
    """A solver's backend=, dataset=, line=, host=... go in native_ columns, not the row's."""
    data = three_puzzles(tmp_path)
    code, rows = run(tmp_path, fake("shadow"), data)
    columns = ("dataset", "line", "backend", "repeat", "host", "status", "nodes")
    natives = ("native_backend", "native_dataset", "native_line", "native_host", "native_status")
    expected = [
        ((str(data), str(line), fake("shadow"), "0", HOST, "SOLVED", "4"),
         ("norvig", "zzz", "99", "evil", "UNSAT"))
        for line in (1, 2, 3)
    ]  # fmt: skip
    found = [(tuple(r[c] for c in columns), tuple(r[c] for c in natives)) for r in rows]
    assert (0, expected) == (code, found)


def test_solver_memory_counts_in_peak_and_limit(tmp_path: Path) -> None:
    """A solver holding 300 MiB: its row's peak shows it, and a 250 MiB limit is MEMOUT."""
    _, rows = run(tmp_path, fake("hog"), three_puzzles(tmp_path))
    before, holding = (float(row["peak_rss_mib"]) for row in rows[:2])  # the worker's varies
    assert holding - before > 250
    # A fresh harness process, as a user runs it: a worker forked from this test process
    # would start with the test's own memory (hundreds of MiB once the suite has run).
    out = tmp_path / "limited.csv"
    harness = str(Path(sys.executable).parent / "harness")
    command = [harness, "run", "-q", "-b", fake("hog-hang"), "--memory-limit", "250"]
    subprocess.run([*command, "--out", str(out), str(three_puzzles(tmp_path))], check=False)
    statuses = [row["status"] for row in read_rows(out)[1]]
    assert ["SOLVED", "MEMOUT", "SOLVED"] == statuses


def refused(tmp_path: Path, *args: str) -> tuple[int, list[str], bool]:
    """``harness run -q ARGS`` refused before any solve: exit code, the lines it printed,
    whether a CSV was written."""
    out = tmp_path / "refused.csv"
    result = CliRunner().invoke(main, ["run", "-q", *args, "--out", str(out)])
    return result.exit_code, result.output.splitlines(), out.exists()


@pytest.mark.parametrize(
    ("program", "text", "mode", "reason"),
    [
        ("missing", None, 0, "'{path}' does not exist"),
        ("plain", "#!/bin/sh\n", 0o644, "'{path}' is not executable"),
        ("noshebang", "echo READY\n", 0o755, "'{path}' is neither a #! script nor a program"),
        ("badinterp", "#!/no/such/sh\n", 0o755, "'{path}' names the interpreter '/no/such/sh'"),
    ],
)
def test_solver_that_cannot_start_is_refused_before_any_solve(
    tmp_path: Path, program: str, text: str | None, mode: int, reason: str
) -> None:
    """A command that cannot start: one line naming why, exit 2, no CSV."""
    path = tmp_path / program
    if text is not None:
        path.write_text(text)
        path.chmod(mode)
    code, lines, written = refused(
        tmp_path, "-b", f"cmd:{path} --fast", str(three_puzzles(tmp_path))
    )
    start = f"harness: error: cmd: cannot start the solver: {reason.format(path=path)}"
    assert (2, 1, True, False) == (code, len(lines), lines[0].startswith(start), written)


def test_run_where_no_backend_can_solve_any_puzzle_is_refused(tmp_path: Path) -> None:
    """Every backend unavailable for every puzzle's size: one line saying so, exit 2, no CSV."""
    data = PROJECT / "datasets" / "16x16.txt"
    code, lines, written = refused(tmp_path, "-b", "naive", str(data))
    expected = [
        "harness: error: nothing to run: no backend given can solve these puzzles "
        "(naive supports grids up to 9x9; this one is 16x16)"
    ]
    assert (2, expected, False) == (code, lines, written)


def test_spec_is_the_command_line() -> None:
    """Everything after cmd: is the command, split like a shell's; cmd alone is the example."""
    backend = make_backend("cmd:sh --fast 'two words'")
    assert (["sh", "--fast", "two words"], "cmd") == (
        backend.argv,
        make_backend("cmd").spec,
    )


def test_solver_without_ready_is_refused() -> None:
    """A first line other than READY is a SolverError quoting it."""
    backend = make_backend("cmd:echo hello")
    with pytest.raises(SolverError, match="not READY: 'hello'"):
        backend.solve(backend.encode(pattern_puzzle(2, 2)))
