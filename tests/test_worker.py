"""Worker processes: output kept off the terminal, broken warm-ups, jobs, escaped processes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import psutil
import pytest
from click.testing import CliRunner

from backends.base import Status
from harness.cli import main
from harness.exit_codes import RunExit
from harness.outcome import Outcome
from harness.run.worker import WorkerPool, handle, pool, wire
from harness.run.worker.measure import ProcessPeaks
from tests.conftest import PROJECT, pattern_puzzle
from tests.results_file import read_rows
from tests.test_signals import SCRIPT, forks_of


def puzzles_file(tmp_path: Path, count: int) -> Path:
    """``count`` 4x4 pattern puzzles, one a line (none of them the warm-up puzzle)."""
    data = tmp_path / "puzzles.txt"
    data.write_text("".join(pattern_puzzle(2, 2 + k % 2).to_string() + "\n" for k in range(count)))
    return data


def run_cli(tmp_path: Path, *args: str, count: int = 3) -> tuple[int, list[dict[str, str]]]:
    """``harness run -q ARGS`` over ``count`` puzzles in this process: exit code and rows."""
    out = tmp_path / "run.csv"
    command = ["run", "-q", *args, "--out", str(out), str(puzzles_file(tmp_path, count))]
    result = CliRunner().invoke(main, command)
    return result.exit_code, read_rows(out)[1]


def run_subprocess(tmp_path: Path, *args: str, **popen: object) -> subprocess.Popen[str]:
    """``harness run -q ARGS`` over three puzzles in a child Python with the fakes registered."""
    command = [sys.executable, "-c", SCRIPT, "run", "-q", *args]
    command += ["--out", str(tmp_path / "run.csv"), str(puzzles_file(tmp_path, 3))]
    return subprocess.Popen(command, cwd=PROJECT, text=True, **popen)  # type: ignore[call-overload]


def test_outcome_crosses_the_wire_unchanged() -> None:
    """An outcome sent in a frame comes back equal, its solution bytes still bytes, a grid
    that does not fit bytes a tuple; notices stay notices."""
    sent = [
        Outcome(Status.SOLVED, None, bytes([1, 2]), 1, native=(("x", 3), ("y", "z")), wall_s=0.5),
        Outcome(Status.SOLVED, "m", (1, 300, -2), 1, nodes=4, own_solve_s=1e-6, host="h"),
    ]
    read, write = os.pipe()
    reader = wire.Reader(read)
    try:
        wire.send(write, [*(o.wire() for o in sent), wire.Warming(), wire.Ready(2.5, "f")])
        items = reader.read()
    finally:
        os.close(write)
        reader.close()
    assert [*sent, wire.Warming(), wire.Ready(2.5, "f")] == [
        Outcome.received(i) if type(i) is tuple else i for i in items
    ]


def framed(**changed: object) -> bytes:
    """A frame of one answer as a worker sends it, with fields changed (by index: ``f2``)."""
    item = json.loads(wire.frame([Outcome(Status.SOLVED, None, b"\x01", 1).wire()])[8:])[0]
    for key, value in changed.items():
        item[int(key[1:])] = value
    return wire.frame([item])


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\x80\x04junk....", "bytes that begin no frame"),
        (b"\0\0\0\x02ab", "bytes that begin no frame"),  # shorter than a header: at once
        (b"SH?", "bytes that begin no frame"),
        (wire.HEADER.pack(wire.MAGIC, wire.MAX_FRAME + 1), "a frame of 33554433 bytes, over"),
        (wire.HEADER.pack(wire.MAGIC, 3) + b"[1,", "a frame that is not JSON"),
        (wire.frame([{"a": 1}]), "an item that is no answer nor notice"),
        (wire.frame([["SOLVED", None]]), "an answer of 2 fields, not 10"),
        (framed(f0="WON"), "unknown status 'WON'"),
        (framed(f2="zz"), "a solution that is not hex"),
        (framed(f1=3), "an answer with a field of the wrong type"),
        (framed(f3=True), "an answer with a field of the wrong type"),
        (framed(f8="00" * 55 + "zz"), "measures that are not hex of 7 numbers"),
        (framed(f8="00"), "measures that are not hex of 7 numbers"),
        (framed(f7=[["x"]]), "a native statistic"),
    ],
)
def test_what_is_no_frame_of_answers_is_refused(data: bytes, reason: str) -> None:
    """Bytes that are not a checked frame raise Malformed naming what is wrong; nothing is
    unpickled or run."""
    read, write = os.pipe()
    reader = wire.Reader(read)
    try:
        os.write(write, data)
        with pytest.raises(wire.Malformed, match=re.escape(reason)):
            reader.read()
    finally:
        os.close(write)
        reader.close()


def test_answers_before_junk_are_kept_and_the_junk_refused_after() -> None:
    """A whole frame, then junk: the frame's items first, the refusal at the next read; a
    closed end after the last frame is EOFError once the items are taken."""
    read, write = os.pipe()
    reader = wire.Reader(read)
    try:
        os.write(write, wire.frame([wire.Warming()]) + b"junk-after")
        first = reader.read()
        with pytest.raises(wire.Malformed):
            reader.read()
    finally:
        os.close(write)
        reader.close()
    read, write = os.pipe()
    ended = wire.Reader(read)
    os.write(write, wire.frame([wire.Warming()]))
    os.close(write)
    try:
        second = ended.read()
        with pytest.raises(EOFError):
            ended.read()
    finally:
        ended.close()
    assert ([wire.Warming()], [wire.Warming()]) == (first, second)


def test_backend_output_goes_to_the_log(tmp_path: Path) -> None:
    """What a backend prints reaches the log beside the CSV, never the harness's stdout."""
    proc = run_subprocess(tmp_path, "-b", "chatty", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = proc.communicate(timeout=60)
    log = (tmp_path / "run.csv.log").read_text()
    assert 0 == proc.returncode
    assert "chatter" not in stdout
    assert "chatter" not in stderr
    assert 4 == log.count("fd-1 chatter")  # 3 puzzles and the warm-up


def test_closed_stdout_exits_141_and_keeps_rows_right(tmp_path: Path) -> None:
    """`harness run | head`: a closed stdout gives exit 141, no traceback, rows SOLVED."""
    proc = run_subprocess(tmp_path, "-b", "chatty", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader has gone before anything was written
    stderr = proc.stderr.read()
    proc.wait(timeout=60)
    statuses = [row["status"] for row in read_rows(tmp_path / "run.csv")[1]]
    assert (RunExit.BROKEN_PIPE, "", ["SOLVED"] * 3) == (proc.returncode, stderr, statuses)


def test_warmup_that_hangs_breaks_the_backend_once(
    tmp_path: Path, fake_backends: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One warm-up that hangs past its limit: every puzzle ERROR naming it, one wait only."""
    monkeypatch.setattr(handle, "WARMUP_TIMEOUT_S", 1.0)
    start = time.perf_counter()
    code, rows = run_cli(tmp_path, "-b", "warmup-hang", "--timeout", "0.5", count=4)
    elapsed = time.perf_counter() - start
    messages = {row["message"] for row in rows}
    assert (4, ["ERROR"] * 4) == (code, [row["status"] for row in rows])
    assert 1 == len(messages) and messages.pop().startswith("warm-up failed: no answer after 1")
    assert elapsed < 1.0 + 3.0  # one warm-up limit, not one per puzzle


def test_warmup_that_raises_breaks_the_backend(tmp_path: Path, fake_backends: dict) -> None:
    """A warm-up that raises: one ERROR row per puzzle, each naming the exception."""
    code, rows = run_cli(tmp_path, "-b", "warmup-raises", count=3)
    expected = ["warm-up failed: RuntimeError: no licence for this solver"] * 3
    assert (4, expected) == (code, [row["message"].split(" (")[0] for row in rows])


def test_jobs_above_the_solves_start_one_worker_per_solve(
    tmp_path: Path, fake_backends: dict
) -> None:
    """`harness run --jobs 8` with two solves starts two workers, never more."""
    seen: list[int] = []
    done = threading.Event()
    me = psutil.Process()
    before = {child.pid for child in me.children()}  # e.g. a resource tracker

    def sample() -> None:  # this process's new forks (the workers), every 10 ms
        while not done.is_set():
            seen.append(len({child.pid for child in forks_of(me)} - before))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        code, rows = run_cli(tmp_path, "-b", "slow-warmup", "--jobs", "8", count=2)
    finally:
        done.set()
        sampler.join()
    assert (0, 2, 2) == (code, len(rows), max(seen))


def daemons_left(pidfile: Path) -> list[int]:
    """The daemons a backend listed in ``pidfile`` that still run 2 s later, at most."""
    pids = [int(p) for p in pidfile.read_text().split()]
    deadline = time.monotonic() + 2
    while True:
        alive = [p for p in pids if psutil.pid_exists(p) and not _zombie(p)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.parametrize("hang", ["false", "true"])
def test_process_started_in_a_new_session_dies_with_the_run(
    tmp_path: Path, fake_backends: dict, hang: str
) -> None:
    """A backend's daemon (setsid, parent gone) is killed with its worker, stopped or killed."""
    pidfile = tmp_path / "pids"
    spec = f"daemonizes:pidfile={pidfile},hang={hang}"
    _, rows = run_cli(tmp_path, "-b", spec, "--timeout", "0.5", count=2)
    expected = "TIMEOUT" if hang == "true" else "SOLVED"
    assert ([expected] * 2, []) == ([row["status"] for row in rows], daemons_left(pidfile))


def test_a_pools_only_worker_gets_a_longer_queue() -> None:
    """1 ms tasks: a pool's only worker queues SOLO_AHEAD_S of them; each of two, QUEUE_AHEAD_S."""
    stub = types.SimpleNamespace(mean_task_s=0.001)
    stub.depth = types.MethodType(handle.WorkerHandle.depth, stub)
    expected = (int(pool.SOLO_AHEAD_S / 0.001), int(handle.QUEUE_AHEAD_S / 0.001))
    assert expected == (WorkerPool(1)._depth(stub), WorkerPool(2)._depth(stub))


def test_process_peaks_close_what_they_opened_for_a_process_gone_midway(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process gone between the opens of its two files: nothing raised, nothing left open."""
    real_open, opened = os.open, []

    def gone_before_status(path: str, flags: int) -> int:
        if path.endswith("/status"):
            raise FileNotFoundError(path)
        opened.append(real_open(path, flags))
        return opened[-1]

    monkeypatch.setattr(os, "open", gone_before_status)
    ProcessPeaks().reset((os.getpid(),))
    monkeypatch.undo()
    assert [False] == [fd_is_open(fd) for fd in opened]


def fd_is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def test_a_pool_looks_for_short_solves_every_poll_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool collecting short solves sleeps its own poll_s between two looks."""
    slept: list[float] = []
    sleep = time.sleep
    monkeypatch.setattr(pool.time, "sleep", lambda s: slept.append(s) or sleep(s))
    tasks = [pool.Task("bitmask", pattern_puzzle(3, k % 3 + 1), tag=k) for k in range(300)]
    with WorkerPool(1, poll_s=0.007) as solo:
        assert 300 == len(list(solo.run(tasks)))
    assert {0.007} == {s for s in slept if s > 0.001}
