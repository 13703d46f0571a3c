"""``harness run --cluster``: a real multi-process Dask cluster gives the rows a local run gives."""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from backends.base import Status
from harness.cli import main
from harness.exit_codes import RunExit
from harness.outcome import Outcome
from harness.results import provenance, row_key
from harness.run.cluster import (
    ClusterError,
    ClusterTarget,
    check_workers,
    chunks,
    connect,
    dask_worker,
    quiet_dask_logs,
    run_chunk,
)
from harness.run.cluster import client as client_side
from harness.run.cluster.chunks import CHUNK_TARGET_S, FIRST_CHUNK, MIN_CHUNK_S, Chunker
from harness.run.worker import Task, WorkerPool
from tests.conftest import pattern_puzzle
from tests.puzzles import PROJECT_DATASETS
from tests.results_file import read_rows

distributed = pytest.importorskip("distributed", reason="needs pip install 'sudoku-harness[dask]'")

EASY = str(PROJECT_DATASETS / "easy.txt")
HARD = str(PROJECT_DATASETS / "hard95.txt")
COMPARED = ("status", "solutions", "solution", "nodes", "guesses", "backtracks")
DASK = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
HARNESS = str(Path(sys.executable).parent / "harness")
NO_DAEMON = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}


def invoke(*args: str):
    return CliRunner().invoke(main, ["run", "-q", *args])


def register_fakes() -> None:
    """Run on each Dask worker: the misbehaving test backends join its registry."""
    import backends
    from tests.fake_backends import FAKES

    backends.REGISTRY.update(FAKES)


@contextlib.contextmanager
def local_cluster() -> Iterator[tuple[Any, Any]]:
    """A LocalCluster of 2 worker processes (not daemons) and a client of it."""
    import dask

    with (
        dask.config.set({"distributed.worker.daemon": False}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        distributed.Client(local) as client,
    ):
        yield local, client


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A LocalCluster of 2 worker processes (not daemons), with the fake backends."""
    with local_cluster() as (local, client):
        client.run(register_fakes)
        yield local.scheduler_address


def by_key(path: Path) -> dict[tuple[str, ...], dict[str, str]]:
    rows = read_rows(path)[1]
    assert len(rows) == len({row_key(r) for r in rows})  # one row per key
    return {row_key(r): r for r in rows}


def test_cluster_rows_equal_local_rows(cluster: str, tmp_path: Path) -> None:
    """Four backends on the cluster give the statuses, answers and counters --jobs 2 gives."""
    specs = ("-b", "mrv", "-b", "norvig", "-b", "dlx", "-b", "ac3", "--limit-solutions", "2")
    local, remote = tmp_path / "local.csv", tmp_path / "cluster.csv"
    assert 0 == invoke(*specs, "--jobs", "2", "--out", str(local), EASY).exit_code
    assert 0 == invoke(*specs, "--cluster", cluster, "--out", str(remote), EASY).exit_code
    expected = {k: [r[c] for c in COMPARED] for k, r in by_key(local).items()}
    actual = {k: [r[c] for c in COMPARED] for k, r in by_key(remote).items()}
    assert expected == actual
    assert {socket.gethostname()} == {r["host"] for r in by_key(remote).values()}


def test_chunks_cut_short_by_their_budgets_still_give_every_row_once(
    cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks with no time to spare start one task each: still --jobs 2's rows, once per key."""
    monkeypatch.setattr(chunks, "PROBE_S", 0.0)
    monkeypatch.setattr(chunks, "BUDGET_FACTOR", 0.0)
    monkeypatch.setattr(chunks, "MIN_CHUNK_S", 0.0)
    specs = ("-b", "mrv", "-b", "dlx")
    local, remote = tmp_path / "local.csv", tmp_path / "cluster.csv"
    assert 0 == invoke(*specs, "--jobs", "2", "--out", str(local), EASY).exit_code
    assert 0 == invoke(*specs, "--cluster", cluster, "--out", str(remote), EASY).exit_code
    expected = {k: [r[c] for c in COMPARED] for k, r in by_key(local).items()}
    assert expected == {k: [r[c] for c in COMPARED] for k, r in by_key(remote).items()}


def test_cluster_kills_hangs_and_records_crashes(
    cluster: str, tmp_path: Path, fake_backends: dict
) -> None:
    """A hanging backend is TIMEOUT and a crashing one ERROR on the cluster, as locally."""
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(f"{pattern_puzzle(3, 2).to_string()}\n{pattern_puzzle(3, 3).to_string()}\n")
    out = tmp_path / "r.csv"
    args = ("-b", "sleep-forever", "-b", "segfault", "-b", "mrv", "--timeout", "0.5")
    result = invoke(*args, "--cluster", cluster, "--out", str(out), str(puzzles))
    statuses = Counter((r["backend"], r["status"]) for r in by_key(out).values())
    expected = {("sleep-forever", "TIMEOUT"): 2, ("segfault", "ERROR"): 2, ("mrv", "SOLVED"): 2}
    assert expected == dict(statuses)
    assert 4 == result.exit_code  # a backend ERROR, as a local run says it


def test_worker_killed_mid_run_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """SIGKILL to one Dask worker mid-run: its chunk runs again; one row per key, all solved."""
    out = tmp_path / "r.csv"
    with local_cluster() as (local, client):
        pids = client.run(os.getpid)
        command = [HARNESS, "run", "-q", "-b", "mrv", "-b", "ac3"]
        command += ["--cluster", local.scheduler_address, "--out", str(out), HARD]
        run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        victim = _busy_worker(client, pids, out)
        assert run.poll() is None  # mid-run
        os.kill(victim, signal.SIGKILL)
        _, stderr = run.communicate(timeout=120)
    rows = by_key(out)
    assert (0, b"") == (run.returncode, stderr)
    assert 2 * 95 == len(rows)
    assert {"SOLVED"} == {r["status"] for r in rows.values()}


def test_a_frozen_worker_s_chunks_are_solved_elsewhere_and_the_run_completes(
    tmp_path: Path,
) -> None:
    """SIGSTOP to a Dask worker holding a chunk: its tasks are run again on the other worker;
    every row is SOLVED (a worker's stall is not the solver's), exit 0."""
    out = tmp_path / "r.csv"
    with local_cluster() as (local, client):
        pids = client.run(os.getpid)
        command = [HARNESS, "run", "-q", "-b", "mrv", "-b", "ac3", "--timeout", "5"]
        command += ["--cluster", local.scheduler_address, "--out", str(out), HARD]
        run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        victim = _busy_worker(client, pids, out)
        os.kill(victim, signal.SIGSTOP)
        try:
            _, stderr = run.communicate(timeout=300)
        finally:
            os.kill(victim, signal.SIGCONT)  # for the cluster to close
    rows = by_key(out)
    assert (0, b"", 2 * 95) == (run.returncode, stderr, len(rows))
    assert {"SOLVED"} == {r["status"] for r in rows.values()}


class _Replies:
    """A cluster connection that gives back each chunk sent as ``replies`` say: "silent"
    (its worker fell silent) or "done" (every task SOLVED)."""

    threads = 1

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.sent = replies, []

    def join(self) -> _Replies:
        return self

    def ready(self) -> bool:
        return True

    def send(self, message: tuple) -> None:
        if message[0] == "submit":
            self.sent.append(message)

    def receive(self) -> tuple:
        _, key, sent, *_ = self.sent.pop(0)
        count = len(pickle.loads(sent))
        if self.replies.pop(0) == "silent":
            return ("silent", key, "no answer: the Dask worker w was silent for 6 s")
        solved = Outcome(Status.SOLVED, wall_s=0.001).wire()
        return ("done", key, pickle.dumps([solved] * count))


@pytest.mark.parametrize(
    ("replies", "expected"),
    [
        (["silent", "done"], ["SOLVED"] * 3),
        (["silent"] * chunks.MAX_STALLS, ["ERROR"] * 3),
    ],
)
def test_a_silent_worker_s_chunk_is_sent_again_then_error(
    replies: list[str], expected: list[str]
) -> None:
    """A chunk held by a silent worker is sent again, never TIMEOUT; held so MAX_STALLS
    times, its rows are ERROR saying no worker answered."""
    tasks = _chunker_tasks(3)
    pool = chunks.ClusterPool(_Replies(replies), None)  # type: ignore[arg-type]
    rows = sorted(((t.tag, o) for t, o in pool.run(tasks)), key=lambda r: r[0])
    assert expected == [o.status.value for _, o in rows]
    assert [t.tag for t in tasks] == [tag for tag, _ in rows]
    if expected[0] == "ERROR":
        assert all("no Dask worker answered for it in 3 tries" in o.message for _, o in rows)


def _busy_worker(client: Any, pids: dict[str, int], out: Path) -> int:
    """The pid of a Dask worker holding a chunk once 20 rows are written."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        busy = [address for address, keys in client.processing().items() if keys]
        if busy and _rows(out) >= 20:
            return pids[busy[0]]
        time.sleep(0.01)
    pytest.fail("no Dask worker held a chunk 20 rows into the run")


def _rows(path: Path) -> int:
    try:
        return path.read_text().count("\n") - 1
    except OSError:
        return 0


@pytest.mark.skipif(DASK is None, reason="the dask command is not installed")
def test_scheduler_file_with_workers_started_by_hand(tmp_path: Path) -> None:
    """Workers started by hand: a daemonic one is refused, naming the setting; two with it run."""
    scheduler_file = tmp_path / "scheduler.json"
    started: list[subprocess.Popen] = []

    def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        process = subprocess.Popen(
            [DASK, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        started.append(process)
        return process

    worker = ("worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1")
    try:
        start("scheduler", "--scheduler-file", str(scheduler_file), "--no-dashboard", "--port", "0")
        daemonic = start(*worker, "--no-dashboard")
        _wait_for_workers(scheduler_file, 1)
        refused = invoke(
            "--scheduler-file", str(scheduler_file), "--out", str(tmp_path / "x.csv"), EASY
        )
        assert RunExit.USAGE == refused.exit_code
        assert "DASK_DISTRIBUTED__WORKER__DAEMON=False" in refused.output
        daemonic.terminate()
        daemonic.wait(30)
        _wait_for_workers(scheduler_file, 0)
        for _ in range(2):
            start(*worker, "--no-dashboard", env=NO_DAEMON)
        _wait_for_workers(scheduler_file, 2)
        out = tmp_path / "r.csv"
        result = invoke(
            "-b", "mrv", "--scheduler-file", str(scheduler_file), "--out", str(out), EASY
        )
        assert 0 == result.exit_code, result.output
        assert 50 == sum(r["status"] == "SOLVED" for r in by_key(out).values())
    finally:
        for process in reversed(started):
            process.terminate()
        for process in started:
            process.wait(30)


def _wait_for_workers(scheduler_file: Path, count: int) -> None:
    deadline = time.monotonic() + 60
    while not scheduler_file.exists():
        assert time.monotonic() < deadline, "the scheduler did not start"
        time.sleep(0.1)
    with distributed.Client(scheduler_file=str(scheduler_file), timeout=30) as client:
        while len(client.scheduler_info(n_workers=-1)["workers"]) != count:
            assert time.monotonic() < deadline, f"waiting for {count} Dask workers"
            time.sleep(0.1)


def test_scheduler_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    """A scheduler address nobody listens on: one line naming it, exit 2, nothing written."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "r.csv"
    result = invoke("--cluster", f"tcp://127.0.0.1:{port}", "--out", str(out), EASY)
    assert RunExit.USAGE == result.exit_code
    reason = "connection refused: nothing listens there"
    assert f"cannot use the Dask cluster at tcp://127.0.0.1:{port}: {reason}" in result.output
    assert not out.exists()


def test_without_dask_the_install_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without Dask installed, --cluster exits 2 with the line that installs it."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    result = invoke("--cluster", "local:2", "--out", str(tmp_path / "r.csv"), EASY)
    assert RunExit.USAGE == result.exit_code
    assert "pip install 'sudoku-harness[dask]'" in result.output


def test_a_cluster_failing_before_it_answers_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Dask failing while the workers are checked: a ClusterError naming it, no traceback."""

    def fail(client: Any, local: bool, packages: tuple[str, ...]) -> None:
        raise RuntimeError("no harness on this worker")

    monkeypatch.setattr(client_side, "_checked_hosts", fail)  # the forked process has it too
    reason = "RuntimeError: no harness on this worker"
    with connect(ClusterTarget("local:1")) as connection, pytest.raises(ClusterError, match=reason):
        connection.join()
    assert "Traceback" not in capfd.readouterr().err


def test_a_cluster_failing_after_it_answers_stops_the_run(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Dask failing while chunks are relayed: the run stops with its reason, no traceback."""

    class Failing:
        def __init__(self, client: Any, pipe: Any) -> None:
            pass

        def run(self) -> None:
            raise RuntimeError("scheduler lost")

    monkeypatch.setattr(client_side, "Relay", Failing)
    tasks = [Task("bitmask", pattern_puzzle(3, 3), 1, 5.0, 0)]
    with connect(ClusterTarget("local:1")) as connection:
        pool = chunks.ClusterPool(connection, None)
        with pytest.raises(ClusterError, match="RuntimeError: scheduler lost"):
            list(pool.run(tasks))
    assert "Traceback" not in capfd.readouterr().err


def test_a_dask_dashboard_port_in_use_is_no_news(tmp_path: Path) -> None:
    """Port 8787 held (by another cluster's dashboard): a local:1 run prints nothing of it."""
    command = [HARNESS, "run", "-q", "-b", "bitmask", "--cluster", "local:1"]
    command += ["--out", str(tmp_path / "r.csv"), EASY]
    with socket.socket() as dashboard:
        with contextlib.suppress(OSError):  # held already: as good
            dashboard.bind(("", 8787))
            dashboard.listen()
        done = subprocess.run(command, capture_output=True, text=True)
    assert (0, "") == (done.returncode, done.stderr)


def test_a_failed_cluster_run_leaves_no_thread_running(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The run's metadata and calibration threads end with it, though its cluster failed."""
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    before = set(threading.enumerate())
    invoke("--cluster", "local:2", "--out", str(tmp_path / "r.csv"), EASY)
    assert [] == [thread.name for thread in threading.enumerate() if thread not in before]


def test_cluster_resumes_a_local_run(cluster: str, tmp_path: Path) -> None:
    """An interrupted run (rows cut short) completes on the cluster: one row per key."""
    out = tmp_path / "r.csv"
    assert 0 == invoke("-b", "mrv", "--out", str(out), EASY).exit_code
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:21]))  # the header and 20 rows survived
    result = invoke("-b", "mrv", "--resume", "--cluster", cluster, "--out", str(out), EASY)
    assert 0 == result.exit_code, result.output
    rows = by_key(out)
    assert 50 == len(rows)
    assert {"SOLVED"} == {r["status"] for r in rows.values()}


def test_ctrl_c_on_a_cluster_run_is_the_harness_s_lines_alone(tmp_path: Path) -> None:
    """Ctrl-C to the whole process group mid-run: exit 130, the resume hint, no traceback."""
    out = tmp_path / "r.csv"
    command = [HARNESS, "run", "-b", "naive", "--timeout", "3", "--cluster", "local:2"]
    run = subprocess.Popen(
        [*command, "--out", str(out), HARD],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal gives a command
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _rows(out) < 3:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)
    _, stderr = run.communicate(timeout=60)
    assert (130, True, False) == (run.returncode, "--resume" in stderr, "Traceback" in stderr)


def test_local_cluster_run_records_every_host(tmp_path: Path) -> None:
    """--cluster local:2 starts a cluster: the metadata names it, every host and what differs."""
    import json

    out = tmp_path / "r.csv"
    command = [HARNESS, "run", "-q", "-b", "norvig", "--cluster", "local:2", "--out", str(out)]
    # a command: the Dask client's process is forked from a harness that never used Dask
    done = subprocess.run([*command, EASY], capture_output=True, text=True, timeout=120)
    assert (0, "") == (done.returncode, done.stderr)
    meta = json.loads(out.with_name("r.csv.meta.json").read_text())
    host = meta["hosts"][socket.gethostname()]
    assert ("local:2", [], 2) == (meta["cluster"], meta["hosts_differ"], meta["jobs"])
    assert meta["packages"] == host["packages"]
    assert 50 == sum(r["status"] == "SOLVED" for r in by_key(out).values())


def test_bad_input_stops_a_cluster_run_before_dask_starts(tmp_path: Path) -> None:
    """A bad puzzle line on a cluster run: one line, exit 2, no traceback, no Dask left."""
    bad = tmp_path / "bad.txt"
    bad.write_text("1234\n")
    command = [HARNESS, "run", "-q", "--cluster", "local:2", "--out", str(tmp_path / "r.csv")]
    # run() returns once every process holding the output pipes ended: Dask's ones too
    done = subprocess.run([*command, str(bad)], capture_output=True, text=True, timeout=60)
    assert (RunExit.USAGE, 2) == (done.returncode, len(done.stderr.splitlines()))
    assert "1 bad puzzle line(s)" in done.stderr


def test_a_cluster_run_with_jobs_is_refused(tmp_path: Path) -> None:
    """--cluster with --jobs: one line, exit 2, before any cluster starts."""
    command = [HARNESS, "run", "-q", "--cluster", "local:2", "--jobs", "2"]
    # run() returns once every process holding the output pipes ended: Dask's too
    done = subprocess.run([*command, EASY], capture_output=True, text=True, timeout=60)
    assert (RunExit.USAGE, 1) == (done.returncode, len(done.stderr.splitlines()))
    assert "--jobs is for local runs" in done.stderr


class _Answered:
    """A connection whose cluster answered: a local cluster's host, and another host."""

    hosts: ClassVar = {"here": None, "there": {"python": {"version": "3.99"}}}

    def join(self) -> _Answered:
        return self


def test_a_local_cluster_s_host_has_the_harness_s_environment() -> None:
    """check_workers gives a host whose workers were not asked (local:N) the harness's facts."""
    own = provenance.environment(git=False)
    expected = {"here": dask_worker.host_environment(own), "there": _Answered.hosts["there"]}
    assert expected == check_workers(_Answered(), own)  # type: ignore[arg-type]


def test_connect_waits_for_the_end(cluster: str) -> None:
    """connect's exit waits for the client's process to end, the workers checked before."""
    with connect(ClusterTarget(cluster)) as connection:
        assert 2 == connection.join().threads
        assert [socket.gethostname()] == list(check_workers(connection, {}))  # asked
    assert not connection._process.is_alive()


def test_a_dead_scheduler_fails_when_joined() -> None:
    """A dead scheduler: join raises naming it; connect's exit leaves nothing running."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    target = ClusterTarget(f"tcp://127.0.0.1:{port}")
    message = f"cannot use the Dask cluster at {target}"
    with connect(target) as started, pytest.raises(ClusterError, match=message):
        started.join()
    assert not started._process.is_alive()


def test_run_chunk_sends_on_what_a_local_pool_gives(fake_backends: dict) -> None:
    """run_chunk's answers, decoded in the harness, equal a local pool's, each naming this host."""
    import pickle

    tasks = [Task("bitmask", pattern_puzzle(3, 3), 2, 5.0, 0)]
    tasks += [Task("sleep-forever", pattern_puzzle(3, 2), 1, 0.3, 1)]
    with WorkerPool(1) as pool:
        local = dict(pool.run(tasks))
    sent = pickle.dumps([task.wire() for task in tasks])
    try:
        received = [Outcome.received(wire) for wire in pickle.loads(run_chunk(sent, None))]
    finally:
        dask_worker._retire()  # the pool run_chunk keeps warm in this thread
    same = ("status", "solution", "solutions", "nodes", "guesses", "backtracks", "native")
    expected = [[getattr(local[t], f) for f in same] + [socket.gethostname()] for t in tasks]
    assert expected == [[getattr(o, f) for f in same] + [o.host] for o in received]
    assert [Status.SOLVED, Status.TIMEOUT] == [o.status for o in received]


def test_dask_logs_only_errors_in_the_harness() -> None:
    """Every logger Dask gives a level of its own passes errors only, warnings no more."""
    quiet_dask_logs()
    for name in ("distributed", "distributed.client", "distributed.gc"):
        assert not logging.getLogger(name).isEnabledFor(logging.WARNING), name
    assert logging.getLogger("distributed.client").isEnabledFor(logging.ERROR)


def test_run_chunk_starts_no_task_after_its_budget(fake_backends: dict) -> None:
    """A chunk with no time to spare starts its first task only; the rest come back None."""
    import pickle

    tasks = [Task("bitmask", pattern_puzzle(3, k % 3 + 1), 1, 5.0, k) for k in range(5)]
    sent = pickle.dumps([task.wire() for task in tasks])
    try:
        answers = pickle.loads(run_chunk(sent, None, 0.0))
    finally:
        dask_worker._retire()  # the pool run_chunk keeps warm in this thread
    assert [Status.SOLVED, None, None, None, None] == [
        None if a is None else Outcome.received(a).status for a in answers
    ]


def test_chunker_sends_tasks_given_back_first_in_their_order() -> None:
    """Tasks a chunk gave back are handed out first, in order: every task once in all."""
    chunker = Chunker(_chunker_tasks(300), threads=2)
    probe = chunker.next()
    chunker.learn("mrv", _timed(probe[:1], 0.001))
    chunker.give_back(probe[1:])
    chunker.draw_ahead(lambda: False)
    chunks = []
    while (chunk := chunker.next()) is not None:
        chunks.append(chunk)
    handed = [t.tag for chunk in chunks for t in chunk]
    assert [t.tag for t in probe[1:]] == handed[: len(probe) - 1]
    assert [t.tag for t in _chunker_tasks(300)][1:] == handed


def _chunker_tasks(count: int, specs: tuple[str, ...] = ("mrv",)) -> list[Task]:
    puzzle = pattern_puzzle(3, 2)
    return [Task(spec, puzzle, tag=(spec, i)) for i in range(count) for spec in specs]


def _timed(chunk: list[Task], seconds: float) -> list[Outcome]:
    return [Outcome(Status.SOLVED, wall_s=seconds) for _ in chunk]


def test_chunker_hands_out_every_task_once_per_backend_in_order() -> None:
    """Two backends' tasks come back in chunks of one backend each, every task once, in order."""
    tasks = _chunker_tasks(500, ("mrv", "dlx"))
    chunker = Chunker(tasks, threads=2)
    chunks = []
    while (chunk := chunker.next()) is not None:
        chunks.append(chunk)
        chunker.learn(chunk[0].backend, _timed(chunk, 0.001))
        chunker.draw_ahead(lambda: False)
    assert all(len({t.backend for t in chunk}) == 1 for chunk in chunks)
    handed = [t for chunk in chunks for t in chunk]
    for spec in ("mrv", "dlx"):
        expected = [t.tag for t in tasks if t.backend == spec]
        assert expected == [t.tag for t in handed if t.backend == spec]


def test_chunker_sizes_from_times_and_shrinks_the_last_chunks() -> None:
    """A probe of FIRST_CHUNK tasks, then CHUNK_TARGET_S of solving, then smaller ones."""
    chunker = Chunker(_chunker_tasks(10_000), threads=2)
    probe = chunker.next()
    chunker.learn("mrv", _timed(probe, 0.001))  # 1 ms a task: 1,000 in a full chunk
    chunker.draw_ahead(lambda: False)
    sizes = [len(probe)]
    while (chunk := chunker.next()) is not None:
        sizes.append(len(chunk))
    assert FIRST_CHUNK == sizes[0]
    assert round(CHUNK_TARGET_S / 0.001) == sizes[1]
    assert sizes[-2] < sizes[1] / 10  # the end is split between the threads
    assert max(1, round(MIN_CHUNK_S / 0.001)) >= min(sizes[1:-1])
    assert 10_000 == sum(sizes)
