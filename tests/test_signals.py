"""Stopping a run from outside: the rows stay, and no worker outlives the harness."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.conftest import PROJECT, pattern_puzzle
from tests.fake_backends import SOLVING_MARK
from tests.results_file import read_rows

# Runs `harness run` in a child Python with the fake backends registered, on one 4x4 puzzle
# per line of puzzles.txt; the CLI's own exit code is the process's.
SCRIPT = """
import sys
import backends
from tests.fake_backends import FAKES
from harness.cli import main
backends.REGISTRY.update(FAKES)
main(sys.argv[1:])
"""


def start_run(tmp_path: Path, *specs: str) -> subprocess.Popen[str]:
    """`harness run` of ``specs`` over three 4x4 pattern puzzles, in a child process."""
    data = tmp_path / "puzzles.txt"
    data.write_text("".join(pattern_puzzle(2, k).to_string() + "\n" for k in (1, 2, 3)))
    command = [sys.executable, "-c", SCRIPT, "run", "-q", "--timeout", "60"]
    command += [arg for spec in specs for arg in ("-b", spec)]
    command += ["--out", str(tmp_path / "run.csv"), str(data)]
    return subprocess.Popen(command, cwd=PROJECT, stderr=subprocess.PIPE, text=True)


def workers_of(proc: subprocess.Popen[str], count: int) -> list[psutil.Process]:
    """The run's worker processes (forks of it: not its git or uname), once ``count`` of
    them have started (10 s at most)."""
    harness = psutil.Process(proc.pid)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        workers = forks_of(harness)
        if len(workers) >= count:
            return workers
        time.sleep(0.05)
    pytest.fail(f"{count} worker(s) did not start")


def forks_of(parent: psutil.Process) -> list[psutil.Process]:
    """``parent``'s children that run its program (its forks: not a git or uname it runs)."""
    forks = []
    for child in parent.children():
        with contextlib.suppress(psutil.Error):  # gone already: not a worker that lives on
            if child.name() == parent.name():
                forks.append(child)
    return forks


def alive(processes: list[psutil.Process]) -> list[int]:
    """Which of ``processes`` are still running 3 s later, at most."""
    _, still = psutil.wait_procs(processes, timeout=3)
    return [p.pid for p in still]


def wait_for(path: Path) -> None:
    """Return once ``path`` exists (10 s at most)."""
    deadline = time.monotonic() + 10
    while not path.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"{path} did not appear")
        time.sleep(0.05)


def rows_of(path: Path, count: int) -> list[dict[str, str]]:
    """The CSV's rows, once ``count`` of them are written whole (10 s at most)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        rows = read_rows(path)[1] if path.exists() else []
        if len(rows) >= count:
            return rows
        time.sleep(0.05)
    pytest.fail(f"{path} did not reach {count} row(s)")


def test_sigterm_stops_the_run_keeps_rows_and_stops_workers(tmp_path: Path) -> None:
    """SIGTERM: exit 143, the rows measured so far in the CSV, no worker left running."""
    proc = start_run(tmp_path, "counting", "sleep-forever")
    workers = workers_of(proc, 1)
    written = rows_of(tmp_path / "run.csv", 1)  # a counting row is in the file
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert 143 == proc.returncode
    assert [] == alive(workers)
    assert written == read_rows(tmp_path / "run.csv")[1][: len(written)]
    assert "complete it with --resume" in err


def test_killed_harness_takes_its_workers_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL, which the harness cannot catch: its worker dies too, and is not orphaned."""
    mark = tmp_path / "solving"
    monkeypatch.setenv(SOLVING_MARK, str(mark))
    proc = start_run(tmp_path, "sleep-forever")
    workers = workers_of(proc, 1)
    wait_for(mark)  # the worker is past its warm-up, inside the solve that never ends
    proc.kill()
    proc.communicate(timeout=20)
    assert [] == alive(workers)


def test_metadata_is_written_while_a_worker_hangs(tmp_path: Path) -> None:
    """The metadata, git commit included, is on disk while the first solve still hangs."""
    proc = start_run(tmp_path, "sleep-forever")
    workers_of(proc, 1)
    meta = tmp_path / "run.csv.meta.json"
    deadline = time.monotonic() + 5
    while not meta.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.kill()
    proc.communicate(timeout=20)
    expected = (
        subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=PROJECT, capture_output=True, text=True
        ).stdout.strip()
        or None
    )
    assert expected == json.loads(meta.read_text())["git"]["sha"]


def test_sigterm_while_reading_a_fifo_leaves_no_temporary_folder(tmp_path: Path) -> None:
    """SIGTERM while the run waits on a FIFO it copies: exit 143, its copy's folder gone."""
    fifo, temporary = tmp_path / "puzzles.fifo", tmp_path / "tmp"
    os.mkfifo(fifo)
    temporary.mkdir()
    command = [sys.executable, "-c", SCRIPT, "run", "-q", "--out", str(tmp_path / "r.csv")]
    env = {**os.environ, "TMPDIR": str(temporary)}
    proc = subprocess.Popen(
        [*command, str(fifo)], cwd=PROJECT, env=env, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 20
    while not list(temporary.glob("harness-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(temporary.glob("harness-*")), "the run made no copy of the FIFO"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert (143, []) == (proc.returncode, list(temporary.iterdir())), err
