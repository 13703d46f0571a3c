"""Verdicts a CI job can trust: locked CSVs, faithful resumes, checked inputs, escaped cells."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

import backends
from backends.base import SolveResult, Status
from backends.puzzle import Puzzle
from harness import exit_codes
from harness.cli import main
from harness.results import engine
from harness.results.companions import meta_path_for
from harness.tables import render, stats
from tests.conftest import PROJECT, pattern_puzzle
from tests.fake_backends import _Fake, _pattern_answer
from tests.results_file import read_rows, write_rows

# `harness run` in a child Python with the fake backends registered.
SCRIPT = """
import sys
import backends
from tests.fake_backends import FAKES
from harness.cli import main
backends.REGISTRY.update(FAKES)
main(sys.argv[1:])
"""


class ClaimsSeven(_Fake):
    """Solves, and claims 7 solutions whatever the limit."""

    name = "claims-seven"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        return SolveResult(Status.SOLVED, _pattern_answer(puzzle).solution, 7)


class FormulaMessage(_Fake):
    """Gives up with a message a spreadsheet would run as a formula."""

    name = "formula-message"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        return SolveResult(Status.UNKNOWN, message="@SUM(1+1)")


class ClaimsUnique(_Fake):
    """Returns mrv's first solution, and claims it is the only one."""

    name = "claims-unique"

    def misbehave(self, puzzle: Puzzle) -> SolveResult:
        mrv = backends.make_backend("mrv")
        found = mrv.solve(mrv.encode(puzzle), limit=2)
        return SolveResult(Status.SOLVED, found.solution, 1)


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch, fake_backends: dict) -> None:
    for cls in (ClaimsSeven, FormulaMessage, ClaimsUnique):
        monkeypatch.setitem(backends.REGISTRY, cls.name, cls)


def invoke(*args: object) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def puzzle_file(path: Path, count: int = 3) -> Path:
    """``count`` 4x4 puzzles (two or three blanks a row: the fakes' warm-up puzzle has one)."""
    path.write_text("".join(pattern_puzzle(2, 2 + k % 2).to_string() + "\n" for k in range(count)))
    return path


def start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", SCRIPT, *args]
    return subprocess.Popen(command, cwd=PROJECT, stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"{path} did not appear")
        time.sleep(0.05)


# --- item 3: one run per CSV, temporary files that cannot be hijacked ---------------------


def test_second_run_on_a_busy_out_is_refused_and_the_hint_is_whole(
    tmp_path: Path, fake_backends: dict
) -> None:
    """A run or --resume on a busy CSV, by its name or a hard link's: one line, exit 2; the
    interrupted run's hint is whole."""
    data = puzzle_file(tmp_path / "p.txt")
    out, link = tmp_path / "run.csv", tmp_path / "h.csv"
    args = ["-b", "counting", "-b", "sleep-forever", "--timeout", "60", "--seed", "3"]
    proc = start(tmp_path, "run", "-q", *args, "--out", str(out), str(data))
    try:
        wait_for(meta_path_for(out))
        os.link(out, link)
        shutil.copy(meta_path_for(out), meta_path_for(link))
        tries = [([], out, "exists; pass --resume"), (["--resume"], out, "is being written")]
        for extra, name, message in [*tries, (["--resume"], link, "is being written")]:
            result = invoke("run", "-q", *extra, "--out", name, data)
            assert (2, 1) == (result.exit_code, len(result.output.splitlines())), result.output
            assert message in result.output
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert 143 == proc.returncode
    joined = err.replace(" \\\n    ", " ")  # the hint's lines, as the shell reads them
    hint = "harness run -b counting -b sleep-forever --timeout 60 --memory-limit 2048"
    assert hint in joined
    assert f"--seed 3 --resume --out {out} {data}" in joined


def test_temporary_files_never_follow_a_symlink(tmp_path: Path) -> None:
    """A symlink planted where a temporary file used to be written leaves its target alone."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    for name in ("r.meta.json.tmp", "r.csv.meta.json.tmp", "r.csv.tmp"):
        (tmp_path / name).symlink_to(victim)
    result = invoke("run", "-q", "--out", tmp_path / "r.csv", puzzle_file(tmp_path / "p.txt"))
    assert (0, "precious\n") == (result.exit_code, victim.read_text())
    assert [] == [p.name for p in tmp_path.iterdir() if p.name.startswith(".r.")]


# --- item 2: a resume completes the run that was started ----------------------------------


@pytest.fixture
def cut_run(tmp_path: Path) -> tuple[Path, Path]:
    """A run of mrv and ac3 at --timeout 5 whose CSV lost all but its first row."""
    data = puzzle_file(tmp_path / "p.txt", 4)
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "-b", "mrv", "-b", "ac3", "--timeout", "5", "--out", out, data)
    assert 0 == result.exit_code, result.output
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:2]))
    return data, out


def test_resume_takes_the_runs_settings(cut_run: tuple[Path, Path]) -> None:
    """--resume --out alone completes both backends at the run's timeout."""
    data, out = cut_run
    result = invoke("run", "-q", "--resume", "--out", out)
    meta = json.loads(out.with_name("r.csv.meta.json").read_text())
    rows = read_rows(out)[1]
    assert 0 == result.exit_code, result.output
    assert (8, {"mrv", "ac3"}) == (len(rows), {r["backend"] for r in rows})
    assert (5, [str(data)]) == (meta["limits"]["timeout_s"], [d["path"] for d in meta["datasets"]])


def test_a_resume_says_first_how_many_rows_it_had(cut_run: tuple[Path, Path]) -> None:
    """--resume without -q: its first line of progress says the row already done."""
    _, out = cut_run
    result = invoke("run", "--resume", "--out", out)
    assert (0, "resuming: 1 row already done") == (
        result.exit_code,
        result.stderr.splitlines()[0],
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-b", "mrv"], "--resume: -b mrv (the run used mrv, ac3)"),
        (["--timeout", "30"], "--resume: --timeout 30.0 (the run used 5.0)"),
        (["--repeat", "2"], "--resume: --repeat 2 (the run used 1)"),
    ],
)
def test_resume_refuses_other_settings(
    cut_run: tuple[Path, Path], args: list[str], message: str
) -> None:
    """A --resume with other backends, limits or repeats: one line saying what differs."""
    data, out = cut_run
    before = out.read_text()
    result = invoke("run", "-q", "--resume", *args, "--out", out, data)
    assert (2, 1, before) == (result.exit_code, len(result.output.splitlines()), out.read_text())
    assert message in result.output


def test_resume_refuses_another_or_a_changed_dataset(
    cut_run: tuple[Path, Path], tmp_path: Path
) -> None:
    """Another dataset file, or the same file changed since, is refused."""
    data, out = cut_run
    other = puzzle_file(tmp_path / "other.txt", 2)
    result = invoke("run", "-q", "--resume", "--out", out, other)
    message = f"--resume: FILES {other} (the run used"
    assert 2 == result.exit_code
    assert message in result.output
    data.write_text(data.read_text() + pattern_puzzle(2, 2).to_string() + "\n")
    result = invoke("run", "-q", "--resume", "--out", out)
    assert 2 == result.exit_code
    assert "is not the file the run read" in result.output


def test_solved_counts_against_the_puzzles_planned(tmp_path: Path) -> None:
    """A backend with rows for 25 of 60 puzzles shows 25/60, not 25/25."""
    rows = [
        {"dataset": "d", "line": i, "puzzle": f"p{i}", "backend": b, "repeat": 0}
        | {"limit": 1, "status": "SOLVED", "solve_s": 0.1, "encode_s": 0.0}
        for b, count in (("mrv", 60), ("ac3", 25))
        for i in range(1, count + 1)
    ]
    with engine.read([write_rows(tmp_path / "r.csv", rows)]) as results:
        table = stats.summary(results.con)
    printed = render.render(table)
    assert {"ac3": (25, 60), "mrv": (60, 60)} == {
        r["backend"]: (r["solved"], r["puzzles"]) for r in table
    }
    assert "25/60" in printed and "60/60" in printed


def test_run_baseline_only_common_judges_the_puzzles_of_both(tmp_path: Path) -> None:
    """run --baseline on a shorter copy of the file: a regression, unless --only-common."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    full = puzzle_file(tmp_path / "a" / "p.txt", 4)
    short = tmp_path / "b" / "p.txt"
    short.write_text("".join(full.read_text().splitlines(keepends=True)[:2]))
    base = tmp_path / "base.csv"
    assert 0 == invoke("run", "-q", "--out", base, full).exit_code
    args = ["run", "-q", "--baseline", base, short]
    assert 1 == invoke(*args, "--out", tmp_path / "n1.csv").exit_code
    result = invoke(*args, "--only-common", "--out", tmp_path / "n2.csv")
    assert 0 == result.exit_code
    assert "2 row(s) not in both runs left out" in result.output


# --- item 7: solution counts ----------------------------------------------------------------


def test_count_above_the_limit_is_error(tmp_path: Path, fakes: None) -> None:
    """7 solutions claimed under limit 1: ERROR, exit 4, and the summary names the reason."""
    out = tmp_path / "r.csv"
    data = puzzle_file(tmp_path / "p.txt")
    result = invoke("run", "-q", "-b", "claims-seven", "--out", out, data)
    rows = read_rows(out)[1]
    assert (4, {"ERROR"}) == (result.exit_code, {r["status"] for r in rows})
    reason = "reported 7 solutions under a limit of 1"
    assert f"ERROR: 3 row(s); most common reason (3): {reason}" in result.output


def test_a_disputed_count_is_settled_by_the_harness(tmp_path: Path, fakes: None) -> None:
    """Under limit 2, a 'unique' claim on a two-solution puzzle: WRONG, mrv's SOLVED, exit 3."""
    grid = pattern_puzzle(2, 0).to_string()
    data = tmp_path / "p.txt"
    data.write_text("." * 8 + grid[8:] + "\n")  # two rows left open: more than one solution
    out = tmp_path / "r.csv"
    args = ["-b", "claims-unique", "-b", "mrv", "--limit-solutions", "2", "--out", out, data]
    result = invoke("run", "-q", *args)
    rows = {r["backend"]: (r["status"], r["message"].split(":")[0]) for r in read_rows(out)[1]}
    assert 3 == result.exit_code, result.output
    assert {
        "claims-unique": ("WRONG", "claimed a unique solution, but the harness found a second one"),
        "mrv": ("SOLVED", ""),
    } == rows


def test_a_count_of_two_for_a_unique_puzzle_is_refuted(tmp_path: Path) -> None:
    """The harness's exhaustive search refutes a claim of two solutions for a unique puzzle:
    the claim of two is WRONG in the engine's table, the claim of one stands."""
    from harness.check.crosscheck import cross_check
    from harness.check.judge import settle_count

    puzzle = pattern_puzzle(2, 1).to_string()
    solution = pattern_puzzle(2, 0).to_string()
    rows = [
        {"dataset": "d", "line": 1, "puzzle": puzzle, "limit": 2, "backend": backend}
        | {"repeat": 0, "status": "SOLVED", "solutions": count, "solution": solution}
        for backend, count in (("a", 1), ("b", 2))
    ]
    asked = []

    def texts(at: list[int]) -> dict[int, tuple[str, str]]:
        asked.extend(at)
        return {i: (puzzle, solution) for i in at}

    with engine.read([write_rows(tmp_path / "r.csv", rows)]) as results:
        verdicts = cross_check(results.con, "file_0", 2, lambda p, s: settle_count(p, s, 10), texts)
        table = results.records("SELECT backend, status FROM file_0 ORDER BY rowid")
    reason = "claimed 2 solutions, but the harness's exhaustive search finds only one"
    assert ({1: {"status": "WRONG", "message": reason}}, [0]) == (verdicts, asked)
    assert [("a", "SOLVED"), ("b", "WRONG")] == [(r["backend"], r["status"]) for r in table]


# --- item 9: one line and the documented code, never a traceback ----------------------------


def malformed(tmp_path: Path) -> Path:
    good = tmp_path / "good.csv"
    assert 0 == invoke("run", "-q", "--out", good, puzzle_file(tmp_path / "p.txt")).exit_code
    lines = good.read_text().splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([lines[0], lines[1][:40]]) + "\n")
    shutil.copy(meta_path_for(good), meta_path_for(bad))  # a run's, but for its rows
    return bad


def test_malformed_csv_for_resume_and_baseline_fails_before_running(tmp_path: Path) -> None:
    """--resume into, or --baseline from, a CSV with a short row: one line, exit 2, no run."""
    bad = malformed(tmp_path)
    data = tmp_path / "p.txt"
    before = bad.read_text()
    result = invoke("run", "-q", "--resume", "--out", bad, data)
    assert (2, before) == (result.exit_code, bad.read_text())
    assert f"{bad}:2: " in result.output
    result = invoke("run", "-q", "--baseline", bad, "--out", tmp_path / "n.csv", data)
    assert 2 == result.exit_code
    assert not (tmp_path / "n.csv").exists()
    assert f"{bad}:2: " in result.output


@pytest.mark.parametrize(
    "command",
    [
        ["check", "{csv}", "{csv}"],
        ["generate", "--size", "4", "--count", "1"],
        ["run", "-q", "{data}"],
        ["rate", "-q", "{data}"],
    ],
)
def test_out_in_a_missing_folder_is_one_line(tmp_path: Path, command: list[str]) -> None:
    """--out /nonexistent/x for check, generate, run and rate: one line, exit 2."""
    data = puzzle_file(tmp_path / "p.txt")
    csv = tmp_path / "r.csv"
    invoke("run", "-q", "--out", csv, data)
    args = [a.format(csv=csv, data=data) for a in command]
    missing = tmp_path / "nonexistent"
    result = invoke(*args, "--out", missing / "x.out")
    assert (2, 1) == (result.exit_code, len(result.output.splitlines())), result.output
    message = f"harness: error: cannot write {missing / 'x.out'}: {missing} does not exist"
    assert message == result.output.strip()
    assert not missing.exists()


# A child that presses Ctrl-C on itself while Python imports the command line.
CTRL_C_WHILE_IMPORTING = """
import os, signal, sys
import harness.cli.entry

class PressCtrlC:
    def find_spec(self, name, path, target=None):
        if name == "harness.cli.run":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, PressCtrlC())
harness.cli.entry.main()
"""


def wait_until_reading_stdin(pid: int) -> None:
    """Until process ``pid`` waits in read(0, ...), as /proc/PID/syscall says on Linux
    x86-64 (10 s at most); elsewhere a plain second."""
    syscall = Path(f"/proc/{pid}/syscall")
    if platform.machine() != "x86_64" or not syscall.exists():
        time.sleep(1.0)
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):  # read(2) is call 0; fd 0 is stdin
            if ["0", "0x0"] == syscall.read_text().split()[:2]:
                return
        time.sleep(0.01)
    pytest.fail(f"process {pid} never read its stdin")


@pytest.mark.parametrize(
    "code", [CTRL_C_WHILE_IMPORTING, "import harness.cli.entry as e; e.main()"]
)
def test_ctrl_c_while_starting_or_reading_exits_130(code: str) -> None:
    """Ctrl-C while importing or reading stdin: exit 130, one line, no traceback or 'Aborted!'."""
    command = [sys.executable, "-c", code, "run", "-q", "-"]
    proc = subprocess.Popen(
        command, cwd=PROJECT, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    if code != CTRL_C_WHILE_IMPORTING:
        wait_until_reading_stdin(proc.pid)
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert (130, "harness: interrupted") == (proc.returncode, err.strip())


# --- item 11: CSV formula injection ---------------------------------------------------------


def test_formula_cells_are_escaped_and_read_back_raw(
    tmp_path: Path, fakes: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A =HYPERLINK(...) dataset and a formula message are written with a leading ': read raw."""
    monkeypatch.chdir(tmp_path)
    data = puzzle_file(Path('=HYPERLINK("x").txt'), 1)
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "-b", "formula-message", "-b", "mrv", "--out", out, data)
    assert 0 == result.exit_code, result.output
    raw = pd.read_csv(out)
    assert {f"'{data}"} == set(raw["dataset"])
    assert "'@SUM(1+1)" in set(raw["message"])
    rows = read_rows(out)[1]
    assert {str(data)} == {r["dataset"] for r in rows}
    assert "@SUM(1+1)" in {r["message"] for r in rows}
    checked = invoke("check", out, out)
    assert 0 == checked.exit_code
    assert f"| {data} | answered |" in checked.output


# --- item 12: smaller items -------------------------------------------------------------------


def test_memory_limit_below_a_bare_worker_is_refused(tmp_path: Path) -> None:
    """--memory-limit 16 (below what a worker needs): one line, exit 2, nothing run."""
    out = tmp_path / "r.csv"
    result = invoke("run", "-q", "--memory-limit", "16", "--out", out, puzzle_file(tmp_path / "p"))
    assert 2 == result.exit_code
    assert not out.exists()
    assert "--memory-limit 16 MiB is below what a bare worker needs" in result.output


def test_times_in_messages_are_rounded(tmp_path: Path, fake_backends: dict) -> None:
    """A late answer says 'after 51 ms, over the 1 ms timeout', not '0.051 s ... 0.001 s'."""
    out = tmp_path / "r.csv"
    args = ["-b", "answers-late", "--timeout", "0.001", "--out", out]
    invoke("run", "-q", *args, puzzle_file(tmp_path / "p.txt", 1))
    message = read_rows(out)[1][0]["message"]
    assert message.startswith("answered SOLVED after ") and message.endswith(
        " ms, over the 1 ms timeout"
    ), message


def test_rate_refuses_to_overwrite(tmp_path: Path) -> None:
    """harness rate on an --out that exists: one line, exit 2, the file kept."""
    out = tmp_path / "rating.csv"
    out.write_text("keep me\n")
    result = invoke("rate", "-q", "--out", out, puzzle_file(tmp_path / "p.txt"))
    assert (2, "keep me\n") == (result.exit_code, out.read_text())


def test_run_help_shows_every_exit_code() -> None:
    """harness run --help prints the exit-code table (tests/test_readme.py: the README's too)."""
    result = invoke("run", "--help")
    for line in exit_codes.TABLE.splitlines():
        assert line.strip() in result.output
