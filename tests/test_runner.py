"""The runner and its workers: limits enforced from outside, rows never lost, answers checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.base import Status
from harness.puzzles.readers import PuzzleRecord
from harness.results import KEY_COLUMNS
from harness.run import runner
from harness.run.worker import Task, WorkerPool, handle, pool
from tests.conftest import pattern_puzzle
from tests.results_file import read_rows


def records(count: int = 2, box: int = 2) -> list[PuzzleRecord]:
    puzzle = pattern_puzzle(box, blanks_per_row=2)
    return [PuzzleRecord("mem.txt", i + 1, puzzle, None, None, "") for i in range(count)]


def config(tmp_path: Path, *specs: str, **kw: object) -> runner.RunConfig:
    return runner.RunConfig(backends=runner.resolve_backends(specs), out=tmp_path / "run.csv", **kw)


def statuses(path: Path) -> list[tuple[str, str]]:
    return [(r["backend"], r["status"]) for r in read_rows(path)[1]]


def test_sleeping_backend_is_killed_within_timeout(tmp_path: Path, fake_backends: dict) -> None:
    """A backend that sleeps forever is killed at its timeout, and the run completes."""
    result = runner.run(records(1), config(tmp_path, "sleep-forever", timeout=0.5))
    assert [("sleep-forever", "TIMEOUT")] == statuses(result.csv_path)


def test_backend_that_watches_the_clock_keeps_its_counters(
    tmp_path: Path, fake_backends: dict
) -> None:
    """A backend that stops at its time limit gives a TIMEOUT row with its node count."""
    result = runner.run(records(1), config(tmp_path, "watches-clock", timeout=0.3))
    row = read_rows(result.csv_path)[1][0]
    assert "TIMEOUT" == row["status"]
    assert int(row["nodes"]) > 0


def test_answer_after_the_timeout_is_timeout(tmp_path: Path, fake_backends: dict) -> None:
    """A right answer that comes after the timeout, before the kill, does not count."""
    result = runner.run(records(1), config(tmp_path, "answers-late", timeout=0.5))
    row = read_rows(result.csv_path)[1][0]
    assert ("TIMEOUT", "answered SOLVED after") == (row["status"], row["message"][:21])


def test_grid_larger_than_a_backend_supports_is_unavailable(tmp_path: Path) -> None:
    """naive on a 16x16 gets an UNAVAILABLE row naming the sizes, and mrv still runs."""
    result = runner.run(records(1, box=4), config(tmp_path, "naive", "mrv"))
    rows = {r["backend"]: (r["status"], r["message"]) for r in read_rows(result.csv_path)[1]}
    assert {
        "naive": ("UNAVAILABLE", "naive supports grids up to 9x9; this one is 16x16"),
        "mrv": ("SOLVED", ""),
    } == rows


def test_warmup_does_not_count_against_the_timeout(tmp_path: Path, fake_backends: dict) -> None:
    """A 1 s untimed warm-up does not use up a 0.5 s timeout."""
    result = runner.run(records(2), config(tmp_path, "slow-warmup", timeout=0.5))
    assert [("slow-warmup", "SOLVED")] * 2 == statuses(result.csv_path)


@pytest.mark.parametrize("spec", ["segfault", "exit-now", "raises"])
def test_dying_backend_is_error_and_run_goes_on(
    tmp_path: Path, fake_backends: dict, spec: str
) -> None:
    """A crash is ERROR with a message, and the rows after it are still measured."""
    result = runner.run(records(2), config(tmp_path, spec, "counting", seed=1))
    rows = read_rows(result.csv_path)[1]
    assert {(spec, "ERROR"), ("counting", "SOLVED")} == {(r["backend"], r["status"]) for r in rows}
    assert 4 == len(rows)
    assert all(r["message"] for r in rows if r["status"] == "ERROR")


def test_segfault_message_names_signal(tmp_path: Path, fake_backends: dict) -> None:
    """A segfaulting worker's row says SIGSEGV."""
    result = runner.run(records(1), config(tmp_path, "segfault"))
    assert "worker died: killed by SIGSEGV" == read_rows(result.csv_path)[1][0]["message"]


def test_exit_message_names_code(tmp_path: Path, fake_backends: dict) -> None:
    """A worker that calls os._exit(7) is reported with its exit code."""
    result = runner.run(records(1), config(tmp_path, "exit-now"))
    assert "worker died: exited with code 7" == read_rows(result.csv_path)[1][0]["message"]


def test_wrong_grid_is_wrong(tmp_path: Path, fake_backends: dict) -> None:
    """A valid grid that ignores the givens is WRONG, never SOLVED."""
    puzzle = pattern_puzzle(2, 2).with_cell(1, 0).with_cell(0, 2)  # givens the pattern breaks
    record = PuzzleRecord("mem.txt", 1, puzzle, None, None, "")
    result = runner.run([record], config(tmp_path, "wrong-grid"))
    row = read_rows(result.csv_path)[1][0]
    assert ("WRONG", "r1c1 changes the given 2 to 1") == (row["status"], row["message"])


def test_short_solve_over_the_memory_limit_is_memout(
    tmp_path: Path, fake_backends: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A solve too short to be sampled, but whose measured peak passes the limit, is MEMOUT.
    (Sampling is put off for the test: on a loaded machine the solve could last long enough
    to be sampled, and killed, which is MEMOUT another way.)"""
    for module in (handle, pool):
        monkeypatch.setattr(module, "MEMORY_POLL_S", 3600.0)
    result = runner.run(records(1), config(tmp_path, "counting", memory_limit_mib=1))
    row = read_rows(result.csv_path)[1][0]
    assert ("MEMOUT", "SOLVED, but the solve peaked at") == (row["status"], row["message"][:31])


def test_memory_hog_is_memout(tmp_path: Path, fake_backends: dict) -> None:
    """A backend that allocates without end is stopped as MEMOUT."""
    cfg = config(tmp_path, "hog", timeout=20, memory_limit_mib=300)
    result = runner.run(records(1), cfg)
    assert [("hog", "MEMOUT")] == statuses(result.csv_path)


def test_expected_count_is_checked(tmp_path: Path, fake_backends: dict) -> None:
    """A file that says 0 solutions turns a found solution into WRONG."""
    puzzle = pattern_puzzle(2, 2)
    record = PuzzleRecord("mem.txt", 1, puzzle, 0, None, "")
    result = runner.run([record], config(tmp_path, "counting"))
    assert [("counting", "WRONG")] == statuses(result.csv_path)


def test_unsat_refuted_by_the_harness_search(tmp_path: Path, fake_backends: dict) -> None:
    """An UNSAT claim on a solvable puzzle is WRONG as it is judged: the harness's own search
    finds a solution, with or without another backend's answer (nothing left to cross-check)."""
    result = runner.run(records(1), config(tmp_path, "claims-unsat", "counting"))
    assert {("claims-unsat", "WRONG"), ("counting", "SOLVED")} == set(statuses(result.csv_path))
    assert 0 == result.cross_checked


def test_repeat_keys_are_unique(tmp_path: Path, fake_backends: dict) -> None:
    """--repeat 3 writes repeats 0, 1, 2 for every (puzzle, backend)."""
    result = runner.run(records(2), config(tmp_path, "counting", repeat=3))
    keys = [tuple(r[c] for c in KEY_COLUMNS) for r in read_rows(result.csv_path)[1]]
    assert 6 == len(keys) == len(set(keys))


def test_resume_completes_without_duplicates(tmp_path: Path, fake_backends: dict) -> None:
    """A run cut short and resumed holds exactly one row per key."""
    cfg = config(tmp_path, "counting", "counting:nodes=7")
    runner.run(records(2), cfg)
    header, rows = read_rows(cfg.out)
    kept = rows[:3]
    text = (
        ",".join(header)
        + "\n"
        + "".join(",".join(f'"{r[c]}"' for c in header) + "\n" for r in kept)
    )
    cfg.out.write_text(text + '"mem.txt","2","torn')  # a row torn by a kill mid-write
    resumed = runner.run(records(2), config(tmp_path, "counting", "counting:nodes=7", resume=True))
    keys = [tuple(r[c] for c in KEY_COLUMNS) for r in read_rows(cfg.out)[1]]
    assert (4, 4, 3) == (len(keys), len(set(keys)), resumed.resumed)


def cut_to_header(path: Path) -> None:
    """Keep only the header of a results CSV: as if interrupted before its first row."""
    path.write_text(path.read_text().splitlines(keepends=True)[0])


def test_each_resume_keeps_the_earlier_runs_in_one_flat_list(
    tmp_path: Path, fake_backends: dict
) -> None:
    """Three resumes: the metadata lists the earlier runs, oldest first, none nested in
    another; an older file's runs, nested a level each, are taken out of it."""
    import json

    cfg = config(tmp_path, "counting")
    first = runner.run(records(2), cfg)
    for _ in range(3):
        cut_to_header(cfg.out)
        runner.run(records(2), config(tmp_path, "counting", resume=True))
    meta = json.loads(first.meta_path.read_text())
    earlier = meta["earlier_runs"]
    starts = [run["started"] for run in earlier]
    assert (3, sorted(starts), False) == (
        len(earlier),
        starts,
        any("earlier_runs" in run or "previous_session" in run for run in earlier),
    )
    del meta["earlier_runs"]
    nested = {**meta, "started": "deepest"}
    for k in range(200):  # as an older harness nested them, the newest outside
        nested = {**meta, "started": f"run {k}", "previous_session": nested}
    first.meta_path.write_text(json.dumps(nested))
    cut_to_header(cfg.out)
    runner.run(records(2), config(tmp_path, "counting", resume=True))
    flat = json.loads(first.meta_path.read_text())["earlier_runs"]
    assert ["deepest", *(f"run {k}" for k in range(200))] == [run["started"] for run in flat]
    assert not any("previous_session" in run for run in flat)


def test_parallel_jobs_run_all(tmp_path: Path, fake_backends: dict) -> None:
    """--jobs 2 measures every row once and records jobs=2."""
    result = runner.run(records(4), config(tmp_path, "counting", jobs=2))
    rows = read_rows(result.csv_path)[1]
    assert (4, {"2"}) == (len(rows), {r["jobs"] for r in rows})


def test_pool_replaces_killed_worker(fake_backends: dict) -> None:
    """After a timeout the pool goes on with a fresh worker."""
    puzzle = pattern_puzzle(2, 2)
    tasks = [Task("sleep-forever", puzzle, timeout=0.3), Task("counting", puzzle, timeout=5)]
    with WorkerPool(1) as pool:
        outcomes = [o.status for _, o in pool.run(tasks)]
    assert [Status.TIMEOUT, Status.SOLVED] == outcomes


def test_timeout_falls_on_the_task_running_behind_unsent_answers(fake_backends: dict) -> None:
    """A task hangs behind unsent answers: it alone is the TIMEOUT, timed from its own start."""
    puzzle = pattern_puzzle(2, 2)
    kinds = ["counting"] * 20 + ["sleep-forever"] + ["counting"] * 5
    tasks = [Task(kind, puzzle, timeout=0.3, tag=i) for i, kind in enumerate(kinds)]
    with WorkerPool(1) as pool:
        outcomes = sorted((task.tag, out.status, out.solve_s) for task, out in pool.run(tasks))
    statuses = [status for _, status, _ in outcomes]
    expected = [Status.SOLVED] * 20 + [Status.TIMEOUT] + [Status.SOLVED] * 5
    assert (list(range(26)), expected) == ([tag for tag, _, _ in outcomes], statuses)
    assert 0.3 <= outcomes[20][2] < 0.3 + 1.0  # killed within timeout + 1 s (kill_grace)


def test_pool_under_mixed_failures_answers_every_task_once(fake_backends: dict) -> None:
    """Two workers, queued short tasks among hangs, crashes and exits: one outcome each."""
    puzzle = pattern_puzzle(2, 2)
    kinds = ["counting"] * 6 + ["sleep-forever", "segfault", "exit-now", "raises"]
    tasks = [Task(kind, puzzle, timeout=0.3, tag=(i, kind)) for i, kind in enumerate(kinds * 3)]
    with WorkerPool(2) as pool:
        outcomes = sorted((task.tag, out.status) for task, out in pool.run(tasks))
    expected = {
        "counting": "SOLVED",
        "sleep-forever": "TIMEOUT",
        "segfault": "ERROR",
        "exit-now": "ERROR",
        "raises": "ERROR",
    }
    assert [((i, k), expected[k]) for i, k in enumerate(kinds * 3)] == outcomes


def test_metadata_fields(tmp_path: Path, fake_backends: dict) -> None:
    """The metadata JSON holds every provenance field the issue lists."""
    import json

    result = runner.run(records(1), config(tmp_path, "counting", timeout=3, seed=5))
    meta = json.loads(result.meta_path.read_text())
    assert {
        "command",
        "project_version",
        "git",
        "python",
        "packages",
        "machine",
        "limits",
        "seed",
        "started",
        "finished",
        "jobs",
        "repeat",
    } <= set(meta)
    assert {"cpu_model", "cpu_count", "os"} <= set(meta["machine"])
    assert {} == meta["packages"]  # the fake backends need no package
    assert 3 == meta["limits"]["timeout_s"]
    assert 5 == meta["seed"]
    assert meta["complete"] is True
    assert "sha" in meta["git"] and meta["python"]["version"]


def test_short_run_is_calibrated_at_its_start_only(tmp_path: Path, fake_backends: dict) -> None:
    """A run under a second records its start calibration; end_s is null, not a copy."""
    import json

    result = runner.run(records(1), config(tmp_path, "counting"))
    calibration = json.loads(result.meta_path.read_text())["calibration"]
    assert (True, None) == (calibration["start_s"] > 0, calibration["end_s"])


def test_run_of_a_second_is_calibrated_at_both_ends(tmp_path: Path, fake_backends: dict) -> None:
    """A run of a second or more records both calibrations."""
    import json

    result = runner.run(records(3), config(tmp_path, "watches-clock", timeout=0.4))
    calibration = json.loads(result.meta_path.read_text())["calibration"]
    assert (True, True) == (calibration["start_s"] > 0, calibration["end_s"] > 0)
